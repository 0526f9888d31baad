//! Apps as data: the serde model of an app (abilities, pages, element trees, actions).
//!
//! An app file (see `apps/demo.yaml` for the full demo) looks like:
//!
//! ```yaml
//! bundle: com.example.counter
//! label: Counter
//! log_domain: 0x1234          # hilog records of `log` actions: `A01234/Counter`
//! log_tag: Counter
//! abilities: [{name: EntryAbility, launcher: true, page: pages/Index}]
//! pages:
//!   pages/Index:
//!     root:
//!       type: Column
//!       margin: 48             # px at width 1260, scaled to the phone
//!       children:
//!         - {type: TextInput, id: name, hint: Name}
//!         - {type: Toggle, id: sound, text: Sound, flags: {checked: true}}
//!         - type: Button
//!           id: go
//!           text: Go
//!           on_tap:
//!             - submit:
//!                 require: [{field: name, error_var: err, message: Name is required}]
//!                 then: [{delay: {ms: 500, then: [{navigate: pages/Done}, {log: {message: "GO ${name}"}}]}}]
//!         - {type: Text, id: err, text: "${err}", visible_if: err}
//!         - type: List
//!           id: rows
//!           height: fill
//!           repeat: {count: 30, item: {type: ListItem, id: "row_${n}", children: [{type: Text, text: "Row ${n}"}]}}
//!   pages/Done:
//!     root: {type: Column, children: [{type: Text, text: "Done, ${name}"}]}
//! ```
//!
//! A hap may carry such a file as its `tapflow.yaml` entry to get real pages (see `hap`).
//! Text fields in specs may contain `${name}` placeholders: they are replaced by the app's
//! variables (a TextInput's value is the variable named by its id, a Toggle's state `true`/`false`)
//! and, inside a list template, by `${n}` (1-based item number).

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

/// One app as shipped in an `apps/*.yaml` file or synthesised from an installed hap.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AppSpec {
    pub bundle: String,
    pub label: String,
    #[serde(default = "default_module")]
    pub module: String,
    #[serde(default = "default_version_code")]
    pub version_code: u32,
    #[serde(default = "default_version_name")]
    pub version_name: String,
    /// hilog domain of the app's own records (type `A`).
    #[serde(default)]
    pub log_domain: u32,
    #[serde(default = "default_tag")]
    pub log_tag: String,
    pub abilities: Vec<AbilitySpec>,
    #[serde(default)]
    pub permissions: Vec<String>,
    /// Page path → page.
    #[serde(default)]
    pub pages: IndexMap<String, PageSpec>,
}

fn default_module() -> String {
    "entry".into()
}
fn default_version_code() -> u32 {
    1_000_000
}
fn default_version_name() -> String {
    "1.0.0".into()
}
fn default_tag() -> String {
    "JSAPP".into()
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AbilitySpec {
    pub name: String,
    /// Has the launcher skill (`entity.system.home` + `action.system.home`).
    #[serde(default)]
    pub launcher: bool,
    #[serde(default = "yes")]
    pub exported: bool,
    /// The first page shown; `None` → a default page with the app label.
    #[serde(default)]
    pub page: Option<String>,
    /// `page` (a UIAbility: window + mission) or `service` (a ServiceExtensionAbility: no
    /// window, listed under `ExtensionRecords` while it runs).
    #[serde(default, rename = "type")]
    pub kind: AbilityKind,
    /// Skills beyond the launcher one, for implicit starts (`aa start -U/-A/-e`).
    #[serde(default)]
    pub skills: Vec<SkillSpec>,
    /// Actions run on every start of the ability (first start and each new want); templates
    /// read the want as `${want.uri}`, `${want.action}` and `${want.<parameter key>}`.
    #[serde(default)]
    pub on_start: Vec<Action>,
}

/// The kind of an ability, as `bm dump` and `aa dump -l` name it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AbilityKind {
    #[default]
    Page,
    Service,
}

/// One `skills` entry of `module.json5`: what implicit wants the ability answers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SkillSpec {
    #[serde(default)]
    pub actions: Vec<String>,
    #[serde(default)]
    pub entities: Vec<String>,
    /// URI prefixes: `scheme` or `scheme://host`.
    #[serde(default)]
    pub uris: Vec<String>,
}

fn yes() -> bool {
    true
}

/// One page: its element tree and the dialogs it can show.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PageSpec {
    pub root: ElementSpec,
    #[serde(default)]
    pub dialogs: IndexMap<String, ElementSpec>,
    /// Actions run when the page is shown.
    #[serde(default)]
    pub on_show: Vec<Action>,
}

/// Element flags; unset ones take the element type's defaults (see `ElementSpec::flag_defaults`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Flags {
    pub clickable: Option<bool>,
    pub long_clickable: Option<bool>,
    pub checkable: Option<bool>,
    pub checked: Option<bool>,
    pub scrollable: Option<bool>,
    /// On a non-text element: ArkUI's `focusOnTouch(true)`; tapping it takes the focus from a
    /// text field, so the IME closes. (Text inputs are always focusable.)
    pub focusable: Option<bool>,
    pub enabled: Option<bool>,
    #[serde(default)]
    pub password: bool,
}

/// Height of an element: pixels at the reference width 1260, or the remaining space.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Size {
    Px(i32),
    Fill(FillWord),
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FillWord {
    Fill,
}

/// A list's items generated from a template.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Repeat {
    pub count: u32,
    pub item: Box<ElementSpec>,
}

