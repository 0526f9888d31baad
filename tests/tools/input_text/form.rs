//! The form [`FormPhone`] shows: its elements ([`SPECS`]), the text-field editing model
//! ([`Field`]), the fault and behaviour knobs ([`Knobs`]), the device-side [`State`] with its
//! action log ([`Act`]), and the builders of the accessibility tree's nodes.

use super::*;

/// What the device was asked to do, in order. A dump records the value the focused field
/// showed in it, so tests can check what had been observed before each action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Act {
    Dump { focused_value: Option<String> },
    Tap(Point),
    Key(Vec<u32>),
    Text(TextTarget, String),
}

#[derive(Debug, Clone, Default)]
pub(super) struct Field {
    pub(super) text: String,
    pub(super) caret: usize,
    pub(super) all_selected: bool,
}

impl Field {
    pub(super) fn insert(&mut self, s: &str) {
        if self.all_selected {
            self.text.clear();
            self.caret = 0;
            self.all_selected = false;
        }
        let at = byte_at(&self.text, self.caret);
        self.text.insert_str(at, s);
        self.caret += s.chars().count();
    }
    pub(super) fn backspace(&mut self) {
        if self.all_selected {
            self.text.clear();
            self.caret = 0;
            self.all_selected = false;
        } else if self.caret > 0 {
            let at = byte_at(&self.text, self.caret - 1);
            self.text.remove(at);
            self.caret -= 1;
        }
    }
}

fn byte_at(s: &str, chars: usize) -> usize {
    s.char_indices()
        .nth(chars)
        .map(|(b, _)| b)
        .unwrap_or(s.len())
}

/// Fault and behaviour knobs (all off by default).
#[derive(Debug, Default)]
pub(super) struct Knobs {
    /// Focus shows only after this many further dumps following the tap.
    pub(super) focus_lag: u32,
    /// Taps never focus anything.
    pub(super) never_focus: bool,
    /// Another window (a system dialog) holds window focus.
    pub(super) dialog_on_top: bool,
    /// The tap command is refused.
    pub(super) tap_error: Option<DeviceError>,
    /// `uitest text` is refused.
    pub(super) text_error: Option<DeviceError>,
    /// Key events are refused.
    pub(super) key_error: Option<DeviceError>,
    /// Typed or pasted text becomes visible only after this many further dumps.
    pub(super) value_lag: u32,
    /// Key-by-key typing loses this character.
    pub(super) drop_char: Option<char>,
    /// Pasted text never arrives.
    pub(super) paste_lost: bool,
    /// Backspace does nothing.
    pub(super) ignore_backspace: bool,
    /// Focusing a field selects its whole value, and MoveEnd is ignored (a buggy app).
    pub(super) select_on_focus_ignore_end: bool,
    /// Dumps after this many more successful ones are refused (`DumpLayout failed`)...
    pub(super) refuse_dumps_after: Option<u32>,
    /// ...this many times.
    pub(super) refused_dumps: u32,
    /// The n-th dump chained to an action (1-based) fails with this error; the action itself
    /// went through.
    pub(super) fail_chained: Option<(u32, DeviceError)>,
    /// Behave like a backend that cannot chain an action and its dump (the trait's default:
    /// two round trips).
    pub(super) no_chaining: bool,
}

#[derive(Debug, Default)]
pub(super) struct State {
    pub(super) fields: BTreeMap<u32, Field>,
    pub(super) focus: Option<u32>,
    pub(super) pending_focus: Option<(u32, u32)>,
    /// Values shown instead of the real ones for this many more dumps.
    pub(super) shown: Option<(u32, BTreeMap<u32, Field>)>,
    pub(super) clipboard: String,
    pub(super) acts: Vec<Act>,
    /// Dumps that travelled with an action in one round trip.
    pub(super) chained: u32,
}

pub(super) struct Spec {
    pub(super) aid: u32,
    pub(super) ty: &'static str,
    pub(super) id: &'static str,
    top: i32,
    pub(super) enabled: bool,
    pub(super) password: bool,
}

pub(super) const SPECS: &[Spec] = &[
    Spec {
        aid: LABEL,
        ty: "Text",
        id: "nameLabel",
        top: 200,
        enabled: true,
        password: false,
    },
    Spec {
        aid: NAME,
        ty: "TextInput",
        id: "name",
        top: 300,
        enabled: true,
        password: false,
    },
    Spec {
        aid: PIN,
        ty: "TextInput",
        id: "pin",
        top: 460,
        enabled: true,
        password: false,
    },
    Spec {
        aid: PASSWORD,
        ty: "TextInput",
        id: "password",
        top: 620,
        enabled: true,
        password: true,
    },
    Spec {
        aid: LOCKED,
        ty: "TextInput",
        id: "locked",
        top: 780,
        enabled: false,
        password: false,
    },
    Spec {
        aid: SUBMIT,
        ty: "Button",
        id: "submit",
        top: 940,
        enabled: true,
        password: false,
    },
];

pub(super) fn bounds_of(s: &Spec) -> Bounds {
    Bounds::new(60, s.top, 1200, s.top + 120)
}

pub(super) fn center_of(aid: u32) -> Point {
    bounds_of(SPECS.iter().find(|s| s.aid == aid).unwrap()).center()
}

pub(super) fn node(attrs: &[(&str, String)], children: Vec<UiNode>) -> UiNode {
    let mut n = UiNode::default();
    for (k, v) in attrs {
        n.attributes.insert((*k).to_string(), v.clone());
    }
    n.children = children;
    n
}

pub(super) fn window(
    id: i64,
    bundle: &str,
    b: Bounds,
    focused: bool,
    children: Vec<UiNode>,
) -> UiNode {
    node(
        &[
            ("accessibilityId", "0".into()),
            ("bounds", b.to_string()),
            ("bundleName", bundle.into()),
            ("focused", focused.to_string()),
            ("hashcode", format!("{id}:0")),
            ("hostWindowId", id.to_string()),
            ("id", String::new()),
            ("text", String::new()),
            ("type", "root".into()),
            ("visible", "true".into()),
        ],
        children,
    )
}
