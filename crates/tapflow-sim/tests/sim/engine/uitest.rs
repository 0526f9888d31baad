//! uitest: dumpLayout texts and files, input validation messages, typing into the demo login,
//! screenshots.

use super::*;
use pretty_assertions::assert_eq;

#[test]
fn dump_layout_texts_and_file() {
    let s = sim();
    let out = sh(&s, "uitest dumpLayout");
    let re =
        regex::Regex::new(r"^DumpLayout saved to:/data/local/tmp/layout_\d+\.json\n$").unwrap();
    assert!(re.is_match(&out), "{out}");
    assert_eq!(
        sh(&s, "uitest dumpLayout -p /data/local/tmp/x.json"),
        "DumpLayout saved to:/data/local/tmp/x.json\n"
    );
    let raw = sh(&s, "cat /data/local/tmp/x.json");
    assert!(!raw.contains('\n'), "uitest writes one compact line");
    let v: Value = serde_json::from_str(&raw).unwrap();
    assert!(v["children"].as_array().is_some_and(|c| !c.is_empty()));
    assert_eq!(
        sh(&s, "uitest dumpLayout -a -i"),
        "The -a and -i options cannot be used together.\n"
    );
    assert_eq!(
        sh(&s, "uitest dumpLayout -ia"),
        "The -a and -i options cannot be used together.\n"
    );
    assert_eq!(
        sh(&s, "uitest dumpLayout -e color"),
        "Invalid attribute name, currently supported names are 'uniqueId'.\n"
    );
    assert_eq!(
        sh(&s, "uitest dumpLayout -z"),
        "uitest: unrecognized option: z\n"
    );
    let per_window: Value = serde_json::from_str(&sh(
        &s,
        "uitest dumpLayout -i -p /data/local/tmp/i.json >/dev/null; cat /data/local/tmp/i.json",
    ))
    .unwrap();
    assert!(per_window.is_array(), "-i dumps one tree per window");
    assert_eq!(sh(&s, "uitest --version"), "5.0.1.2\n");
}

#[test]
fn ui_input_validation_messages() {
    let s = sim();
    let usage_line = "USAGE : \n";
    let cases = [
        (
            "uitest uiInput click 0 5",
            "Please confirm that the coordinate values are correct. \n\n",
        ),
        (
            "uitest uiInput click abc 5",
            "Please confirm that the coordinate values are correct. \n\n",
        ),
        (
            "uitest uiInput click 5",
            "The number of parameters is incorrect. \n\n",
        ),
        ("uitest uiInput click", "Missing parameter. \n\n"),
        ("uitest uiInput swipe 1 2 3", "Missing parameter. \n\n"),
        (
            "uitest uiInput swipe 1 2 3 4 600 0 9",
            " Too many parameters. \n\n",
        ),
        (
            "uitest uiInput keyEvent Back 0 1",
            " Too many parameters. \n\n",
        ),
        (
            "uitest uiInput keyEvent 2072 2017 2038 2055 0",
            " Too many parameters. \n\n",
        ),
        ("uitest uiInput keyEvent Escape", "Invalid parameters. \n\n"),
        ("uitest uiInput frob 1", "Invalid parameters. \n\n"),
        (
            "uitest uiInput inputText 10 10",
            "The number of parameters is incorrect. \n\n",
        ),
        ("uitest uiInput text", "Missing parameter. \n\n"),
        (
            "uitest uiInput text a b c",
            "The number of parameters is incorrect. \n\n",
        ),
    ];
    for (cmd, want) in cases {
        let out = sh(&s, cmd);
        assert!(out.starts_with(want), "{cmd}: {out:?}");
        assert!(out.contains(usage_line), "{cmd}: usage follows");
    }
    assert_eq!(sh(&s, "uitest uiInput click 100 200"), "No Error\n");
    assert_eq!(sh(&s, "uitest uiInput keyEvent Home"), "No Error\n");
    assert_eq!(sh(&s, "uitest uiInput keyEvent 2072 2017"), "No Error\n");
    assert_eq!(
        sh(&s, "uitest uiInput swipe 600 2000 600 800 1500"),
        "No Error\n"
    );
    assert_eq!(
        sh(&s, "uitest uiInput swipe 600 2000 600 800 50"),
        "The swipe velocity out of range, the default value will be used. \n\nNo Error\n"
    );
    assert_eq!(sh(&s, "uitest uiInput drag 600 2000 600 800"), "No Error\n");
    assert_eq!(
        sh(&s, "uitest uiInput fling 600 2000 600 800 3000"),
        "No Error\n"
    );
    assert_eq!(sh(&s, "uitest uiInput dircFling 2"), "No Error\n");
    assert!(sh(&s, "uitest uiInput dircFling 7").starts_with("Illegal argument: 7\nUSAGE : \n"));
    assert_eq!(
        sh(&s, "uitest uiInput fling 600 2000 600 800 3000 5000"),
        "The stepLen is out of range\nNo Error\n"
    );
}

#[test]
fn typing_into_the_demo_login() {
    let s = sim();
    start_demo(&s);
    let tree = dump(&s);
    let (x, y) = center(&tree, "username").expect("username field");
    assert_eq!(
        sh(
            &s,
            &format!("uitest uiInput inputText {x} {y} 'it'\\''s me'")
        ),
        "No Error\n"
    );
    let tree = dump(&s);
    assert_eq!(text_of(&tree, "username").as_deref(), Some("it's me"));
    // `text` types into the focused field.
    assert_eq!(sh(&s, "uitest uiInput text '!'"), "No Error\n");
    assert_eq!(text_of(&dump(&s), "username").as_deref(), Some("it's me!"));
}

#[test]
fn screenshots() {
    let s = sim();
    assert_eq!(
        sh(&s, "snapshot_display -f /data/local/tmp/s.jpeg"),
        "process: display 0, file type: jpeg, width: 1260, height: 2720\n\
success: snapshot display 0 , write to /data/local/tmp/s.jpeg as jpeg, width: 1260, height: 2720\n"
    );
    let jpeg = s
        .phone(&s.serials()[0])
        .unwrap()
        .fs
        .read("/data/local/tmp/s.jpeg")
        .unwrap()
        .to_vec();
    assert_eq!(&jpeg[..2], &[0xFF, 0xD8]);
    assert_eq!(
        sh(&s, "snapshot_display -f /data/local/tmp/s.png"),
        "error: filename /data/local/tmp/s.png is invalid!\n"
    );
    assert_eq!(
        sh(&s, "uitest screenCap -p /data/local/tmp/c.png"),
        "ScreenCap saved to /data/local/tmp/c.png\n"
    );
    let png = s
        .phone(&s.serials()[0])
        .unwrap()
        .fs
        .read("/data/local/tmp/c.png")
        .unwrap()
        .to_vec();
    assert_eq!(&png[..4], b"\x89PNG");
}
