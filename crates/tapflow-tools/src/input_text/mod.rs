//! `input_text`: text into a field given by coordinates, an element handle or search criteria
//! (exactly one mode), in `replace` or `append` mode.
//!
//! Handle and search modes: one dump resolves the target (a stale handle is refreshed through
//! its `lookup_hint`), the target must be an enabled text field, then focus is acquired
//! ([`focus`]), all text is selected (replace: Ctrl+A as one keyEvent, typed over, never
//! pre-cleared) or the caret moved to the end (append), the text goes through the route
//! [`strategy`] picks, and the field is observed until it holds exactly the expected value
//! ([`verify`], [`cleanup`] for the sentinel route). Coordinate mode sends the text as given with
//! `uitest uiInput inputText x y` and cannot verify anything.
//!
//! Every action that is followed by an observation (the focus click, the text, the sentinel's
//! Backspace) travels with that observation in one round trip ([`tapflow_device::Device::
//! act_then_tree`]; later observations, if the first is not final, are plain dumps), and the
//! select/caret key, which needs no observation of its own, travels with the text
//! ([`tapflow_device::Device::acts_then_tree`]). Round trips when every first observation
//! succeeds: 3 (dump; click + dump; key + text + dump); the sentinel route adds Backspace +
//! dump (4). Coordinate mode: 1.
//! Every failure after validation carries the partial result in `error.details`. A password
//! field succeeds on its mask's length and never echoes its text ([`secret`]).

pub mod cleanup;
pub mod field;
pub mod focus;
pub mod lost_keys;
pub mod poll;
mod reading;
pub mod secret;
pub mod strategy;
pub mod verify;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::context::Call;
use crate::decode::FieldCodes;
use crate::envelope::ToolError;
use crate::flow_hooks::FlowHooks;
use crate::policy::{Hints, Policy};
use crate::registry::Tool;
use crate::target::{ElementInfo, Resolved, SearchArgs, TargetMode, choose_mode, resolve};
use strategy::{SENTINEL, Strategy};
use tapflow_device::UiAction;
use tapflow_device::model::{ElementHandle, KeyInput, Point, TextTarget};
use verify::{Observed, Settle, until_value};

pub struct InputText;

/// `replace` (default) or `append`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum InputMode {
    #[default]
    Replace,
    Append,
}

