//! The simulated phone through its public API: the demo app's flows, lists, dialogs, crashes,
//! password masking, exact text input, screenshots, hap installation and recorded layouts.

use proptest::prelude::*;
use serde_json::Value;
use std::time::{Duration, SystemTime};
use tapflow_device::model::{ImageFormat, UiNode};
use tapflow_sim::phone::{KeyPress, LayoutOptions, Phone, PhoneProfile, keycode};

use tapflow_sim::DEMO_BUNDLE as DEMO;

fn phone() -> (Phone, SystemTime) {
    (
        Phone::new(PhoneProfile::default_for("SIM-0001", 0)),
        SystemTime::now(),
    )
}

fn dump(p: &Phone) -> Value {
    p.layout(&LayoutOptions::default()).expect("dump")
}

/// Every node (depth first) of a dump.
fn nodes(v: &Value) -> Vec<&Value> {
    let mut out = vec![v];
    for c in v["children"].as_array().into_iter().flatten() {
        out.extend(nodes(c));
    }
    out
}

fn attr<'a>(n: &'a Value, k: &str) -> &'a str {
    n["attributes"][k].as_str().unwrap_or("")
}

fn by_id<'a>(v: &'a Value, id: &str) -> Option<&'a Value> {
    nodes(v).into_iter().find(|n| attr(n, "id") == id)
}

fn by_text<'a>(v: &'a Value, text: &str) -> Option<&'a Value> {
    nodes(v).into_iter().find(|n| attr(n, "text") == text)
}

fn center(n: &Value) -> (i32, i32) {
    let b = tapflow_device::model::Bounds::parse(attr(n, "bounds")).expect("bounds");
    let c = b.center();
    (c.x, c.y)
}

fn tap_id(p: &mut Phone, id: &str, now: SystemTime) {
    let d = dump(p);
    let n = by_id(&d, id).unwrap_or_else(|| panic!("no node {id} in {d:#}"));
    let (x, y) = center(n);
    p.click(x, y, now);
}

fn no_drop(_: char) -> bool {
    false
}

fn start_demo(p: &mut Phone, now: SystemTime) {
    p.start_ability(DEMO, "EntryAbility", None, now).unwrap();
}

fn login(p: &mut Phone, user: &str, now: SystemTime) -> SystemTime {
    start_demo(p, now);
    tap_id(p, "username", now);
    p.type_text(user, &mut no_drop, now).unwrap();
    tap_id(p, "login", now);
    let later = now + Duration::from_millis(800);
    p.tick(later);
    later
}

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
fn crash_writes_jscrash_and_kills_the_app() {
    let (mut p, t0) = phone();
    let t = login(&mut p, "dave", t0);
    let pid = p.pid_of(DEMO).unwrap();
    tap_id(&mut p, "crash", t);
    assert_eq!(p.pid_of(DEMO), None);
    assert!(p.missions().is_empty());
    let files = p.fs.list("/data/log/faultlog/faultlogger").unwrap();
    assert_eq!(files.len(), 1, "{files:?}");
    let name = &files[0];
    assert!(
        name.starts_with("jscrash-com.tapflow.demo-") && name.ends_with(".log"),
        "{name}"
    );
    let ts = name.trim_end_matches(".log").rsplit('-').next().unwrap();
    assert_eq!(ts.len(), 17, "YYYYMMDDHHMMSSmmm: {ts}");
    let body = String::from_utf8(
        p.fs.read(&format!("/data/log/faultlog/faultlogger/{name}"))
            .unwrap()
            .to_vec(),
    )
    .unwrap();
    for needle in [
        "Module name:com.tapflow.demo",
        "Reason:TypeError",
        "Error name:TypeError",
        "Stacktrace:",
        &format!("Pid:{pid}"),
        "\nHiLog:\n",
        "LOGIN_SUCCESS user=dave",
    ] {
        assert!(body.contains(needle), "missing {needle:?} in\n{body}");
    }
    let lines: Vec<String> = p.hilog().iter().map(|r| r.format()).collect();
    assert!(lines.iter().any(|l| {
        l.contains("E C01317/AppKit: com.tapflow.demo is about to exit due to RuntimeError")
    }));
    // Launcher shown again.
    let d = dump(&p);
    assert_eq!(attr(&d["children"][0], "bundleName"), "com.ohos.sceneboard");
    assert!(by_text(&d, "Tapflow Demo").is_some());
}

