//! What a flow step may do with a tool beyond its bare call, as the tool declares it: typed
//! hooks ([`FlowHooks`], a tool's `Tool::FLOW`), never tool names matched elsewhere.
//!
//! The tool only *declares*: which parameter a bare scalar fills, its other runners' names,
//! its flow defaults, whether it waits for its element, whether it starts by looking at the
//! screen, which parameter names a file it writes, which parameters form a log window, how to
//! read what a text field showed. Every *behaviour* built on them lives in one module of the
//! runner (`tapflow::run::exec::flow_level`: implicit waits, hand-over of screens, retyping,
//! masked fields, step files, log windows, cost accounting); the plan compiler reads the
//! syntax ones through `RegistryCatalog`. A bare tool call (MCP, `tapflow tool`) uses none of
//! them and keeps the reference semantics.

use serde_json::{Map, Value};

use crate::decode;
use crate::envelope::ToolError;
use crate::registry::Tool;

/// A tool's flow hooks, on its typed parameters `P`. Start from [`FlowHooks::NONE`].
pub struct FlowHooks<P> {
    /// The parameter a bare scalar fills (`click: Login` → `text`).
    pub shorthand: Option<&'static str>,
    /// What other test runners call this step, with a note on how to write it here (empty =
    /// just this tool), for the "unknown step" hint: `("tapOn", "")`, `("doubleTapOn", "with
    /// `count: 2`")`.
    pub known_as: &'static [(&'static str, &'static str)],
    /// Defaults that differ from a bare call's, as `(parameter, JSON value)`;
    /// `docs/flow-format.md` ("Flow-level behaviours") says which and why. The plan shows them.
    pub defaults: &'static [(&'static str, &'static str)],
    /// The tool acts on one element (search criteria or a handle) and reports a missing one
    /// (`ELEMENT_NOT_FOUND`) before it touches the device, so a step may call it again until
    /// the element appears (implicit wait, `wait:`).
    pub waits_for_target: bool,
    /// Whether a call with these parameters starts by looking at the screen (a target found by
    /// criteria or handle, a wait, a find): the step before it then brings the screen back
    /// with its last action, in the same round trip (`context::carry`).
    pub looks_first: fn(&P) -> bool,
    /// The call writes a file a step may name relatively (kept in the run, listed as evidence).
    pub step_file: Option<StepFile>,
    /// The call reads device logs over a time window a step may leave unset.
    pub log_window: Option<LogWindow>,
    /// The call types text into a field and reads the field back.
    pub typing: Option<Typing>,
}

fn never<P>(_: &P) -> bool {
    false
}

impl<P> FlowHooks<P> {
    /// No flow behaviour beyond the bare call.
    pub const NONE: Self = FlowHooks {
        shorthand: None,
        known_as: &[],
        defaults: &[],
        waits_for_target: false,
        looks_first: never::<P>,
        step_file: None,
        log_window: None,
        typing: None,
    };
}

/// A file the call writes.
#[derive(Debug, Clone, Copy)]
pub struct StepFile {
    /// The parameter naming the file, and the result field with the path written.
    pub param: &'static str,
    /// The evidence kind the file is listed as (`screenshot`).
    pub evidence: &'static str,
}

/// The parameters that set a log query's time window.
#[derive(Debug, Clone, Copy)]
pub struct LogWindow {
    /// Where the window starts (a local timestamp, `%Y-%m-%d %H:%M:%S%.3f`).
    pub start: &'static str,
    /// Every parameter that sets the window (a step setting one keeps its own window).
    pub window: &'static [&'static str],
    /// Parameters that read host files instead of the device (no device window applies).
    pub host_sources: &'static [&'static str],
}

/// Text typed into a field and read back.
#[derive(Debug, Clone, Copy)]
pub struct Typing {
    /// The parameter holding the text.
    pub text: &'static str,
    /// Result and error-detail fields that hold what the field showed (a secret's part when the
    /// text was secret).
    pub shown: &'static [&'static str],
    /// What a failed call read in the field, when its error is about the field's value.
    pub reading: fn(&ToolError) -> Option<FieldReading>,
    /// The arguments that type the whole expected value again after `reading`.
    pub retype_args: fn(&Value, &FieldReading) -> Value,
    /// A field that hides its value (a password field): what it showed, in the shape of the
    /// call's result.
    pub masked: fn(&ToolError) -> Option<MaskedReading>,
}

