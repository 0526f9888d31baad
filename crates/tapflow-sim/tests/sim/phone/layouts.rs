//! Screens and dumps: screenshots, recorded layouts served back, the real dump shape, the
//! keyboard clipping the app window, the screen off, missions, windows and processes staying
//! consistent, and random sessions keeping dumps well formed.

use super::*;

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
