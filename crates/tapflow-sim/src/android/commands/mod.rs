//! The Android device programs of the simulated phone and their exact output texts
//! (`docs/reference/adb.md`, AOSP `InputShellCommand`, `PackageManagerShellCommand`, `Am`,
//! `monkey`, `logcat`, uiautomator's `DumpCommand`, the system services' dumps): one module per
//! program or group; [`intents`] resolves intents, [`services`] holds the other system
//! services, [`screenrecord`] and a streaming [`logcat`] run until their reader goes away.
//!
//! [`Android`] is the table the shared shell ([`crate::shell`]) runs: it dispatches one
//! expanded argv (`argv[0]` may be a full path such as `/system/bin/input`); the programs every
//! platform has come from [`crate::shell::builtins`]. An unknown program answers
//! `/system/bin/sh: <cmd>: inaccessible or not found` with status 127, so a client relying on
//! something outside the simulated subset fails loudly.

mod am;
mod dumpsys;
mod input;
mod instrument;
mod intents;
mod logcat;
pub mod pm;
mod screenrecord;
mod services;
mod system;
mod ui;

pub use ui::writable as ui_writable;

use crate::shell::{CmdResult, DeviceCtx, Programs, builtins};

/// The Android program set. The Android programs find the device's own state in the
/// context's platform slot (`crate::android::state::state`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Android;

impl Programs for Android {
    fn run(&self, ctx: &mut DeviceCtx<'_>, argv: &[String]) -> CmdResult {
        run(ctx, argv)
    }

    fn is_streaming(&self, argv: &[String]) -> bool {
        logcat::is_streaming(argv) || screenrecord::is_streaming(argv)
    }

    fn stream(&self, ctx: &mut DeviceCtx<'_>, argv: &[String]) -> i32 {
        if screenrecord::is_streaming(argv) {
            screenrecord::stream(ctx, argv)
        } else {
            logcat::stream(ctx, argv)
        }
    }
}

/// The programs in `/system/bin` the simulated device runs (its table above and the shared
/// builtins), for `which` and `command -v`.
const PROGRAMS: &[&str] = &[
    "pidof",
    "mkdir",
    "id",
    "whoami",
    "getprop",
    "settings",
    "ime",
    "wm",
    "input",
    "uiautomator",
    "screencap",
    "screenrecord",
    "am",
    "monkey",
    "pm",
    "cmd",
    "dumpsys",
    "logcat",
    "svc",
    "which",
    "echo",
    "printf",
    "true",
    "false",
    "sleep",
    "cat",
    "ls",
    "rm",
    "stat",
    "test",
    "sh",
];

/// mksh's own commands: `command -v` names them instead of a path.
const SHELL_BUILTINS: &[&str] = &[
    "export", "exec", "command", "echo", "test", "[", "true", "false",
];

fn bin_path(name: &str) -> Option<String> {
    let base = name.rsplit('/').next().unwrap_or(name);
    PROGRAMS
        .contains(&base)
        .then(|| format!("/system/bin/{base}"))
}

/// `which NAME…`: the path of each program found; status 1 when one is missing (toybox).
fn which(args: &[String]) -> CmdResult {
    let names: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
    if names.is_empty() {
        return CmdResult::fail_err("usage: which [-a] filename ...\n", 1);
    }
    let mut res = CmdResult::default();
    for n in names {
        match bin_path(n) {
            Some(p) => res.out.extend(format!("{p}\n").bytes()),
            None => res.status = 1,
        }
    }
    res
}

/// `command -v NAME`: the shell builtin's name or the program's path, status 1 when neither;
/// `command NAME ARGS` is refused loudly (the simulated shell runs programs directly).
fn command(args: &[String]) -> CmdResult {
    match args {
        [v, names @ ..] if (v == "-v" || v == "-V") && !names.is_empty() => {
            let mut res = CmdResult::default();
            for n in names {
                if SHELL_BUILTINS.contains(&n.as_str()) {
                    res.out.extend(format!("{n}\n").bytes());
                } else if let Some(p) = bin_path(n) {
                    res.out.extend(format!("{p}\n").bytes());
                } else {
                    res.status = 1;
                }
            }
            res
        }
        _ => CmdResult::fail_err(
            "/system/bin/sh: command: the simulated device supports `command -v NAME` only\n",
            1,
        ),
    }
}

/// Runs one device program.
fn run(ctx: &mut DeviceCtx<'_>, argv: &[String]) -> CmdResult {
    let name = argv[0].rsplit('/').next().unwrap_or(&argv[0]);
    let args = &argv[1..];
    match name {
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
        "svc" => services::svc(ctx, args),
        "screenrecord" => screenrecord::run(ctx, args),
        "which" => which(args),
        "command" => command(args),
        other => builtins::run(ctx, other, args).unwrap_or_else(|| {
            CmdResult::fail_err(
                format!("/system/bin/sh: {other}: inaccessible or not found\n"),
                127,
            )
        }),
    }
}
