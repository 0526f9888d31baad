//! `aa dump -l`: the mission list.

use tapflow_device::hdc::parse::{aa::parse_missions, clean_output};

use super::{cleaned, fixture};

#[test]
fn aa_dump_l_kuaishou() {
    let m = parse_missions(&cleaned("aa_dump_l_kuaishou.txt"));
    assert_eq!(m.len(), 1);
    assert_eq!(m[0].mission_id, 139);
    assert_eq!(m[0].bundle, "com.kuaishou.hmapp");
    assert_eq!(m[0].module.as_deref(), Some("kwai"));
    assert_eq!(m[0].ability, "EntryAbility");
    assert_eq!(m[0].state, "FOREGROUND");
}

#[test]
fn aa_dump_l_mission_list() {
    // CRLF as captured on Windows: parsed raw and cleaned alike.
    let raw = fixture("aa_dump_l_mission_list.txt");
    let m = parse_missions(&clean_output(&raw));
    assert_eq!(parse_missions(&raw), m);
    // Extension records below the mission list are not missions.
    assert_eq!(m.len(), 1);
    assert_eq!(m[0].mission_id, 368);
    assert_eq!(m[0].bundle, "com.huawei.hmsapp.himovie");
    assert_eq!(m[0].module.as_deref(), Some("entry"));
    assert_eq!(m[0].ability, "MainAbility");
    assert_eq!(m[0].state, "FOREGROUND");
}
