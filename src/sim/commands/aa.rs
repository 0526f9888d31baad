//! `aa` (ability assistant): `start -a -b [-m]`, `force-stop`, `dump -l` with the real texts.

use super::CmdResult;
use crate::sim::latency::Cost;
use crate::sim::phone::MissionRow;
use crate::sim::shell::DeviceCtx;

pub fn run(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    match args.first().map(String::as_str) {
        Some("start") => start(ctx, &args[1..]),
        Some("force-stop") => force_stop(ctx, &args[1..]),
        Some("dump") => dump(ctx, &args[1..]),
        Some(other) => {
            CmdResult::fail_out(format!("error: unknown option.\n{}", help(Some(other))), 1)
        }
        None => CmdResult::ok(help(None)),
    }
}

fn help(_bad: Option<&str>) -> String {
    "usage: aa <command> <options>\n\
These are common aa commands list:\n\
\x20 help                        list available commands\n\
\x20 start                       start ability with options\n\
\x20 stop-service                stop service with options\n\
\x20 dump                        dump the ability info\n\
\x20 force-stop <bundle-name>    force stop the process with bundle name\n\
\x20 test                        start the test framework with options\n"
        .to_string()
}

fn start(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    let mut ability = None;
    let mut bundle = None;
    let mut module = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let slot = match a.as_str() {
            "-a" => &mut ability,
            "-b" => &mut bundle,
            "-m" => &mut module,
            // Flags without values that real clients pass; they change nothing here.
            "-D" | "-S" | "-C" | "-c" | "-N" => continue,
            other => {
                return CmdResult::fail_out(
                    format!(
                        "error: unknown option.\nerror: option {other} is not supported by the simulated device\n"
                    ),
                    1,
                );
            }
        };
        match it.next() {
            Some(v) => *slot = Some(v.clone()),
            None => {
                return CmdResult::fail_out(
                    format!("error: option requires a value.\n{}", start_usage()),
                    1,
                );
            }
        }
    }
    let (Some(ability), Some(bundle)) = (ability, bundle) else {
        return CmdResult::fail_out(
            format!(
                "error: -a <ability-name> and -b <bundle-name> are required.\n{}",
                start_usage()
            ),
            1,
        );
    };
    ctx.spend(Cost::AbilityStart);
    let now = std::time::SystemTime::now();
    let res = ctx
        .phone()
        .start_ability(&bundle, &ability, module.as_deref(), now);
    match res {
        Ok(()) => CmdResult::ok("start ability successfully.\n"),
        Err(e) => CmdResult::fail_out(
            format!(
                "error: failed to start ability.\nError Code:{}  Error Message:{}\n",
                e.code, e.message
            ),
            1,
        ),
    }
}

fn start_usage() -> &'static str {
    "usage: aa start <options>\n\
options list:\n\
\x20 -h, --help                                                   list available commands\n\
\x20 [-d <device-id>] -a <ability-name> -b <bundle-name> [-m <module-name>] [-D]  start ability with an element name\n"
}

fn force_stop(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    let [bundle] = args else {
        return CmdResult::fail_out("error: failed to force stop process.\n", 1);
    };
    ctx.spend(Cost::ForceStop);
    let now = std::time::SystemTime::now();
    match ctx.phone().force_stop(bundle, now) {
        Ok(()) => CmdResult::ok("force stop process successfully.\n"),
        Err(_) => CmdResult::fail_out("error: failed to force stop process.\n", 1),
    }
}

fn dump(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    if !matches!(args, [a] if a == "-l" || a == "--mission-list") {
        return CmdResult::fail_out(
            "error: the simulated device supports `aa dump -l` only.\n",
            1,
        );
    }
    ctx.spend(Cost::BundleDump);
    let missions = ctx.phone().missions();
    CmdResult::ok(format_missions(&missions))
}

/// The mission list as `aa dump -l` prints it (fixture `aa_dump_l_kuaishou.txt`).
pub fn format_missions(missions: &[MissionRow]) -> String {
    let mut s = String::from("User ID #100\n  current mission lists:{\n");
    for (i, m) in missions.iter().enumerate() {
        let state = if m.foreground {
            "FOREGROUND"
        } else {
            "BACKGROUND"
        };
        s.push_str(&format!(
            "    Mission ID #{id}  mission name #[#{b}:{md}:{ab}]  lockedState #0  mission affinity #[]\n\
\x20     AbilityRecord ID #{rec}\n\
\x20       app name [{b}]\n\
\x20       main name [{ab}]\n\
\x20       bundle name [{b}]\n\
\x20       ability type [PAGE]\n\
\x20       state #{state}  start time [{start}]\n\
\x20       app state #{state}\n\
\x20       ready #1  window attached #0  launcher #0\n\
\x20       callee connections:\n\
\x20       isKeepAlive: false\n",
            id = m.id,
            b = m.bundle,
            md = m.module,
            ab = m.ability,
            rec = 50 + i,
            start = 150_000 + m.id * 17,
        ));
    }
    s.push_str(" }\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mission_list_matches_the_fixture() {
        let fx = std::fs::read_to_string(format!(
            "{}/tests/fixtures/harmonyos/aa_dump_l_kuaishou.txt",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap();
        let text = format_missions(&[MissionRow {
            id: 139,
            bundle: "com.kuaishou.hmapp".into(),
            module: "kwai".into(),
            ability: "EntryAbility".into(),
            foreground: true,
        }]);
        // Record ids and start times are the device's own counters.
        let norm = |t: &str| {
            let t = regex::Regex::new(r"AbilityRecord ID #\d+")
                .unwrap()
                .replace(t, "AbilityRecord ID #N");
            regex::Regex::new(r"start time \[\d+\]")
                .unwrap()
                .replace(&t, "start time [T]")
                .into_owned()
        };
        assert_eq!(norm(&text), norm(&fx));
    }
}
