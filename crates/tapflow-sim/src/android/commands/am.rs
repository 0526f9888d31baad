//! `am start|force-stop|broadcast|get-current-user` and `monkey` (AOSP
//! `ActivityManagerShellCommand`, monkey). `am start` takes a component (`-n`) or an intent
//! (`-a`, `-c`, `-d`, `-p`) resolved over the installed activities ([`super::intents`]).

use std::time::SystemTime;

use base64::Engine;

use super::intents::{Intent, resolve};
use crate::android::component::{activity_class, short_class};
use crate::android::state::ADB_KEYBOARD_IME;
use crate::android::state::state;
use crate::latency::Cost;
use crate::phone::model::AbilityKind;
use crate::phone::{KeyPress, Phone, codes};
use crate::shell::CmdResult;
use crate::shell::DeviceCtx;

/// The ability of `package` whose activity class is `class` (`.X` relative to the package).
fn ability_of(phone: &Phone, package: &str, class: &str) -> Option<(String, bool)> {
    let full = if class.starts_with('.') {
        format!("{package}{class}")
    } else {
        class.to_string()
    };
    let app = phone.installed_app(package)?;
    app.spec
        .abilities
        .iter()
        .filter(|a| a.kind == AbilityKind::Page)
        .find(|a| activity_class(package, &a.name) == full)
        .map(|a| (a.name.clone(), a.exported))
}

/// The launcher activity of `package`: `(ability name, activity class)`.
pub fn launcher_of(phone: &Phone, package: &str) -> Option<(String, String)> {
    let app = phone.installed_app(package)?;
    let a = app.spec.abilities.iter().find(|a| a.launcher)?;
    Some((a.name.clone(), activity_class(package, &a.name)))
}

pub fn am(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    match args.split_first() {
        Some((c, rest)) if c == "start" || c == "start-activity" => start(ctx, rest),
        Some((c, rest)) if c == "force-stop" => {
            let Some(pkg) = rest.iter().find(|a| !a.starts_with('-')) else {
                return CmdResult::fail_err("Error: no package specified\n", 255);
            };
            ctx.spend(Cost::ForceStop);
            // Silent, even for an unknown package.
            let _ = ctx.phone().force_stop(pkg, SystemTime::now());
            CmdResult::ok(Vec::new())
        }
        Some((c, rest)) if c == "broadcast" => broadcast(ctx, rest),
        // The shell user is user 0 (the only user of the simulated device).
        Some((c, _)) if c == "get-current-user" => CmdResult::ok("0\n"),
        Some((c, rest)) if c == "instrument" => super::instrument::run(ctx, rest),
        _ => CmdResult::fail_err(
            "Activity manager (activity) commands:\n  start [-W] [-S] -n <COMPONENT> | [-a <ACTION>] [-c <CATEGORY>] [-d <DATA>] [-p <PACKAGE>]\n  get-current-user\n  force-stop <PACKAGE>\n  broadcast -a <ACTION> [--es <KEY> <VALUE>]...\n(the simulated device supports these)\n",
            255,
        ),
    }
}

fn start(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    let mut wait = false;
    let mut stop_first = false;
    let mut component = None;
    let (intent, rest) = Intent::parse(args);
    let mut it = rest.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-W" => wait = true,
            "-S" => stop_first = true,
            "-n" => component = it.next().cloned(),
            "--user" | "-t" | "-f" | "--es" | "--ei" | "--ez" => {
                it.next();
                if a.starts_with("--e") {
                    it.next();
                }
            }
            _ => {}
        }
    }
    let component = match component {
        Some(c) => c,
        None => {
            let found = resolve(&ctx.phone(), &intent);
            let shown = intent.describe(None);
            match found.as_slice() {
                [(p, c)] => format!("{p}/{c}"),
                [] => {
                    return CmdResult {
                        out: format!("Starting: Intent {{ {shown} }}\n").into_bytes(),
                        err: format!(
                            "Error: Activity not started, unable to resolve Intent {{ {} }}\n",
                            intent.describe(Some("0x10000000"))
                        )
                        .into_bytes(),
                        status: 255,
                    };
                }
                many => {
                    return CmdResult::fail_err(
                        format!(
                            "Error: {} activities answer Intent {{ {shown} }}; a device would show its chooser, which the simulated device does not: name one with -p PKG or -n PKG/CLASS\n",
                            many.len()
                        ),
                        255,
                    );
                }
            }
        }
    };
    let Some((package, class)) = component.split_once('/') else {
        return CmdResult::fail_err(format!("Error: Bad component name: {component}\n"), 255);
    };
    let full = if class.starts_with('.') {
        format!("{package}{class}")
    } else {
        class.to_string()
    };
    let cmp = format!("{package}/{}", short_class(package, &full));
    let shown = intent.describe(None);
    let mut out = if shown.is_empty() {
        format!("Starting: Intent {{ cmp={cmp} }}\n")
    } else if args.iter().any(|a| a == "-n") {
        format!("Starting: Intent {{ {shown} cmp={cmp} }}\n")
    } else {
        format!("Starting: Intent {{ {shown} }}\n")
    };
    ctx.spend(Cost::AbilityStart);
    let now = SystemTime::now();
    let mut phone = ctx.phone();
    let Some((ability, exported)) = ability_of(&phone, package, class) else {
        return CmdResult {
            out: out.into_bytes(),
            err: format!(
                "Error type 3\nError: Activity class {{{package}/{full}}} does not exist.\n"
            )
            .into_bytes(),
            status: 255,
        };
    };
    if !exported {
        return CmdResult {
            out: out.into_bytes(),
            err: format!("Security exception: Permission Denial: starting Intent {{ flg=0x10000000 cmp={cmp} }} from null (pid=4242, uid=2000) not exported from uid 10134\n").into_bytes(),
            status: 255,
        };
    }
    if stop_first {
        let _ = phone.force_stop(package, now);
    }
    let on_top = phone.foreground_bundle() == Some(package) && phone.pid_of(package).is_some();
    let cold = phone.pid_of(package).is_none();
    if let Err(e) = phone.start_ability(package, &ability, None, now) {
        let msg = if e.code == codes::ABILITY_NOT_EXIST {
            format!("Error type 3\nError: Activity class {{{package}/{full}}} does not exist.\n")
        } else {
            format!("Error: {}\n", e.message)
        };
        return CmdResult {
            out: out.into_bytes(),
            err: msg.into_bytes(),
            status: 255,
        };
    }
    let mut err = String::new();
    if on_top {
        err.push_str("Warning: Activity not started, intent has been delivered to currently running top-most instance.\n");
    }
    if wait {
        out.push_str(&format!(
            "Status: ok\nLaunchState: {}\nActivity: {cmp}\nTotalTime: 350\nWaitTime: 352\nComplete\n",
            if cold { "COLD" } else if on_top { "UNKNOWN (0)" } else { "WARM" }
        ));
    }
    CmdResult {
        out: out.into_bytes(),
        err: err.into_bytes(),
        status: 0,
    }
}

