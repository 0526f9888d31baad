//! Reading the target field out of one UI observation: where it is, its current value, whether
//! it and its window have focus, whether it can take text at all, and whether its value is
//! masked (password fields show one `•` per character, never the value).
//!
//! Pure functions over a [`UiNode`] tree; no device access.

use tapflow_device::model::{ElementHandle, UiNode};
use tapflow_device::ui::handle::locate;
use tapflow_device::ui::matching::{Match, window_nodes};

/// Node types that take text: ArkUI editors and the Web accessibility roles for text boxes.
const TEXT_TYPES: &[&str] = &[
    "textinput",
    "textarea",
    "search",
    "searchfield",
    "richeditor",
    "textfield",
    "textbox",
    "searchbox",
    "editabletext",
    "combobox",
];

/// Characters a masked (password) value is drawn with in a dump.
const MASK_CHARS: &[char] = &['\u{2022}', '\u{25CF}'];

/// The target as one observation shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldView {
    pub text: String,
    pub element_type: String,
    pub enabled: bool,
    pub focused: bool,
    /// The window node holding the target is the focused (foreground) window.
    pub window_foreground: bool,
    /// The dump marks the node as a password field (`password="true"`: Android; HarmonyOS
    /// dumps carry no such attribute).
    pub password: bool,
}

/// The handle's element found by identity only (window, accessibility id / hashcode, type):
/// the value of a field is what input_text changes, so the text a handle was found by (its
/// lookup hint) must not decide whether it is still the same field.
pub fn locate_by_identity<'a>(tree: &'a UiNode, handle: &ElementHandle) -> Option<Match<'a>> {
    let mut by_identity = handle.clone();
    if let Some(hint) = by_identity.lookup_hint.as_mut() {
        hint.text = None;
    }
    locate(tree, &by_identity)
}

/// The target as `tree` shows it (`None`: not on screen).
pub fn view(tree: &UiNode, handle: &ElementHandle) -> Option<FieldView> {
    let m = locate_by_identity(tree, handle)?;
    let window_foreground = window_nodes(tree)
        .into_iter()
        .any(|(_, w)| w.window_id() == m.window_id && w.flag("focused"));
    Some(FieldView {
        text: m.node.text().to_string(),
        element_type: m.node.node_type().to_string(),
        enabled: m.node.attr("enabled") != "false",
        focused: m.node.flag("focused"),
        window_foreground,
        password: m.node.attr("password") == "true",
    })
}

/// The focused window of the observation (the foreground one), if a window node says so.
pub fn foreground_window_id(tree: &UiNode) -> Option<i64> {
    window_nodes(tree)
        .into_iter()
        .find(|(_, w)| w.flag("focused"))
        .and_then(|(_, w)| w.window_id())
}

/// Whether a node of this type takes text: the ArkUI and Web types above, or an Android view
/// class that is an `EditText` (`android.widget.EditText`, `…AppCompatEditText`,
/// `…TextInputEditText`) or an auto-complete text view.
pub fn is_text_type(element_type: &str) -> bool {
    let t = element_type.to_ascii_lowercase();
    if TEXT_TYPES.contains(&t.as_str()) {
        return true;
    }
    let class = element_type.rsplit('.').next().unwrap_or(element_type);
    element_type.contains('.')
        && (class.ends_with("EditText") || class.ends_with("AutoCompleteTextView"))
}

/// A non-empty value drawn entirely with mask characters: the field hides its value.
pub fn is_masked(text: &str) -> bool {
    !text.is_empty() && text.chars().all(|c| MASK_CHARS.contains(&c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tapflow_device::ui::handle_of;
    use tapflow_device::ui::matching::find;
    use tapflow_device::ui::selector::{Selector, TextMatch};

    fn fixture(name: &str) -> UiNode {
        let path = format!(
            "{}/../../tests/fixtures/harmonyos/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    fn inputs(t: &UiNode, ty: &str) -> Vec<ElementHandle> {
        let sel = Selector::new(None, Some(ty.into()), None, TextMatch::Exact).unwrap();
        find(t, &sel)
            .iter()
            .map(|m| handle_of(m, sel.hint(None)))
            .collect()
    }

    #[test]
    fn reads_focus_and_foreground_from_a_real_keyboard_dump() {
        // HapTest login demo with the keyboard up: the password field (second input) has focus,
        // its app window (42) is the focused window, the IME window (3) is not.
        let t = fixture("layout_haptest_logindemo_save_keyboard_pretty.json");
        let hs = inputs(&t, "TextInput");
        assert_eq!(hs.len(), 2);
        let user = view(&t, &hs[0]).unwrap();
        let pass = view(&t, &hs[1]).unwrap();
        assert!(!user.focused && pass.focused);
        assert!(user.window_foreground && pass.window_foreground);
        assert!(pass.enabled && is_text_type(&pass.element_type));
        assert_eq!(foreground_window_id(&t), Some(42));
    }

    #[test]
    fn web_text_fields_count_and_disabled_ones_are_seen() {
        let t = fixture("layout_haptest_vmall_web_keyboard_large_pretty.json");
        let hs = inputs(&t, "textField");
        let views: Vec<FieldView> = hs.iter().filter_map(|h| view(&t, h)).collect();
        assert_eq!(views.len(), hs.len());
        assert!(
            views.iter().any(|v| !v.enabled),
            "the region picker is disabled"
        );
        assert_eq!(views.iter().filter(|v| v.focused).count(), 1);
        assert!(is_text_type("textField"));
        assert!(!is_text_type("Button"));
        assert!(is_text_type("android.widget.EditText"));
        assert!(is_text_type(
            "com.google.android.material.textfield.TextInputEditText"
        ));
        assert!(is_text_type("android.widget.AutoCompleteTextView"));
        assert!(!is_text_type("android.widget.TextView"));
        assert_eq!(foreground_window_id(&t), Some(282));
    }

    #[test]
    fn the_hint_text_does_not_decide_identity() {
        let t = fixture("layout_haptest_logindemo_login_pretty.json");
        let mut h = inputs(&t, "TextInput").remove(0);
        h.lookup_hint.as_mut().unwrap().text = Some("a value typed earlier".into());
        assert!(view(&t, &h).is_some());
    }

    #[test]
    fn masks_are_recognised() {
        assert!(is_masked("••••"));
        assert!(is_masked("●●"));
        assert!(!is_masked(""));
        assert!(!is_masked("•a"));
        assert!(!is_masked("****"));
    }
}
