//! `press_key`: one logical key, optionally with up to two modifiers, as ONE HarmonyOS
//! `keyEvent` (at most three codes). System keys Home (1), Back (2) and Power (18) go through
//! uitest's named `keyEvent Home|Back|Power` (the device does not take them as codes, and they
//! cannot be combined with modifiers). Delivery only: `effect_verified` is always false.
//!
//! On Android the same key names are sent as Android keycodes ([`android`]): `input keyevent`
//! for one key, `input keycombination` for a shortcut; `key_code` and `event_key_codes` then
//! report the Android codes that were sent.

pub mod android;
pub mod keys;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::context::Call;
use crate::decode::FieldCodes;
use crate::envelope::ToolError;
use crate::flow_hooks::FlowHooks;
use crate::policy::{Hints, Policy};
use crate::registry::Tool;
use tapflow_device::model::KeyInput;

pub struct PressKey;

/// A key as given: a name or an official numeric code.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum KeyArg {
    Code(i64),
    Name(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub enum Modifier {
    Ctrl,
    Alt,
    Shift,
    Meta,
}

impl Modifier {
    /// The left-hand key of each modifier.
    pub fn code(self) -> i64 {
        match self {
            Modifier::Ctrl => 2072,
            Modifier::Alt => 2045,
            Modifier::Shift => 2047,
            Modifier::Meta => 2076,
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Params {
    /// A `KEYCODE_*` name (prefix, case and separators optional: `Back`, `page-up`) or number.
    pub key: Option<KeyArg>,
    /// Zero to two unique shortcut modifiers, sent with the key in one keyEvent.
    pub modifiers: Option<Vec<Modifier>>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Output {
    /// Canonical official name, e.g. `KEYCODE_V`.
    pub key: String,
    /// Numeric code of the primary key.
    pub key_code: i64,
    /// Normalised modifier names, in the order sent.
    pub modifiers: Vec<Modifier>,
    /// Exact ordered codes of the single keyEvent.
    pub event_key_codes: Vec<i64>,
    /// The key event command was accepted.
    pub dispatched: bool,
    /// Always false: application effects need a separate UI observation.
    pub effect_verified: bool,
}

/// The one key event of the call (device-free): the key, its modifiers in sending order, and
/// the input. `INVALID_KEY` (with the closest official name when there is one),
/// `DUPLICATE_MODIFIER`, `INVALID_MODIFIER_COUNT`, `INVALID_MODIFIER`.
fn event(p: &Params) -> Result<(keys::Key, Vec<Modifier>, KeyInput), ToolError> {
    let key = match &p.key {
        None => {
            return Err(
                ToolError::new(tapflow_core::codes::INVALID_KEY, "key is required").at("key"),
            );
        }
        Some(KeyArg::Code(c)) => keys::from_code(*c),
        Some(KeyArg::Name(s)) => keys::from_text(s),
    }
    .map_err(|m| {
        let suggestion = match &p.key {
            Some(KeyArg::Name(s)) => keys::closest(s).map(|k| format!("did you mean `{k}`?")),
            _ => None,
        };
        let shown = match &p.key {
            Some(KeyArg::Name(s)) => json!(crate::decode::clip(s)),
            other => json!(other),
        };
        ToolError::new(tapflow_core::codes::INVALID_KEY, m)
            .with_details(json!({ "key": shown, "suggestion": suggestion }))
            .at("key")
    })?;

    let given = p.modifiers.clone().unwrap_or_default();
    let mut mods: Vec<Modifier> = Vec::new();
    for m in &given {
        if mods.contains(m) {
            return Err(ToolError::new(
                tapflow_core::codes::DUPLICATE_MODIFIER,
                format!("modifier {m:?} is given twice"),
            )
            .at("modifiers"));
        }
        mods.push(*m);
    }
    if mods.len() > 2 {
        return Err(ToolError::new(
            tapflow_core::codes::INVALID_MODIFIER_COUNT,
            format!("at most two modifiers, got {}", mods.len()),
        )
        .at("modifiers"));
    }
    // Send in a fixed order so the same shortcut is always the same event.
    mods.sort_by_key(|m| {
        [
            Modifier::Ctrl,
            Modifier::Alt,
            Modifier::Shift,
            Modifier::Meta,
        ]
        .iter()
        .position(|x| x == m)
    });
    if mods.iter().any(|m| m.code() == key.code) {
        return Err(ToolError::new(
            tapflow_core::codes::DUPLICATE_MODIFIER,
            format!("{} is also given as a modifier", key.name),
        )
        .at("modifiers"));
    }
    let named = match key.code {
        1 => Some(KeyInput::Home),
        2 => Some(KeyInput::Back),
        18 => Some(KeyInput::Power),
        _ => None,
    };
    let input = match named {
        Some(_) if !mods.is_empty() => {
            return Err(ToolError::new(
                tapflow_core::codes::INVALID_MODIFIER,
                format!(
                    "the system key {} cannot be combined with modifiers",
                    key.name
                ),
            )
            .at("modifiers"));
        }
        Some(n) => n,
        None => {
            let codes: Vec<u32> = mods
                .iter()
                .map(|m| m.code())
                .chain([key.code])
                .map(|c| u32::try_from(c).unwrap_or_default())
                .collect();
            KeyInput::Codes(codes)
        }
    };
    Ok((key, mods, input))
}

impl Tool for PressKey {
    const CORE: bool = true;
    const NAME: &'static str = "press_key";
    const TITLE: &'static str = "Press key";
    const DESCRIPTION: &'static str = "Press one logical key (KEYCODE name or number, e.g. Back, Home, Enter, PageDown), optionally with up to two of Ctrl, Alt, Shift, Meta, as one key event. Confirms delivery only. Use `input_text` for strings.";
    const POLICY: Policy = Policy::UI_ACTION;
    const HINTS: Hints = Hints::ACTION;
    const VERIFY: bool = true;
    const REQUIRED: &'static [&'static str] = &["key"];
    const CODES: FieldCodes = FieldCodes {
        value: &[("modifiers", tapflow_core::codes::INVALID_MODIFIER)],
        wrong_type: &[("key", tapflow_core::codes::INVALID_KEY)],
    };
    const FLOW: FlowHooks<Params> = FlowHooks {
        shorthand: Some("key"),
        known_as: &[("pressKey", ""), ("back", "as `press_key: Back`")],
        ..FlowHooks::NONE
    };
    type Params = Params;
    type Output = Output;

    fn check(p: &Params) -> Result<(), ToolError> {
        event(p).map(drop)
    }

    fn run(p: Params, call: &mut Call<'_>) -> Result<Output, ToolError> {
        let (key, mods, input) = event(&p)?;
        let device = call.device()?;
        if device.platform() == tapflow_device::Platform::Android {
            let named = matches!(input, KeyInput::Home | KeyInput::Back | KeyInput::Power)
                .then(|| input.clone());
            return on_android(call, key, mods, named);
        }
        let event_key_codes: Vec<i64> = mods.iter().map(|m| m.code()).chain([key.code]).collect();
        call.before_action()?;
        device.key_event(&input)?;
        call.after_action()?;
        Ok(Output {
            key: key.name.to_string(),
            key_code: key.code,
            modifiers: mods,
            event_key_codes,
            dispatched: true,
            effect_verified: false,
        })
    }
}

/// The key as Android keycodes (see [`android`]).
fn on_android(
    call: &mut Call<'_>,
    key: keys::Key,
    mods: Vec<Modifier>,
    named: Option<KeyInput>,
) -> Result<Output, ToolError> {
    let Some(code) = android::code_of(&key) else {
        return Err(ToolError::new(
            tapflow_core::codes::UNSUPPORTED_ON_PLATFORM,
            format!(
                "{} has no Android keycode; press a key Android has (Enter, Back, Home, DEL, DPAD_*, MOVE_END, letters, digits, F1-F12, media keys), or use `input_text` for text",
                key.name
            ),
        )
        .with_details(json!({ "platform": "android", "key": key.name })));
    };
    let event_key_codes: Vec<i64> = mods
        .iter()
        .map(|m| android::modifier_code(*m))
        .chain([code])
        .collect();
    let input = match named {
        Some(n) => n,
        None => KeyInput::Codes(
            event_key_codes
                .iter()
                .map(|c| u32::try_from(*c).unwrap_or_default())
                .collect(),
        ),
    };
    let device = call.device()?;
    call.before_action()?;
    device.key_event(&input)?;
    call.after_action()?;
    Ok(Output {
        key: key.name.to_string(),
        key_code: code,
        modifiers: mods,
        event_key_codes,
        dispatched: true,
        effect_verified: false,
    })
}
