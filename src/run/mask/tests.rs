//! The masker alone: every form tapflow writes, anchors, and property tests over hostile
//! secrets, both as reporters write them and as the device backends send them (the real
//! encoders of `tapflow_device`, printed as the log subscriber prints them).

use super::forms::COMPONENT;
use super::*;
use base64::Engine;
use percent_encoding::utf8_percent_encode;
use proptest::prelude::*;
use serde_json::json;
use tapflow_device::adb::text::{adb_keyboard_commands, is_typeable, key_commands};
use tapflow_device::hdc::quote::{ShellCommand, display_argv};
use tapflow_device::hdc::sections;

/// Seen (the log gate's property test): a secret of repeated units, each ending in `'`, quoted
/// twice in an hdc command line; an Android chunk of it matched first, leftmost, and the tail of
/// the twice-quoted whole showed. Every occurrence counts, overlapping ones included.
#[test]
fn a_form_that_starts_inside_an_earlier_match_is_masked_too() {
    let m = Masker::new(["xxabc", "abcdefghij"]);
    assert_eq!(m.text("1 xxabcdefghij 2"), format!("1 {MASK} 2"));
    let unit = "Aa0a00Aa00aAA0Aa0aaaaAaaaaa0aA00aaAaa0AaaaA0a0AAAAaA0Aa0aa00aAA0aaa00Aaa0Aaa0a0A0Aaa0aA0a0AAa0A0000A1'";
    let secret = unit.repeat(3);
    let m = Masker::new([secret.as_str()]);
    let hdc =
        tapflow_device::hdc::quote::command_line("uitest", &["uiInput", "inputText", &secret]);
    let shown = display_argv("hdc", &["shell".to_string(), hdc]);
    let masked = m.text(&shown);
    assert!(!masked.contains("0000A1"), "{masked}");
    assert!(masked.contains(MASK), "{masked}");
}

#[test]
fn masks_longest_secret_first() {
    let m = Masker::new(["pw", "pw123", ""]);
    assert_eq!(m.text("x pw123 y pw"), "x ****** y ******");
    assert_eq!(
        m.value(&json!({"t": ["pw"], "n": 1, "pw": true})),
        json!({"t": ["******"], "n": 1, "******": true})
    );
}

#[test]
fn no_secrets_borrow() {
    let m = Masker::none();
    assert!(matches!(m.text("a"), Cow::Borrowed(_)));
    assert!(matches!(m.bytes(b"a"), Cow::Borrowed(_)));
    let m = Masker::new(["secret"]);
    assert!(matches!(m.text("nothing here"), Cow::Borrowed(_)));
    assert!(!format!("{m:?}").contains("secret"));
}

#[test]
fn every_form_tapflow_writes_is_masked() {
    let secret = "Us\"er\\Sec/ret1 it's <b>&";
    let m = Masker::new([secret]);
    let json = serde_json::to_string_pretty(&json!({"text": secret})).unwrap();
    assert_eq!(m.text(&json), "{\n  \"text\": \"******\"\n}");
    let cmd = tapflow_device::hdc::quote::command_line("uitest", &["inputText", secret]);
    assert_eq!(m.text(&cmd), "uitest 'inputText' '******'");
    let message = json!({"message": format!("`{cmd}` did not finish")}).to_string();
    assert_eq!(
        m.text(&message),
        r#"{"message":"`uitest 'inputText' '******'` did not finish"}"#
    );
    let url: String = utf8_percent_encode(secret, COMPONENT).to_string();
    assert_eq!(m.text(&format!("?q={url}&x=1")), "?q=******&x=1");
    assert_eq!(
        m.text(&format!("<td>{}</td>", handlebars::html_escape(secret))),
        "<td>******</td>"
    );
    assert_eq!(m.bytes(secret.as_bytes()).as_ref(), MASK.as_bytes());
    let argv = vec!["shell".to_string(), cmd];
    assert_eq!(
        m.text(&format!("argv={argv:?}")),
        r#"argv=["shell", "uitest 'inputText' '******'"]"#
    );
    // The same argv in a JSON log line: JSON of `{:?}`.
    let logged = json!({ "argv": format!("{argv:?}") }).to_string();
    assert_eq!(
        m.text(&logged),
        r#"{"argv":"[\"shell\", \"uitest 'inputText' '******'\"]"}"#
    );
    // An error message quoting the argv for a shell (the command quoted once more).
    assert_eq!(
        m.text(&display_argv("hdc", &argv)),
        r#"hdc shell 'uitest '\''inputText'\'' '\''******'\'''"#
    );
}

