//! `input_text` against the contract (`docs/reference/tool-contract.md`, section
//! `input_text`, plus the decisions in docs/tools.md "input_text"). Each case names the rule it
//! checks. Every envelope is validated against the published output schema, every error's
//! partial result against the result schema; round trips are asserted by count through
//! `Device::cost`, never by time.
//!
//! The device is [`FormPhone`], an in-test fake with real text-field behaviour: a tap focuses a
//! field and raises an IME window, Ctrl+A / Backspace / MoveEnd edit at the caret, `uitest text`
//! types short ASCII key by key and pastes anything else through the clipboard, password fields
//! show one `•` per character. Like the hdc backend, it answers `Device::act_then_tree` (an
//! action and the dump observing it) and `Device::acts_then_tree` (several actions and the
//! dump) in ONE round trip; the `no_chaining` knob makes it behave like a backend that cannot
//! (the trait's defaults: one call per action). Knobs inject the faults each rule is
//! about. (The shared
//! `tests/common/fake_device.rs` has no focus or editing model, so it is not used here.)

use crate::common::envelope;
use tapflow::sim_provider;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use proptest::prelude::*;
use serde_json::{Value, json};
use tapflow_device::*;
use tapflow_tools::{DeviceProvider, DeviceRoute, Engine, Envelope, ToolConfig, ToolContext};

const SENTINEL: char = '\u{A4}';
const W: i32 = 1260;
const H: i32 = 2720;
const APP: i64 = 80;
const BUNDLE: &str = "com.example.form";
const IME_WINDOW: i64 = 3;
const DIALOG_WINDOW: i64 = 90;
const CTRL_A: [u32; 2] = [2072, 2017];
const BACKSPACE: u32 = 2055;
const MOVE_END: u32 = 2082;

// Accessibility ids of the form's elements.
const NAME: u32 = 420;
const PIN: u32 = 421;
const PASSWORD: u32 = 422;
const LOCKED: u32 = 423;
const LABEL: u32 = 410;
const SUBMIT: u32 = 430;

/// What the device was asked to do, in order. A dump records the value the focused field
/// showed in it, so tests can check what had been observed before each action.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Act {
    Dump { focused_value: Option<String> },
    Tap(Point),
    Key(Vec<u32>),
    Text(TextTarget, String),
}

#[derive(Debug, Clone, Default)]
struct Field {
    text: String,
    caret: usize,
    all_selected: bool,
}

