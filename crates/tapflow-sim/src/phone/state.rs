//! Runtime state: installed apps, running processes with their page stacks, variables, text
//! fields, scroll offsets, dialogs and focus, and pending delayed actions.

use super::field::FieldState;
use super::model::{Action, AppSpec};
use indexmap::IndexMap;
use std::collections::HashMap;
use std::time::SystemTime;

/// An installed bundle.
#[derive(Debug, Clone)]
pub struct InstalledApp {
    pub spec: AppSpec,
    pub uid: u32,
    /// Preinstalled system app (cannot be uninstalled).
    pub system: bool,
    /// Shown on the launcher.
    pub on_launcher: bool,
    pub install_time: SystemTime,
    /// `module.json` of an installed hap (kept for `bm dump`), `None` for built-in apps.
    pub module_json: Option<serde_json::Value>,
}

/// A running app process and its UI state.
#[derive(Debug, Clone)]
pub struct AppProcess {
    pub bundle: String,
    pub pid: u32,
    pub uid: u32,
    pub window_id: i64,
    pub mission_id: i64,
    pub ability: String,
    pub started: SystemTime,
    /// Page paths, top last. Empty → the app's default page (its label).
    pub stack: Vec<String>,
    pub vars: IndexMap<String, String>,
    pub fields: HashMap<String, FieldState>,
    pub scroll: HashMap<String, i32>,
    pub dialog: Option<String>,
    /// Id of the focused TextInput (the IME is up while one is focused).
    pub focus: Option<String>,
    /// Has a UIAbility running (a window and a mission); false for a process that only runs
    /// service extensions.
    pub ui: bool,
    /// Service extension abilities running in the process (`ExtensionRecords`).
    pub extensions: Vec<String>,
    /// The latest want the process received, as `${want.KEY}` reads it.
    pub want: IndexMap<String, String>,
}

impl AppProcess {
    /// The value of `${name}`: a text field's text, otherwise a variable.
    pub fn lookup(&self, name: &str) -> Option<String> {
        if let Some(key) = name.strip_prefix("want.") {
            return self.want.get(key).cloned();
        }
        if let Some(f) = self.fields.get(name) {
            return Some(f.text.clone());
        }
        self.vars.get(name).cloned()
    }

    pub fn page(&self) -> Option<&str> {
        self.stack.last().map(String::as_str)
    }

    /// Leaves the current page's transient state behind (focus, dialog) on navigation.
    pub fn leave_page(&mut self) {
        self.focus = None;
        self.dialog = None;
    }
}

/// Actions scheduled by `delay`, applied by `Phone::tick`.
#[derive(Debug, Clone)]
pub struct Pending {
    pub due: SystemTime,
    pub bundle: String,
    /// The pid that scheduled it: a restarted or crashed app never runs stale actions.
    pub pid: u32,
    pub actions: Vec<Action>,
    /// Insertion order, so equal due times run in scheduling order.
    pub seq: u64,
}
