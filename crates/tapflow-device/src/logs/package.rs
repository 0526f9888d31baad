//! `package_name` relevance: which lines belong to a bundle.
//!
//! A record is relevant when its text mentions the bundle name, or when it was logged by a
//! process attributed to the bundle. A process id is attributed when the scanned text gives
//! evidence that the process *is* the app, not merely that it talks about it (system services
//! such as `foundation` mention every bundle they start):
//! 1. a line mentioning the bundle carries an explicit `pid=N` / `pid:N` / `pid N` (AppMgr,
//!    hisysevent, `FilterAppTrace <bundle> <pid>` style lines);
//! 2. a line mentioning the bundle is logged by the app's own side: an app-type (`A`) line,
//!    or a line from the tags the app process itself emits at start and death
//!    (`AppKit`, `APPSPAWN`, `HitraceOption`, `JSAPP`, `Recovery`);
//! 3. a faultlogger header names the bundle as `Module name` with its `Pid`;
//! 4. Android: ActivityManager's `Start proc <pid>:<package>/…` line (logcat), and the crash
//!    block's `Process: <package>, PID: <pid>` (rule 1 reads it).

use std::collections::BTreeSet;
use std::sync::OnceLock;

use regex::Regex;

use super::hilog::LogType;
use super::scan::{Candidate, Scanned};

/// Tags logged from inside the app process (see module doc, rule 2).
pub const APP_PROCESS_TAGS: &[&str] = &["AppKit", "APPSPAWN", "HitraceOption", "JSAPP", "Recovery"];

fn pid_regex() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"(?i)\bpid\s*[=:]?\s*(\d{1,10})\b").expect("static pid regex"))
}

fn start_proc_regex() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"Start proc (\d{1,10}):([A-Za-z0-9_.]+)[/ ]").expect("static start regex")
    })
}

fn trace_regex() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"FilterAppTrace (\S+) (\d{1,10})\b").expect("static trace regex"))
}

/// Process ids attributed to `package` (module doc rules 1–3).
pub fn attribute_pids(
    package: &str,
    candidates: &[Candidate],
    scanned: &[Scanned],
) -> BTreeSet<u32> {
    let mut pids = BTreeSet::new();
    for c in candidates {
        if !c.text.contains(package) {
            continue;
        }
        for line in c.text.lines().filter(|l| l.contains(package)) {
            if let Some(caps) = trace_regex().captures(line)
                && &caps[1] == package
                && let Ok(p) = caps[2].parse()
            {
                pids.insert(p);
            }
            if let Some(caps) = start_proc_regex().captures(line)
                && &caps[2] == package
                && let Ok(p) = caps[1].parse()
            {
                pids.insert(p);
            }
            // Only the message part: the prefix's own pid column is not `pid=`-style evidence.
            let msg = line.split_once(": ").map_or(line, |(_, m)| m);
            for caps in pid_regex().captures_iter(msg) {
                if let Ok(p) = caps[1].parse() {
                    pids.insert(p);
                }
            }
        }
        let own_side = c.log_type == Some(LogType::App)
            || c.tag
                .as_deref()
                .is_some_and(|t| APP_PROCESS_TAGS.contains(&t));
        if own_side && let Some(p) = c.pid {
            pids.insert(p);
        }
    }
    for s in scanned {
        if let Some(r) = &s.crash_report
            && (r.module_name.as_deref() == Some(package)
                || r.process_name.as_deref() == Some(package))
            && let Some(p) = r.pid
        {
            pids.insert(p);
        }
    }
    pids
}

/// True when `c` is relevant to `package` given the attributed `pids`.
pub fn is_relevant(c: &Candidate, package: &str, pids: &BTreeSet<u32>) -> bool {
    c.text.contains(package) || c.pid.is_some_and(|p| pids.contains(&p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logs::scan::{SourceText, candidates, scan};
    use chrono::DateTime;

    fn pids_of(text: &str, pkg: &str) -> BTreeSet<u32> {
        let s = vec![scan(&SourceText {
            label: "t".into(),
            text: text.into(),
        })];
        let now = DateTime::parse_from_rfc3339("2026-01-23T21:05:00+08:00").unwrap();
        let c = candidates(&s, &now, false);
        attribute_pids(pkg, &c, &s)
    }

    #[test]
    fn explicit_pid_and_app_side_lines_attribute() {
        let text = "\
01-23 21:00:00.000   500   510 I C01300/AbilityMgr: start com.x.app, pid=4321
01-23 21:00:00.000   500   510 I C01300/AbilityMgr: start com.other
01-23 21:00:00.000  4321  4321 I C02d33/HitraceOption: FilterAppTrace com.x.app 4321
01-23 21:00:00.000  7777  7777 I A00000/testTag: com.x.app says hi
01-23 21:00:00.000   900   900 I C01510/BMS: query com.x.app bundle info
";
        // 500 (the system service) and 900 only talk about the bundle: not attributed.
        assert_eq!(pids_of(text, "com.x.app"), BTreeSet::from([4321, 7777]));
        assert!(pids_of(text, "com.absent").is_empty());
    }
}