impl Field {
    fn insert(&mut self, s: &str) {
        if self.all_selected {
            self.text.clear();
            self.caret = 0;
            self.all_selected = false;
        }
        let at = byte_at(&self.text, self.caret);
        self.text.insert_str(at, s);
        self.caret += s.chars().count();
    }
    fn backspace(&mut self) {
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
struct Knobs {
    /// Focus shows only after this many further dumps following the tap.
    focus_lag: u32,
    /// Taps never focus anything.
    never_focus: bool,
    /// Another window (a system dialog) holds window focus.
    dialog_on_top: bool,
    /// The tap command is refused.
    tap_error: Option<DeviceError>,
    /// `uitest text` is refused.
    text_error: Option<DeviceError>,
    /// Key events are refused.
    key_error: Option<DeviceError>,
    /// Typed or pasted text becomes visible only after this many further dumps.
    value_lag: u32,
    /// Key-by-key typing loses this character.
    drop_char: Option<char>,
    /// Pasted text never arrives.
    paste_lost: bool,
    /// Backspace does nothing.
    ignore_backspace: bool,
    /// Focusing a field selects its whole value, and MoveEnd is ignored (a buggy app).
    select_on_focus_ignore_end: bool,
    /// Dumps after this many more successful ones are refused (`DumpLayout failed`)...
    refuse_dumps_after: Option<u32>,
    /// ...this many times.
    refused_dumps: u32,
    /// The n-th dump chained to an action (1-based) fails with this error; the action itself
    /// went through.
    fail_chained: Option<(u32, DeviceError)>,
    /// Behave like a backend that cannot chain an action and its dump (the trait's default:
    /// two round trips).
    no_chaining: bool,
}

#[derive(Debug, Default)]
struct State {
    fields: BTreeMap<u32, Field>,
    focus: Option<u32>,
    pending_focus: Option<(u32, u32)>,
    /// Values shown instead of the real ones for this many more dumps.
    shown: Option<(u32, BTreeMap<u32, Field>)>,
    clipboard: String,
    acts: Vec<Act>,
    /// Dumps that travelled with an action in one round trip.
    chained: u32,
}

struct FormPhone {
    state: Mutex<State>,
    knobs: Mutex<Knobs>,
    cost: CostCounter,
    /// Inside one chained round trip: the actions do not count trips of their own.
    in_chain: std::sync::atomic::AtomicBool,
}

struct Spec {
    aid: u32,
    ty: &'static str,
    id: &'static str,
    top: i32,
    enabled: bool,
    password: bool,
}

const SPECS: &[Spec] = &[
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

fn bounds_of(s: &Spec) -> Bounds {
    Bounds::new(60, s.top, 1200, s.top + 120)
}

fn center_of(aid: u32) -> Point {
    bounds_of(SPECS.iter().find(|s| s.aid == aid).unwrap()).center()
}

fn node(attrs: &[(&str, String)], children: Vec<UiNode>) -> UiNode {
    let mut n = UiNode::default();
    for (k, v) in attrs {
        n.attributes.insert((*k).to_string(), v.clone());
    }
    n.children = children;
    n
}

fn window(id: i64, bundle: &str, b: Bounds, focused: bool, children: Vec<UiNode>) -> UiNode {
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

impl FormPhone {
    fn new() -> Arc<Self> {
        let mut fields = BTreeMap::new();
        for s in SPECS.iter().filter(|s| s.ty == "TextInput") {
            fields.insert(s.aid, Field::default());
        }
        Arc::new(FormPhone {
            state: Mutex::new(State {
                fields,
                ..State::default()
            }),
            knobs: Mutex::new(Knobs::default()),
            cost: CostCounter::default(),
            in_chain: std::sync::atomic::AtomicBool::new(false),
        })
    }

    fn set_value(&self, aid: u32, text: &str) {
        let mut st = self.state.lock().unwrap();
        let f = st.fields.get_mut(&aid).unwrap();
        f.text = text.into();
        f.caret = text.chars().count();
    }

    fn value(&self, aid: u32) -> String {
        self.state.lock().unwrap().fields[&aid].text.clone()
    }

    fn clipboard(&self) -> String {
        self.state.lock().unwrap().clipboard.clone()
    }

    fn chained(&self) -> u32 {
        self.state.lock().unwrap().chained
    }

    fn acts(&self) -> Vec<Act> {
        self.state.lock().unwrap().acts.clone()
    }

    fn knobs(&self) -> std::sync::MutexGuard<'_, Knobs> {
        self.knobs.lock().unwrap()
    }

    fn tree(&self, st: &State, fields: &BTreeMap<u32, Field>) -> UiNode {
        let knobs = self.knobs.lock().unwrap();
        let mut kids = Vec::new();
        for s in SPECS {
            let b = bounds_of(s);
            let text = match fields.get(&s.aid) {
                Some(f) if s.password => "\u{2022}".repeat(f.text.chars().count()),
                Some(f) => f.text.clone(),
                None if s.ty == "Text" => "Name".into(),
                None => "Submit".into(),
            };
            kids.push(node(
                &[
                    ("accessibilityId", s.aid.to_string()),
                    ("bounds", b.to_string()),
                    ("clickable", (s.ty != "Text").to_string()),
                    ("enabled", s.enabled.to_string()),
                    ("focused", (st.focus == Some(s.aid)).to_string()),
                    ("hashcode", format!("{APP}:{}", s.aid)),
                    ("hint", String::new()),
                    ("hostWindowId", APP.to_string()),
                    ("id", s.id.into()),
                    ("key", s.id.into()),
                    ("text", text),
                    ("type", s.ty.into()),
                    ("visible", "true".into()),
                ],
                vec![],
            ));
        }
        let column = node(
            &[
                ("accessibilityId", "1".into()),
                ("bounds", Bounds::new(0, 136, W, H).to_string()),
                ("hashcode", format!("{APP}:1")),
                ("hostWindowId", APP.to_string()),
                ("type", "Column".into()),
                ("visible", "true".into()),
            ],
            kids,
        );
        let mut windows = vec![window(
            APP,
            BUNDLE,
            Bounds::new(0, 136, W, H),
            !knobs.dialog_on_top,
            vec![column],
        )];
        windows.push(window(
            30,
            "com.ohos.sceneboard",
            Bounds::new(0, 0, W, 136),
            false,
            vec![],
        ));
        if st.focus.is_some() {
            windows.push(window(
                IME_WINDOW,
                "com.huawei.hmos.inputmethod",
                Bounds::new(0, 1622, W, H),
                false,
                vec![],
            ));
        }
        if knobs.dialog_on_top {
            windows.push(window(
                DIALOG_WINDOW,
                "com.ohos.systemui",
                Bounds::new(100, 1000, 1160, 1400),
                true,
                vec![],
            ));
        }
        node(
            &[
                ("bounds", Bounds::new(0, 0, W, H).to_string()),
                ("hostWindowId", String::new()),
                ("type", String::new()),
            ],
            windows,
        )
    }

    fn focus_at(&self, st: &mut State, p: Point) {
        let knobs = self.knobs.lock().unwrap();
        let hit = SPECS
            .iter()
            .find(|s| s.ty == "TextInput" && s.enabled && bounds_of(s).contains(p));
        match hit {
            Some(_) if knobs.never_focus => {}
            Some(s) if knobs.focus_lag > 0 => st.pending_focus = Some((s.aid, knobs.focus_lag)),
            Some(s) => {
                st.focus = Some(s.aid);
                let f = st.fields.get_mut(&s.aid).unwrap();
                f.caret = f.text.chars().count();
                f.all_selected = knobs.select_on_focus_ignore_end;
            }
            None => st.focus = None,
        }
    }

    /// Starts a "value lag": dumps keep showing the current values for `value_lag` dumps.
    fn lag_values(&self, st: &mut State) {
        let lag = self.knobs.lock().unwrap().value_lag;
        if lag > 0 && st.shown.is_none() {
            st.shown = Some((lag, st.fields.clone()));
        }
    }

    fn type_text(&self, st: &mut State, text: &str) -> DeviceResult<()> {
        let Some(aid) = st.focus else {
            return Err(DeviceError::Command {
                code: tapflow_core::codes::INPUT_FAILED,
                what: "text input".into(),
                device_says: "no focused input field".into(),
            });
        };
        self.lag_values(st);
        let knobs = self.knobs.lock().unwrap();
        if text.is_ascii() && text.chars().count() <= 200 {
            let kept: String = text
                .chars()
                .filter(|c| Some(*c) != knobs.drop_char)
                .collect();
            st.fields.get_mut(&aid).unwrap().insert(&kept);
        } else {
            st.clipboard = text.to_string();
            if !knobs.paste_lost {
                st.fields.get_mut(&aid).unwrap().insert(text);
            }
        }
        Ok(())
    }
}

impl FormPhone {
    /// One round trip, unless the action travels in a chain that was counted once.
    fn trip(&self) {
        if !self.in_chain.load(std::sync::atomic::Ordering::SeqCst) {
            self.cost.round_trip();
        }
    }

    /// The dump chained to actions: the `fail_chained` knob fails the N-th one (still counted
    /// as a dump, as the device made it).
    fn chained_dump(&self) -> DeviceResult<UiNode> {
        let n = {
            let mut st = self.state.lock().unwrap();
            st.chained += 1;
            st.chained
        };
        let mut k = self.knobs();
        if k.fail_chained.as_ref().is_some_and(|(at, _)| *at == n) {
            let (_, e) = k.fail_chained.take().unwrap();
            self.cost.ui_dump();
            return Err(e);
        }
        drop(k);
        self.dump()
    }

    /// One dump as the device answers it (the caller counts the round trip).
    fn dump(&self) -> DeviceResult<UiNode> {
        self.cost.ui_dump();
        {
            let mut k = self.knobs.lock().unwrap();
            match k.refuse_dumps_after {
                Some(0) if k.refused_dumps > 0 => {
                    k.refused_dumps -= 1;
                    return Err(DeviceError::Command {
                        code: tapflow_core::codes::UI_TREE_FETCH_ERROR,
                        what: "uitest dumpLayout".into(),
                        device_says: "DumpLayout failed:get root failed".into(),
                    });
                }
                Some(n) if n > 0 => k.refuse_dumps_after = Some(n - 1),
                _ => {}
            }
        }
        let mut st = self.state.lock().unwrap();
        // Device-side state moves on between dumps (focus and values arrive late).
        if let Some((aid, left)) = st.pending_focus {
            if left == 0 {
                st.pending_focus = None;
                st.focus = Some(aid);
            } else {
                st.pending_focus = Some((aid, left - 1));
            }
        }
        let fields = match st.shown.take() {
            Some((left, old)) if left > 0 => {
                st.shown = Some((left - 1, old.clone()));
                old
            }
            _ => st.fields.clone(),
        };
        let tree = self.tree(&st, &fields);
        let focused_value = st
            .focus
            .and_then(|a| fields.get(&a))
            .map(|f| f.text.clone());
        st.acts.push(Act::Dump { focused_value });
        Ok(tree)
    }
}

fn unsupported(op: &str) -> DeviceError {
    DeviceError::Unsupported {
        op: op.into(),
        backend: "form-phone".into(),
    }
}

impl Device for FormPhone {
    fn serial(&self) -> &str {
        "FORM0001"
    }
    fn platform(&self) -> tapflow_device::Platform {
        tapflow_device::Platform::Harmonyos
    }
    fn info(&self) -> DeviceResult<DeviceInfo> {
        self.cost.round_trip();
        Err(unsupported("info"))
    }
    fn power_state(&self) -> DeviceResult<PowerState> {
        self.cost.round_trip();
        Err(unsupported("power_state"))
    }
    fn ui_tree(&self, _scope: &DumpScope) -> DeviceResult<UiNode> {
        self.cost.round_trip();
        self.dump()
    }
    /// Mirrors the hdc backend: the action and the dump observing it are ONE round trip (the
    /// action's own counts it); a refused action yields no tree.
    fn act_then_tree(&self, action: &UiAction, scope: &DumpScope) -> ActObserved {
        let action = self.act(action);
        let chain = !self.knobs().no_chaining;
        let tree = action.is_ok().then(|| {
            if chain {
                self.chained_dump()
            } else {
                self.ui_tree(scope)
            }
        });
        ActObserved { action, tree }
    }
    /// Mirrors the hdc backend: every action and the dump after them are ONE round trip, and
    /// the shell sends every action whatever the previous one answered.
    fn acts_then_tree(&self, actions: &[UiAction], scope: &DumpScope) -> ActsObserved {
        if self.knobs().no_chaining {
            // The trait's default: one call per action, the last one with its dump.
            return tapflow_device::acts_one_by_one(self, actions, scope);
        }
        self.cost.round_trip();
        self.in_chain
            .store(true, std::sync::atomic::Ordering::SeqCst);
        let verdicts: Vec<DeviceResult<()>> = actions.iter().map(|a| self.act(a)).collect();
        self.in_chain
            .store(false, std::sync::atomic::Ordering::SeqCst);
        let tree = verdicts
            .iter()
            .all(Result::is_ok)
            .then(|| self.chained_dump());
        ActsObserved {
            actions: verdicts,
            tree,
        }
    }
    fn windows(&self) -> DeviceResult<WindowTable> {
        self.cost.round_trip();
        Err(unsupported("windows"))
    }
    fn missions(&self) -> DeviceResult<Vec<Mission>> {
        self.cost.round_trip();
        Err(unsupported("missions"))
    }
    fn tap(&self, at: Point, _kind: TapKind) -> DeviceResult<()> {
        self.trip();
        let mut st = self.state.lock().unwrap();
        st.acts.push(Act::Tap(at));
        if let Some(e) = self.knobs.lock().unwrap().tap_error.clone() {
            return Err(e);
        }
        self.focus_at(&mut st, at);
        Ok(())
    }
    fn gesture(&self, _gesture: &Gesture) -> DeviceResult<()> {
        self.cost.round_trip();
        Err(unsupported("gesture"))
    }
    fn input_text(&self, target: TextTarget, text: &str) -> DeviceResult<()> {
        self.trip();
        let mut st = self.state.lock().unwrap();
        st.acts.push(Act::Text(target, text.to_string()));
        if let Some(e) = self.knobs.lock().unwrap().text_error.clone() {
            return Err(e);
        }
        if let TextTarget::At(p) = target {
            // uitest inputText taps first, then types.
            self.focus_at(&mut st, p);
        }
        self.type_text(&mut st, text)
    }
    fn key_event(&self, key: &KeyInput) -> DeviceResult<()> {
        self.trip();
        let KeyInput::Codes(codes) = key else {
            return Err(unsupported("named keys"));
        };
        let mut st = self.state.lock().unwrap();
        st.acts.push(Act::Key(codes.clone()));
        let knobs = self.knobs.lock().unwrap();
        if let Some(e) = knobs.key_error.clone() {
            return Err(e);
        }
        let Some(aid) = st.focus else { return Ok(()) };
        let f = st.fields.get_mut(&aid).unwrap();
        match codes.as_slice() {
            [2072, 2017] => f.all_selected = true,
            [BACKSPACE] if !knobs.ignore_backspace => f.backspace(),
            [MOVE_END] if !knobs.select_on_focus_ignore_end => {
                f.all_selected = false;
                f.caret = f.text.chars().count();
            }
            _ => {}
        }
        Ok(())
    }
    fn screenshot(&self, _request: &ScreenshotRequest) -> DeviceResult<Screenshot> {
        self.cost.round_trip();
        Err(unsupported("screenshot"))
    }
    fn install(&self, _package: &Path, _replace: bool) -> DeviceResult<()> {
        Err(unsupported("install"))
    }
    fn uninstall(&self, _bundle: &str) -> DeviceResult<()> {
        Err(unsupported("uninstall"))
    }
    fn start_app(&self, _b: &str, _a: &str, _m: Option<&str>) -> DeviceResult<()> {
        Err(unsupported("start_app"))
    }
    fn stop_app(&self, _bundle: &str) -> DeviceResult<()> {
        Err(unsupported("stop_app"))
    }
    fn clear_app_data(&self, _bundle: &str) -> DeviceResult<()> {
        Err(unsupported("clear_app_data"))
    }
    fn packages(&self) -> DeviceResult<Vec<String>> {
        Err(unsupported("packages"))
    }
    fn package_info(&self, _bundle: &str) -> DeviceResult<PackageInfo> {
        Err(unsupported("package_info"))
    }
    fn pid_of(&self, _bundle: &str) -> DeviceResult<Option<u32>> {
        Err(unsupported("pid_of"))
    }
    fn logs(&self, _query: &LogQuery) -> DeviceResult<String> {
        Err(unsupported("logs"))
    }
    fn clear_logs(&self) -> DeviceResult<()> {
        Err(unsupported("clear_logs"))
    }
    fn crash_files(&self) -> DeviceResult<Vec<CrashEntry>> {
        Err(unsupported("crash_files"))
    }
    fn read_crash_file(&self, _file_name: &str) -> DeviceResult<String> {
        Err(unsupported("read_crash_file"))
    }
    fn cost(&self) -> Cost {
        self.cost.snapshot()
    }
}

struct OnePhone(Arc<FormPhone>);

impl DeviceProvider for OnePhone {
    fn resolve(&self, _route: &DeviceRoute) -> Result<Arc<dyn Device>, DeviceError> {
        Ok(self.0.clone() as Arc<dyn Device>)
    }
    fn targets(&self, _hdc_server: Option<&str>) -> Result<Vec<Target>, DeviceError> {
        Ok(vec![])
    }
}

struct Env {
    phone: Arc<FormPhone>,
    ctx: ToolContext,
    engine: Engine,
}

/// Short deadlines so that the failing cases end quickly; successes never wait for them.
fn env() -> Env {
    env_with(400, 400)
}

fn env_with(focus_ms: u64, verify_ms: u64) -> Env {
    let phone = FormPhone::new();
    let config = ToolConfig {
        input_focus_timeout_ms: focus_ms,
        input_verify_timeout_ms: verify_ms,
        ..ToolConfig::default()
    };
    Env {
        ctx: ToolContext::new(Arc::new(OnePhone(phone.clone())), config),
        phone,
        engine: Engine::new(),
    }
}

/// A handle as find_elements mints it (the contract's own example shape, plus a hint).
fn handle(aid: u32, id: &str) -> Value {
    json!({
        "window_id": APP,
        "id": aid.to_string(),
        "compid": format!("{APP}:{aid}"),
        "type": "TextInput",
        "lookup_hint": { "element_id": id }
    })
}

impl Env {
    fn call(&self, args: Value) -> Envelope {
        let env = self.engine.call("input_text", args, &self.ctx);
        let v = env.to_value();
        let def = self
            .engine
            .get("input_text")
            .expect("input_text is registered");
        envelope::assert_matches_schema(
            "input_text",
            &def.output_schema(),
            &v["structuredContent"],
        );
        assert_eq!(v["isError"], json!(!env.ok()));
        env
    }

    fn ok(&self, args: Value) -> Value {
        let r = envelope::expect_ok(&self.call(args.clone()), "input_text", &args);
        assert_eq!(
            r["effect_verified"], false,
            "effect_verified is always false"
        );
        r
    }

    /// The error code and details; details must carry a schema-valid partial result unless the
    /// call failed validation (then nothing was attempted and there is no partial result).
    fn err(&self, args: Value) -> (String, Value) {
        envelope::expect_err(self.call(args.clone()), "input_text", &args)
    }

    fn err_with_partial(&self, args: Value) -> (String, Value) {
        let (code, details) = self.err(args);
        let def = self.engine.get("input_text").unwrap();
        if let Err(e) = jsonschema::validate(def.result_schema(), &details) {
            panic!("{code}: details are not a partial result: {e}\n{details:#}");
        }
        assert_eq!(details["verified"], false, "{code}");
        assert_eq!(details["effect_verified"], false, "{code}");
        (code, details)
    }

    fn trips(&self) -> u64 {
        self.phone.cost().round_trips
    }
}

fn keys(acts: &[Act]) -> Vec<Vec<u32>> {
    acts.iter()
        .filter_map(|a| match a {
            Act::Key(k) => Some(k.clone()),
            _ => None,
        })
        .collect()
}

fn texts(acts: &[Act]) -> Vec<String> {
    acts.iter()
        .filter_map(|a| match a {
            Act::Text(_, t) => Some(t.clone()),
            _ => None,
        })
        .collect()
}

/// Shapes of the action log: `D` dump, `T` tap, `K` key, `X` text.
fn shape(acts: &[Act]) -> String {
    acts.iter()
        .map(|a| match a {
            Act::Dump { .. } => 'D',
            Act::Tap(_) => 'T',
            Act::Key(_) => 'K',
            Act::Text(..) => 'X',
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Parameters: MISSING_TEXT, PARAM_CONFLICT, MISSING_PARAMS, INVALID_ELEMENT_HANDLE
// ---------------------------------------------------------------------------------------------

#[test]
fn rule_text_is_always_required() {
    let e = env();
    let cases = [
        json!({"element_handle": handle(NAME, "name")}),
        json!({"x": 10, "y": 10}),
        json!({"element_id": "name", "text": null}),
        json!({}),
    ];
    for args in cases {
        let (code, _) = e.err(args.clone());
        assert_eq!(code, "MISSING_TEXT", "{args}");
    }
    assert_eq!(e.trips(), 0, "validation touches no device");
    let schema = e.engine.get("input_text").unwrap().input_schema().clone();
    assert_eq!(schema["required"], json!(["text"]));
}

#[test]
fn rule_empty_text_is_allowed_only_in_replace_mode() {
    let e = env();
    let (code, _) =
        e.err(json!({"element_handle": handle(NAME, "name"), "text": "", "mode": "append"}));
    assert_eq!(code, "MISSING_TEXT");
    // Coordinate mode cannot select the field, so it cannot clear it (docs/tools.md).
    let (code, _) = e.err(json!({"x": 100, "y": 360, "text": ""}));
    assert_eq!(code, "MISSING_TEXT");
    assert_eq!(e.trips(), 0);
}

#[test]
fn rule_use_one_resolution_mode_only() {
    let e = env();
    let conflicts = [
        json!({"x": 1, "y": 2, "element_handle": handle(NAME, "name"), "text": "a"}),
        json!({"x": 1, "y": 2, "element_id": "name", "text": "a"}),
        json!({"element_handle": handle(NAME, "name"), "element_text": "a", "text": "a"}),
        json!({"element_handle": handle(NAME, "name"), "element_type": "TextInput", "text": "a"}),
        json!({"x": 1, "y": 2, "bundle_name": BUNDLE, "text": "a"}),
    ];
    for args in conflicts {
        let (code, _) = e.err(args.clone());
        assert_eq!(code, "PARAM_CONFLICT", "{args}");
    }
    let missing = [
        json!({"text": "a"}),
        json!({"x": 1, "text": "a"}),
        json!({"y": 1, "text": "a"}),
        json!({"bundle_name": BUNDLE, "text": "a"}),
    ];
    for args in missing {
        let (code, _) = e.err(args.clone());
        assert_eq!(code, "MISSING_PARAMS", "{args}");
    }
    assert_eq!(e.trips(), 0);
}

#[test]
fn rule_do_not_pass_element_handle_as_a_json_string() {
    let e = env();
    // The contract's own incorrect example.
    let (code, _) = e.err(json!({
        "element_handle": "{\"window_id\":80,\"id\":\"420\"}",
        "text": "security"
    }));
    assert_eq!(code, "INVALID_ELEMENT_HANDLE");
    let (code, _) = e.err(json!({"element_handle": {"window_id": 80}, "text": "x"}));
    assert_eq!(code, "INVALID_ELEMENT_HANDLE");
    let (code, _) = e.err(json!({"element_handle": [80, 420], "text": "x"}));
    assert_eq!(code, "INVALID_ELEMENT_HANDLE");
    assert_eq!(e.trips(), 0);
}

#[test]
fn rule_mode_is_replace_or_append() {
    let e = env();
    let (code, details) = e.err(json!({"element_id": "name", "text": "a", "mode": "prepend"}));
    assert_eq!(code, "INVALID_PARAM");
    assert_eq!(details["param"], "mode");
    let schema = e.engine.get("input_text").unwrap().input_schema().clone();
    let mode = serde_json::to_string(&schema["properties"]["mode"]).unwrap();
    assert!(
        mode.contains("replace") && mode.contains("append"),
        "{mode}"
    );
}

// ---------------------------------------------------------------------------------------------
// Handle mode: the acceptance criterion and the strategies
// ---------------------------------------------------------------------------------------------

#[test]
fn acceptance_handle_mode_digits_cost_at_most_six_round_trips() {
    // Rule: "Short ASCII digits use direct entry"; replace selects all and types over it.
    let e = env();
    e.phone.set_value(PIN, "0000");
    let r = e.ok(json!({"element_handle": handle(PIN, "pin"), "text": "123456"}));
    assert!(e.trips() <= 6, "round trips: {}", e.trips());
    // dump; click + dump (chained); Ctrl+A + text + dump (chained).
    assert_eq!(e.trips(), 3);
    assert_eq!(e.phone.cost().ui_dumps, 3);
    assert_eq!(
        e.phone.chained(),
        2,
        "the click, and Ctrl+A with the text, each carry their observation"
    );
    assert_eq!(e.phone.value(PIN), "123456");
    assert_eq!(r["input_strategy"], "direct");
    assert_eq!(r["clipboard_modified"], false);
    assert_eq!(r["verified"], true);
    assert_eq!(r["actual_text"], "123456");
    assert_eq!(r["before_text"], "0000");
    assert_eq!(r["requested_text"], "123456");
    assert_eq!(r["text"], "123456");
    assert_eq!(r["mode"], "replace");
    assert_eq!(r["dispatched"], true);
    assert_eq!(r["focus_dispatched"], true);
    assert_eq!(r["focus_verified"], true);
    assert_eq!(r["focused"], true);
    assert_eq!(r["window_foreground"], true);
    assert_eq!(r["foreground_window_id"], APP);
    assert_eq!(r["focus_observations"], 1);
    assert_eq!(r["observations"], 1);
    assert_eq!(r["cleanup_performed"], false);
    assert_eq!(r["resolved_via"], "element_handle");
    assert_eq!(r["handle_refreshed"], false);
    assert_eq!(r["element_handle"]["compid"], format!("{APP}:{PIN}"));
    assert_eq!(r["stage"], "done");
    let c = center_of(PIN);
    assert_eq!(
        (r["x"].as_i64(), r["y"].as_i64()),
        (Some(c.x as i64), Some(c.y as i64))
    );
    // Rule: the text is typed over the selection, never pre-cleared.
    let acts = e.phone.acts();
    assert_eq!(shape(&acts), "DTDKXD");
    assert_eq!(
        keys(&acts),
        vec![CTRL_A.to_vec()],
        "Ctrl+A as ONE keyEvent, no Backspace"
    );
    assert_eq!(acts[1], Act::Tap(c));
    assert_eq!(acts[4], Act::Text(TextTarget::Focused, "123456".into()));
}

#[test]
fn rule_other_ascii_uses_the_sentinel_and_backspace_after_observation() {
    // The contract's correct example: a handle and "security".
    let e = env();
    e.phone.set_value(NAME, "old value");
    let r = e.ok(json!({
        "element_handle": {"window_id": 80, "id": "420", "compid": "80:420", "type": "TextInput"},
        "text": "security"
    }));
    assert_eq!(e.phone.value(NAME), "security");
    assert_eq!(r["input_strategy"], "sentinel_paste");
    assert_eq!(r["clipboard_modified"], true);
    assert_eq!(r["cleanup_performed"], true);
    assert_eq!(r["verified"], true);
    assert_eq!(r["actual_text"], "security");
    assert_eq!(r["before_text"], "old value");
    assert_eq!(
        r["observations"], 2,
        "sentinel observation + final verification"
    );
    // The sentinel route costs Backspace (chained with its observation) more than the others.
    assert_eq!(e.trips(), 4);
    assert_eq!(e.phone.chained(), 3);
    let acts = e.phone.acts();
    assert_eq!(shape(&acts), "DTDKXDKD");
    assert_eq!(texts(&acts), vec![format!("security{SENTINEL}")]);
    assert_eq!(keys(&acts), vec![CTRL_A.to_vec(), vec![BACKSPACE]]);
    assert_eq!(
        acts[5],
        Act::Dump {
            focused_value: Some(format!("security{SENTINEL}"))
        },
        "the sentinel-bearing value was observed right before Backspace"
    );
    assert_eq!(e.phone.clipboard(), format!("security{SENTINEL}"));
}

#[test]
fn rule_backspace_is_sent_only_after_the_sentinel_bearing_value_is_observed() {
    // The paste shows up late: the tool keeps observing and sends Backspace only then.
    let e = env_with(400, 5000);
    e.phone.knobs().value_lag = 3;
    let r = e.ok(json!({"element_handle": handle(NAME, "name"), "text": "a b"}));
    assert_eq!(e.phone.value(NAME), "a b");
    assert_eq!(r["observations"], 5, "3 stale + sentinel + final");
    let acts = e.phone.acts();
    let bs = acts
        .iter()
        .position(|a| *a == Act::Key(vec![BACKSPACE]))
        .unwrap();
    let dumps_before: Vec<&Act> = acts[..bs]
        .iter()
        .filter(|a| matches!(a, Act::Dump { .. }))
        .collect();
    assert_eq!(
        dumps_before.last().unwrap(),
        &&Act::Dump {
            focused_value: Some(format!("a b{SENTINEL}"))
        }
    );
    assert!(
        dumps_before[..dumps_before.len() - 1].iter().all(|d| **d
            != Act::Dump {
                focused_value: Some(format!("a b{SENTINEL}"))
            }),
        "no earlier observation showed it"
    );
}

#[test]
fn rule_sentinel_never_observed_means_no_backspace_and_a_verification_timeout() {
    let e = env();
    e.phone.knobs().paste_lost = true;
    e.phone.set_value(NAME, "keep");
    let (code, d) =
        e.err_with_partial(json!({"element_handle": handle(NAME, "name"), "text": "abc"}));
    assert_eq!(code, "TEXT_VERIFICATION_TIMEOUT");
    assert_eq!(d["stage"], "observe_sentinel");
    assert_eq!(d["dispatched"], true);
    assert_eq!(d["cleanup_performed"], false);
    assert_eq!(d["actual_text"], "keep", "the last observed value");
    assert!(d["observations"].as_u64().unwrap() >= 1);
    assert!(
        !keys(&e.phone.acts()).contains(&vec![BACKSPACE]),
        "Backspace must not be sent before the sentinel is seen"
    );
}

#[test]
fn rule_cleanup_that_fails_is_text_cleanup_failed() {
    let e = env();
    e.phone.knobs().ignore_backspace = true;
    let (code, d) =
        e.err_with_partial(json!({"element_handle": handle(NAME, "name"), "text": "hello"}));
    assert_eq!(code, "TEXT_CLEANUP_FAILED");
    assert_eq!(d["cleanup_performed"], true, "Backspace was sent");
    assert_eq!(d["actual_text"], format!("hello{SENTINEL}"));
    assert_eq!(d["stage"], "verify");
    assert_eq!(d["sentinel"], SENTINEL.to_string());
}

#[test]
fn rule_unicode_uses_the_native_paste_route_byte_exact() {
    for text in [
        "中文输入",
        "emoji 😀👍🏽 ok",
        "مرحبا بالعالم",
        "עברית 123",
        "naïve café",
    ] {
        let e = env();
        let r = e.ok(json!({"element_handle": handle(NAME, "name"), "text": text}));
        assert_eq!(e.phone.value(NAME), text);
        assert_eq!(r["input_strategy"], "native_paste", "{text}");
        assert_eq!(r["clipboard_modified"], true);
        assert_eq!(r["actual_text"], text);
        assert_eq!(e.trips(), 3, "{text}");
        assert_eq!(
            texts(&e.phone.acts()),
            vec![text.to_string()],
            "no sentinel"
        );
    }
}

#[test]
fn rule_text_longer_than_200_chars_uses_the_native_paste_route() {
    let e = env();
    let long = "abc ".repeat(60); // 240 ASCII chars
    let r = e.ok(json!({"element_handle": handle(NAME, "name"), "text": long}));
    assert_eq!(r["input_strategy"], "native_paste");
    assert_eq!(e.phone.value(NAME), long);
    assert_eq!(texts(&e.phone.acts()), vec![long.clone()]);
    let digits = "9".repeat(201);
    let e = env();
    let r = e.ok(json!({"element_handle": handle(PIN, "pin"), "text": digits}));
    assert_eq!(r["input_strategy"], "native_paste");
}

#[test]
fn rule_text_arrives_byte_exact_whatever_it_contains() {
    let nasty = [
        "it's \"quoted\"",
        "$HOME `id` $(rm -rf /) ; && || > /dev/null",
        "back\\slash\\\\ and \\n literal",
        "line one\nline two\ttab",
        "  leading and trailing  ",
        "'",
        "%s %d {{ var }}",
    ];
    for text in nasty {
        let e = env();
        let r = e.ok(json!({"element_handle": handle(NAME, "name"), "text": text}));
        assert_eq!(e.phone.value(NAME), text);
        assert_eq!(r["actual_text"], text);
        assert_eq!(texts(&e.phone.acts()), vec![format!("{text}{SENTINEL}")]);
    }
}

#[test]
fn rule_empty_text_in_replace_mode_clears_the_field() {
    let e = env();
    e.phone.set_value(NAME, "to be cleared");
    let r = e.ok(json!({"element_handle": handle(NAME, "name"), "text": ""}));
    assert_eq!(e.phone.value(NAME), "");
    assert_eq!(r["input_strategy"], "clear");
    assert_eq!(r["dispatched"], true);
    assert_eq!(r["clipboard_modified"], false);
    assert_eq!(r["actual_text"], "");
    assert_eq!(r["before_text"], "to be cleared");
    assert_eq!(
        e.trips(),
        3,
        "dump; click + dump; Ctrl+A + Backspace + dump"
    );
    assert_eq!(
        keys(&e.phone.acts()),
        vec![CTRL_A.to_vec(), vec![BACKSPACE]]
    );
    assert!(texts(&e.phone.acts()).is_empty());
}

#[test]
fn rule_append_moves_the_caret_to_the_end_and_keeps_the_value() {
    let e = env();
    e.phone.set_value(NAME, "abc");
    // Put the caret at the start, as a user may have left it.
    e.phone
        .state
        .lock()
        .unwrap()
        .fields
        .get_mut(&NAME)
        .unwrap()
        .caret = 0;
    let r = e.ok(json!({"element_handle": handle(NAME, "name"), "text": "def", "mode": "append"}));
    assert_eq!(e.phone.value(NAME), "abcdef");
    assert_eq!(r["mode"], "append");
    assert_eq!(r["text"], "abcdef");
    assert_eq!(r["requested_text"], "def");
    assert_eq!(r["before_text"], "abc");
    assert_eq!(r["actual_text"], "abcdef");
    assert_eq!(
        keys(&e.phone.acts())[0],
        vec![MOVE_END],
        "caret to the end, no select-all"
    );
    assert!(!keys(&e.phone.acts()).contains(&CTRL_A.to_vec()));
}

#[test]
fn rule_append_accepts_exact_equality_only_not_a_matching_suffix() {
    // A buggy app selects everything on focus and ignores MoveEnd: the text replaces the
    // value, which then ends with the requested text but is not before_text + text.
    let e = env();
    e.phone.knobs().select_on_focus_ignore_end = true;
    e.phone.set_value(PIN, "12");
    let (code, d) = e.err_with_partial(
        json!({"element_handle": handle(PIN, "pin"), "text": "34", "mode": "append"}),
    );
    assert_eq!(code, "TEXT_VERIFICATION_TIMEOUT");
    assert_eq!(d["actual_text"], "34");
    assert_eq!(d["expected_text"], "1234");
    assert_eq!(d["text"], "1234");
    assert_eq!(d["stage"], "verify");
}

// ---------------------------------------------------------------------------------------------
// Focus acquisition
// ---------------------------------------------------------------------------------------------

#[test]
fn rule_focus_is_observed_before_any_text_or_shortcut_is_sent() {
    // Focus shows up two dumps after the click: nothing is sent until it does.
    let e = env_with(5000, 5000);
    e.phone.knobs().focus_lag = 2;
    let r = e.ok(json!({"element_handle": handle(PIN, "pin"), "text": "42"}));
    assert_eq!(r["focus_observations"], 3);
    assert_eq!(shape(&e.phone.acts()), "DTDDDKXD");
    assert_eq!(e.phone.value(PIN), "42");
}

#[test]
fn rule_focus_timeout_sends_nothing_and_reports_dispatched_false() {
    let e = env();
    e.phone.knobs().never_focus = true;
    let (code, d) =
        e.err_with_partial(json!({"element_handle": handle(NAME, "name"), "text": "abc"}));
    assert_eq!(code, "INPUT_FOCUS_TIMEOUT");
    assert_eq!(d["dispatched"], false);
    assert_eq!(d["focus_dispatched"], true, "the click was delivered");
    assert_eq!(d["focus_verified"], false);
    assert_eq!(d["focused"], false);
    assert_eq!(d["window_foreground"], true);
    assert_eq!(d["stage"], "focus");
    assert!(d["focus_observations"].as_u64().unwrap() >= 1);
    let acts = e.phone.acts();
    assert!(
        keys(&acts).is_empty() && texts(&acts).is_empty(),
        "{acts:?}"
    );
}

#[test]
fn rule_the_focus_deadline_comes_from_input_focus_timeout_ms() {
    // A zero budget allows no observation at all: the click is sent, nothing else.
    let e = env_with(0, 400);
    let (code, d) =
        e.err_with_partial(json!({"element_handle": handle(NAME, "name"), "text": "abc"}));
    assert_eq!(code, "INPUT_FOCUS_TIMEOUT");
    assert_eq!(d["focus_observations"], 0);
    assert_eq!(d["focus_timeout_ms"], 0);
    assert_eq!(shape(&e.phone.acts()), "DT");
}

#[test]
fn rule_focus_needs_a_foreground_target_window_too() {
    // The field takes focus, but a system dialog holds window focus.
    let e = env();
    e.phone.knobs().dialog_on_top = true;
    let (code, d) =
        e.err_with_partial(json!({"element_handle": handle(NAME, "name"), "text": "abc"}));
    assert_eq!(code, "INPUT_FOCUS_TIMEOUT");
    assert_eq!(d["focused"], true);
    assert_eq!(d["window_foreground"], false);
    assert_eq!(d["foreground_window_id"], DIALOG_WINDOW);
    assert_eq!(d["dispatched"], false);
    assert!(keys(&e.phone.acts()).is_empty());
}

#[test]
fn rule_a_failed_focus_click_is_input_focus_dispatch_failed() {
    let e = env();
    e.phone.knobs().tap_error = Some(DeviceError::Command {
        code: tapflow_core::codes::INPUT_FAILED,
        what: "click".into(),
        device_says: "Please confirm that the coordinate values are correct.".into(),
    });
    let (code, d) =
        e.err_with_partial(json!({"element_handle": handle(NAME, "name"), "text": "abc"}));
    assert_eq!(code, "INPUT_FOCUS_DISPATCH_FAILED");
    assert_eq!(d["focus_dispatched"], false);
    assert_eq!(d["dispatched"], false);
    assert_eq!(
        d["device_says"],
        "Please confirm that the coordinate values are correct."
    );
    assert_eq!(e.trips(), 2, "one dump, one refused click, nothing more");
}

#[test]
fn rule_disabled_or_non_text_targets_are_not_interactable() {
    let e = env();
    let (code, d) =
        e.err_with_partial(json!({"element_handle": handle(LOCKED, "locked"), "text": "x"}));
    assert_eq!(code, "INPUT_TARGET_NOT_INTERACTABLE");
    assert_eq!(d["enabled"], false);
    assert_eq!(d["focus_dispatched"], false);
    let (code, d) = e.err_with_partial(json!({"element_text": "Name", "text": "x"}));
    assert_eq!(code, "INPUT_TARGET_NOT_INTERACTABLE");
    assert_eq!(d["element_type"], "Text");
    let (code, _) = e.err_with_partial(json!({"element_id": "submit", "text": "x"}));
    assert_eq!(code, "INPUT_TARGET_NOT_INTERACTABLE");
    assert_eq!(e.trips(), 3, "one dump each, no click");
}

// ---------------------------------------------------------------------------------------------
// Verification
// ---------------------------------------------------------------------------------------------

#[test]
fn rule_verification_polls_until_the_exact_value_is_visible() {
    let e = env_with(400, 5000);
    e.phone.knobs().value_lag = 2;
    let r = e.ok(json!({"element_handle": handle(PIN, "pin"), "text": "2024"}));
    assert_eq!(r["observations"], 3);
    assert_eq!(r["verified"], true);
    assert_eq!(
        e.trips(),
        5,
        "3 + two plain dumps after the chained one saw the old value"
    );
}

#[test]
fn rule_a_refused_dump_while_observing_is_ridden_out() {
    // Dumps 3 and 4 (the first verification observations) are refused; the next one counts.
    let e = env_with(400, 5000);
    {
        let mut k = e.phone.knobs();
        k.refuse_dumps_after = Some(2);
        k.refused_dumps = 2;
    }
    let r = e.ok(json!({"element_handle": handle(PIN, "pin"), "text": "31"}));
    assert_eq!(r["verified"], true);
    assert_eq!(r["observations"], 1, "refused dumps are not observations");
    // The refused chained dump rides along with the text; the refused plain one is a trip.
    assert_eq!(e.trips(), 5, "but they are round trips");
}

#[test]
fn rule_an_accepted_action_stays_dispatched_when_the_dump_chained_to_it_fails() {
    // The text went through but the device vanished before the dump that rode with it: the
    // device's own code ends the call, and the partial result says the text WAS sent.
    // The focus click's chained dump succeeds; the one riding with the text fails.
    let e = env();
    e.phone.knobs().fail_chained = Some((
        2,
        DeviceError::Disconnected {
            device_says: "[Fail]Device not found or connected".into(),
        },
    ));
    let (code, d) =
        e.err_with_partial(json!({"element_handle": handle(NAME, "name"), "text": "abc"}));
    assert_eq!(code, "DEVICE_DISCONNECTED");
    assert_eq!(d["dispatched"], true, "the text was accepted");
    assert_eq!(d["focus_verified"], true);
    assert_eq!(d["stage"], "observe_sentinel");
    assert_eq!(
        d["cleanup_performed"], false,
        "no Backspace without the observation"
    );
    assert!(!keys(&e.phone.acts()).contains(&vec![BACKSPACE]));
    assert_eq!(e.phone.value(NAME), format!("abc{SENTINEL}"));
}

#[test]
fn rule_verification_timeout_reports_the_last_observed_text() {
    let e = env();
    e.phone.knobs().drop_char = Some('5');
    let (code, d) =
        e.err_with_partial(json!({"element_handle": handle(PIN, "pin"), "text": "12345"}));
    assert_eq!(code, "TEXT_VERIFICATION_TIMEOUT");
    assert_eq!(d["actual_text"], "1234");
    assert_eq!(d["dispatched"], true);
    assert_eq!(d["stage"], "verify");
    assert_eq!(d["verify_timeout_ms"], 400);
    assert!(d["observations"].as_u64().unwrap() >= 1);
}

#[test]
fn rule_password_fields_return_a_verification_error_with_actual_text() {
    // Direct entry: the mask has the expected length at once; waiting cannot reveal more.
    let e = env();
    let (code, d) =
        e.err_with_partial(json!({"element_handle": handle(PASSWORD, "password"), "text": "2580"}));
    assert_eq!(code, "TEXT_NOT_READABLE");
    assert_eq!(d["actual_text"], "\u{2022}".repeat(4));
    assert_eq!(d["observations"], 1);
    assert_eq!(d["masked"], true);
    assert_eq!(
        e.phone.value(PASSWORD),
        "2580",
        "the write itself went through"
    );
    // Sentinel route: the masked sentinel-bearing value is one character longer; Backspace
    // removes it, and the field still cannot be read.
    let e = env();
    let (code, d) = e.err_with_partial(
        json!({"element_handle": handle(PASSWORD, "password"), "text": "hunter2"}),
    );
    assert_eq!(code, "TEXT_NOT_READABLE");
    assert_eq!(d["cleanup_performed"], true);
    assert_eq!(d["actual_text"], "\u{2022}".repeat(7));
    assert_eq!(
        e.phone.value(PASSWORD),
        "hunter2",
        "no sentinel left behind"
    );
    // A masked value of the wrong length stays an error with what was seen.
    let e = env();
    e.phone.knobs().drop_char = Some('0');
    let (code, d) =
        e.err_with_partial(json!({"element_handle": handle(PASSWORD, "password"), "text": "1020"}));
    assert_eq!(code, "TEXT_NOT_READABLE");
    assert_eq!(d["actual_text"], "\u{2022}".repeat(2));
}

// ---------------------------------------------------------------------------------------------
// Resolution: stale handles, search mode
// ---------------------------------------------------------------------------------------------

#[test]
fn rule_a_stale_handle_is_refreshed_through_lookup_hint() {
    let e = env();
    let stale = json!({
        "window_id": APP, "id": "999", "compid": format!("{APP}:999"), "type": "TextInput",
        "lookup_hint": {"element_id": "name"}
    });
    let r = e.ok(json!({"element_handle": stale, "text": "fresh"}));
    assert_eq!(r["resolved_via"], "lookup_hint");
    assert_eq!(r["handle_refreshed"], true);
    assert_eq!(r["element_handle"]["compid"], format!("{APP}:{NAME}"));
    assert_eq!(e.phone.value(NAME), "fresh");
}

#[test]
fn a_handle_found_by_its_old_value_stays_live_after_the_value_changed() {
    // find_elements(text: "Alice") minted this handle; the field now reads "Bob". It is the same
    // field (same window, accessibility id, type), so it is used as is, not refreshed.
    let e = env();
    e.phone.set_value(NAME, "Bob");
    let mut h = handle(NAME, "name");
    h["lookup_hint"] = json!({"text": "Alice"});
    let r = e.ok(json!({"element_handle": h, "text": "Carol"}));
    assert_eq!(r["resolved_via"], "element_handle");
    assert_eq!(r["handle_refreshed"], false);
    assert_eq!(r["before_text"], "Bob");
    assert_eq!(e.phone.value(NAME), "Carol");
}

#[test]
fn rule_a_stale_handle_without_a_way_back_is_element_not_found() {
    let e = env();
    let stale =
        json!({"window_id": APP, "id": "999", "compid": format!("{APP}:999"), "type": "TextInput"});
    let (code, d) = e.err_with_partial(json!({"element_handle": stale, "text": "x"}));
    assert_eq!(code, "ELEMENT_NOT_FOUND");
    assert_eq!(d["stage"], "resolve");
    assert_eq!(d["dispatched"], false);
    assert_eq!(e.trips(), 1);
}

#[test]
fn rule_search_mode_matches_exactly_one_element_and_is_verified_like_a_handle() {
    let e = env();
    e.phone.set_value(NAME, "Alice");
    let r = e.ok(json!({"element_text": "Alice", "text": "Bob"}));
    assert_eq!(r["resolved_via"], "search");
    assert_eq!(r["verified"], true);
    assert_eq!(r["element_handle"]["compid"], format!("{APP}:{NAME}"));
    assert_eq!(
        e.phone.value(NAME),
        "Bob",
        "found by its old value, verified by identity"
    );
    let e = env();
    let r = e.ok(json!({"element_id": "pin", "element_type": "TextInput", "bundle_name": BUNDLE, "text": "7"}));
    assert_eq!(r["resolved_via"], "search");
    assert_eq!(e.trips(), 3);

    let e = env();
    let (code, d) = e.err_with_partial(json!({"element_type": "TextInput", "text": "x"}));
    assert_eq!(code, "AMBIGUOUS_ELEMENT_MATCH");
    assert_eq!(d["match_count"], 4);
    assert_eq!(d["stage"], "resolve");
    let (code, d) = e.err_with_partial(json!({"element_id": "nope", "text": "x"}));
    assert_eq!(code, "ELEMENT_NOT_FOUND");
    assert_eq!(d["focus_dispatched"], false);
    let (code, _) =
        e.err_with_partial(json!({"element_id": "name", "bundle_name": "com.other", "text": "x"}));
    assert_eq!(code, "ELEMENT_NOT_FOUND");
    assert!(!shape(&e.phone.acts()).contains('T'), "nothing was clicked");
}

// ---------------------------------------------------------------------------------------------
// Coordinate mode
// ---------------------------------------------------------------------------------------------

#[test]
fn rule_coordinate_mode_sends_the_original_text_and_cannot_verify() {
    let e = env();
    let c = center_of(NAME);
    let r = e.ok(json!({"x": c.x, "y": c.y, "text": "plain ascii"}));
    assert_eq!(r["dispatched"], true);
    assert_eq!(r["verified"], false);
    assert_eq!(r["actual_text"], Value::Null);
    assert_eq!(r["resolved_via"], "coordinates");
    assert_eq!(r["input_strategy"], "direct");
    assert_eq!(r["clipboard_modified"], false);
    assert_eq!(r["element_handle"], Value::Null);
    assert_eq!(r["focus_dispatched"], false);
    assert_eq!(r["stage"], "dispatched");
    assert_eq!(
        (r["x"].as_i64(), r["y"].as_i64()),
        (Some(c.x as i64), Some(c.y as i64))
    );
    assert_eq!(e.trips(), 1);
    assert_eq!(
        e.phone.acts(),
        vec![Act::Text(TextTarget::At(c), "plain ascii".into())],
        "no sentinel, no select-all, no dump"
    );
    assert_eq!(e.phone.value(NAME), "plain ascii");

    let e = env();
    let r = e.ok(json!({"x": c.x, "y": c.y, "text": "中文"}));
    assert_eq!(r["clipboard_modified"], true, "uitest pastes non-ASCII");
    assert_eq!(e.phone.value(NAME), "中文");
}

#[test]
fn rule_a_refused_text_command_keeps_the_partial_result() {
    let e = env();
    e.phone.knobs().text_error = Some(DeviceError::Command {
        code: tapflow_core::codes::INPUT_FAILED,
        what: "text input".into(),
        device_says: "Invalid parameters.".into(),
    });
    let (code, d) =
        e.err_with_partial(json!({"element_handle": handle(NAME, "name"), "text": "abc"}));
    assert_eq!(code, "INPUT_TEXT_FAILED");
    assert_eq!(d["focus_verified"], true);
    assert_eq!(d["dispatched"], false);
    assert_eq!(d["stage"], "dispatch");
    assert_eq!(d["device_says"], "Invalid parameters.");
    let (code, d) = e.err_with_partial(json!({"x": 100, "y": 360, "text": "abc"}));
    assert_eq!(code, "INPUT_TEXT_FAILED");
    assert_eq!(d["dispatched"], false);
}

/// The select-all key travels with the text (one round trip on hdc, where the shell sends the
/// text whatever the key answered): a refused key fails the call at `prepare`, and
/// `dispatched` says whether the text itself went out, never more.
#[test]
fn rule_a_refused_select_all_fails_the_call_and_dispatched_tells_the_truth() {
    for chaining in [true, false] {
        let e = env();
        e.phone.knobs().no_chaining = !chaining;
        e.phone.set_value(NAME, "old");
        e.phone.knobs().key_error = Some(DeviceError::Command {
            code: tapflow_core::codes::KEY_EVENT_FAILED,
            what: "key event".into(),
            device_says: "Illegal argument".into(),
        });
        let (code, d) =
            e.err_with_partial(json!({"element_handle": handle(NAME, "name"), "text": "abc"}));
        assert_eq!(code, "INPUT_TEXT_FAILED", "chaining: {chaining}");
        assert_eq!(d["stage"], "prepare");
        assert_eq!(d["focus_verified"], true);
        assert_eq!(d["verified"], false);
        assert_eq!(d["device_says"], "Illegal argument");
        let typed = !texts(&e.phone.acts()).is_empty();
        assert_eq!(
            d["dispatched"], typed,
            "chaining: {chaining}: dispatched is what happened"
        );
        // The chained shell sent the text after the refused key; one call per action stops.
        assert_eq!(typed, chaining);
    }
}

#[test]
fn rule_include_cost_reports_the_same_round_trips() {
    let e = env();
    let r = e.ok(json!({"element_handle": handle(PIN, "pin"), "text": "99", "include_cost": true}));
    assert_eq!(r["cost"]["device_round_trips"], 3);
    assert_eq!(r["cost"]["ui_dumps"], 3);
}

/// Rule (acceptance): "input_text in handle mode ≤ 6 hdc calls", on every route. Each action
/// followed by an observation carries it in the same round trip (docs/tools.md "Round trips");
/// a backend that cannot chain pays one more per observation and still finishes correctly.
#[test]
fn round_trips_per_route_with_and_without_chaining() {
    let h = |aid, id| handle(aid, id);
    // (route, before value, arguments, chained trips, unchained trips, dumps)
    let routes = [
        (
            "direct",
            PIN,
            "",
            json!({"element_handle": h(PIN, "pin"), "text": "123456"}),
            3,
            6,
            3,
        ),
        (
            "native_paste",
            NAME,
            "",
            json!({"element_handle": h(NAME, "name"), "text": "中文🎉"}),
            3,
            6,
            3,
        ),
        (
            "sentinel_paste",
            NAME,
            "",
            json!({"element_handle": h(NAME, "name"), "text": "security"}),
            4,
            8,
            4,
        ),
        (
            "clear",
            NAME,
            "x",
            json!({"element_handle": h(NAME, "name"), "text": ""}),
            3,
            6,
            3,
        ),
        (
            "append sentinel",
            NAME,
            "ab",
            json!({"element_handle": h(NAME, "name"), "text": "cd", "mode": "append"}),
            4,
            8,
            4,
        ),
        (
            "append direct",
            PIN,
            "12",
            json!({"element_handle": h(PIN, "pin"), "text": "34", "mode": "append"}),
            3,
            6,
            3,
        ),
        (
            "search sentinel",
            NAME,
            "",
            json!({"element_id": "name", "text": "a b"}),
            4,
            8,
            4,
        ),
        (
            "coordinates",
            NAME,
            "",
            json!({"x": center_of(NAME).x, "y": center_of(NAME).y, "text": "plain"}),
            1,
            1,
            0,
        ),
    ];
    for (route, aid, before, args, chained, unchained, dumps) in routes {
        for chaining in [true, false] {
            let e = env();
            e.phone.knobs().no_chaining = !chaining;
            e.phone.set_value(aid, before);
            let r = e.ok(args.clone());
            let want = if chaining { chained } else { unchained };
            assert_eq!(e.trips(), want, "{route} (chaining: {chaining})");
            assert_eq!(
                e.phone.cost().ui_dumps,
                dumps,
                "{route} (chaining: {chaining})"
            );
            if route != "coordinates" {
                assert!(e.trips() <= 6 || !chaining, "{route}");
                assert_eq!(r["verified"], true, "{route}");
                assert_eq!(r["actual_text"], r["text"], "{route}");
            }
        }
    }
}

#[test]
fn the_tool_is_published_with_its_policy() {
    let e = env();
    let def = e.engine.get("input_text").unwrap();
    let entry = def.mcp_entry();
    assert_eq!(entry["annotations"]["readOnlyHint"], false);
    assert_eq!(entry["_meta"]["policy"]["mutates_device"], true);
    let props = entry["inputSchema"]["properties"].as_object().unwrap();
    for p in [
        "x",
        "y",
        "text",
        "element_handle",
        "element_text",
        "element_type",
        "element_id",
        "bundle_name",
        "mode",
        "device_id",
        "hdc_server",
    ] {
        assert!(props.contains_key(p), "{p}");
    }
    let result = def.result_schema()["properties"]
        .as_object()
        .unwrap()
        .clone();
    for f in [
        "text",
        "requested_text",
        "before_text",
        "x",
        "y",
        "mode",
        "input_strategy",
        "dispatched",
        "focus_dispatched",
        "focus_verified",
        "focus_observations",
        "focused",
        "window_foreground",
        "foreground_window_id",
        "clipboard_modified",
        "resolved_via",
        "handle_refreshed",
        "element_handle",
        "effect_verified",
        "verified",
        "actual_text",
        "cleanup_performed",
        "observations",
        "elapsed_ms",
        "stage",
    ] {
        assert!(result.contains_key(f), "result field {f}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Rule: whatever the text, the field ends up holding exactly it, in both modes.
    #[test]
    fn any_text_arrives_exactly(text in "\\PC{1,40}", before in "[a-z]{0,5}", append in any::<bool>()) {
        let e = env();
        e.phone.set_value(NAME, &before);
        let mode = if append { "append" } else { "replace" };
        let r = e.ok(json!({"element_handle": handle(NAME, "name"), "text": text, "mode": mode}));
        let want = if append { format!("{before}{text}") } else { text.clone() };
        prop_assert_eq!(e.phone.value(NAME), want.clone());
        prop_assert_eq!(r["actual_text"].as_str(), Some(want.as_str()));
        prop_assert!(e.trips() <= 5, "{} round trips", e.trips());
        // Rule: input_text never presses Shift or otherwise changes the IME: the only keys it
        // sends are select-all, MoveEnd and Backspace.
        for k in keys(&e.phone.acts()) {
            prop_assert!(k == CTRL_A.to_vec() || k == vec![MOVE_END] || k == vec![BACKSPACE], "{:?}", k);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The real hdc backend against the in-process simulator
// ---------------------------------------------------------------------------------------------

/// Acceptance on the real stack: the hdc backend (argv building, quoting, chaining, parsing)
/// drives the simulated phone's demo app; the username field is found once with find_elements
/// and its handle reused. Whatever the route, the field ends up exact and the device part of
/// the cost stays ≤ 6 round trips (the provider's own `hdc list targets`, made to resolve the
/// route, is measured separately and taken out).
#[test]
fn acceptance_on_the_hdc_backend_and_simulator_by_handle() {
    let dir = tempfile::tempdir().unwrap();
    let provider = sim_provider::hdc_provider_with_demo(dir.path());
    let ctx = ToolContext::new(provider.clone(), ToolConfig::default());
    let engine = Engine::new();
    let found = engine.call(
        "find_elements",
        json!({"element_id": "username", "bundle_name": "com.tapflow.demo"}),
        &ctx,
    );
    assert!(found.ok(), "{:?}", found.structured.error);
    let handle = found.result()["elements"][0]["element_handle"].clone();
    assert_eq!(handle["type"], "TextInput");

    let hostile = "it's \"q\" $HOME `id` $(rm -rf /) ; && || > /dev/null \\ %s {{v}}";
    let cases = [
        ("security", "sentinel_paste", 4),
        ("12345", "direct", 3),
        ("中文🎉", "native_paste", 3),
        (hostile, "sentinel_paste", 4),
    ];
    for (text, strategy, trips) in cases {
        let provider_before = provider.cost().round_trips;
        let env = engine.call(
            "input_text",
            json!({"element_handle": handle, "text": text, "include_cost": true}),
            &ctx,
        );
        let v = env.to_value();
        let def = engine.get("input_text").unwrap();
        if let Err(e) = jsonschema::validate(&def.output_schema(), &v["structuredContent"]) {
            panic!(
                "{text}: not schema-valid: {e}\n{:#}",
                v["structuredContent"]
            );
        }
        assert!(env.ok(), "{text}: {:?}", env.structured.error);
        let r = env.result();
        assert_eq!(r["verified"], true, "{text}");
        assert_eq!(r["actual_text"], text, "{text}");
        assert_eq!(r["input_strategy"], strategy, "{text}");
        assert_eq!(r["resolved_via"], "element_handle", "{text}");
        let provider_trips = provider.cost().round_trips - provider_before;
        assert_eq!(
            provider_trips, 1,
            "{text}: the route is resolved with one listing"
        );
        let total = r["cost"]["device_round_trips"].as_u64().unwrap();
        let device_trips = total - provider_trips;
        assert!(
            device_trips <= 6,
            "{text}: {device_trips} device round trips"
        );
        // With no simulated faults every first observation is final.
        assert_eq!(device_trips, trips, "{text}");
    }

    // What the app holds is what a fresh dump shows.
    let seen = engine.call(
        "find_elements",
        json!({"element_id": "username", "bundle_name": "com.tapflow.demo"}),
        &ctx,
    );
    assert_eq!(seen.result()["elements"][0]["text"], hostile);
}
