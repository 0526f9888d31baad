//! [`FakeProvider`]: fake devices by serial, recording every route it was asked to resolve.

use super::*;

/// Devices by serial; records every route it was asked to resolve.
pub struct FakeProvider {
    pub devices: Vec<Arc<FakeDevice>>,
    pub routes: Mutex<Vec<DeviceRoute>>,
    pub disconnected: Mutex<HashMap<String, bool>>,
}

impl FakeProvider {
    pub fn new(devices: Vec<Arc<FakeDevice>>) -> Arc<Self> {
        Arc::new(FakeProvider {
            devices,
            routes: Mutex::new(vec![]),
            disconnected: Mutex::new(HashMap::new()),
        })
    }
    pub fn routes(&self) -> Vec<DeviceRoute> {
        self.routes.lock().unwrap().clone()
    }
}

impl DeviceProvider for FakeProvider {
    fn resolve(&self, route: &DeviceRoute) -> Result<Arc<dyn Device>, DeviceError> {
        self.routes.lock().unwrap().push(route.clone());
        let key = route.device_id.clone().or_else(|| route.hdc_server.clone());
        let found = match key {
            Some(k) => self.devices.iter().find(|d| d.serial() == k).cloned(),
            None if self.devices.len() == 1 => self.devices.first().cloned(),
            None if self.devices.is_empty() => None,
            None => {
                return Err(DeviceError::Ambiguous {
                    serials: self
                        .devices
                        .iter()
                        .map(|d| d.serial().to_string())
                        .collect::<Vec<_>>()
                        .join(", "),
                });
            }
        };
        match found {
            Some(d)
                if self
                    .disconnected
                    .lock()
                    .unwrap()
                    .get(d.serial())
                    .copied()
                    .unwrap_or(false) =>
            {
                Err(DeviceError::Disconnected {
                    device_says: "[Fail]Device not found or connected".into(),
                })
            }
            Some(d) => Ok(d as Arc<dyn Device>),
            None => Err(DeviceError::NotFound {
                serial: route.device_id.clone().unwrap_or_default(),
                device_says: "[Fail][E001005] Device not found or connected".into(),
            }),
        }
    }
    fn targets(&self, _hdc_server: Option<&str>) -> Result<Vec<Target>, DeviceError> {
        let mut t: Vec<Target> = self
            .devices
            .iter()
            .map(|d| Target {
                serial: d.serial().into(),
                connection: Some("USB".into()),
                state: TargetState::Connected,
                name: Some("localhost".into()),
            })
            .collect();
        t.push(Target {
            serial: "OFFLINE01".into(),
            connection: Some("USB".into()),
            state: TargetState::Offline,
            name: None,
        });
        Ok(t)
    }
}
