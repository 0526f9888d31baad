//! The simulated Android device: the same phone model and demo app as the HarmonyOS simulator
//! ([`crate::phone`]), shown as Android views ([`views`]: the `uiautomator dump` XML of the
//! real dumps), logging as logcat does ([`logcat`]), installing APKs ([`apk`]), running the
//! Android programs ([`commands`]: `input`, `uiautomator`, `screencap`, `am`, `monkey`, `pm`,
//! `cmd package`, `logcat`, `dumpsys`, `getprop`, `settings`, `ime`, `wm`, toybox builtins) in
//! the shared `sh -c` subset ([`crate::shell`]), and speaking the adb device-side protocol
//! over TCP ([`adbd`]), so the real `adb` client attaches it with `adb connect` and drives it
//! unmodified. [`farm`] runs N such devices; faults and latency are the simulator's own
//! ([`crate::faults`], [`crate::latency`]).
//!
//! Uses `device` types only and never reads the environment.

pub mod adbd;
pub mod apk;
pub mod axml;
pub mod commands;
pub mod component;
pub mod daemon;
pub mod device;
pub mod farm;
pub mod logcat;
pub mod profile;
pub mod state;
pub mod views;

pub use device::AndroidDevice;
pub use farm::{AndroidFarm, FarmOptions};
pub use profile::AndroidProfile;
