//! Property: any text typed through the hdc backend arrives byte-exact in the simulated text
//! field. The text crosses the backend's single-quoting for `sh`, hdc's shell join, the
//! simulated device's `sh -c` parser and uitest's argv, then is read back from a UI dump (the
//! username field: a password field is masked in dumps).

use std::sync::Arc;

use proptest::prelude::*;
use tapflow_device::hdc::{HdcClient, HdcConfig, HdcDevice, HdcRoute};
use tapflow_device::{Device, DumpScope, TapKind, TextTarget, UiNode};
use tapflow_sim::{Latency, SimOptions, SimTransport, Simulator};

fn username(tree: &UiNode) -> &UiNode {
    tree.walk()
        .find(|n| n.id() == "username")
        .expect("username field")
}

/// A fresh device on the demo app's login page; returns it with the field's centre.
fn login_page() -> (HdcDevice, tapflow_device::Point) {
    let sim = Arc::new(Simulator::new(SimOptions {
        latency: Latency::None,
        ..Default::default()
    }));
    let client = HdcClient::new(
        HdcConfig::default(),
        Arc::new(SimTransport::new(sim, std::env::temp_dir())),
    );
    let device = client.connect(HdcRoute::default()).expect("connect");
    device
        .start_app("com.tapflow.demo", "EntryAbility", None)
        .expect("start");
    let tree = device.ui_tree(&DumpScope::default()).expect("dump");
    let at = username(&tree).bounds().unwrap().center();
    (device, at)
}

fn typed_text(device: &HdcDevice) -> String {
    let tree = device.ui_tree(&DumpScope::default()).expect("dump");
    username(&tree).text().to_string()
}

/// Text a shell would love to interpret, plus scripts a byte-oriented pipeline would mangle.
fn hostile_text() -> impl Strategy<Value = String> {
    prop_oneof![
        // Shell metacharacters, quotes and whitespace (ASCII: typed key by key).
        "[\"'$`\\\\;&|<>(){}*?!#~= \t\n-]{1,40}",
        // Mixed scripts: emoji, CJK, right-to-left (Hebrew, Arabic), combining marks (pasted).
        "[a-z'\"$`\\\\ \n😀👍🏽中文字עבריתعربي\u{200f}\u{301}]{1,30}",
        // Printable ASCII, long enough to cross the key-by-key limit (200) into a paste.
        "[ -~]{150,260}",
        // Anything printable at all.
        "\\PC{1,40}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn typed_text_arrives_byte_exact(text in hostile_text(), at_point in any::<bool>()) {
        let (device, at) = login_page();
        if at_point {
            // `inputText x y text`: taps the field, then types.
            device.input_text(TextTarget::At(at), &text).expect("inputText");
        } else {
            device.tap(at, TapKind::Single).expect("tap");
            device.input_text(TextTarget::Focused, &text).expect("text");
        }
        prop_assert_eq!(typed_text(&device), text);
    }
}

#[test]
fn typed_text_reaches_the_field_on_known_hard_cases() {
    for text in [
        "'",
        "'\\''",
        "$(reboot)",
        "`id`",
        "a\\nb",
        "line1\nline2",
        "-p",
        "--help",
        "\"quoted\"",
        "emoji 😀 中文 עברית",
        "   leading and trailing spaces   ",
    ] {
        let (device, at) = login_page();
        device.tap(at, TapKind::Single).expect("tap");
        device
            .input_text(TextTarget::Focused, text)
            .unwrap_or_else(|e| panic!("{text:?}: {e}"));
        assert_eq!(typed_text(&device), text, "{text:?}");
    }
}
