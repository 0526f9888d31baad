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
//! about. (The shared `crates/tapflow-tools/tests/common/fake_device/` has no focus or editing
//! model, so it is not used here.)
//!
//! The fake's parts: `form` (the form's elements, the text-field editing model, the fault knobs),
//! `phone` ([`FormPhone`] itself) and `harness` (the environment the rules call the tool in).
//! The rules, one module per group: `params`, `handle_mode`, `focus`, `verification`,
//! `resolution`, `coordinate`, `tool` (round trips per route, the published definition, the
//! any-text property) and `hdc_backend` (the real hdc backend on the simulator).

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

mod form;
mod harness;
mod phone;

mod coordinate;
mod focus;
mod handle_mode;
mod hdc_backend;
mod params;
mod resolution;
mod tool;
mod verification;

use form::*;
use harness::*;
use phone::*;
