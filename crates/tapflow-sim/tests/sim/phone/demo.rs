//! The demo app's flows: login and its delay, the empty-username error, the remember toggle,
//! the list and its viewport, the reset dialog, a pending login dropped when the app dies.

use super::*;

#[test]
fn login_flow_honours_the_delay_and_logs_the_marker() {
    let (mut p, t0) = phone();
    start_demo(&mut p, t0);
    let d = dump(&p);
    assert_eq!(attr(by_id(&d, "title").unwrap(), "text"), "Tapflow Demo");
    assert_eq!(attr(by_id(&d, "username").unwrap(), "hint"), "Username");
    tap_id(&mut p, "username", t0);
    let d = dump(&p);
    assert_eq!(attr(by_id(&d, "username").unwrap(), "focused"), "true");
    let ime = d["children"]
        .as_array()
        .unwrap()
        .iter()
        .any(|w| attr(w, "bundleName") == "com.huawei.hmos.inputmethod");
    assert!(ime, "IME window shown while a field is focused");
    p.type_text("alice", &mut no_drop, t0).unwrap();
    tap_id(&mut p, "login", t0);
    // Not yet: the transition takes 800 ms of device time.
    p.tick(t0 + Duration::from_millis(799));
    assert!(by_id(&dump(&p), "greeting").is_none());
    assert!(by_id(&dump(&p), "login").is_some());
    p.tick(t0 + Duration::from_millis(800));
    let d = dump(&p);
    assert_eq!(
        attr(by_id(&d, "greeting").unwrap(), "text"),
        "Hello, alice!"
    );
    let app = &d["children"][0];
    assert_eq!(attr(app, "pagePath"), "pages/HomePage");
    let marker = p
        .hilog()
        .iter()
        .map(|r| r.format())
        .find(|l| l.contains("LOGIN_SUCCESS"))
        .expect("marker");
    assert!(
        marker.contains(" I A0d0d0/DemoApp: LOGIN_SUCCESS user=alice"),
        "{marker}"
    );
    let pid = p.pid_of(DEMO).unwrap();
    assert!(marker.contains(&format!("{pid:>5} {pid:>5} I")), "{marker}");
}

#[test]
fn empty_username_shows_the_error_and_stays() {
    let (mut p, t0) = phone();
    start_demo(&mut p, t0);
    assert!(by_id(&dump(&p), "error").is_none());
    tap_id(&mut p, "login", t0);
    p.tick(t0 + Duration::from_secs(2));
    let d = dump(&p);
    assert_eq!(
        attr(by_id(&d, "error").unwrap(), "text"),
        "Username is required"
    );
    assert!(by_id(&d, "greeting").is_none());
    assert!(
        !p.hilog()
            .iter()
            .any(|r| r.message.contains("LOGIN_SUCCESS"))
    );
}

#[test]
fn remember_toggle_flips_checked() {
    let (mut p, t0) = phone();
    start_demo(&mut p, t0);
    let d = dump(&p);
    let r = by_id(&d, "remember").unwrap();
    assert_eq!(
        (attr(r, "checkable"), attr(r, "checked"), attr(r, "text")),
        ("true", "false", "Remember me")
    );
    tap_id(&mut p, "remember", t0);
    assert_eq!(
        attr(by_id(&dump(&p), "remember").unwrap(), "checked"),
        "true"
    );
    tap_id(&mut p, "remember", t0);
    assert_eq!(
        attr(by_id(&dump(&p), "remember").unwrap(), "checked"),
        "false"
    );
}

