//! `aa dump -l` (`--mission-list`) as a HarmonyOS phone prints it: the user's mission list, then
//! `ExtensionRecords:` (running service and UI extensions, SceneBoard's engine service among them
//! in state `#FOREGROUND`), `PendingWantRecords:` and `AppRunningRecords:` (every process, system
//! ones included). A parser that takes the first `state #FOREGROUND` it sees is therefore fooled
//! exactly as on a phone when no app is in the foreground. `-e`, `-p` and `-r` print one section,
//! `-a` all of them.

use super::texts;
use crate::latency::Cost;
use crate::phone::{AbilityRecords, ExtensionRow, MissionRow, PendingWantRow, ProcessRow};
use crate::shell::CmdResult;
use crate::shell::DeviceCtx;

pub fn run(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    let which = match args {
        [a] if a == "-l" || a == "--mission-list" => Sections::All,
        [a] if a == "-a" || a == "--all" => Sections::All,
        [a] if a == "-e" || a == "--extension" => Sections::Extensions,
        [a] if a == "-p" || a == "--pending" => Sections::Pending,
        [a] if a == "-r" || a == "--process" => Sections::Processes,
        [] => return CmdResult::fail_out(format!("{}{}", texts::NO_OPTION, texts::HELP_DUMP), 1),
        [a] if a == "-h" || a == "--help" => return CmdResult::fail_out(texts::HELP_DUMP, 1),
        _ => {
            return CmdResult::fail_out(
                format!(
                    "{}(the simulated device dumps -l, -a, -e, -p and -r)\n",
                    texts::HELP_DUMP
                ),
                1,
            );
        }
    };
    ctx.spend(Cost::BundleDump);
    let records = ctx.phone().ability_records();
    CmdResult::ok(format_records(&records, which))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sections {
    All,
    Extensions,
    Pending,
    Processes,
}

/// The whole dump text for the chosen sections.
fn format_records(r: &AbilityRecords, which: Sections) -> String {
    let mut s = String::from("User ID #100\n");
    if which == Sections::All {
        s.push_str(&format_missions(&r.missions));
    }
    if matches!(
        which,
        Sections::All | Sections::Extensions | Sections::Pending
    ) {
        s.push_str("  ExtensionRecords:\n");
        if which != Sections::Pending {
            for e in &r.extensions {
                s.push_str(&format_extension(e));
            }
        }
        if which != Sections::Extensions {
            s.push_str("    PendingWantRecords:\n");
            for p in &r.pending {
                s.push_str(&format_pending(p));
            }
        }
    }
    if matches!(which, Sections::All | Sections::Processes) {
        s.push_str("  AppRunningRecords:\n");
        for p in &r.processes {
            s.push_str(&format_process(p));
        }
    }
    s
}

/// The mission list (fixtures `aa_dump_l_kuaishou.txt`, `aa_dump_l_mission_list.txt`).
pub fn format_missions(missions: &[MissionRow]) -> String {
    let mut s = String::from("  current mission lists:{\n");
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

fn format_extension(e: &ExtensionRow) -> String {
    let mut s = format!(
        "    uri [/{b}/{m}/{u}]\n\
\x20     AbilityRecord ID #{id}   state #{st}   start time [{t}]\n\
\x20     main name [{a}]\n\
\x20     bundle name [{b}]\n\
\x20     ability type [{k}]\n\
\x20     app state #{app}\n\
\x20       isKeepAlive: {ka}\n\
\x20     Connections: {n}\n",
        b = e.bundle,
        m = e.module,
        u = e.uri_name,
        id = e.record_id,
        st = e.state,
        t = e.start_time,
        a = e.ability,
        k = e.kind,
        app = e.app_state,
        ka = e.keep_alive,
        n = e.connections.len(),
    );
    for c in &e.connections {
        s.push_str(&format!("       > {c}   connectionState #CONNECTED\n"));
    }
    if let Some((host_bundle, host_module, host_ability, pid)) = &e.root_host {
        s.push_str(&format!(
            "      root host bundle name [{host_bundle}]\n\
\x20     root host module name [{host_module}]\n\
\x20     root host ability name [{host_ability}]\n\
\x20     pid: {pid}\n"
        ));
    }
    s
}

fn format_pending(p: &PendingWantRow) -> String {
    format!(
        "        PendWantRecord ID #{id}  type #{ty}\n\
\x20       bundle name [{b}]\n\
\x20       result who []\n\
\x20       request code #0  flags #{flags}\n\
\x20       resolved type []\n\
\x20       Wants:\n\
\x20         uri [{uri}]\n\
\x20         resolved types []\n",
        id = p.id,
        ty = p.kind,
        b = p.bundle,
        flags = p.flags,
        uri = p.uri,
    )
}

fn format_process(p: &ProcessRow) -> String {
    let mut s = format!(
        "    AppRunningRecord ID #{id}\n\
\x20     process name [{name}]\n\
\x20     pid #{pid}  uid #{uid}\n\
\x20     state #{state}\n",
        id = p.record_id,
        name = p.name,
        pid = p.pid,
        uid = p.uid,
        state = p.state,
    );
    if let Some((label, pid)) = &p.related {
        s.push_str(&format!("      {label} #0\n        pid #{pid}\n"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mission_list_matches_the_kuaishou_fixture() {
        let fx = std::fs::read_to_string(format!(
            "{}/../../tests/fixtures/harmonyos/aa_dump_l_kuaishou.txt",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap();
        let text = format!(
            "User ID #100\n{}",
            format_missions(&[MissionRow {
                id: 139,
                bundle: "com.kuaishou.hmapp".into(),
                module: "kwai".into(),
                ability: "EntryAbility".into(),
                foreground: true,
            }])
        );
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
