//! [`HdcClient`]: the entry point of the backend. Lists targets (`hdc list targets -v`), applies
//! the routing rules with the configured default server, and connects to one device after
//! checking that hdc lists it in a usable state.

use std::sync::Arc;

use crate::error::{DeviceError, DeviceResult};
use crate::hdc::classify::{Op, Scan, check_text};
use crate::hdc::config::HdcConfig;
use crate::hdc::device::HdcDevice;
use crate::hdc::leftovers::Leftovers;
use crate::hdc::parse;
use crate::hdc::route::HdcRoute;
use crate::hdc::runner::Runner;
use crate::model::{Target, TargetState};
use crate::transport::{Cost, CostCounter, ProcessTransport, Transport};

pub use tapflow_core::codes::DEVICE_LIST_FAILED;

#[derive(Debug, Clone)]
pub struct HdcClient {
    runner: Runner,
    config: HdcConfig,
    /// Shared by every device handle this client (and its clones) creates.
    leftovers: Leftovers,
}

impl HdcClient {
    /// A client over any transport (a real `hdc` process, the in-process simulator, a test fake).
    pub fn new(config: HdcConfig, transport: Arc<dyn Transport>) -> Self {
        Self {
            runner: Runner::new(transport, CostCounter::default(), config.transient_retry),
            config,
            leftovers: Leftovers::default(),
        }
    }

    /// A client that spawns `config.program` for every call.
    pub fn with_process(config: HdcConfig) -> Self {
        let transport = Arc::new(ProcessTransport::new(config.program.clone()));
        Self::new(config, transport)
    }

    pub fn config(&self) -> &HdcConfig {
        &self.config
    }

    /// Round trips made by the client itself (listing; devices count their own).
    pub fn cost(&self) -> Cost {
        self.runner.cost().snapshot()
    }

    /// The route for a tool call's `device_id` / `hdc_server`, with the configured default server.
    pub fn route(&self, device_id: Option<&str>, hdc_server: Option<&str>) -> HdcRoute {
        HdcRoute::resolve(device_id, hdc_server, self.config.default_server.as_deref())
    }

    /// `hdc list targets -v` on the local default server.
    pub fn list_targets(&self) -> DeviceResult<Vec<Target>> {
        self.list_targets_via(&HdcRoute::default())
    }

    /// `hdc [-s <server>] list targets -v`: only the route's server matters (the listing
    /// addresses no device). `[Empty]` is an empty list, not an error.
    pub fn list_targets_via(&self, route: &HdcRoute) -> DeviceResult<Vec<Target>> {
        let route = route.server_only();
        let op = Op::new(DEVICE_LIST_FAILED, "list targets");
        let sub = ["list", "targets", "-v"].map(String::from);
        let text = self
            .runner
            .run(&route, &sub, self.config.command_timeout, &op, Scan::Skip)?;
        if text.trim() == "[Empty]" {
            return Ok(Vec::new());
        }
        check_text(&text, &route, &op, Scan::Whole)?;
        Ok(parse::targets::parse_targets(&text))
    }

    /// Connects to the device the route names (or the only one there is), after checking that
    /// hdc lists it: not listed → `NotFound`; `Unauthorized` → `Unauthorized`; `Offline` →
    /// `Disconnected`; no target while several devices are attached → `Ambiguous`.
    pub fn connect(&self, route: HdcRoute) -> DeviceResult<HdcDevice> {
        let targets = self.list_targets_via(&route)?;
        let serial = match &route.target {
            Some(wanted) => {
                let Some(t) = targets.iter().find(|t| &t.serial == wanted) else {
                    return Err(DeviceError::NotFound {
                        serial: wanted.clone(),
                        device_says: not_listed(&targets, wanted),
                    });
                };
                usable(t)?;
                t.serial.clone()
            }
            None => {
                let present: Vec<&Target> = targets
                    .iter()
                    .filter(|t| t.state != TargetState::Offline)
                    .collect();
                match present.as_slice() {
                    [] => {
                        return Err(DeviceError::NotFound {
                            serial: route.label(),
                            device_says: if targets.is_empty() {
                                "[Empty]: hdc lists no device".to_string()
                            } else {
                                format!("every listed device is offline: {}", serials(&targets))
                            },
                        });
                    }
                    [only] => {
                        usable(only)?;
                        only.serial.clone()
                    }
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
        Ok(self.device(serial, route))
    }

    /// The device `target` as `hdc list targets -v` just showed it (no listing of its own):
    /// refused when that listing shows it unauthorised or offline.
    pub fn connect_listed(&self, target: &Target, route: HdcRoute) -> DeviceResult<HdcDevice> {
        usable(target)?;
        Ok(self.device(target.serial.clone(), route))
    }

    /// A device handle without any check (the caller knows the device is there).
    pub fn device(&self, serial: impl Into<String>, route: HdcRoute) -> HdcDevice {
        HdcDevice::new(
            serial,
            route,
            self.runner.transport().clone(),
            self.config.clone(),
        )
        .sharing_leftovers(self.leftovers.clone())
    }
}

fn usable(t: &Target) -> DeviceResult<()> {
    match t.state {
        TargetState::Connected | TargetState::Ready => Ok(()),
        TargetState::Unauthorized => Err(DeviceError::Unauthorized {
            serial: t.serial.clone(),
        }),
        TargetState::Offline | TargetState::Unknown => Err(DeviceError::Disconnected {
            device_says: format!("`hdc list targets -v` shows {} as {:?}", t.serial, t.state),
        }),
    }
}

fn serials(targets: &[Target]) -> String {
    targets
        .iter()
        .map(|t| format!("{} ({:?})", t.serial, t.state))
        .collect::<Vec<_>>()
        .join(", ")
}

fn not_listed(targets: &[Target], wanted: &str) -> String {
    let listed = if targets.is_empty() {
        "[Empty]".to_string()
    } else {
        serials(targets)
    };
    let hint = if wanted.contains(':') {
        format!("; for a wireless device connect it first with `hdc tconn {wanted}`")
    } else {
        String::new()
    };
    format!("`hdc list targets -v` does not list it (listed: {listed}){hint}")
}