impl InputMode {
    fn name(self) -> &'static str {
        match self {
            InputMode::Replace => "replace",
            InputMode::Append => "append",
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Params {
    /// Coordinate mode: x px (with y).
    pub x: Option<i32>,
    /// Coordinate mode: y px (with x).
    pub y: Option<i32>,
    /// The text to type, byte-exact (empty in replace mode clears the field).
    pub text: Option<String>,
    /// Handle mode: an `element_handle` object, as returned.
    #[schemars(with = "Option<ElementHandle>")]
    pub element_handle: Option<Value>,
    /// Search mode: the field's current text, compared exactly.
    pub element_text: Option<String>,
    /// Search mode: node type, e.g. `TextInput`.
    pub element_type: Option<String>,
    /// Search mode: ArkUI id / key.
    pub element_id: Option<String>,
    /// Search scope: only this app's windows (with a handle: its refresh).
    pub bundle_name: Option<String>,
    /// Search mode, tapflow extensions: state and position filters.
    #[serde(flatten)]
    pub refine: tapflow_device::ui::refine::Refine,
    /// `replace` (select all and type over it) or `append` (caret to the end first).
    #[schemars(default = "default_mode")]
    pub mode: Option<InputMode>,
}

fn default_mode() -> Option<InputMode> {
    Some(InputMode::Replace)
}

/// The result (and, on failure, the partial result in `error.details`).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Output {
    /// The value the field must hold afterwards: the requested text (replace), the value before
    /// plus the requested text (append); coordinate mode: the requested text.
    pub text: String,
    /// The `text` argument, verbatim.
    pub requested_text: String,
    /// The field's value in the last observation before any text or shortcut was sent
    /// (null in coordinate mode or before the target was observed).
    pub before_text: Option<String>,
    /// Where the focus click (handle/search) or the text (coordinates) went.
    pub x: Option<i32>,
    pub y: Option<i32>,
    /// `replace` or `append`.
    pub mode: String,
    /// `direct`, `native_paste`, `sentinel_paste` or `clear` (empty text in replace mode);
    /// on Android `direct` (ASCII through `input text`) or `ime_commit` (other text through
    /// the ADBKeyBoard input method).
    pub input_strategy: String,
    /// The text (or, for `clear`, the Backspace) was sent to the device.
    pub dispatched: bool,
    /// The focus click was delivered (handle/search modes).
    pub focus_dispatched: bool,
    /// Focus on the target and a foreground target window were both observed.
    pub focus_verified: bool,
    /// Observations made while waiting for focus.
    pub focus_observations: u32,
    /// The target reported `focused: true` in the last focus observation.
    pub focused: bool,
    /// The target's window was the focused window in the last focus observation.
    pub window_foreground: bool,
    /// The focused window of the last focus observation.
    pub foreground_window_id: Option<i64>,
    /// A paste route was used, which may have replaced the device clipboard.
    pub clipboard_modified: bool,
    /// `coordinates`, `element_handle`, `lookup_hint` (stale handle refreshed) or `search`.
    pub resolved_via: String,
    pub handle_refreshed: bool,
    /// The handle of the field (null in coordinate mode).
    pub element_handle: Option<ElementHandle>,
    /// Always false: effects beyond the field's value are not observed.
    pub effect_verified: bool,
    /// The field was observed holding exactly `text`.
    pub verified: bool,
    /// The field's value in the last verification observation (null when none was made).
    pub actual_text: Option<String>,
    /// The sentinel was removed with Backspace (sentinel route only).
    pub cleanup_performed: bool,
    /// Verification observations (dumps after the text was sent).
    pub observations: u32,
    pub elapsed_ms: u64,
    /// Where the call ended: `resolve`, `focus`, `prepare`, `dispatch`, `observe_sentinel`,
    /// `cleanup`, `verify`, `done` (handle/search) or `dispatched` (coordinates).
    pub stage: String,
    /// Password fields only: the number of mask characters the field showed after typing;
    /// the call succeeds when it equals the typed length.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub masked_length: Option<usize>,
    /// Password fields only: the field showed exactly as many mask characters as were typed
    /// (`verified` stays false: nothing was read back).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub length_verified: Option<bool>,
    /// Password fields only (`true`): the field hides its value, so every text here is one `•`
    /// per character, never the value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub masked: Option<bool>,
}

impl Output {
    fn new(text: &str, mode: InputMode, strategy: Strategy) -> Self {
        Output {
            text: text.to_string(),
            requested_text: text.to_string(),
            before_text: None,
            x: None,
            y: None,
            mode: mode.name().into(),
            input_strategy: strategy.name().into(),
            dispatched: false,
            focus_dispatched: false,
            focus_verified: false,
            focus_observations: 0,
            focused: false,
            window_foreground: false,
            foreground_window_id: None,
            clipboard_modified: false,
            resolved_via: String::new(),
            handle_refreshed: false,
            element_handle: None,
            effect_verified: false,
            verified: false,
            actual_text: None,
            cleanup_performed: false,
            observations: 0,
            elapsed_ms: 0,
            stage: "resolve".into(),
            masked_length: None,
            length_verified: None,
            masked: None,
        }
    }
}

impl Tool for InputText {
    const CORE: bool = true;
    const NAME: &'static str = "input_text";
    const TITLE: &'static str = "Input text";
    const DESCRIPTION: &'static str = "Type text into a field given by an element handle (preferred), search criteria or coordinates, replacing (default) or appending to its value. Handle and search modes focus the field and verify the final value (`verified: true`); coordinates cannot. A password field (one mask character per character) succeeds on a mask of the typed length with `verified: false, length_verified: true`; its text is never echoed. Use `press_key` for single keys.";
    const POLICY: Policy = Policy::UI_ACTION;
    const HINTS: Hints = Hints::ACTION;
    const REQUIRED: &'static [&'static str] = &["text"];
    const CODES: FieldCodes = FieldCodes {
        value: &[],
        wrong_type: &[(
            "element_handle",
            tapflow_core::codes::INVALID_ELEMENT_HANDLE,
        )],
    };
    const FLOW: FlowHooks<Params> = FlowHooks {
        waits_for_target: true,
        shorthand: Some("text"),
        known_as: &[("inputText", ""), ("type", "")],
        // Flows: handle and search modes look the field up on the screen first.
        looks_first: |p| p.x.is_none() || p.y.is_none(),
        // Lost keys are typed again, a masked field of the right length passes unverified,
        // what the field showed of a secret is dotted out.
        typing: Some(reading::TYPING),
        ..FlowHooks::NONE
    };
    type Params = Params;
    type Output = Output;

