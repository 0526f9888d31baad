//! The device-side programs of the simulated phone and their exact output texts.
//!
//! [`run`] dispatches one expanded argv (`argv[0]` may be a full path such as
//! `/system/bin/uitest`). Each program lives in its own module; small toybox-like builtins live
//! in [`files`] and [`basic`]. An unknown program answers `sh: <cmd>: not found` with status 127,
//! so a client relying on something outside the simulated subset fails loudly.

pub mod aa;
pub mod basic;
pub mod bm;
pub mod files;
pub mod getopt;
pub mod hidumper;
pub mod hilog;
pub mod mediatool;
pub mod snapshot;
pub mod uitest;

use crate::shell::DeviceCtx;

/// What one device program printed and its exit status.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CmdResult {
    pub out: Vec<u8>,
    pub err: Vec<u8>,
    pub status: i32,
}

impl CmdResult {
    /// Success with this stdout.
    pub fn ok(out: impl Into<Vec<u8>>) -> Self {
        Self {
            out: out.into(),
            err: Vec::new(),
            status: 0,
        }
    }

    /// Failure printed on stdout (most HarmonyOS tools print errors there).
    pub fn fail_out(out: impl Into<Vec<u8>>, status: i32) -> Self {
        Self {
            out: out.into(),
            err: Vec::new(),
            status,
        }
    }

    /// Failure printed on stderr (toybox-style).
    pub fn fail_err(err: impl Into<Vec<u8>>, status: i32) -> Self {
        Self {
            out: Vec::new(),
            err: err.into(),
            status,
        }
    }
}

/// Runs one device program.
pub fn run(ctx: &mut DeviceCtx<'_>, argv: &[String]) -> CmdResult {
    let name = argv[0].rsplit('/').next().unwrap_or(&argv[0]);
    let args = &argv[1..];
    match name {
        "echo" => basic::echo(args),
        "printf" => basic::printf(args),
        "true" => CmdResult::ok(Vec::new()),
        "false" => CmdResult::fail_out(Vec::new(), 1),
        "sleep" => basic::sleep(ctx, args),
        "param" => basic::param(ctx, args),
        "pidof" => basic::pidof(ctx, args),
        "power-shell" => basic::power_shell(ctx, args),
        "cat" => files::cat(ctx, args),
        "ls" => files::ls(ctx, args),
        "rm" => files::rm(ctx, args),
        "uitest" => uitest::run(ctx, args),
        "snapshot_display" => snapshot::run(ctx, args),
        "aa" => aa::run(ctx, args),
        "bm" => bm::run(ctx, args),
        "hidumper" => hidumper::run(ctx, args),
        "hilog" => hilog::run(ctx, args),
        "mediatool" => mediatool::run(ctx, args),
        other => CmdResult::fail_err(format!("sh: {other}: not found\n"), 127),
    }
}
