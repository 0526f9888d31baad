//! Parsers for everything adb and the Android device programs print. Pure functions of text;
//! each is tested over every relevant fixture in `tests/fixtures/android/` (see
//! `crates/tapflow-device/tests/parse/android.rs`) and over the shapes documented in `docs/reference/adb.md`.
//!
//! Owns: turning text into model types or verdicts. Must not do I/O or decide policy (the
//! backend decides what an answer means for the caller). Inputs have `\r` removed already but
//! every parser tolerates it anyway, and none panics on arbitrary input.

pub mod devices;
pub mod focus;
pub mod outcome;
pub mod packages;
pub mod props;
pub mod uiautomator;

pub use crate::hdc::parse::ParseError;