/// `am broadcast -a ACTION [-p PKG] [--es K V] [--ei K N]…`. ADBKeyBoard, when it is the active input
/// method, types `ADB_INPUT_TEXT` / `ADB_INPUT_B64` text and sends `ADB_INPUT_CODE` keys.
fn broadcast(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    let mut action = None;
    let mut package = None;
    let mut extras: Vec<(String, String)> = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-a" => action = it.next().cloned(),
            "-p" => package = it.next().cloned(),
            "--es" | "--ei" | "--ez" | "--el" | "--eia" => {
                if let (Some(k), Some(v)) = (it.next(), it.next()) {
                    extras.push((k.clone(), v.clone()));
                }
            }
            _ => {}
        }
    }
    let Some(action) = action else {
        return CmdResult::fail_err(
            "Error: the simulated device broadcasts by action only (-a)\n",
            255,
        );
    };
    ctx.spend(Cost::Builtin);
    let flags = if extras.is_empty() {
        ""
    } else {
        " (has extras)"
    };
    // `Intent.toShortString` order: action, flags, package, then the extras mark.
    let pkg = package.map(|p| format!(" pkg={p}")).unwrap_or_default();
    let out = format!(
        "Broadcasting: Intent {{ act={action} flg=0x400000{pkg}{flags} }}\nBroadcast completed: result=0\n"
    );
    let keyboard_active = state(ctx).current_ime() == ADB_KEYBOARD_IME;
    if keyboard_active {
        let msg = extras
            .iter()
            .find(|(k, _)| k == "msg")
            .map(|(_, v)| v.clone());
        let now = SystemTime::now();
        match (action.as_str(), msg) {
            ("ADB_INPUT_TEXT", Some(text)) => {
                let _ = ctx.phone().commit_text(&text, now);
            }
            ("ADB_INPUT_B64", Some(b64)) => {
                if let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(b64.trim())
                    && let Ok(text) = String::from_utf8(bytes)
                {
                    let _ = ctx.phone().commit_text(&text, now);
                }
            }
            ("ADB_INPUT_CODE", _) => {
                if let Some(code) = extras
                    .iter()
                    .find(|(k, _)| k == "code")
                    .and_then(|(_, v)| v.parse::<u32>().ok())
                {
                    let key = match code {
                        67 => Some(KeyPress::Code(crate::phone::keycode::DEL)),
                        66 => Some(KeyPress::Code(crate::phone::keycode::ENTER)),
                        _ => None,
                    };
                    if let Some(k) = key {
                        ctx.phone().key_event(&[k], now);
                    }
                }
            }
            _ => {}
        }
    }
    CmdResult::ok(out)
}

/// `monkey -p PKG [-c CATEGORY]… COUNT`: starts the launcher activity (the simulated monkey
/// injects that one event only); no launcher activity → `** No activities found to run, monkey
/// aborted.`
pub fn monkey(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    let mut pkg = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "-p" {
            pkg = it.next().cloned();
        } else if a == "-c" || a == "--throttle" || a == "-s" {
            it.next();
        }
    }
    let echo: String = args.iter().map(|a| format!("  bash arg: {a}\n")).collect();
    let aborted = || CmdResult {
        out: echo.clone().into_bytes(),
        err: b"** No activities found to run, monkey aborted.\n".to_vec(),
        status: 252,
    };
    let Some(pkg) = pkg else { return aborted() };
    ctx.spend(Cost::AbilityStart);
    let mut phone = ctx.phone();
    let Some((ability, _)) = launcher_of(&phone, &pkg) else {
        return aborted();
    };
    if phone
        .start_ability(&pkg, &ability, None, SystemTime::now())
        .is_err()
    {
        return aborted();
    }
    CmdResult::ok(format!(
        "{echo}Events injected: 1\n## Network stats: elapsed time=18ms (0ms mobile, 0ms wifi, 18ms not connected)\n"
    ))
}
