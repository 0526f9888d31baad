//! Text: the password's value never shows, editing keys, any text arriving byte-exact, and a
//! password that cannot be copied out of its field.

use super::*;

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
