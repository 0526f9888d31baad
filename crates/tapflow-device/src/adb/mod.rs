//! The adb backend: Android devices driven through the `adb` command line.
//!
//! Owns: the argv of every operation ([`commands`], [`text`] for typing), classification of
//! adb's answers into typed errors ([`classify`]: by their words, never by the exit status
//! alone), the round-trip runner with cost accounting ([`runner`]), the
//! [`crate::Device`] implementation ([`AdbDevice`]) and the entry point
//! ([`AdbClient`]). Output parsers live in [`parse`]. Everything goes through a
//! [`crate::Transport`] with a deadline (`logcat`, `uninstall` and `wait-for-device`
//! block forever without a device; the backend never sends the waiting forms, and every call
//! is killed at its deadline anyway). User text is always one single-quoted word for the
//! device's `sh -c` (the hdc backend's [`crate::hdc::quote::ShellCommand`]).
//! Must not use anything above `device`, nor read the environment (configuration comes in
//! through [`AdbConfig`]).

pub mod classify;
pub mod client;
pub mod commands;
pub mod config;
pub mod device;
mod input;
pub mod parse;
pub mod reconnect;
pub mod runner;
pub mod screenshot;
pub mod text;
pub mod ui_dump;
pub mod validate;

pub use client::AdbClient;
pub use config::AdbConfig;
pub use device::AdbDevice;
