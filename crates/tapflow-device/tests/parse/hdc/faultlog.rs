//! Faultlogger crash files: a file name built from a real crash header, parsed back, and a
//! listing of two.

use tapflow_device::hdc::parse::faultlog::{parse_crash_file_name, parse_crash_listing};
use tapflow_device::model::CrashKind;

use super::cleaned;

/// No listing fixture exists; the crash file's own header gives a real process name, uid and
/// time, from which faultlogger's file name is built and parsed back.
#[test]
fn cppcrash_faultlogger_com_ohos_note_dayu200_head() {
    let text = cleaned("cppcrash_faultlogger_com_ohos_note_dayu200_head.txt");
    let field = |key: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(key))
            .unwrap_or_else(|| panic!("{key}"))
            .trim()
            .to_string()
    };
    let process = field("Process name:");
    let uid = field("Uid:");
    let stamp: String = field("Timestamp:")
        .chars()
        .filter(char::is_ascii_digit)
        .collect();
    let name = format!("cppcrash-{process}-{uid}-{stamp}.log");
    let e = parse_crash_file_name(&name).unwrap();
    assert_eq!(e.kind, CrashKind::Cppcrash);
    assert_eq!(e.process, "com.ohos.note");
    assert_eq!(e.uid, Some(20_010_019));
    assert_eq!(e.timestamp, "20260916151446000");
    let listing = format!("{name}\njscrash-com.example.nwpucampus-20020059-1769278942183.log\n");
    let all = parse_crash_listing(&listing);
    assert_eq!(all.len(), 2);
    assert_eq!(all[1].kind, CrashKind::Jscrash);
}