/// One element of a page.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ElementSpec {
    /// ArkUI component type: `Column`, `Row`, `Text`, `Button`, `TextInput`, `Toggle`, `List`, …
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub text: Option<String>,
    #[serde(default)]
    pub hint: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub flags: Flags,
    /// Height; default depends on the type. Containers default to their content.
    #[serde(default)]
    pub height: Option<Size>,
    /// Horizontal inset on both sides (px at width 1260).
    #[serde(default)]
    pub margin: Option<i32>,
    /// Vertical gap between children of a container.
    #[serde(default)]
    pub spacing: Option<i32>,
    /// `#AARRGGBB`
    #[serde(default)]
    pub background: Option<String>,
    /// Shown only when this variable is non-empty and not `false`.
    #[serde(default)]
    pub visible_if: Option<String>,
    #[serde(default)]
    pub on_tap: Vec<Action>,
    /// Enter key in a focused TextInput.
    #[serde(default)]
    pub on_enter: Vec<Action>,
    #[serde(default)]
    pub children: Vec<ElementSpec>,
    #[serde(default)]
    pub repeat: Option<Repeat>,
}

/// Requirement checked by `submit`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Require {
    /// Variable (usually a TextInput id) that must be non-empty after trimming.
    pub field: String,
    /// Variable that receives `message` when the requirement fails.
    pub error_var: String,
    pub message: String,
}

/// What an event does. One key per action in YAML, e.g. `- navigate: pages/HomePage`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Action {
    /// Push a page.
    Navigate(String),
    /// Replace the whole page stack with this page.
    Reset(String),
    /// Pop a page (or leave the app from its first page).
    Back,
    /// Flip a Toggle/Checkbox (by id; the tapped element when omitted).
    Toggle(Option<String>),
    /// Set a variable (value is a template).
    Set {
        var: String,
        value: String,
    },
    /// Clear variables.
    Clear(Vec<String>),
    ShowDialog(String),
    CloseDialog,
    /// App hilog record (level `I` unless given).
    Log {
        message: String,
        #[serde(default)]
        level: Option<char>,
    },
    /// The app throws: jscrash file, hilog crash lines, process gone.
    Crash {
        error_name: String,
        message: String,
        #[serde(default)]
        stack: Vec<String>,
    },
    /// Validate then run `then`.
    Submit {
        require: Vec<Require>,
        then: Vec<Action>,
    },
    /// Run `then` after `ms` milliseconds of device time.
    Delay {
        ms: u64,
        then: Vec<Action>,
    },
    /// Terminate the app normally.
    Exit,
    /// Start capturing the screen into a video, or stop and save it into the media library
    /// (`file_name` is a template; empty → the recorder's default `SVID_<date>_<time>_1.mp4`).
    ToggleScreenRecording {
        #[serde(default)]
        file_name: String,
    },
}

impl ElementSpec {
    /// Default flags of an ArkUI component type: (clickable, checkable, scrollable).
    pub fn flag_defaults(kind: &str) -> (bool, bool, bool) {
        match kind {
            "Button" | "ListItem" | "GridItem" | "Image" => (true, false, false),
            "TextInput" | "TextArea" | "Search" => (true, false, false),
            "Toggle" | "Checkbox" | "Radio" => (true, true, false),
            "List" | "Scroll" | "Grid" => (false, false, true),
            _ => (false, false, false),
        }
    }

    pub fn is_text_input(&self) -> bool {
        matches!(self.kind.as_str(), "TextInput" | "TextArea" | "Search")
    }
}

/// Replaces `${name}` placeholders using `lookup`; unknown names become empty.
pub fn expand(template: &str, lookup: &dyn Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        match after.find('}') {
            Some(end) => {
                out.push_str(&lookup(&after[..end]).unwrap_or_default());
                rest = &after[end + 1..];
            }
            None => {
                out.push_str(&rest[start..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expands_placeholders() {
        let f = |k: &str| (k == "u").then(|| "Ann $x ${u}".to_string());
        assert_eq!(expand("Hello, ${u}!", &f), "Hello, Ann $x ${u}!");
        assert_eq!(expand("${nope}-${", &f), "-${");
    }

    #[test]
    fn parses_actions_from_yaml() {
        let y = "- navigate: pages/A\n- back\n- toggle: null\n- set: {var: a, value: b}\n- delay: {ms: 800, then: [exit]}\n";
        let a: Vec<Action> = serde_saphyr::from_str(y).unwrap();
        assert_eq!(a[0], Action::Navigate("pages/A".into()));
        assert_eq!(a[1], Action::Back);
        assert_eq!(a[2], Action::Toggle(None));
        assert!(matches!(a[4], Action::Delay { ms: 800, .. }));
    }
}

#[cfg(test)]
mod doc_example {
    /// The YAML of the module docs parses and validates (kept in sync by this test).
    #[test]
    fn module_doc_example_is_valid() {
        let src = include_str!("model.rs");
        let yaml: String = src
            .lines()
            .skip_while(|l| !l.starts_with("//! ```yaml"))
            .skip(1)
            .take_while(|l| !l.starts_with("//! ```"))
            .map(|l| {
                format!(
                    "{}\n",
                    l.trim_start_matches("//!").strip_prefix(' ').unwrap_or("")
                )
            })
            .collect();
        let spec = super::super::loader::parse_app(&yaml).unwrap();
        assert_eq!(spec.pages.len(), 2);
    }
}
