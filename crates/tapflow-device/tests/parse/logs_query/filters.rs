//! Filters: tag, search, keyword, domain, pid and package name.

use serde_json::{Value, json};

use super::{fixture, run, synthetic};

#[test]
fn tag_tag_search_keyword_domain_pid_filters() {
    let base = json!({"logs": synthetic(), "level": "D"});
    let with = |k: &str, v: Value| {
        let mut p = base.clone();
        p[k] = v;
        run(p)
    };
    assert_eq!(with("tag", json!("Login")).match_count, 5);
    assert_eq!(with("tag", json!("login")).match_count, 0, "tag is exact");
    assert_eq!(with("tag_search", json!("LOG")).match_count, 5);
    assert_eq!(with("tag_search", json!("ace")).match_count, 1);
    assert_eq!(
        with("keyword", json!("FAILED CODE")).match_count,
        2,
        "case-insensitive"
    );
    assert_eq!(with("keyword", json!("failedcode")).match_count, 0);
    assert_eq!(with("keyword", json!("request FAILED")).match_count, 2);
    assert_eq!(with("domain", json!("0x3900")).match_count, 1);
    assert_eq!(with("domain", json!("0xD003900")).match_count, 1);
    assert_eq!(
        with("domain", json!("A03900")).match_count,
        0,
        "type letter must match too"
    );
    assert_eq!(with("domain", json!("C01d02")).match_count, 1);
    assert_eq!(with("pid", json!(4321)).match_count, 5);
    assert_eq!(
        with("pid", json!(4322)).match_count,
        0,
        "4322 is a tid, not a pid"
    );
    let f = with("pid", json!(4321)).filters_applied;
    assert_eq!(f.pid, Some(4321));
}

#[test]
fn package_name_takes_mentions_and_attributed_pids() {
    let r = run(json!({"logs": synthetic(), "level": "D", "package_name": "com.demo.app"}));
    // The AbilityMgr line mentions it (pid=4321 attributes 4321); the 5 lines of 4321 follow.
    assert_eq!(r.match_count, 6);
    assert_eq!(r.filters_applied.package_pids, Some(vec![4321]));
    let errors = run(json!({"logs": synthetic(), "package_name": "com.demo.app"}));
    assert_eq!(errors.match_count, 2);
    // On the real crash hilog the app pid is attributed from APPSPAWN/AppKit lines.
    let text = fixture("jscrash_with_hilog_emulator6_illegal_prop.txt");
    let hilog: Vec<&str> = text
        .lines()
        .skip_while(|l| *l != "HiLog:")
        .skip(1)
        .collect();
    let r = run(json!({"logs": hilog, "package_name": "com.example.nwpucampus"}));
    assert_eq!(r.filters_applied.package_pids, Some(vec![8960]));
    let none = run(json!({"logs": hilog, "package_name": "com.other.app"}));
    assert!(!none.matched);
}
