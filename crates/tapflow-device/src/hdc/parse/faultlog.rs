//! Listing of `/data/log/faultlog/faultlogger/` (`ls` output) into crash entries.
//!
//! File names are `<kind>-<process>-<uid>-<timestamp>[.log]`. Process names contain dots and may
//! contain dashes, so the uid and timestamp are taken from the right.
use crate::model::{CrashEntry, CrashKind};

/// Every name in the listing that is a crash file, in listing order. Works on plain `ls`
/// (one name per line or several per line), `ls -l` (the name is one of the columns) and
/// hidumper's `Fault log list:` block; anything else (`ls: …: No such file or directory`,
/// `No fault log exist.`) contributes nothing.
pub fn parse_crash_listing(text: &str) -> Vec<CrashEntry> {
    text.split_whitespace()
        .filter_map(parse_crash_file_name)
        .collect()
}

/// `cppcrash-<process>-<uid>-<timestamp>.log` and friends; `None` for other names.
///
/// Known kinds are `cppcrash`, `jscrash`, `appfreeze`, `sysfreeze`; another lower-case kind with
/// the same shape (`rustpanic-…`) is [`CrashKind::Other`]. A name with only a timestamp after the
/// process (no uid) gives `uid: None`.
pub fn parse_crash_file_name(name: &str) -> Option<CrashEntry> {
    // A path from `ls -d` or `find` names the same file.
    let file_name = name.rsplit('/').next()?.trim();
    let stem = file_name.strip_suffix(".log").unwrap_or(file_name);
    let (kind_text, rest) = stem.split_once('-')?;
    if kind_text.is_empty() || !kind_text.bytes().all(|b| b.is_ascii_lowercase()) {
        return None;
    }
    let kind = match kind_text {
        "cppcrash" => CrashKind::Cppcrash,
        "jscrash" => CrashKind::Jscrash,
        "appfreeze" => CrashKind::Appfreeze,
        "sysfreeze" => CrashKind::Sysfreeze,
        _ => CrashKind::Other,
    };
    let all_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let (before_ts, timestamp) = rest.rsplit_once('-')?;
    if !all_digits(timestamp) {
        return None;
    }
    let (process, uid) = match before_ts.rsplit_once('-') {
        Some((process, uid)) if all_digits(uid) && !process.is_empty() => {
            (process, uid.parse().ok())
        }
        _ => (before_ts, None),
    };
    if process.is_empty() || process.starts_with('-') || process.ends_with('-') {
        return None;
    }
    Some(CrashEntry {
        file_name: file_name.to_string(),
        kind,
        process: process.to_string(),
        uid,
        timestamp: timestamp.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_and_dashed_process_names() {
        let e =
            parse_crash_file_name("cppcrash-com.ohos.note-20010041-20240528201545123.log").unwrap();
        assert_eq!(e.kind, CrashKind::Cppcrash);
        assert_eq!(e.process, "com.ohos.note");
        assert_eq!(e.uid, Some(20010041));
        assert_eq!(e.timestamp, "20240528201545123");

        let e =
            parse_crash_file_name("jscrash-com.example.my-app-20020020-1716898545123.log").unwrap();
        assert_eq!(e.kind, CrashKind::Jscrash);
        assert_eq!(e.process, "com.example.my-app");
        assert_eq!(e.uid, Some(20020020));

        let e = parse_crash_file_name("appfreeze-com.a-20010041-20240101000000000").unwrap();
        assert_eq!(e.kind, CrashKind::Appfreeze);
        let e = parse_crash_file_name("sysfreeze-foundation-5523-20240101000000000.log").unwrap();
        assert_eq!(e.kind, CrashKind::Sysfreeze);
        let e = parse_crash_file_name("rustpanic-hdcd-0-20240101000000000.log").unwrap();
        assert_eq!(e.kind, CrashKind::Other);
        assert_eq!(e.uid, Some(0));
        let e = parse_crash_file_name("/data/log/faultlog/faultlogger/cppcrash-x-1-2.log").unwrap();
        assert_eq!(e.file_name, "cppcrash-x-1-2.log");
    }

    #[test]
    fn uid_missing_or_uid_out_of_range() {
        let e = parse_crash_file_name("cppcrash-init-20240101000000000.log").unwrap();
        assert_eq!((e.process.as_str(), e.uid), ("init", None));
        let e = parse_crash_file_name("cppcrash-p-99999999999-1.log").unwrap();
        assert_eq!(e.uid, None);
    }

    #[test]
    fn other_names_are_none() {
        for n in [
            "",
            "README",
            "cppcrash",
            "cppcrash-",
            "cppcrash--1-2.log",
            "cppcrash-com.a-1-abc.log",
            "Cppcrash-x-1-2.log",
            "ls:",
            "-rw-r-----",
            "hilog.log",
        ] {
            assert_eq!(parse_crash_file_name(n), None, "{n}");
        }
    }

    #[test]
    fn listing_forms() {
        let plain = "cppcrash-a-1-2.log\njscrash-b-3-4.log\n";
        assert_eq!(parse_crash_listing(plain).len(), 2);
        let long = "-rw-r----- 1 faultloggerd log 379000 2024-05-28 20:15 cppcrash-com.ohos.note-20010041-20240528201545123.log\n";
        assert_eq!(parse_crash_listing(long)[0].process, "com.ohos.note");
        assert!(
            parse_crash_listing("ls: /data/log/faultlog/faultlogger/: No such file or directory\n")
                .is_empty()
        );
        assert!(parse_crash_listing("No fault log exist.\n").is_empty());
    }
}