    fn check(p: &Params) -> Result<(), ToolError> {
        checked(p).map(drop)
    }

    fn budget_ms(_p: &Params, config: &crate::ToolConfig) -> Option<u64> {
        // Focus, then verification, each against its own deadline.
        Some(config.input_focus_timeout_ms + config.input_verify_timeout_ms)
    }

    fn run(p: Params, call: &mut Call<'_>) -> Result<Output, ToolError> {
        let (text, mode, target) = checked(&p)?;
        // The route and the editing keys depend on the platform (see `strategy`).
        let platform = call.device()?.platform();
        let strategy = Strategy::for_platform(&text, platform);
        let mut out = Output::new(&text, mode, strategy);
        // Flows: the field is resolved on the screen the previous step handed over.
        call.start_from_carried();
        let outcome = match &target {
            TargetMode::Point(at) => at_point(call, *at, &text, platform, &mut out),
            _ => into_field(call, &target, &text, mode, strategy, platform, &mut out),
        };
        out.elapsed_ms = call.started().elapsed().as_millis() as u64;
        // A password field's text is never echoed (see `secret`).
        match secret::seal(&mut out, outcome, &text) {
            Ok(()) => Ok(out),
            Err(e) => Err(with_partial(e, &out)),
        }
    }
}

/// The device-free rules: text given (empty only where it can clear the field; no NUL), one
/// target mode. Returns the text, the mode and the target.
fn checked(p: &Params) -> Result<(String, InputMode, TargetMode), ToolError> {
    let Some(text) = p.text.clone() else {
        return Err(ToolError::new(
            tapflow_core::codes::MISSING_TEXT,
            "text is required (an empty string clears the field in replace mode)",
        )
        .at("text"));
    };
    if text.contains('\0') {
        return Err(ToolError::invalid_param(
            "text",
            "text contains a NUL character, which no device command can carry",
        ));
    }
    let mode = p.mode.unwrap_or_default();
    if text.is_empty() && mode == InputMode::Append {
        return Err(ToolError::new(
            tapflow_core::codes::MISSING_TEXT,
            "empty text is only allowed in replace mode (it clears the field); append needs text",
        )
        .with_details(json!({ "mode": "append" }))
        .at("text"));
    }
    let search = SearchArgs {
        text_param: Some("element_text"),
        text: p.element_text.clone(),
        element_type: p.element_type.clone(),
        element_id: p.element_id.clone(),
        bundle_name: p.bundle_name.clone(),
        refine: p.refine.clone(),
        ..SearchArgs::default()
    };
    let target = choose_mode(p.x, p.y, p.element_handle.clone(), search)?;
    if text.is_empty() && matches!(target, TargetMode::Point(_)) {
        return Err(ToolError::new(
            tapflow_core::codes::MISSING_TEXT,
            "coordinate mode cannot select or read the field, so it cannot clear it: give text, or target the field by element_handle or search criteria",
        )
        .at("text"));
    }
    Ok((text, mode, target))
}

/// The error with the partial result merged under its own details (its own keys win).
fn with_partial(mut e: ToolError, out: &Output) -> ToolError {
    let mut details = match serde_json::to_value(out) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    };
    match std::mem::take(&mut e.details) {
        Value::Object(own) => details.extend(own),
        Value::Null => {}
        other => {
            details.insert("cause".into(), other);
        }
    }
    e.details = Value::Object(details);
    e
}

/// Coordinate mode: `uitest uiInput inputText x y text` (taps, then types) with the original
/// text; nothing can be read back.
fn at_point(
    call: &mut Call<'_>,
    at: Point,
    text: &str,
    platform: tapflow_device::Platform,
    out: &mut Output,
) -> Result<(), ToolError> {
    out.x = Some(at.x);
    out.y = Some(at.y);
    out.resolved_via = "coordinates".into();
    out.input_strategy = Strategy::Direct.name().into();
    out.stage = "dispatch".into();
    let device = call.device()?;
    device
        .input_text(TextTarget::At(at), text)
        .map_err(|e| ToolError::from_device_op(e, tapflow_core::codes::INPUT_TEXT_FAILED))?;
    call.invalidate();
    out.dispatched = true;
    // uitest itself pastes non-ASCII and long text; Android's routes never use the clipboard.
    out.clipboard_modified =
        platform != tapflow_device::Platform::Android && strategy::uitest_pastes(text);
    out.stage = "dispatched".into();
    Ok(())
}