/// Seen: `-v` printed the adb argv of `input text` unmasked (`S3cret%sPw`).
#[test]
fn the_adb_typing_commands_are_masked() {
    let m = Masker::new(["S3cret Pw"]);
    let line = sections::chain(key_commands("S3cret Pw").unwrap()).into_string();
    let argv = ["-s".to_string(), "emu".into(), "exec-out".into(), line];
    assert_eq!(
        m.text(&format!("{argv:?}")),
        r#"["-s", "emu", "exec-out", "echo '==tapflow:0=='; input text '******'"]"#
    );
    // A long secret after other text: cut into two chunks, both masked, the commands kept.
    let secret = "x".repeat(30) + &"Long-Secret ".repeat(9);
    let m = Masker::new([secret.as_str()]);
    let typed = format!("user: {secret}");
    let line = sections::chain(key_commands(&typed).unwrap()).into_string();
    assert_eq!(
        m.text(&line),
        "echo '==tapflow:0=='; input text 'user:%s******'; echo '==tapflow:1=='; input text '******'"
    );
    // Non-ASCII goes as base64, at any offset in the typed text.
    let m = Masker::new(["Zoë-用户-pw"]);
    for typed in ["Zoë-用户-pw", "a Zoë-用户-pw", "ab Zoë-用户-pw!"] {
        let cmds: Vec<String> = adb_keyboard_commands(typed, None)
            .into_iter()
            .map(ShellCommand::into_string)
            .collect();
        let masked = m.text(&cmds.join("; ")).into_owned();
        assert!(masked.contains("--es msg '"), "{masked}");
        assert!(masked.contains(MASK), "{typed}: {masked}");
    }
}

#[test]
fn long_lines_of_a_multi_line_secret_are_masked_alone() {
    let m = Masker::new(["first-line\nab\n  second-line  "]);
    let log = "I A0d0d0/DemoApp: user=first-line\nI A0d0d0/DemoApp: ab\nI A0d0d0/DemoApp:   second-line  ";
    assert_eq!(
        m.text(log),
        "I A0d0d0/DemoApp: user=******\nI A0d0d0/DemoApp: ab\nI A0d0d0/DemoApp:   ******  "
    );
    // The JSON form of the whole secret (with `\n`) and of each long line.
    assert_eq!(
        m.text(r#""first-line\nab\n  second-line  ""#),
        r#""******""#
    );
    assert!(!encodings("a\nbcd\nefgh").contains(&"bcd".to_string()));
    assert!(encodings("a\nbcd\nefgh").contains(&"efgh".to_string()));
}

/// Characters that break naive masking: quoting, escapes, URL and HTML specials, control
/// characters, non-ASCII (BMP and astral), template braces.
const HOSTILE: &[&str] = &[
    "\"", "\\", "'", "$", "`", "%", "&", "<", ">", "\n", "\t", " ", "😀", "用户", "{{", "}}",
    "\u{1}", "\u{7f}", "é", "+", "=", "/", "#", "?", "a", "Z", "0", "\r", "%s",
];

/// A secret with a marker (`Q`, absent from the contexts and the mask), so that any form of
/// it left in masked output must come from the secret itself.
fn secret() -> impl Strategy<Value = String> {
    (
        proptest::collection::vec(proptest::sample::select(HOSTILE), 0..8),
        proptest::collection::vec(proptest::sample::select(HOSTILE), 0..8),
    )
        .prop_map(|(a, b)| format!("{}Q{}Q", a.concat(), b.concat()))
}

fn context() -> impl Strategy<Value = String> {
    proptest::collection::vec(proptest::sample::select(HOSTILE), 0..6).prop_map(|v| v.concat())
}

/// No form with the marker is left (forms of a marker-less line of a multi-line secret
/// are masked too, but may match unrelated context text, so they prove nothing here).
fn assert_clean(out: &str, secret: &str) -> Result<(), TestCaseError> {
    for e in encodings(secret).into_iter().filter(|e| e.contains('Q')) {
        prop_assert!(!out.contains(&e), "{e:?} in {out:?}");
    }
    Ok(())
}

proptest! {
    // Each case builds a masker (every form of a hostile secret): 800 cases, about 15 s.
    #![proptest_config(ProptestConfig::with_cases(800))]
    /// Whatever way tapflow writes a hostile secret (inside JSON, a shell-quoted device
    /// command, a JSON-escaped error message holding that command, a URL, HTML, or a log
    /// that prints a multi-line secret line by line), no form of it survives masking.
    #[test]
    fn no_form_survives(secret in secret(), pre in context(), post in context()) {
        let m = Masker::new([secret.as_str()]);
        let text = format!("{pre}{secret}{post}");
        let cmd = tapflow_device::hdc::quote::command_line("uitest", &[text.as_str()]);
        let outputs = [
            format!("argv={:?}", [&cmd]),
            text.clone(),
            serde_json::to_string(&json!({ "k": text })).unwrap(),
            serde_json::to_string_pretty(&json!([{ "message": cmd }])).unwrap(),
            cmd.clone(),
            utf8_percent_encode(&text, COMPONENT).to_string(),
            handlebars::html_escape(&text),
            text.split('\n').map(|l| format!("I A0d0d0/App: {l}")).collect::<Vec<_>>().join("\n"),
        ];
        for out in &outputs {
            assert_clean(&m.text(out), &secret)?;
            let masked = m.bytes(out.as_bytes()).into_owned();
            assert_clean(&String::from_utf8_lossy(&masked), &secret)?;
        }
        // JSON masked as values, then written by any serialiser.
        let v = m.value(&json!({ text.clone(): [text.clone(), {"cmd": cmd}] }));
        assert_clean(&serde_json::to_string(&v).unwrap(), &secret)?;
        assert_clean(&serde_json::to_string_pretty(&v).unwrap(), &secret)?;
    }
}

/// Secrets as people pick them, and the hostile characters: letters, digits, punctuation that
/// quoting, JSON and `{:?}` treat specially, spaces, a literal `%s`, newlines and tabs, emoji,
/// CJK; from 1 to 260 characters (several `input text` chunks).
pub(crate) fn typed_secret() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        4 => "[A-Za-z0-9]{1,12}",
        2 => proptest::sample::select(&["'", "\"", "$", "`", "\\", " ", "%s", "%", "!", "#"][..])
            .prop_map(str::to_string),
        1 => proptest::sample::select(&["\n", "\t", "😀", "用户", "é"][..]).prop_map(str::to_string),
    ];
    (proptest::collection::vec(piece, 1..40), 0usize..3).prop_map(|(v, long)| {
        let s = v.concat();
        // A third of the secrets are made longer than two chunks.
        if long == 0 {
            s.repeat(1 + 220 / s.chars().count().max(1))
        } else {
            s
        }
    })
}