#[test]
fn password_value_never_appears_in_dumps() {
    let (mut p, t0) = phone();
    start_demo(&mut p, t0);
    tap_id(&mut p, "password", t0);
    p.type_text("s3cr3t-Pw", &mut no_drop, t0).unwrap();
    for opts in [
        LayoutOptions::default(),
        LayoutOptions {
            per_window: true,
            extra_attrs: true,
            unique_id: true,
            ..Default::default()
        },
    ] {
        let s = p.layout(&opts).unwrap().to_string();
        assert!(!s.contains("s3cr3t"), "password leaked");
    }
    let d = dump(&p);
    let pw = by_id(&d, "password").unwrap();
    assert_eq!(attr(pw, "text"), "•".repeat(9));
    assert_eq!(attr(pw, "hint"), "Password");
}

#[test]
fn editing_keys_select_all_backspace_delete_paste() {
    let (mut p, t0) = phone();
    start_demo(&mut p, t0);
    tap_id(&mut p, "username", t0);
    p.type_text("hello", &mut no_drop, t0).unwrap();
    let text = |p: &Phone| attr(by_id(&dump(p), "username").unwrap(), "text").to_string();
    p.key_event(&[KeyPress::Code(keycode::DEL)], t0);
    assert_eq!(text(&p), "hell");
    p.key_event(&[KeyPress::Code(keycode::MOVE_HOME)], t0);
    p.key_event(&[KeyPress::Code(keycode::FORWARD_DEL)], t0);
    assert_eq!(text(&p), "ell");
    p.key_event(&[KeyPress::Code(keycode::MOVE_END)], t0);
    p.set_clipboard("o wörld");
    p.key_event(
        &[
            KeyPress::Code(keycode::CTRL_LEFT),
            KeyPress::Code(keycode::V),
        ],
        t0,
    );
    assert_eq!(text(&p), "ello wörld");
    p.key_event(
        &[
            KeyPress::Code(keycode::CTRL_LEFT),
            KeyPress::Code(keycode::A),
        ],
        t0,
    );
    p.key_event(&[KeyPress::Code(keycode::DEL)], t0);
    assert_eq!(text(&p), "");
    // Dropped characters (fault injection) never arrive.
    p.type_text("abcd", &mut |c| c == 'b', t0).unwrap();
    assert_eq!(text(&p), "acd");
    // Back hides the IME first; typing then fails as nothing is focused.
    p.key_event(&[KeyPress::Back], t0);
    assert!(p.type_text("x", &mut no_drop, t0).is_err());
    assert!(
        by_id(&dump(&p), "login").is_some(),
        "still on the login page"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn any_text_arrives_byte_exact(s in "\\PC{0,40}|[ -~\n]{0,260}|[\"'$`\\\\ \n😀中文עברית]{0,30}") {
        let (mut p, t0) = phone();
        start_demo(&mut p, t0);
        tap_id(&mut p, "username", t0);
        p.type_text(&s, &mut no_drop, t0).unwrap();
        let d = dump(&p);
        prop_assert_eq!(attr(by_id(&d, "username").unwrap(), "text"), s.as_str());
    }
}

#[test]
fn screenshots_differ_between_screens_and_have_the_screen_size() {
    let (mut p, t0) = phone();
    let desktop = p.screenshot(ImageFormat::Png);
    start_demo(&mut p, t0);
    let login = p.screenshot(ImageFormat::Png);
    assert_ne!(desktop, login);
    for (bytes, fmt) in [
        (&login, image::ImageFormat::Png),
        (&p.screenshot(ImageFormat::Jpeg), image::ImageFormat::Jpeg),
    ] {
        assert_eq!(image::guess_format(bytes).unwrap(), fmt);
        let img = image::load_from_memory(bytes).unwrap();
        assert_eq!((img.width(), img.height()), (1260, 2720));
    }
    let other = Phone::new(PhoneProfile::default_for("SIM-0002", 1));
    let img = image::load_from_memory(&other.screenshot(ImageFormat::Png)).unwrap();
    assert_eq!((img.width(), img.height()), other.screen_size());
}

#[test]
fn installs_a_hap_built_in_the_test() {
    use std::io::Write;
    let (mut p, t0) = phone();
    let module = serde_json::json!({
        "app": {"bundleName": "com.example.notes", "vendor": "example", "versionCode": 2000000, "versionName": "2.0.0", "label": "Notes"},
        "module": {"name": "entry", "type": "entry", "mainElement": "MainAbility",
            "abilities": [{"name": "MainAbility", "exported": true,
                "skills": [{"entities": ["entity.system.home"], "actions": ["ohos.want.action.home"]}]}],
            "requestPermissions": [{"name": "ohos.permission.INTERNET"}]}
    });
    let build = |module: &Value, signed: bool| {
        let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        w.start_file("module.json", zip::write::SimpleFileOptions::default())
            .unwrap();
        w.write_all(module.to_string().as_bytes()).unwrap();
        if signed {
            w.set_comment("HAP Sig Block 42");
        }
        w.finish().unwrap().into_inner()
    };
    assert_eq!(
        p.install_hap(&build(&module, false), false, t0)
            .unwrap_err()
            .code,
        9568320
    );
    assert_eq!(
        p.install_hap(&build(&module, true), false, t0).unwrap(),
        "com.example.notes"
    );
    assert!(p.bundles().contains(&"com.example.notes".to_string()));
    let dumpn = p.bundle_dump("com.example.notes").unwrap();
    assert_eq!(dumpn["applicationInfo"]["versionName"], "2.0.0");
    assert_eq!(dumpn["hapModuleInfos"][0]["mainElementName"], "MainAbility");
    assert_eq!(
        dumpn["hapModuleInfos"][0]["abilityInfos"][0]["isLauncherAbility"],
        true
    );
    assert_eq!(dumpn["reqPermissions"][0], "ohos.permission.INTERNET");
    assert!(p.bundle_dump("com.example.none").is_none());
    p.start_ability("com.example.notes", "MainAbility", Some("entry"), t0)
        .unwrap();
    let d = dump(&p);
    assert!(
        by_text(&d, "Notes").is_some(),
        "default page shows the label"
    );
    assert_eq!(attr(&d["children"][0], "bundleName"), "com.example.notes");
    let mut older = module.clone();
    older["app"]["versionCode"] = Value::from(1);
    assert_eq!(
        p.install_hap(&build(&older, true), true, t0)
            .unwrap_err()
            .code,
        9568263
    );
    assert_eq!(
        p.start_ability("com.example.notes", "Nope", None, t0)
            .unwrap_err()
            .code,
        10104001
    );
    p.uninstall("com.example.notes").unwrap();
    assert_eq!(p.uninstall("com.example.notes").unwrap_err().code, 9568386);
}

fn parse(v: &Value) -> UiNode {
    serde_json::from_value(v.clone()).unwrap()
}

#[test]
fn recorded_layouts_are_served_back_identical() {
    let dir = concat!(
        concat!(env!("CARGO_MANIFEST_DIR"), "/../.."),
        "/tests/fixtures/harmonyos/"
    );
    for f in [
        "layout_hmdriver2_uitest_demo_mate60pro_pretty.json",
        "layout_haptest_logindemo_save_keyboard_pretty.json",
        "layout_haptest_vmall_web_keyboard_large_pretty.json",
    ] {
        let text = std::fs::read_to_string(format!("{dir}{f}")).unwrap();
        let (mut p, _) = phone();
        p.show_recorded_layout(&text).unwrap();
        let want: UiNode = serde_json::from_str(&text).unwrap();
        assert_eq!(parse(&dump(&p)), want, "{f}");
        let shot = image::load_from_memory(&p.screenshot(ImageFormat::Png)).unwrap();
        assert_eq!(shot.width(), 1260);
        // The window manager agrees with the recording: same window ids, the focused one first.
        let ids: Vec<String> = want
            .children
            .iter()
            .map(|w| w.attr("hostWindowId").to_string())
            .collect();
        let rows = p.windows();
        assert_eq!(rows.len(), ids.len(), "{f}");
        assert!(rows.iter().all(|r| ids.contains(&r.window_id.to_string())));
        let focused = want
            .children
            .iter()
            .find(|w| w.attr("focused") == "true")
            .map(|w| w.attr("hostWindowId").to_string());
        assert_eq!(p.focus_window().map(|x| x.to_string()), focused);
        // -b serves only that bundle's window.
        let b = want.children[0].attr("bundleName").to_string();
        let only = p
            .layout(&LayoutOptions {
                bundle: Some(b.clone()),
                ..Default::default()
            })
            .unwrap();
        assert!(
            only["children"]
                .as_array()
                .unwrap()
                .iter()
                .all(|w| attr(w, "bundleName") == b)
        );
    }
    let (mut p, _) = phone();
    assert!(
        p.show_recorded_layout("{\"attributes\": {\"a\": 1}}")
            .is_err()
    );
    assert!(p.show_recorded_layout("not json").is_err());
}

#[test]
fn dumps_have_the_real_shape() {
    let (mut p, t0) = phone();
    start_demo(&mut p, t0);
    let d = dump(&p);
    // Top root: all "" except bounds, union of windows.
    assert_eq!(attr(&d, "bounds"), "[0,0][1260,2720]");
    assert!(
        d["attributes"]
            .as_object()
            .unwrap()
            .iter()
            .all(|(k, v)| k == "bounds" || v == "")
    );
    for n in nodes(&d) {
        let o = n.as_object().unwrap();
        assert_eq!(o.len(), 2);
        assert!(
            n["attributes"]
                .as_object()
                .unwrap()
                .values()
                .all(Value::is_string)
        );
        assert!(n["children"].is_array());
    }
    // Same key sets as a real newer-build dump (hmdriver2 fixture), keys sorted as uitest writes them.
    let fx: Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            concat!(env!("CARGO_MANIFEST_DIR"), "/../.."),
            "/tests/fixtures/harmonyos/layout_hmdriver2_uitest_demo_mate60pro_pretty.json"
        ))
        .unwrap(),
    )
    .unwrap();
    let keys = |n: &Value| {
        n["attributes"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect::<Vec<_>>()
    };
    assert_eq!(keys(&d), keys(&fx), "top root");
    for (mine, real) in [
        (&d["children"][0], &fx["children"][0]),
        (
            &d["children"][0]["children"][0],
            &fx["children"][0]["children"][0],
        ),
    ] {
        let (mk, rk) = (keys(mine), keys(real));
        assert!(
            rk.iter().all(|k| mk.contains(k)),
            "missing {:?}",
            rk.iter().filter(|k| !mk.contains(k)).collect::<Vec<_>>()
        );
    }
    for n in nodes(&d) {
        let k = keys(n);
        assert!(k.windows(2).all(|w| w[0] < w[1]), "sorted keys");
    }
    let wins = d["children"].as_array().unwrap();
    let app = &wins[0];
    assert_eq!(
        (
            attr(app, "type"),
            attr(app, "bundleName"),
            attr(app, "abilityName")
        ),
        ("root", DEMO, "EntryAbility")
    );
    assert_eq!(attr(app, "pagePath"), "pages/LoginPage");
    let win_id = attr(app, "hostWindowId").to_string();
    assert_eq!(attr(app, "hierarchy"), format!("ROOT{win_id}"));
    let login = by_id(app, "login").unwrap();
    assert_eq!(attr(login, "key"), "login");
    assert_eq!(attr(login, "text"), "Login");
    assert_eq!(attr(login, "clickable"), "true");
    assert!(attr(login, "hashcode").starts_with(&format!("{win_id}:")));
    assert!(attr(login, "hierarchy").starts_with(&format!("ROOT{win_id},")));
    assert!(
        wins.iter().any(|w| attr(w, "type") == "WindowScene"),
        "status bar window"
    );
    // Windows agree with the dump; the focus is the app.
    let rows = p.windows();
    let row = rows
        .iter()
        .find(|r| r.window_id.to_string() == win_id)
        .unwrap();
    assert_eq!(row.pid, p.pid_of(DEMO).unwrap() as i64);
    assert_eq!(
        p.focus_window().map(|x| x.to_string()),
        Some(win_id.clone())
    );
    // -b restricts to the bundle's window, -i gives one tree per window, -e adds uniqueId.
    let only = p
        .layout(&LayoutOptions {
            bundle: Some(DEMO.into()),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(only["children"].as_array().unwrap().len(), 1);
    assert!(
        p.layout(&LayoutOptions {
            bundle: Some("com.nope.app".into()),
            ..Default::default()
        })
        .is_err()
    );
    let per = p
        .layout(&LayoutOptions {
            per_window: true,
            ..Default::default()
        })
        .unwrap();
    assert_eq!(per.as_array().unwrap().len(), wins.len());
    let ex = p
        .layout(&LayoutOptions {
            extra_attrs: true,
            unique_id: true,
            ..Default::default()
        })
        .unwrap();
    let l = by_id(&ex, "login").unwrap();
    assert!(l["attributes"]["uniqueId"].is_string());
    assert!(l["attributes"]["extraAttrs"].is_object());
    // Back from the first page returns to the launcher; the app keeps running.
    p.key_event(&[KeyPress::Back], t0);
    assert_eq!(
        attr(&dump(&p)["children"][0], "bundleName"),
        "com.ohos.sceneboard"
    );
    assert!(p.pid_of(DEMO).is_some());
    // Launcher icon starts (brings back) the app.
    tap_text(&mut p, "Tapflow Demo", t0);
    assert_eq!(attr(&dump(&p)["children"][0], "bundleName"), DEMO);
}

fn tap_text(p: &mut Phone, text: &str, now: SystemTime) {
    let d = dump(p);
    let (x, y) = center(by_text(&d, text).unwrap());
    p.click(x, y, now);
}

#[test]
fn keyboard_clips_the_app_window_and_focus_is_a_chain() {
    let (mut p, t0) = phone();
    start_demo(&mut p, t0);
    tap_id(&mut p, "username", t0);
    let d = dump(&p);
    let app = &d["children"][0];
    let ime = d["children"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| attr(w, "bundleName") == "com.huawei.hmos.inputmethod")
        .unwrap();
    let ab = tapflow_device::model::Bounds::parse(attr(app, "bounds")).unwrap();
    let ib = tapflow_device::model::Bounds::parse(attr(ime, "bounds")).unwrap();
    assert_eq!(
        ab.bottom, ib.top,
        "app window ends where the keyboard starts"
    );
    assert_eq!(attr(app, "origBounds"), "[0,0][1260,2720]");
    for n in nodes(app) {
        let b = tapflow_device::model::Bounds::parse(attr(n, "bounds")).unwrap();
        assert!(b.bottom <= ib.top, "{} under the keyboard", attr(n, "type"));
    }
    // root → Column → username are focused; the password field is not.
    assert_eq!(attr(app, "focused"), "true");
    assert_eq!(attr(&app["children"][0], "focused"), "true");
    assert_eq!(attr(by_id(&d, "password").unwrap(), "focused"), "false");
    // Typing on the soft keyboard works too.
    let (x, y) = center(
        nodes(ime)
            .into_iter()
            .find(|n| attr(n, "text") == "q")
            .unwrap(),
    );
    p.click(x, y, t0);
    assert_eq!(attr(by_id(&dump(&p), "username").unwrap(), "text"), "q");
}

#[test]
fn screen_off_dumps_an_empty_root_and_a_black_screenshot() {
    let (mut p, t0) = phone();
    p.key_event(&[KeyPress::Power], t0);
    assert!(!p.power_awake());
    let d = dump(&p);
    assert_eq!(attr(&d, "bounds"), "[0,0][0,0]");
    assert!(d["children"].as_array().unwrap().is_empty());
    let img = image::load_from_memory(&p.screenshot(ImageFormat::Png))
        .unwrap()
        .to_rgb8();
    assert!(img.pixels().all(|px| px.0 == [0, 0, 0]));
    p.key_event(&[KeyPress::Power], t0);
    assert!(p.power_awake());
    assert!(!dump(&p)["children"].as_array().unwrap().is_empty());
}

#[test]
fn hap_with_pages_runs_its_own_screens() {
    use tapflow_sim::phone::hap::{build_hap, module_json};
    let (mut p, t0) = phone();
    let pages = r#"
bundle: com.example.counter
label: Counter
log_domain: 0x1234
log_tag: Counter
abilities: [{name: EntryAbility, launcher: true, page: pages/Index}]
pages:
  pages/Index:
    root:
      type: Column
      children:
        - {type: Text, id: count, text: "on=${flag}"}
        - {type: Button, id: bump, text: Bump, on_tap: [{set: {var: flag, value: "yes"}}, {log: {message: BUMPED, level: W}}]}
        - {type: TextInput, id: note, hint: Note}
        - {type: Button, id: done, text: Done, flags: {focusable: true}}
"#;
    let hap = build_hap(
        &module_json("com.example.counter", 1, "1.0", "EntryAbility"),
        Some(pages),
        true,
    );
    p.install_hap(&hap, false, t0).unwrap();
    p.start_ability("com.example.counter", "EntryAbility", None, t0)
        .unwrap();
    assert_eq!(attr(by_id(&dump(&p), "count").unwrap(), "text"), "on=");
    tap_id(&mut p, "bump", t0);
    assert_eq!(attr(by_id(&dump(&p), "count").unwrap(), "text"), "on=yes");
    let line = p
        .hilog()
        .iter()
        .map(|r| r.format())
        .find(|l| l.contains("BUMPED"))
        .unwrap();
    assert!(line.contains(" W A01234/Counter: BUMPED"), "{line}");
    // A plain button leaves the field focused; a focusOnTouch one takes the focus (IME closes).
    tap_id(&mut p, "note", t0);
    tap_id(&mut p, "bump", t0);
    assert_eq!(attr(by_id(&dump(&p), "note").unwrap(), "focused"), "true");
    tap_id(&mut p, "done", t0);
    assert_eq!(attr(by_id(&dump(&p), "note").unwrap(), "focused"), "false");
    assert!(p.type_text("x", &mut no_drop, t0).is_err());
    // A spec naming a page that does not exist is rejected at install time.
    let bad = pages.replace("page: pages/Index}", "page: pages/Nope}");
    let hap = build_hap(
        &module_json("com.example.counter", 2, "1.1", "EntryAbility"),
        Some(&bad),
        true,
    );
    assert!(p.install_hap(&hap, true, t0).is_err());
}

#[test]
fn missions_windows_and_processes_stay_consistent() {
    let (mut p, t0) = phone();
    assert!(p.missions().is_empty());
    let desktop_focus = p.focus_window().unwrap();
    start_demo(&mut p, t0);
    let pid = p.pid_of(DEMO).unwrap();
    assert_eq!(p.cmdline(pid).as_deref(), Some(DEMO));
    assert_eq!(p.cmdline(999_999), None);
    let m = p.missions();
    assert_eq!(
        (
            m.len(),
            m[0].bundle.as_str(),
            m[0].ability.as_str(),
            m[0].module.as_str(),
            m[0].foreground
        ),
        (1, DEMO, "EntryAbility", "entry", true)
    );
    let focus = p.focus_window().unwrap();
    assert_ne!(focus, desktop_focus);
    let rows = p.windows();
    let app = rows.iter().find(|r| r.window_id == focus).unwrap();
    assert!(app.visible && app.pid == pid as i64 && app.rect == (0, 0, 1260, 2720));
    // Home: the app goes to the background (z -1), the desktop takes focus.
    p.key_event(&[KeyPress::Home], t0);
    assert_eq!(p.focus_window(), Some(desktop_focus));
    let bg = p
        .windows()
        .into_iter()
        .find(|r| r.window_id == focus)
        .unwrap();
    assert!(!bg.visible && bg.z_order == -1);
    assert!(!p.missions()[0].foreground);
    // Starting again brings the same process back; force-stop ends it.
    start_demo(&mut p, t0);
    assert_eq!(p.pid_of(DEMO), Some(pid));
    p.force_stop(DEMO, t0).unwrap();
    assert_eq!(p.pid_of(DEMO), None);
    assert!(p.windows().iter().all(|r| r.window_id != focus));
    assert!(p.force_stop("com.nope.app", t0).is_err());
    // The next launch is a new process with a new window.
    start_demo(&mut p, t0);
    assert_ne!(p.pid_of(DEMO), Some(pid));
    assert_ne!(p.focus_window(), Some(focus));
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

/// Every key path of `v` (objects only; array elements share their parent's path with `[]`).
fn key_paths(v: &Value, prefix: &str, out: &mut std::collections::BTreeSet<String>) {
    match v {
        Value::Object(o) => {
            for (k, c) in o {
                let p = format!("{prefix}.{k}");
                out.insert(p.clone());
                key_paths(c, &p, out);
            }
        }
        Value::Array(a) => a
            .iter()
            .for_each(|c| key_paths(c, &format!("{prefix}[]"), out)),
        _ => {}
    }
}

#[test]
fn bundle_dump_has_the_shape_of_real_bm_dump_n() {
    let (p, _) = phone();
    let mine = p.bundle_dump(DEMO).unwrap();
    let mut have = std::collections::BTreeSet::new();
    key_paths(&mine, "", &mut have);
    for f in [
        "bm_dump_n_camera_abridged.txt",
        "bm_dump_n_himovie_abridged.txt",
    ] {
        let text = std::fs::read_to_string(format!(
            "{}/tests/fixtures/harmonyos/{f}",
            concat!(env!("CARGO_MANIFEST_DIR"), "/../..")
        ))
        .unwrap();
        let real: Value = serde_json::from_str(&text[text.find('{').unwrap()..]).unwrap();
        let mut want = std::collections::BTreeSet::new();
        key_paths(&real, "", &mut want);
        // Keys our app cannot have (no extensions) are allowed to be missing.
        let missing: Vec<_> = want
            .iter()
            .filter(|k| !have.contains(*k) && !k.contains("extensionInfos[]"))
            .collect();
        assert!(missing.is_empty(), "{f}: missing {missing:?}");
    }
    assert_eq!(mine["hapModuleInfos"][0]["moduleType"], 1);
    assert_eq!(mine["applicationInfo"]["bundleName"], DEMO);
    assert_eq!(
        mine["applicationInfo"]["codePath"],
        "/data/app/el1/bundle/public/com.tapflow.demo"
    );
    let skills = &mine["hapModuleInfos"][0]["abilityInfos"][0]["skills"][0];
    assert!(
        skills["entities"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e == "entity.system.home")
    );
}

#[derive(Debug, Clone)]
enum Op {
    Click(i32, i32),
    LongClick(i32, i32),
    Swipe(i32, i32, i32, i32, u32),
    Key(u32),
    Chord(u32),
    Type(String),
    Tick(u64),
    Start,
    Stop,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (-50..1300i32, -50..2800i32).prop_map(|(x, y)| Op::Click(x, y)),
        1 => (0..1260i32, 0..2720i32).prop_map(|(x, y)| Op::LongClick(x, y)),
        2 => (0..1260i32, 0..2720i32, 0..1260i32, 0..2720i32, 0..40000u32).prop_map(|(a, b, c, d, v)| Op::Swipe(a, b, c, d, v)),
        2 => prop_oneof![Just(1u32), Just(2), Just(18), Just(2054), Just(2055), Just(2071), Just(2081), Just(2082), 0..3000u32].prop_map(Op::Key),
        1 => prop_oneof![Just(2017u32), Just(2038), Just(2019)].prop_map(Op::Chord),
        2 => "\\PC{0,12}".prop_map(Op::Type),
        2 => (0..2000u64).prop_map(Op::Tick),
        1 => Just(Op::Start),
        1 => Just(Op::Stop),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// Random input never panics and every dump keeps the real shape: string attributes,
    /// unique hashcodes, bounds that parse, and the password's value never shows.
    #[test]
    fn random_sessions_keep_dumps_well_formed(ops in proptest::collection::vec(op(), 1..40)) {
        let (mut p, t0) = phone();
        start_demo(&mut p, t0);
        tap_id(&mut p, "password", t0);
        p.type_text("Hunter2secret", &mut no_drop, t0).unwrap();
        let mut now = t0;
        for o in ops {
            match o {
                Op::Click(x, y) => p.click(x, y, now),
                Op::LongClick(x, y) => p.long_click(x, y, now),
                Op::Swipe(a, b, c, d, v) => p.swipe((a, b), (c, d), v, now),
                Op::Key(k) => p.key_event(&[KeyPress::Code(k)], now),
                Op::Chord(k) => p.key_event(&[KeyPress::Code(keycode::CTRL_LEFT), KeyPress::Code(k)], now),
                Op::Type(s) => { let _ = p.type_text(&s, &mut no_drop, now); }
                Op::Tick(ms) => { now += Duration::from_millis(ms); p.tick(now); }
                Op::Start => { p.start_ability(DEMO, "EntryAbility", None, now).unwrap(); }
                Op::Stop => p.force_stop(DEMO, now).unwrap(),
            }
            for opts in [LayoutOptions::default(), LayoutOptions { per_window: true, ..Default::default() }] {
                let d = p.layout(&opts).unwrap();
                let s = d.to_string();
                prop_assert!(!s.contains("Hunter2secret"));
                let roots: Vec<&Value> = match &d { Value::Array(a) => a.iter().collect(), v => vec![v] };
                let mut hashes = std::collections::HashSet::new();
                for r in roots {
                    for n in nodes(r) {
                        prop_assert!(n["attributes"].as_object().unwrap().values().all(Value::is_string));
                        let h = attr(n, "hashcode");
                        if !h.is_empty() {
                            prop_assert!(hashes.insert(h.to_string()), "duplicate hashcode {}", h);
                            prop_assert!(tapflow_device::model::Bounds::parse(attr(n, "bounds")).is_some());
                        }
                    }
                }
            }
        }
        let _ = p.screenshot(ImageFormat::Png);
    }
}

/// The `Key:` headers of a faultlogger file up to its `HiLog:` section, in order.
fn crash_headers(text: &str) -> Vec<String> {
    text.lines()
        .take_while(|l| *l != "HiLog:")
        .filter(|l| !l.starts_with(' ') && !l.is_empty())
        .filter_map(|l| l.split_once(':').map(|(k, _)| k.to_string()))
        .collect()
}

#[test]
fn jscrash_file_has_the_real_section_order() {
    let real = std::fs::read_to_string(concat!(
        concat!(env!("CARGO_MANIFEST_DIR"), "/../.."),
        "/tests/fixtures/harmonyos/jscrash_with_hilog_emulator6_illegal_prop.txt"
    ))
    .unwrap();
    let (mut p, t0) = phone();
    let t = login(&mut p, "frank", t0);
    tap_id(&mut p, "crash", t);
    let name =
        p.fs.list("/data/log/faultlog/faultlogger")
            .unwrap()
            .remove(0);
    let mine = String::from_utf8(
        p.fs.read(&format!("/data/log/faultlog/faultlogger/{name}"))
            .unwrap()
            .to_vec(),
    )
    .unwrap();
    assert_eq!(crash_headers(&mine), crash_headers(&real));
    // The HiLog section holds well-formed hilog lines of the crashed process.
    let hilog: Vec<&str> = mine
        .lines()
        .skip_while(|l| *l != "HiLog:")
        .skip(1)
        .filter(|l| !l.is_empty())
        .collect();
    assert!(!hilog.is_empty());
    let re = regex::Regex::new(
        r"^\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} +\d+ +\d+ [DIWEF] [ACIK][0-9a-f]{5}/[^:]+: ",
    )
    .unwrap();
    assert!(hilog.iter().all(|l| re.is_match(l)), "{hilog:#?}");
}

/// Found by `random_sessions_keep_dumps_well_formed`: Ctrl+C in the password field, then
/// Ctrl+V in the username field, used to paste the password where the dump shows it.
/// Secure inputs refuse to copy, as on a device.
#[test]
fn a_password_cannot_be_copied_out_of_its_field() {
    let (mut p, t0) = phone();
    start_demo(&mut p, t0);
    p.set_clipboard("before");
    tap_id(&mut p, "password", t0);
    p.type_text("Hunter2secret", &mut no_drop, t0).unwrap();
    p.key_event(
        &[
            KeyPress::Code(keycode::CTRL_LEFT),
            KeyPress::Code(keycode::A),
        ],
        t0,
    );
    p.key_event(
        &[
            KeyPress::Code(keycode::CTRL_LEFT),
            KeyPress::Code(keycode::C),
        ],
        t0,
    );
    assert_eq!(p.clipboard(), "before");
    tap_id(&mut p, "username", t0);
    p.key_event(
        &[
            KeyPress::Code(keycode::CTRL_LEFT),
            KeyPress::Code(keycode::V),
        ],
        t0,
    );
    let dump = p.layout(&LayoutOptions::default()).unwrap().to_string();
    assert!(!dump.contains("Hunter2secret"));
    assert!(dump.contains("before"));
}