/// Resolves the target like every tool does, except that a handle whose element is still on
/// screen (same window, accessibility id and type) is live even when the field's value no
/// longer matches the text in its lookup hint: editing values is this tool's job, and a handle
/// from a find by value must keep working after the value changed. One dump either way.
fn resolve_target(call: &mut Call<'_>, target: &TargetMode) -> Result<Resolved, ToolError> {
    if let TargetMode::Handle(h) = target {
        let tree = call.ui_tree()?;
        if let Some(m) = field::locate_by_identity(&tree, h) {
            return Ok(Resolved {
                point: m.bounds.center(),
                resolved_via: "element_handle",
                handle_refreshed: false,
                element_handle: Some(h.clone()),
                element: Some(ElementInfo::of(&m, h.clone(), false)),
            });
        }
    }
    resolve(call, target)
}

/// Handle and search modes (see the module doc).
fn into_field(
    call: &mut Call<'_>,
    target: &TargetMode,
    text: &str,
    mode: InputMode,
    strategy: Strategy,
    platform: tapflow_device::Platform,
    out: &mut Output,
) -> Result<(), ToolError> {
    let keys = strategy::edit_keys(platform);
    out.stage = "resolve".into();
    let r = resolve_target(call, target)?;
    out.x = Some(r.point.x);
    out.y = Some(r.point.y);
    out.resolved_via = r.resolved_via.into();
    out.handle_refreshed = r.handle_refreshed;
    out.element_handle = r.element_handle.clone();
    let (Some(handle), Some(info)) = (r.element_handle, r.element) else {
        return Err(ToolError::new(
            tapflow_core::codes::INTERNAL_ERROR,
            "a handle or search target resolved without an element",
        ));
    };
    out.before_text = Some(info.text.clone());
    if !info.enabled || !field::is_text_type(&info.element_type) {
        let reason = if !info.enabled {
            "the element is disabled".to_string()
        } else {
            format!("a {} does not take text input", info.element_type)
        };
        return Err(ToolError::new(
            tapflow_core::codes::INPUT_TARGET_NOT_INTERACTABLE,
            format!("cannot input text into this element: {reason}"),
        )
        .with_details(json!({
            "element_type": info.element_type,
            "enabled": info.enabled,
            "reason": reason,
        })));
    }

    out.stage = "focus".into();
    let focused = focus::acquire(call, &handle, r.point, out)?;
    if focused.password {
        out.masked = Some(true);
    }
    let before = focused.text;
    out.before_text = Some(before.clone());
    let expected = match mode {
        InputMode::Replace => text.to_string(),
        InputMode::Append => format!("{before}{text}"),
    };
    out.text = expected.clone();

    // Replace selects everything and types over it; append puts the caret at the end. Sent even
    // when the dump shows an empty value: Web fields may not expose theirs.
    out.stage = "prepare".into();
    let prepare = match mode {
        InputMode::Replace => keys.select_all.clone(),
        InputMode::Append => vec![keys.move_end],
    };
    // Nothing needs observing between this key and the text: the key, the text (or
    // Backspace) and the first observation of their effect travel together (one round trip
    // on hdc); the verification budget starts when they have returned.
    let action = match strategy.payload(text) {
        Some(payload) => UiAction::Text(TextTarget::Focused, payload),
        None => UiAction::Key(KeyInput::Codes(vec![keys.backspace])),
    };
    let budget = call.config().input_verify_timeout_ms;
    let prepare = UiAction::Key(KeyInput::Codes(prepare));
    let acted = poll::acts_observing(call, &[prepare, action], budget)?;
    let mut verdicts = acted.actions.into_iter();
    let prepared = verdicts.next().unwrap_or(Ok(()));
    let typed = verdicts.next();
    // The text's own verdict decides `dispatched`; a refused select/caret key fails the call
    // even when the device typed the text after it (hdc chains them with `;`).
    if let Some(Ok(())) = &typed {
        out.dispatched = true;
        out.clipboard_modified = strategy.may_modify_clipboard();
    }
    prepared.map_err(|e| ToolError::from_device_op(e, tapflow_core::codes::INPUT_TEXT_FAILED))?;
    out.stage = "dispatch".into();
    typed
        .unwrap_or_else(|| {
            Err(tapflow_device::DeviceError::Io {
                what: "text input".into(),
                detail: "the text was not sent".into(),
            })
        })
        .map_err(|e| ToolError::from_device_op(e, tapflow_core::codes::INPUT_TEXT_FAILED))?;
    let first_observation = acted.tree;
    out.clipboard_modified = strategy.may_modify_clipboard();

    let deadline = poll::deadline_in(budget);
    let seen = if strategy == Strategy::SentinelPaste {
        out.stage = "observe_sentinel".into();
        let with_sentinel = format!("{expected}{SENTINEL}");
        let seen = until_value(
            call,
            &handle,
            &with_sentinel,
            deadline,
            first_observation,
            &mut out.observations,
            None,
        )?;
        out.actual_text = seen.actual(&with_sentinel);
        if let Observed::Timeout(last) = &seen {
            return Err(unverified(
                call,
                &with_sentinel,
                last.as_deref(),
                "the pasted value (text + sentinel) was never observed, so no Backspace was sent; the sentinel may remain in the field",
            ));
        }
        out.stage = "cleanup".into();
        cleanup::remove_sentinel(call, &handle, &expected, out)?
    } else {
        out.stage = "verify".into();
        // Flows only: text typed key by key that settles with keys missing is not waited on
        // for the whole deadline (see `lost_keys`).
        let settle = (call.in_flow() && strategy == Strategy::Direct).then_some(Settle {
            before: out.before_text.as_deref(),
            after: lost_keys::SETTLE,
        });
        let seen = until_value(
            call,
            &handle,
            &expected,
            deadline,
            first_observation,
            &mut out.observations,
            settle,
        )?;
        out.actual_text = seen.actual(&expected);
        seen
    };
    match seen {
        Observed::Exact => {
            out.verified = true;
            out.stage = "done".into();
            Ok(())
        }
        // A password field showing a mask of the typed length: all that can be checked was.
        Observed::MaskedLength(mask) => {
            out.masked = Some(true);
            out.masked_length = Some(mask.chars().count());
            out.length_verified = Some(true);
            out.stage = "done".into();
            Ok(())
        }
        Observed::Timeout(last) => Err(unverified(
            call,
            &expected,
            last.as_deref(),
            "the field never showed exactly the expected value",
        )),
        Observed::Settled(last, held) => {
            let mut e = unverified(call, &expected, Some(&last), "");
            e.message = format!(
                "the field stopped changing with keys missing: expected {expected:?}, it has shown {} for {} ms (the text was typed key by key; keys may have been lost)",
                cleanup::describe(Some(&last)),
                held.as_millis()
            );
            if let Value::Object(d) = &mut e.details {
                d.insert("settled_ms".into(), (held.as_millis() as u64).into());
            }
            Err(e)
        }
    }
}

