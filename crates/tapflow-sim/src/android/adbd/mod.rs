//! The device side of the adb protocol over TCP (`docs/reference/adb-protocol.md`): messages ([`packet`]), a
//! connection's shared half ([`link`]) and its streams ([`stream`]), the services
//! ([`services`], [`shell_v2`], [`sync`]), the connection's handshake and reader ([`conn`]),
//! and the listener ([`server`], with the control it shares with its connections, [`ctl`]).
//!
//! Imports read one way: `packet` ← `link` ← `stream` ← the services ← `conn` ← `server`
//! (`ctl` sits on `link`, below `conn` and `server`).
//!
//! Advertised features decide the client's wire formats (`docs/reference/adb-protocol.md` §6, rule 4);
//! [`DEFAULT_FEATURES`] is what this device implements fully.

pub mod conn;
pub mod ctl;
pub mod link;
pub mod packet;
pub mod server;
pub mod services;
pub mod shell_v2;
pub mod stream;
pub mod sync;

pub use ctl::ServerCtl;
pub use server::DeviceServer;

/// `shell_v2` (framed shell with exit status), `cmd` (streamed install, `cmd package
/// uninstall`), `stat_v2` / `ls_v2` (72/76-byte sync records), `fixed_push_mkdir` (the device
/// creates parent directories on SEND), `abb_exec` (NUL-separated install arguments).
pub const DEFAULT_FEATURES: &[&str] = &[
    "shell_v2",
    "cmd",
    "stat_v2",
    "ls_v2",
    "fixed_push_mkdir",
    "abb_exec",
];
