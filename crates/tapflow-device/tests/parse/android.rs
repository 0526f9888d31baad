//! The adb backend's parsers over every real Android capture in `tests/fixtures/android/`
//! (see its SOURCES.md): uiautomator dumps into the neutral tree, logcat `threadtime` lines and
//! the crash blocks in them.

use tapflow_device::adb::parse::uiautomator::{
    confirmation, parse_dump, parse_hierarchy, split_answer,
};
use tapflow_device::logs::logcat::{CrashKind, Entry, find_crashes, parse_text};
use tapflow_device::model::UiNode;

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/tests/fixtures/android/{name}",
        concat!(env!("CARGO_MANIFEST_DIR"), "/../..")
    ))
    .unwrap_or_else(|e| panic!("{name}: {e}"))
}

const DUMPS: [(&str, usize, &str); 4] = [
    (
        "uiautomator-small.octodiary-compose.xml",
        15,
        "org.bxkr.octodiary.debug",
    ),
    (
        "uiautomator-medium.pixel-launcher-home.nku.xml",
        46,
        "com.google.android.apps.nexuslauncher",
    ),
    (
        "uiautomator-large.compose-triage.nku.xml",
        72,
        "com.nku.app",
    ),
    (
        "uiautomator-edgecases.emoji-newline.nku.xml",
        55,
        "com.nku.app",
    ),
];

fn elements(root: &UiNode) -> Vec<&UiNode> {
    // Everything below the synthetic root and window nodes.
    root.children
        .iter()
        .flat_map(|w| w.children.iter().flat_map(|c| c.walk()))
        .collect()
}

#[test]
fn every_dump_parses_with_every_node_and_attribute_kept() {
    for (name, nodes, package) in DUMPS {
        let xml = fixture(name);
        let root = parse_dump(&xml).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            root.children.len(),
            1,
            "{name}: one window (the active one)"
        );
        let window = &root.children[0];
        assert_eq!(window.attr("type"), "root");
        assert_eq!(window.attr("bundleName"), package, "{name}");
        assert_eq!(window.window_id(), Some(1));
        let els = elements(&root);
        assert_eq!(els.len(), nodes, "{name}");
        for n in &els {
            for key in [
                "index",
                "text",
                "resource-id",
                "class",
                "package",
                "content-desc",
                "checkable",
                "checked",
                "clickable",
                "enabled",
                "focusable",
                "focused",
                "scrollable",
                "long-clickable",
                "password",
                "selected",
                "bounds",
            ] {
                assert!(n.attributes.contains_key(key), "{name}: {key} missing");
            }
            assert!(n.bounds().is_some(), "{name}: {}", n.attr("bounds"));
            assert_eq!(n.window_id(), Some(1));
            assert!(!n.node_type().is_empty(), "class is the type");
        }
        // Numbered in dump order from 1.
        let ids: Vec<u64> = els
            .iter()
            .map(|n| n.attr("accessibilityId").parse().unwrap())
            .collect();
        assert_eq!(ids, (1..=nodes as u64).collect::<Vec<_>>(), "{name}");
        // The root bounds are the window's.
        assert_eq!(root.attr("bounds"), window.attr("bounds"));
        // Re-reading the verbatim hierarchy gives the same attributes in the same order.
        let h = parse_hierarchy(&xml).unwrap();
        assert_eq!(h.rotation.as_deref(), Some("0"));
        let first = &h.windows[0];
        let keys: Vec<&String> = first.attributes.keys().collect();
        let derived: Vec<&String> = els[0].attributes.keys().take(keys.len()).collect();
        assert_eq!(keys, derived, "{name}: verbatim order first");
    }
}

#[test]
fn edge_cases_single_quotes_newlines_emoji_and_raw_utf8() {
    let root = parse_dump(&fixture("uiautomator-edgecases.emoji-newline.nku.xml")).unwrap();
    let els = elements(&root);
    let steps = els
        .iter()
        .find(|n| n.text().starts_with("1. Tap \"Start Measurement\""))
        .expect("the single-quoted attribute with a double quote inside");
    assert!(
        steps.text().contains("above\n2. Place fingertip"),
        "&#10; is a newline"
    );
    assert_eq!(steps.text().lines().count(), 5);
    let camera = els
        .iter()
        .find(|n| n.text().contains("Uses rear camera"))
        .unwrap();
    assert!(
        camera.text().starts_with('\u{1F4F7}'),
        "&#128247; is the camera emoji"
    );
    assert!(
        camera.text().contains(" — place patient's fingertip"),
        "raw UTF-8 and a raw '"
    );
    assert!(els.iter().any(|n| n.text() == "—"));
}

