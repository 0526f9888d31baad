//! The device platform a command targets (`--platform harmonyos|android`), and where the adb
//! executable is (the global `--adb` / `TAPFLOW_ADB`, default `adb` on `PATH`).

use std::path::PathBuf;

use clap::ValueEnum;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum Platform {
    /// HarmonyOS devices through hdc.
    #[default]
    Harmonyos,
    /// Android devices through adb.
    Android,
}

impl Platform {
    /// The name `Device::platform` and `when: {platform: …}` use.
    pub fn as_str(self) -> &'static str {
        match self {
            Platform::Harmonyos => "harmonyos",
            Platform::Android => "android",
        }
    }
}

/// The adb backend's configuration from the global `--adb` flag.
pub fn adb_config(program: Option<PathBuf>) -> tapflow_device::adb::AdbConfig {
    let mut config = tapflow_device::adb::AdbConfig::default();
    if let Some(p) = program {
        config.program = p;
    }
    config
}
