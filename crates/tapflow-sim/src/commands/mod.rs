//! The HarmonyOS device programs of the simulated phone and their exact output texts, as the
//! table ([`HarmonyOs`]) the shared shell ([`crate::shell`]) runs.
//!
//! [`HarmonyOs::run`](crate::shell::Programs::run) dispatches one expanded argv (`argv[0]` may
//! be a full path such as `/system/bin/uitest`). Each program lives in its own module; the
//! programs every platform has come from [`crate::shell::builtins`]. An unknown program answers
//! `sh: <cmd>: not found` with status 127, so a client relying on something outside the
//! simulated subset fails loudly.

pub mod aa;
pub mod bm;
pub mod getopt;
pub mod hidumper;
pub mod hilog;
pub mod mediatool;
pub mod snapshot;
pub mod system;
pub mod uitest;

use crate::shell::{CmdResult, DeviceCtx, Programs, builtins};

/// The HarmonyOS program set.
#[derive(Debug, Clone, Copy, Default)]
pub struct HarmonyOs;

impl Programs for HarmonyOs {
    fn run(&self, ctx: &mut DeviceCtx<'_>, argv: &[String]) -> CmdResult {
        let name = argv[0].rsplit('/').next().unwrap_or(&argv[0]);
        let args = &argv[1..];
        match name {
            "param" => system::param(ctx, args),
            "pidof" => system::pidof(ctx, args),
            "power-shell" => system::power_shell(ctx, args),
            "uitest" => uitest::run(ctx, args),
            "snapshot_display" => snapshot::run(ctx, args),
            "aa" => aa::run(ctx, args),
            "bm" => bm::run(ctx, args),
            "hidumper" => hidumper::run(ctx, args),
            "hilog" => hilog::run(ctx, args),
            "mediatool" => mediatool::run(ctx, args),
            other => builtins::run(ctx, other, args)
                .unwrap_or_else(|| CmdResult::fail_err(format!("sh: {other}: not found\n"), 127)),
        }
    }

    fn is_streaming(&self, argv: &[String]) -> bool {
        hilog::is_streaming(argv)
    }

    fn stream(&self, ctx: &mut DeviceCtx<'_>, argv: &[String]) -> i32 {
        hilog::stream(ctx, argv)
    }
}
