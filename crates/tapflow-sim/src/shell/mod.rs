//! The simulated device's `sh -c`, shared by every platform: a parser for the subset real hdc
//! and adb clients send ([`parse`]), an executor ([`exec`]) that runs the parsed list against
//! one device ([`ctx`]), applying `;`/`&&`/`||`, `$?`, redirections to phone files or
//! `/dev/null`, and unquoted globs over the phone's files, and the programs every platform has
//! ([`builtins`]: `echo`, `printf`, `sleep`, `true`, `false`, `cat`, `ls`, `rm`, `stat -c`,
//! `test` / `[`).
//!
//! Imports read one way: the platforms' program sets ([`crate::commands`] for HarmonyOS,
//! [`crate::android::commands`]) sit above this module and hand it their table
//! ([`Programs`]); nothing here names a platform.

pub mod builtins;
pub mod ctx;
pub mod exec;
pub mod parse;

pub use ctx::{CmdResult, DeviceCtx, Programs, Sink, absolute};
pub use exec::run_script;