#[test]
fn list_scrolls_to_item_40_and_only_viewport_items_are_dumped() {
    let (mut p, t0) = phone();
    let t = login(&mut p, "bob", t0);
    tap_id(&mut p, "open_items", t);
    let d = dump(&p);
    let list = by_id(&d, "items").unwrap();
    assert_eq!(attr(list, "scrollable"), "true");
    let lb = tapflow_device::model::Bounds::parse(attr(list, "bounds")).unwrap();
    assert!(by_text(&d, "Item 1").is_some());
    assert!(
        by_text(&d, "Item 40").is_none(),
        "Item 40 is far below the viewport"
    );
    for n in nodes(list).into_iter().skip(1) {
        let b = tapflow_device::model::Bounds::parse(attr(n, "bounds")).unwrap();
        assert!(
            b.top >= lb.top && b.bottom <= lb.bottom,
            "clipped to the viewport: {b}"
        );
    }
    let (cx, _) = center(list);
    let mut swipes = 0;
    while by_text(&dump(&p), "Item 40").is_none() {
        p.swipe((cx, lb.bottom - 100), (cx, lb.top + 100), 600, t);
        swipes += 1;
        assert!(swipes < 20, "never reached Item 40");
    }
    assert!(swipes >= 2);
    tap_id(&mut p, "item_40", t);
    let d = dump(&p);
    assert_eq!(
        attr(by_id(&d, "selected").unwrap(), "text"),
        "Selected: Item 40"
    );
    assert!(
        p.hilog()
            .iter()
            .any(|r| r.message == "ITEM_OPENED n=40" && r.tag == "DemoApp")
    );
    // Swiping far down stops at the end: Item 60 is the last one and visible.
    for _ in 0..20 {
        p.swipe((cx, lb.bottom - 100), (cx, lb.top + 100), 5000, t);
    }
    assert!(by_text(&dump(&p), "Item 60").is_some());
}

#[test]
fn reset_dialog_cancel_and_confirm() {
    let (mut p, t0) = phone();
    let t = login(&mut p, "carol", t0);
    tap_id(&mut p, "open_settings", t);
    tap_id(&mut p, "dark_mode", t);
    tap_id(&mut p, "reset", t);
    let d = dump(&p);
    let dialog = nodes(&d)
        .into_iter()
        .find(|n| attr(n, "type") == "Dialog")
        .expect("dialog");
    assert!(by_text(dialog, "Reset all data?").is_some());
    // Modal: the Reset button below does nothing while the dialog is up.
    tap_id(&mut p, "cancel", t);
    assert!(!nodes(&dump(&p)).iter().any(|n| attr(n, "type") == "Dialog"));
    assert!(!p.hilog().iter().any(|r| r.message == "DATA_RESET"));
    tap_id(&mut p, "reset", t);
    tap_id(&mut p, "confirm", t);
    let d = dump(&p);
    assert!(!nodes(&d).iter().any(|n| attr(n, "type") == "Dialog"));
    assert!(p.hilog().iter().any(|r| r.message == "DATA_RESET"));
    // Back closes the dialog first, then pops the page.
    tap_id(&mut p, "reset", t);
    p.key_event(&[KeyPress::Back], t);
    let d = dump(&p);
    assert!(!nodes(&d).iter().any(|n| attr(n, "type") == "Dialog"));
    assert!(by_id(&d, "dark_mode").is_some());
    p.key_event(&[KeyPress::Back], t);
    assert!(by_id(&dump(&p), "greeting").is_some());
}

#[test]
fn pending_login_is_dropped_when_the_app_dies() {
    let (mut p, t0) = phone();
    start_demo(&mut p, t0);
    tap_id(&mut p, "username", t0);
    p.type_text("eve", &mut no_drop, t0).unwrap();
    tap_id(&mut p, "login", t0);
    p.force_stop(DEMO, t0).unwrap();
    start_demo(&mut p, t0);
    p.tick(t0 + Duration::from_secs(5));
    assert!(
        by_id(&dump(&p), "login").is_some(),
        "the old process's transition never lands"
    );
    assert!(
        !p.hilog()
            .iter()
            .any(|r| r.message.contains("LOGIN_SUCCESS"))
    );
    // The system keeps logging in the background.
    assert!(
        p.hilog()
            .iter()
            .any(|r| r.tag == "BatteryService" || r.tag == "WifiService")
    );
}
