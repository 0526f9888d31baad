//! tapflow-sim: the simulated devices, phones that answer hdc exactly like real HarmonyOS ones, and
//! the same phones as Android devices that the real `adb` client drives over TCP.
//!
//! - [`phone`] — one phone's state (apps, screens, input, logs, files); owned separately.
//! - [`simulator`] — N devices behind one simulated hdc server: client argv, device selection,
//!   connect errors, `list targets`, faults and latency; [`transfer`] does file send/recv and
//!   install/uninstall.
//! - [`shell`] — the device's `sh -c` subset, shared by every platform: parser, executor, the
//!   programs every platform has (`echo`, `cat`, `ls`, `rm`, …); [`commands`] — the HarmonyOS
//!   programs and their texts, the table the HarmonyOS shell runs.
//! - [`faults`] / [`latency`] — deterministic fault injection and simulated device time.
//! - [`transport`] — the in-process `Transport` for the hdc backend.
//! - [`daemon`] — the executable mode: a background server on a Unix socket and the `hdc` script.
//! - [`android`] — the simulated Android device: the same phone as Android views, the Android
//!   programs, and an adbd speaking the adb protocol over TCP.
//!
//! May use: `tapflow-device` types and `tapflow-core` codes only; never reads the environment (the
//! CLI passes paths in). The `tapflow` binary takes this crate behind its default-on `sim` feature.

pub mod android;
pub mod commands;
pub mod daemon;
pub mod faults;
pub mod hdc_argv;
pub mod latency;
pub mod output;
pub mod phone;
pub mod shell;
pub mod simulator;
pub mod transfer;
pub mod transport;

pub use faults::FaultSpec;
pub use latency::Latency;
pub use output::SimOutput;
pub use phone::{DEMO_ABILITY, DEMO_BUNDLE};
pub use simulator::{SimOptions, Simulator};
pub use transport::SimTransport;
