//! A [`DeviceProvider`] over several platforms' backends (hdc and adb): listings are merged,
//! and a `device_id` is resolved by the backend that lists it, so `--device` and `device_id`
//! accept either kind of serial. Without a `device_id` the only usable device of all platforms
//! is taken (several: `MULTIPLE_DEVICES`). A backend whose executable is missing
//! (`HDC_NOT_FOUND`, `ADB_NOT_FOUND`) is left out while another one answers; when none answers,
//! the first one's error is the answer. An `hdc_server` route goes to hdc only.

use std::sync::Arc;

use crate::context::{DeviceProvider, DeviceRoute};
use tapflow_device::{Cost, Device, DeviceError, Platform, Target, TargetState};

pub struct PlatformsProvider {
    /// `(platform, provider)`, asked in order.
    backends: Vec<(Platform, Arc<dyn DeviceProvider>)>,
}

fn missing_tool(e: &DeviceError) -> bool {
    matches!(
        e,
        DeviceError::HdcNotFound { .. } | DeviceError::AdbNotFound { .. }
    )
}

fn usable(t: &Target) -> bool {
    matches!(t.state, TargetState::Connected | TargetState::Ready)
}

impl PlatformsProvider {
    pub fn new(backends: Vec<(Platform, Arc<dyn DeviceProvider>)>) -> Self {
        Self { backends }
    }

    /// Every backend's listing, tagged with its platform; backends without their executable are
    /// skipped unless none answers.
    pub fn listings(&self) -> Result<Vec<(Platform, Vec<Target>)>, DeviceError> {
        let mut out = Vec::new();
        let mut first_err = None;
        for (name, p) in &self.backends {
            match p.targets(None) {
                Ok(t) => out.push((*name, t)),
                Err(e) if missing_tool(&e) => {
                    first_err.get_or_insert(e);
                }
                Err(e) => return Err(e),
            }
        }
        match (out.is_empty(), first_err) {
            (true, Some(e)) => Err(e),
            _ => Ok(out),
        }
    }

    fn hdc(&self) -> Option<&Arc<dyn DeviceProvider>> {
        self.backends
            .iter()
            .find(|(n, _)| *n == Platform::Harmonyos)
            .map(|(_, p)| p)
    }

    fn backend(&self, name: Platform) -> Option<&Arc<dyn DeviceProvider>> {
        self.backends
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, p)| p)
    }
}

impl DeviceProvider for PlatformsProvider {
    fn resolve(&self, route: &DeviceRoute) -> Result<Arc<dyn Device>, DeviceError> {
        if route.hdc_server.is_some()
            && let Some(hdc) = self.hdc()
        {
            return hdc.resolve(route);
        }
        let listings = self.listings()?;
        match &route.device_id {
            Some(id) => {
                for (name, targets) in &listings {
                    if let Some(t) = targets.iter().find(|t| &t.serial == id)
                        && let Some(p) = self.backend(*name)
                    {
                        return p.resolve_listed(t, route);
                    }
                }
                let listed: Vec<String> = listings
                    .iter()
                    .flat_map(|(n, ts)| ts.iter().map(move |t| format!("{} ({n})", t.serial)))
                    .collect();
                Err(DeviceError::NotFound {
                    serial: id.clone(),
                    device_says: format!(
                        "neither hdc nor adb lists it (listed: {})",
                        if listed.is_empty() {
                            "none".to_string()
                        } else {
                            listed.join(", ")
                        }
                    ),
                })
            }
            None => {
                let live: Vec<(Platform, &Target)> = listings
                    .iter()
                    .flat_map(|(n, ts)| ts.iter().filter(|t| usable(t)).map(move |t| (*n, t)))
                    .collect();
                match live.as_slice() {
                    [(name, t)] => {
                        let p = self.backend(*name).expect("listed by a known backend");
                        p.resolve_listed(
                            t,
                            &DeviceRoute {
                                device_id: Some(t.serial.clone()),
                                hdc_server: None,
                            },
                        )
                    }
                    [] => Err(DeviceError::NotFound {
                        serial: "(any)".into(),
                        device_says: "neither hdc nor adb lists a usable device".into(),
                    }),
                    several => Err(DeviceError::Ambiguous {
                        serials: several
                            .iter()
                            .map(|(n, t)| format!("{} ({n})", t.serial))
                            .collect::<Vec<_>>()
                            .join(", "),
                    }),
                }
            }
        }
    }

    fn targets(&self, hdc_server: Option<&str>) -> Result<Vec<Target>, DeviceError> {
        if hdc_server.is_some()
            && let Some(hdc) = self.hdc()
        {
            return hdc.targets(hdc_server);
        }
        Ok(self.listings()?.into_iter().flat_map(|(_, t)| t).collect())
    }

    fn cost(&self) -> Cost {
        self.backends.iter().fold(Cost::default(), |acc, (_, p)| {
            let c = p.cost();
            Cost {
                round_trips: acc.round_trips + c.round_trips,
                ui_dumps: acc.ui_dumps + c.ui_dumps,
            }
        })
    }
}