/// A verification deadline passed: `TEXT_NOT_READABLE` when the field shows a mask,
/// `TEXT_VERIFICATION_TIMEOUT` otherwise.
fn unverified(call: &Call<'_>, expected: &str, last: Option<&str>, why: &str) -> ToolError {
    let timeout = call.config().input_verify_timeout_ms;
    let masked = last.is_some_and(field::is_masked);
    let code = if masked {
        tapflow_core::codes::TEXT_NOT_READABLE
    } else {
        tapflow_core::codes::TEXT_VERIFICATION_TIMEOUT
    };
    ToolError::new(
        code,
        format!(
            "{why} within {timeout}ms: expected {expected:?}, last saw {}",
            cleanup::describe(last)
        ),
    )
    .with_details(json!({
        "expected_text": expected,
        "masked": masked,
        "verify_timeout_ms": timeout,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partial_results_keep_the_errors_own_details() {
        let mut out = Output::new("abc", InputMode::Append, Strategy::SentinelPaste);
        out.stage = "verify".into();
        out.actual_text = Some("ab".into());
        let e = ToolError::new(tapflow_core::codes::TEXT_VERIFICATION_TIMEOUT, "late")
            .with_details(json!({ "stage": "own", "expected_text": "abc" }));
        let d = with_partial(e, &out).details;
        assert_eq!(d["stage"], "own", "the error's own keys win");
        assert_eq!(d["expected_text"], "abc");
        assert_eq!(d["actual_text"], "ab");
        assert_eq!(d["mode"], "append");
        assert_eq!(d["input_strategy"], "sentinel_paste");
        assert_eq!(d["effect_verified"], false);

        let odd = ToolError {
            code: tapflow_core::codes::INTERNAL_ERROR,
            message: "m".into(),
            details: json!("text details"),
        };
        let d = with_partial(odd, &out).details;
        assert_eq!(d["cause"], "text details");
        assert_eq!(d["requested_text"], "abc");
    }
}