#[test]
fn resource_ids_give_element_ids_and_launcher_icons_their_descriptions() {
    let root = parse_dump(&fixture("uiautomator-medium.pixel-launcher-home.nku.xml")).unwrap();
    let els = elements(&root);
    let launcher = els
        .iter()
        .find(|n| n.attr("resource-id") == "com.google.android.apps.nexuslauncher:id/launcher")
        .unwrap();
    assert_eq!(launcher.id(), "launcher");
    assert!(
        els.iter()
            .any(|n| n.attr("resource-id") == "android:id/content" && n.id() == "content")
    );
    let icons: Vec<_> = els
        .iter()
        .filter(|n| !n.text().is_empty() && !n.attr("content-desc").is_empty())
        .collect();
    assert!(!icons.is_empty(), "app icons carry text and content-desc");
}

#[test]
fn dev_tty_answers_are_cut_at_the_last_hierarchy() {
    let xml = fixture("uiautomator-small.octodiary-compose.xml");
    let answer = format!("{xml}UI hierchary dumped to: /dev/tty\n");
    let parts = split_answer(&answer);
    assert_eq!(parts.xml, Some(xml.as_str()));
    assert_eq!(confirmation(parts.after), Some("/dev/tty"));
    // Truncated anywhere: never a tree.
    for cut in [100, xml.len() / 2, xml.len() - 5] {
        assert!(parse_dump(&xml[..cut]).is_err(), "cut at {cut}");
    }
}

const LOGS: [&str; 3] = [
    "logcat-threadtime.crash-full.puregg.txt",
    "logcat-threadtime.errors-only-crash.puregg.txt",
    "logcat-threadtime.emulator-install-launch.nku.txt",
];

#[test]
fn every_logcat_line_parses() {
    for name in LOGS {
        let text = fixture(name);
        let entries = parse_text(&text);
        assert_eq!(entries.len(), text.lines().count());
        for (i, e) in entries.iter().enumerate() {
            match e {
                Entry::Line(l) => assert!("VDIWEF".contains(l.level), "{name}:{}", i + 1),
                Entry::BufferStart(b) => {
                    assert!(["main", "system", "crash", "events"].contains(&b.as_str()))
                }
                Entry::Other(o) => panic!("{name}:{}: not parsed: {o:?}", i + 1),
            }
        }
    }
    let text = fixture("logcat-threadtime.emulator-install-launch.nku.txt");
    let lines: Vec<_> = parse_text(&text)
        .into_iter()
        .filter_map(|e| match e {
            Entry::Line(l) => Some(l),
            _ => None,
        })
        .collect();
    assert!(lines.iter().any(|l| l.tag == "netd"), "padded tag");
    assert!(
        lines.iter().any(|l| l.tag == ".apps.wellbeing"),
        "tag starting with '.'"
    );
    assert!(lines.iter().any(|l| l.tag == "ActivityTaskManager"
        && l.message.starts_with(
            "Displayed com.nku.app/androidx.activity.ComponentActivity for user 0: +310ms"
        )));
}

#[test]
fn crash_blocks_in_the_captures() {
    let c = find_crashes(&fixture("logcat-threadtime.crash-full.puregg.txt"));
    assert_eq!(c.len(), 1, "{c:#?}");
    let c = &c[0];
    assert_eq!(c.kind, CrashKind::Java);
    assert_eq!(c.process.as_deref(), Some("de.gaffga.android.zazentimer"));
    assert_eq!(c.pid, Some(5572));
    assert_eq!(c.line_no, 101);
    assert_eq!(c.time, "04-04 10:53:34.476");
    assert!(
        c.summary
            .as_deref()
            .unwrap()
            .starts_with("java.lang.RuntimeException: Unable to start activity")
    );
    assert_eq!(c.lines.len(), 54, "every AndroidRuntime line of pid 5572");
    assert!(c.lines.iter().any(|l| l.starts_with("Caused by: ")));
    assert!(
        c.lines
            .iter()
            .any(|l| l.trim_start().starts_with("... ") && l.ends_with(" more"))
    );

    let c = find_crashes(&fixture("logcat-threadtime.errors-only-crash.puregg.txt"));
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].pid, Some(5478));
    assert_eq!(c[0].lines.len(), 54);

    // Tab-indented `E SystemServiceRegistry` stacks are errors, not crashes.
    assert!(
        find_crashes(&fixture(
            "logcat-threadtime.emulator-install-launch.nku.txt"
        ))
        .is_empty()
    );
}