/// What a field showed after text was typed into it.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldReading {
    /// The value the field should hold.
    pub expected: String,
    /// The value it showed.
    pub seen: String,
    /// The text was typed key by key and the field shows what lost keystrokes leave (a
    /// subsequence of the text): typing again may tell the device's fault from the field's.
    pub lost_keys: bool,
    /// The field hides its value (it shows mask characters): equal readings then prove only
    /// equal lengths, not equal values.
    pub masked: bool,
}

/// What a field that hides its value showed.
#[derive(Debug, Clone, PartialEq)]
pub struct MaskedReading {
    /// Mask characters shown.
    pub shown: usize,
    /// Characters typed.
    pub typed: usize,
    /// The call's result as observed (`verified: false`, `masked_length`).
    pub result: Value,
}

type Looks = Box<dyn Fn(&Map<String, Value>) -> bool + Send + Sync>;

/// A tool's flow hooks with its parameter type erased, as the registry holds them.
pub struct FlowDef {
    pub shorthand: Option<&'static str>,
    pub known_as: &'static [(&'static str, &'static str)],
    pub waits_for_target: bool,
    pub step_file: Option<StepFile>,
    pub log_window: Option<LogWindow>,
    pub typing: Option<Typing>,
    /// [`FlowHooks::defaults`], parsed.
    defaults: Map<String, Value>,
    looks_first: Looks,
}

impl FlowDef {
    /// `T::FLOW`, checked against the tool's published input schema: every parameter a hook
    /// names is one of the tool's (a typo fails every test that builds the registry).
    pub(crate) fn of<T: Tool>(input: &Value) -> Self {
        let hooks = &T::FLOW;
        let param = |p: &str, what: &str| {
            assert!(
                input["properties"].get(p).is_some(),
                "{}: {what} `{p}` is not a parameter",
                T::NAME
            );
        };
        if let Some(p) = hooks.shorthand {
            param(p, "shorthand");
        }
        if let Some(f) = &hooks.step_file {
            param(f.param, "step file");
        }
        if let Some(w) = &hooks.log_window {
            param(w.start, "log window start");
            w.window.iter().for_each(|p| param(p, "log window"));
            w.host_sources.iter().for_each(|p| param(p, "host source"));
        }
        if let Some(t) = &hooks.typing {
            param(t.text, "typed text");
        }
        let defaults = hooks
            .defaults
            .iter()
            .map(|(k, v)| {
                param(k, "flow default");
                let v: Value = serde_json::from_str(v)
                    .unwrap_or_else(|e| panic!("{}: flow default `{k}`: {e}", T::NAME));
                (k.to_string(), v)
            })
            .collect();
        let looks = hooks.looks_first;
        FlowDef {
            shorthand: hooks.shorthand,
            known_as: hooks.known_as,
            waits_for_target: hooks.waits_for_target,
            step_file: hooks.step_file,
            log_window: hooks.log_window,
            typing: hooks.typing,
            defaults,
            looks_first: Box::new(move |map| {
                decode::deserialize::<T::Params>(map.clone())
                    .map(|p| looks(&p))
                    .unwrap_or(false)
            }),
        }
    }

    /// The defaults that differ from a bare call's ([`FlowHooks::defaults`]).
    pub fn defaults(&self) -> &Map<String, Value> {
        &self.defaults
    }

    /// Whether a step with these arguments (as the plan has them) starts by looking at the
    /// screen ([`FlowHooks::looks_first`]). Arguments known only at run time (`{{ … }}` where a
    /// number is expected) count as not looking.
    pub fn looks_first(&self, args: &Value) -> bool {
        match args {
            Value::Object(map) => (self.looks_first)(map),
            _ => false,
        }
    }
}
