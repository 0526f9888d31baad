//! System builtins: `getprop`, `settings`, `ime`, `pidof`, `mkdir`.

use crate::android::state::state;
use crate::shell::CmdResult;
use crate::shell::DeviceCtx;
use crate::shell::absolute;

/// `getprop [KEY]`: one value (empty line when unknown), or every `[key]: [value]`.
pub fn getprop(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    let props = state(ctx).profile.props();
    match args {
        [] => CmdResult::ok(
            props
                .iter()
                .map(|(k, v)| format!("[{k}]: [{v}]\n"))
                .collect::<String>(),
        ),
        [key] | [key, _] => {
            let v = props
                .get(key)
                .cloned()
                .or_else(|| args.get(1).cloned())
                .unwrap_or_default();
            CmdResult::ok(format!("{v}\n"))
        }
        _ => CmdResult::fail_err("usage: getprop [NAME [DEFAULT]]\n", 1),
    }
}

/// `settings [--user N|current] get|put|delete|list|reset NAMESPACE …` (AOSP
/// `SettingsService`): `list` prints `key=value` lines, `reset NS MODE` puts the
/// namespace back to the device's boot values.
pub fn settings(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    let usage = || {
        CmdResult::fail_err(
            "Invalid command: settings\nusage:  settings [--user <USER_ID> | current] get namespace key\n        settings [--user <USER_ID> | current] put namespace key value\n        settings [--user <USER_ID> | current] delete namespace key\n        settings [--user <USER_ID> | current] list namespace\n        settings [--user <USER_ID> | current] reset namespace {PACKAGE_NAME | RESET_MODE}\n",
            1,
        )
    };
    // `--user 0` / `--user current` address the only user there is.
    let args: &[String] = match args {
        [u, _, rest @ ..] if u == "--user" => rest,
        _ => args,
    };
    let ns_ok = |ns: &str| matches!(ns, "system" | "secure" | "global");
    match args {
        [op, ns, key] if op == "get" && ns_ok(ns) => {
            let v = state(ctx).setting(ns, key).unwrap_or("null").to_string();
            CmdResult::ok(format!("{v}\n"))
        }
        [op, ns, key, value, ..] if op == "put" && ns_ok(ns) => {
            state(ctx).put_setting(ns, key, value);
            CmdResult::ok(Vec::new())
        }
        [op, ns, key] if op == "delete" && ns_ok(ns) => {
            let mut st = state(ctx);
            let had = st
                .settings
                .remove(&(ns.to_string(), key.to_string()))
                .is_some();
            CmdResult::ok(format!("Deleted {} rows\n", u8::from(had)))
        }
        [op, ns] if op == "list" && ns_ok(ns) => {
            let st = state(ctx);
            let out: String = st
                .settings
                .iter()
                .filter(|((n, _), _)| n == ns)
                .map(|((_, k), v)| format!("{k}={v}\n"))
                .collect();
            CmdResult::ok(out)
        }
        [op, ns, _mode] if op == "reset" && ns_ok(ns) => {
            state(ctx).reset_settings(ns);
            CmdResult::ok(Vec::new())
        }
        _ => usage(),
    }
}

/// `ime list [-a] [-s] | enable ID | disable ID | set ID` (`IInputMethodManager` shell).
pub fn ime(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    let mut st = state(ctx);
    match args {
        [op, rest @ ..] if op == "list" => {
            let all = rest.iter().any(|a| a == "-a");
            let short = rest.iter().any(|a| a == "-s");
            let mut out = String::new();
            for (id, enabled) in &st.imes {
                if !all && !enabled {
                    continue;
                }
                if short {
                    out.push_str(&format!("{id}\n"));
                } else {
                    out.push_str(&format!("{id}:\n  mId={id} mSettingsActivity=null\n"));
                }
            }
            CmdResult::ok(out)
        }
        [op, id] if op == "enable" => match st.enable_ime(id) {
            Some(true) => CmdResult::ok(format!("Input method {id}: now enabled for user #0\n")),
            Some(false) => {
                CmdResult::ok(format!("Input method {id}: already enabled for user #0\n"))
            }
            None => CmdResult::fail_err(
                format!("Unknown input method {id} cannot be enabled for user #0\n"),
                255,
            ),
        },
        [op, id] if op == "disable" => match st.disable_ime(id) {
            Some(was) => CmdResult::ok(format!(
                "Input method {id}: {} for user #0\n",
                if was {
                    "now disabled"
                } else {
                    "already disabled"
                }
            )),
            None => CmdResult::fail_err(
                format!("Unknown input method {id} cannot be disabled for user #0\n"),
                255,
            ),
        },
        [op, id] if op == "set" => match st.set_ime(id) {
            true => CmdResult::ok(format!("Input method {id} selected for user #0\n")),
            false => CmdResult::fail_err(
                format!("Unknown input method {id} cannot be selected for user #0\n"),
                255,
            ),
        },
        _ => CmdResult::fail_err(
            "ime <command>:\n  list [-a] [-s]\n  enable [--user <USER_ID>] <ID>\n  disable [--user <USER_ID>] <ID>\n  set [--user <USER_ID>] <ID>\n",
            255,
        ),
    }
}

/// `pidof [-s] NAME…`: pids of running processes, space separated; status 1 when none.
pub fn pidof(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    let single = args.iter().any(|a| a == "-s");
    let names: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
    let phone = ctx.phone();
    let mut pids: Vec<String> = names
        .iter()
        .filter_map(|b| phone.pid_of(b))
        .map(|p| p.to_string())
        .collect();
    if single {
        pids.truncate(1);
    }
    if pids.is_empty() {
        CmdResult::fail_out(Vec::new(), 1)
    } else {
        CmdResult::ok(format!("{}\n", pids.join(" ")))
    }
}

/// `mkdir [-p] DIR…`: directories are implied by the files in them; an existing file is an
/// error, a missing parent without `-p` too.
pub fn mkdir(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    let parents = args.iter().any(|a| a == "-p");
    let phone = ctx.phone();
    let mut res = CmdResult::default();
    for d in args.iter().filter(|a| !a.starts_with('-')) {
        let path = absolute(d);
        let parent = path.rsplit_once('/').map(|(p, _)| p).unwrap_or("/");
        if phone.fs.is_file(&path) {
            res.err
                .extend_from_slice(format!("mkdir: '{d}': File exists\n").as_bytes());
            res.status = 1;
        } else if !parents
            && !parent.is_empty()
            && !phone.fs.is_dir(parent)
            && !phone.fs.is_dir(&path)
        {
            res.err
                .extend_from_slice(format!("mkdir: '{d}': No such file or directory\n").as_bytes());
            res.status = 1;
        }
    }
    res
}
