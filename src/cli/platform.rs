//! The device platform a command targets (`--platform harmonyos|android`), and where the adb
//! executable is (the global `--adb` / `TAPFLOW_ADB`, default `adb` on `PATH`).

use std::path::PathBuf;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};

/// The one platform type (`tapflow_core::platform`); `--platform` takes the ones tapflow has
/// backends for.
pub use tapflow_core::platform::Platform;

/// `--platform`'s parser: `harmonyos` or `android` (with their help), as a [`Platform`].
/// (A clap `ValueEnum` cannot be derived on a type of tapflow-core, which has no clap.)
pub fn parser() -> impl TypedValueParser<Value = Platform> {
    PossibleValuesParser::new([
        PossibleValue::new(Platform::Harmonyos.as_str()).help("HarmonyOS devices through hdc"),
        PossibleValue::new(Platform::Android.as_str()).help("Android devices through adb"),
    ])
    .map(|name| name.parse().expect("a possible value is a platform"))
}

/// The adb backend's configuration from the global `--adb` flag.
pub fn adb_config(program: Option<PathBuf>) -> tapflow_device::adb::AdbConfig {
    let mut config = tapflow_device::adb::AdbConfig::default();
    if let Some(p) = program {
        config.program = p;
    }
    config
}
