//! Input: taps and gestures of every kind, text (quoted, NUL refused, uitest parameter
//! messages) and keys (named, combined, at most three codes, failures).

use pretty_assertions::assert_eq;
use tapflow_device::{Device, Direction, Gesture, KeyInput, Point, TapKind, TextTarget};

use super::{Fake, cost, device, shell};

#[test]
fn taps_of_every_kind() {
    for (kind, cmd) in [
        (TapKind::Single, "uitest uiInput click 540 1200"),
        (TapKind::Double, "uitest uiInput doubleClick 540 1200"),
        (TapKind::Long, "uitest uiInput longClick 540 1200"),
    ] {
        let fake = Fake::new().reply("\n");
        let d = device(&fake);
        d.tap(Point::new(540, 1200), kind).unwrap();
        assert_eq!(fake.calls(), vec![shell(cmd)]);
        assert_eq!(d.cost(), cost(1, 0));
    }
    let fake = Fake::new().reply("\n");
    device(&fake)
        .tap(Point::new(0, -3), TapKind::Single)
        .unwrap();
    assert_eq!(
        fake.calls(),
        vec![shell("uitest uiInput click 1 1")],
        "clamped to 1"
    );
}

#[test]
fn gestures_of_every_kind() {
    let (a, b) = (Point::new(100, 2000), Point::new(100, 400));
    let cases = [
        (
            Gesture::Swipe {
                from: a,
                to: b,
                speed: 600,
            },
            "uitest uiInput swipe 100 2000 100 400 600",
        ),
        (
            Gesture::Drag {
                from: a,
                to: b,
                speed: 1000,
            },
            "uitest uiInput drag 100 2000 100 400 1000",
        ),
        (
            Gesture::Fling {
                from: a,
                to: b,
                speed: 2000,
                step: None,
            },
            "uitest uiInput fling 100 2000 100 400 2000",
        ),
        (
            Gesture::Fling {
                from: a,
                to: b,
                speed: 2000,
                step: Some(40),
            },
            "uitest uiInput fling 100 2000 100 400 2000 40",
        ),
        (
            Gesture::DirectionalFling {
                direction: Direction::Left,
                speed: 600,
                step: None,
            },
            "uitest uiInput dircFling 0 600",
        ),
        (
            Gesture::DirectionalFling {
                direction: Direction::Right,
                speed: 600,
                step: None,
            },
            "uitest uiInput dircFling 1 600",
        ),
        (
            Gesture::DirectionalFling {
                direction: Direction::Up,
                speed: 600,
                step: Some(50),
            },
            "uitest uiInput dircFling 2 600 50",
        ),
        (
            Gesture::DirectionalFling {
                direction: Direction::Down,
                speed: 100,
                step: None,
            },
            "uitest uiInput dircFling 3 200",
        ),
    ];
    for (g, cmd) in cases {
        let fake = Fake::new().reply("\n");
        let d = device(&fake);
        d.gesture(&g).unwrap();
        assert_eq!(fake.calls(), vec![shell(cmd)], "{g:?}");
        assert_eq!(d.cost(), cost(1, 0));
    }
}

#[test]
fn text_input_quotes_the_text() {
    let fake = Fake::new().reply("\n").reply("\n");
    let d = device(&fake);
    d.input_text(TextTarget::At(Point::new(540, 1200)), "hello world")
        .unwrap();
    d.input_text(TextTarget::Focused, "it's $(reboot) `id` 中文😀")
        .unwrap();
    assert_eq!(
        fake.calls(),
        vec![
            shell("uitest uiInput inputText 540 1200 'hello world'"),
            shell("uitest uiInput text 'it'\\''s $(reboot) `id` 中文😀'"),
        ]
    );
    assert_eq!(d.cost(), cost(2, 0));
}

#[test]
fn text_with_nul_is_refused_before_sending() {
    let fake = Fake::new();
    let e = device(&fake)
        .input_text(TextTarget::Focused, "a\0b")
        .unwrap_err();
    assert_eq!(e.code(), "INVALID_PARAM");
    assert!(fake.calls().is_empty());
}

#[test]
fn uitest_parameter_messages_are_input_failures() {
    let fake = Fake::new().reply("Please confirm that the coordinate values are correct.\n");
    let e = device(&fake)
        .tap(Point::new(5, 5), TapKind::Single)
        .unwrap_err();
    assert_eq!(e.code(), "INPUT_FAILED");
    assert_eq!(
        e.device_says(),
        Some("Please confirm that the coordinate values are correct.")
    );
}

#[test]
fn keys_named_and_combined() {
    for (key, cmd) in [
        (KeyInput::Back, "uitest uiInput keyEvent Back"),
        (KeyInput::Home, "uitest uiInput keyEvent Home"),
        (KeyInput::Power, "uitest uiInput keyEvent Power"),
        (KeyInput::Codes(vec![2054]), "uitest uiInput keyEvent 2054"),
        (
            KeyInput::Codes(vec![2072, 2047, 2017]),
            "uitest uiInput keyEvent 2072 2047 2017",
        ),
    ] {
        let fake = Fake::new().reply("\n");
        let d = device(&fake);
        d.key_event(&key).unwrap();
        assert_eq!(fake.calls(), vec![shell(cmd)]);
        assert_eq!(d.cost(), cost(1, 0));
    }
}

#[test]
fn more_than_three_key_codes_are_never_sent() {
    let fake = Fake::new();
    let d = device(&fake);
    let e = d
        .key_event(&KeyInput::Codes(vec![2072, 2047, 2045, 2017]))
        .unwrap_err();
    assert_eq!(e.code(), "INVALID_KEY");
    assert!(fake.calls().is_empty());
    assert_eq!(d.cost(), cost(0, 0));
}

#[test]
fn key_failure_is_key_event_failed() {
    let fake = Fake::new().reply("Invalid parameters.\n");
    let e = device(&fake).key_event(&KeyInput::Back).unwrap_err();
    assert_eq!(e.code(), "KEY_EVENT_FAILED");
}
