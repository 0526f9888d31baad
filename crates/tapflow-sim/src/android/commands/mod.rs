//! The Android device programs of the simulated phone and their exact output texts
//! (`docs/reference/adb.md`, AOSP `InputShellCommand`, `PackageManagerShellCommand`, `Am`,
//! `monkey`, `logcat`, uiautomator's `DumpCommand`).
//!
//! [`run`] dispatches one expanded argv (`argv[0]` may be a full path such as
//! `/system/bin/input`). Toybox-like builtins are shared with the HarmonyOS phone
//! (`crate::commands::{basic, files}`). An unknown program answers
//! `/system/bin/sh: <cmd>: inaccessible or not found` with status 127, so a client relying on
//! something outside the simulated subset fails loudly.

mod am;
mod dumpsys;
mod input;
mod logcat;
pub mod pm;
mod system;
mod ui;

pub use ui::writable as ui_writable;

use crate::commands::{CmdResult, basic, files};
use crate::shell::DeviceCtx;

use super::state::AndroidState;

/// The Android state of the device a shell runs on (set by `AndroidDevice::run`).
pub(crate) fn state<'a>(ctx: &DeviceCtx<'a>) -> std::sync::MutexGuard<'a, AndroidState> {
    ctx.android
        .expect("Android programs run with the Android state")
        .lock()
        .unwrap_or_else(|e| e.into_inner())
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
        "cat" => files::cat(ctx, args),
        "ls" => files::ls(ctx, args),
        "rm" => files::rm(ctx, args),
        "pidof" => system::pidof(ctx, args),
        "mkdir" => system::mkdir(ctx, args),
        "export" => CmdResult::ok(Vec::new()),
        "exec" if args.is_empty() => CmdResult::ok(Vec::new()),
        "exec" => run(ctx, args),
        "id" => CmdResult::ok(
            "uid=2000(shell) gid=2000(shell) groups=2000(shell),1004(input),1007(log),1011(adb),1015(sdcard_rw),1028(sdcard_r),3001(net_bt_admin),3002(net_bt),3003(inet),3006(net_bw_stats),3009(readproc),3011(uhid) context=u:r:shell:s0\n",
        ),
        "whoami" => CmdResult::ok("shell\n"),
        "getprop" => system::getprop(ctx, args),
        "settings" => system::settings(ctx, args),
        "ime" => system::ime(ctx, args),
        "wm" => ui::wm(ctx, args),
        "input" => input::run(ctx, args),
        "uiautomator" => ui::uiautomator(ctx, args),
        "screencap" => ui::screencap(ctx, args),
        "am" => am::am(ctx, args),
        "monkey" => am::monkey(ctx, args),
        "pm" => pm::pm(ctx, args),
        "cmd" => pm::cmd(ctx, args),
        "dumpsys" => dumpsys::run(ctx, args),
        "logcat" => logcat::run(ctx, args),
        other => CmdResult::fail_err(
            format!("/system/bin/sh: {other}: inaccessible or not found\n"),
            127,
        ),
    }
}
