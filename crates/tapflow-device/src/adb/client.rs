//! [`AdbClient`]: the entry point of the backend. Lists devices (`adb devices -l`), attaches
//! network devices (`adb connect`), and hands out an [`AdbDevice`] after checking that adb
//! lists it in a usable state.

use std::sync::Arc;

use crate::adb::classify::{Op, Streams, command_failed};
use crate::adb::config::AdbConfig;
use crate::adb::device::AdbDevice;
use crate::adb::parse::devices::{AdbTarget, parse_devices};
use crate::adb::reconnect;
use crate::adb::runner::Runner;
use crate::error::{DeviceError, DeviceResult};
use crate::model::Target;
use crate::transport::{Cost, CostCounter, ProcessTransport, Transport};

pub use tapflow_core::codes::ADB_CONNECT_FAILED;
pub use tapflow_core::codes::DEVICE_LIST_FAILED;

#[derive(Debug, Clone)]
pub struct AdbClient {
    runner: Runner,
    config: AdbConfig,
}

impl AdbClient {
    /// A client over any transport (a real `adb` process, a test fake).
    pub fn new(config: AdbConfig, transport: Arc<dyn Transport>) -> Self {
        Self {
            runner: Runner::new(
                transport,
                CostCounter::default(),
                config.global_args(),
                config.refused_retry,
            ),
            config,
        }
    }

    /// A client that spawns `config.program` for every call.
    pub fn with_process(config: AdbConfig) -> Self {
        let transport = Arc::new(ProcessTransport::new(config.program.clone()));
        Self::new(config, transport)
    }

    pub fn config(&self) -> &AdbConfig {
        &self.config
    }

    /// Round trips made by the client itself (listing, connecting; devices count their own).
    pub fn cost(&self) -> Cost {
        self.runner.cost().snapshot()
    }

    /// `adb devices -l`, every transport as adb prints it.
    pub fn list_devices(&self) -> DeviceResult<Vec<AdbTarget>> {
        let answer = self.runner.run(
            None,
            &["devices".to_string(), "-l".to_string()],
            self.config.command_timeout,
            Streams::Both,
        )?;
        parse_devices(&answer.stdout).map_err(|e| DeviceError::Parse {
            code: DEVICE_LIST_FAILED,
            what: "adb devices -l".into(),
            detail: e.to_string(),
        })
    }

    /// The listing as platform-neutral targets.
    pub fn list_targets(&self) -> DeviceResult<Vec<Target>> {
        Ok(self
            .list_devices()?
            .iter()
            .map(AdbTarget::to_target)
            .collect())
    }

    /// The device `serial` names (or the only one there is), after checking that adb lists it
    /// as `device`: not listed → `NotFound`; `unauthorized` → `Unauthorized`; `offline` or any
    /// other state → `Disconnected`; no serial with several devices → `Ambiguous`. A network
    /// device (`HOST:PORT`) listed `offline` is attached again first (its connection dropped;
    /// see [`crate::adb::reconnect`]), within the command deadline.
    pub fn connect(&self, serial: Option<&str>) -> DeviceResult<AdbDevice> {
        let mut devices = self.list_devices()?;
        if let Some(wanted) = serial
            && reconnect::is_network_serial(wanted)
            && devices
                .iter()
                .any(|t| t.serial == wanted && t.state == "offline")
        {
            let deadline = std::time::Instant::now() + self.config.command_timeout;
            match self.runner.reconnect(wanted, deadline) {
                Ok(()) => devices = self.list_devices()?,
                Err(why) => tracing::info!(target: "tapflow::adb", serial = wanted, why = %why,
                    "adb reconnect failed"),
            }
        }
        let chosen = match serial {
            Some(wanted) => {
                let Some(t) = devices.iter().find(|t| t.serial == wanted) else {
                    return Err(DeviceError::NotFound {
                        serial: wanted.to_string(),
                        device_says: not_listed(&devices, wanted),
                    });
                };
                t
            }
            None => {
                let live: Vec<&AdbTarget> =
                    devices.iter().filter(|t| t.state != "offline").collect();
                match live.as_slice() {
                    [] => {
                        return Err(DeviceError::NotFound {
                            serial: "(any)".into(),
                            device_says: if devices.is_empty() {
                                "`adb devices -l` lists no device".into()
                            } else {
                                format!("every listed device is offline: {}", listing(&devices))
                            },
                        });
                    }
                    [one] => *one,
                    several => {
                        return Err(DeviceError::Ambiguous {
                            serials: several
                                .iter()
                                .map(|t| t.serial.as_str())
                                .collect::<Vec<_>>()
                                .join(", "),
                        });
                    }
                }
            }
        };
        usable(chosen)?;
        Ok(self.device(chosen.serial.clone()))
    }

    /// A device handle without any check (the caller knows the device is there).
    pub fn device(&self, serial: impl Into<String>) -> AdbDevice {
        AdbDevice::new(
            serial,
            self.runner.transport().clone(),
            self.config.clone(),
            CostCounter::default(),
        )
    }

    /// `adb connect HOST:PORT`. adb exits 0 even when it fails, so the words decide:
    /// `connected to …` / `already connected to …` is success.
    pub fn adb_connect(&self, address: &str) -> DeviceResult<()> {
        let op = Op::new(ADB_CONNECT_FAILED, format!("adb connect {address}"));
        let answer = self.runner.run(
            None,
            &["connect".to_string(), address.to_string()],
            // The client waits up to 10 s for the device's CNXN; leave it room.
            self.config
                .command_timeout
                .max(std::time::Duration::from_secs(15)),
            Streams::Both,
        )?;
        let text = answer.text();
        if reconnect::connected(&text) {
            Ok(())
        } else {
            Err(command_failed(&op, text.trim()))
        }
    }

    /// `adb disconnect HOST:PORT`.
    pub fn adb_disconnect(&self, address: &str) -> DeviceResult<()> {
        let op = Op::new(ADB_CONNECT_FAILED, format!("adb disconnect {address}"));
        let answer = self.runner.run(
            None,
            &["disconnect".to_string(), address.to_string()],
            self.config.command_timeout,
            Streams::Both,
        )?;
        let text = answer.text();
        if text.contains("disconnected") {
            Ok(())
        } else {
            Err(command_failed(&op, text.trim()))
        }
    }

    /// `adb kill-server`: stops the server this client talks to (with `-P`, the private one).
    pub fn kill_server(&self) -> DeviceResult<()> {
        self.runner
            .run(
                None,
                &["kill-server".to_string()],
                self.config.command_timeout,
                Streams::Stderr,
            )
            .map(|_| ())
    }
}

fn usable(t: &AdbTarget) -> DeviceResult<()> {
    match t.state.as_str() {
        "device" => Ok(()),
        "unauthorized" | "authorizing" => Err(DeviceError::Unauthorized {
            serial: t.serial.clone(),
        }),
        other => Err(DeviceError::Disconnected {
            device_says: format!("`adb devices -l` shows {} as `{other}`", t.serial),
        }),
    }
}

fn listing(devices: &[AdbTarget]) -> String {
    devices
        .iter()
        .map(|t| format!("{} ({})", t.serial, t.state))
        .collect::<Vec<_>>()
        .join(", ")
}

fn not_listed(devices: &[AdbTarget], wanted: &str) -> String {
    let listed = if devices.is_empty() {
        "none".to_string()
    } else {
        listing(devices)
    };
    let hint = if wanted.contains(':') {
        format!("; attach a network device first with `adb connect {wanted}`")
    } else {
        String::new()
    };
    format!("`adb devices -l` does not list it (listed: {listed}){hint}")
}
