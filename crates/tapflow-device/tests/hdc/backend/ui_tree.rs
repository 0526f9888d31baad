//! UI tree dumps: dump, read and delete in one round trip, the dump scope, unique scratch paths,
//! a locked screen, and failed, truncated and unreadable dumps.

use std::time::Duration;

use pretty_assertions::assert_eq;
use tapflow_device::{Device, DeviceError, DumpScope, Output, TransportError};

use super::{Fake, SERIAL, cost, device, fixture, ok, scratch_path_in, shell};

fn dump_answer(json: String) -> impl Fn(&[String]) -> Result<Output, TransportError> {
    move |argv: &[String]| {
        let path = scratch_path_in(&argv[3], "json");
        ok(&format!("DumpLayout saved to:{path}\r\n{json}"))
    }
}

#[test]
fn ui_tree_dumps_reads_and_deletes_in_one_round_trip() {
    let json = fixture("layout_hmdriver2_uitest_demo_mate60pro_pretty.json");
    let fake = Fake::new().reply_with(dump_answer(json));
    let d = device(&fake);
    let root = d.ui_tree(&DumpScope::default()).unwrap();
    let calls = fake.calls();
    assert_eq!(calls.len(), 1);
    let path = scratch_path_in(&calls[0][3], "json");
    assert_eq!(
        calls[0],
        shell(&format!(
            "uitest dumpLayout -p '{path}' && cat '{path}'; rm -f '{path}'"
        ))
    );
    assert_eq!(
        fake.timeouts(),
        vec![Duration::from_secs(9)],
        "the dump deadline applies"
    );
    assert_eq!(d.cost(), cost(1, 1));
    assert_eq!(root.attr("bounds"), "[0,0][1260,2720]");
    assert!(root.node_count() > 20);
    assert!(!root.children.is_empty());
}

#[test]
fn ui_tree_scope_is_passed_to_uitest_and_paths_are_unique() {
    let json = fixture("layout_hmdriver2_uitest_demo_mate60pro_pretty.json");
    let fake = Fake::new()
        .reply_with(dump_answer(json.clone()))
        .reply_with(dump_answer(json));
    let d = device(&fake);
    let scope = DumpScope {
        bundle: Some("com.samples.test.uitest".into()),
        window_id: Some(155),
    };
    d.ui_tree(&scope).unwrap();
    d.ui_tree(&scope).unwrap();
    let calls = fake.calls();
    let p1 = scratch_path_in(&calls[0][3], "json");
    let p2 = scratch_path_in(&calls[1][3], "json");
    assert_ne!(p1, p2);
    assert_eq!(
        calls[0],
        shell(&format!(
            "uitest dumpLayout -p '{p1}' -b 'com.samples.test.uitest' -w 155 && cat '{p1}'; rm -f '{p1}'"
        ))
    );
    assert_eq!(d.cost(), cost(2, 2));
}

#[test]
fn locked_screen_is_recognised() {
    let json = fixture("layout_ohauto_dayu200_locked_screen_no_window_compact.json");
    let fake = Fake::new().reply_with(dump_answer(json.clone()));
    let e = device(&fake).ui_tree(&DumpScope::default()).unwrap_err();
    assert_eq!(
        e,
        DeviceError::ScreenLocked {
            serial: SERIAL.into()
        }
    );
    assert_eq!(e.code(), "SCREEN_LOCKED");

    // Scoped to a bundle, an empty dump means the scope matched no window.
    let fake = Fake::new().reply_with(dump_answer(json));
    let scope = DumpScope {
        bundle: Some("com.x.y".into()),
        window_id: None,
    };
    let e = device(&fake).ui_tree(&scope).unwrap_err();
    assert_eq!(e.code(), "UI_TREE_FETCH_ERROR");
}

#[test]
fn failed_dump_keeps_uitest_words() {
    let fake = Fake::new().reply(
        "DumpLayout failed:Get root node failed\ncat: /data/local/tmp/x.json: No such file or directory\n",
    );
    let e = device(&fake).ui_tree(&DumpScope::default()).unwrap_err();
    assert_eq!(e.code(), "UI_TREE_FETCH_ERROR");
    assert!(
        e.device_says()
            .unwrap()
            .contains("DumpLayout failed:Get root node failed")
    );
}

/// A device whose every dump comes back damaged: the dump is sent again within the
/// transient-retry budget (here 2 resends, 1 ms apart), then the contract's code stands.
fn resending_device(fake: &std::sync::Arc<Fake>) -> tapflow_device::hdc::HdcDevice {
    let mut config = super::config();
    config.transient_retry = tapflow_device::hdc::TransientRetry {
        retries: 2,
        backoff: Duration::from_millis(1),
    };
    tapflow_device::hdc::HdcDevice::new(
        SERIAL,
        tapflow_device::hdc::HdcRoute::target(SERIAL),
        fake.clone(),
        config,
    )
}

#[test]
fn truncated_dump_is_an_invalid_payload() {
    let json = fixture("layout_hmdriver2_uitest_demo_mate60pro_pretty.json");
    let cut = json[..json.len() / 2].to_string();
    let fake = Fake::new();
    for _ in 0..3 {
        fake.reply_with(dump_answer(cut.clone()));
    }
    let e = resending_device(&fake)
        .ui_tree(&DumpScope::default())
        .unwrap_err();
    assert_eq!(e.code(), "INVALID_UI_TREE_PAYLOAD");
    assert_eq!(fake.calls().len(), 3, "the dump and its 2 resends");
    fake.assert_script_used();
}

#[test]
fn saved_but_unreadable_dump_is_a_fetch_error() {
    let fake = Fake::new();
    for _ in 0..3 {
        fake.reply("DumpLayout saved to:/data/local/tmp/x.json\n");
    }
    let e = resending_device(&fake)
        .ui_tree(&DumpScope::default())
        .unwrap_err();
    assert_eq!(e.code(), "UI_TREE_FETCH_ERROR");
    assert_eq!(fake.calls().len(), 3, "the dump and its 2 resends");
    fake.assert_script_used();
}