/// The lines a log or an error message shows for the commands typing `typed` on Android: the
/// argv as the adb backend logs it (`{:?}`), that in a JSON log, and the argv quoted for a
/// shell as an error message quotes it, also as `result.json` holds it.
fn android_outputs(typed: &str) -> Vec<String> {
    let commands = if is_typeable(typed) {
        key_commands(typed).unwrap()
    } else {
        adb_keyboard_commands(typed, Some("com.android.inputmethod.latin/.LatinIME"))
    };
    let line = sections::chain(commands).into_string();
    let argv = vec![
        "-s".to_string(),
        "emulator-5554".into(),
        "exec-out".into(),
        line,
    ];
    let debug = format!("{argv:?}");
    let shown = display_argv("/usr/bin/adb", &argv);
    vec![
        format!("DEBUG tapflow::adb: adb round trip argv={debug} attempt=1"),
        json!({"fields": {"argv": debug}}).to_string(),
        format!("ADB_TIMEOUT: `{shown}` did not finish"),
        json!({"message": shown}).to_string(),
    ]
}

/// What a leak would look like: the secret's text, and its Android encoding, in pieces of
/// 5 characters or more that `input text` could have sent whole.
pub(crate) fn visible_pieces(secret: &str) -> Vec<String> {
    let chars: Vec<char> = secret.chars().collect();
    let mut out = Vec::new();
    for w in chars.windows(5) {
        let piece: String = w.iter().collect();
        if piece.contains(['\n', '\t']) || piece.contains("%s") {
            continue;
        }
        out.push(piece.replace(' ', "%s"));
    }
    out
}

proptest! {
    // A third of the secrets are long (thousands of needles each): 200 cases, about 15 s.
    #![proptest_config(ProptestConfig::with_cases(200))]
    /// A hostile secret typed on Android, alone or inside other text, through the real
    /// encoders of the adb backend and printed as logs and error messages print the commands:
    /// no 5-character piece of it (in `input text`'s encoding, which is the secret's own
    /// characters for letters and digits) is left, and its base64 is gone.
    #[test]
    fn android_typing_leaves_no_piece(secret in typed_secret(), pre in "[-:,.= ]{0,130}", post in "[-,. ]{0,5}") {
        let m = Masker::new([secret.as_str()]);
        for typed in [secret.clone(), format!("{pre}{secret}{post}")] {
            for out in android_outputs(&typed) {
                let masked = m.text(&out);
                for piece in visible_pieces(&secret) {
                    // Only letters and digits: a piece with punctuation is escaped differently
                    // in each output form (the whole-form checks above cover those).
                    if piece.chars().all(|c| c.is_ascii_alphanumeric()) {
                        prop_assert!(!masked.contains(&piece), "{piece:?} in {masked}");
                    }
                }
                if !is_typeable(&typed) {
                    let b64 = base64::engine::general_purpose::STANDARD.encode(secret.as_bytes());
                    if typed == secret {
                        prop_assert!(!masked.contains(&b64), "{masked}");
                    }
                }
            }
        }
    }
}
