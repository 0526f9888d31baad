//! The hdc and adb backends driven against the simulated devices (the adb modules need the real `adb` client: scripts/test-deps.d/40-adb.sh).
//! One module per former test file.

#[path = "../common/mod.rs"]
mod common;

mod adb_backend;
mod adb_client;
mod adb_faults;
mod adb_real_apk;
mod adb_streams;
mod hdc_act_observe;
mod hdc_chained;
mod hdc_text_input;
