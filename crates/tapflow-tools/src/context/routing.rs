//! How a call finds its device: the [`DeviceRoute`] it is given and the [`DeviceProvider`] that
//! resolves it, plus [`NoBackend`] for builds without a device backend.

use std::sync::Arc;

use serde::Serialize;
use tapflow_device::{Cost, Device, DeviceError, DeviceInfo, Target};

/// Where a call is routed (tool reference, "Shared Device Routing").
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize)]
pub struct DeviceRoute {
    /// `-t`: a serial / connect key; `None` = the only connected device.
    pub device_id: Option<String>,
    /// `-s`: the hdc server (`host:port`); `None` = the local default.
    pub hdc_server: Option<String>,
}

/// Finds devices. Implemented over the hdc backend by the CLI / MCP server, and by fakes in tests.
pub trait DeviceProvider: Send + Sync {
    /// The device `route` names. With no `device_id`: the only connected device
    /// (`DeviceError::Ambiguous` when several are, `NotFound` when none is). With only an
    /// `hdc_server`, the endpoint itself is the target (`hdc -t <IP:port>`).
    fn resolve(&self, route: &DeviceRoute) -> Result<Arc<dyn Device>, DeviceError>;
    /// The device `target`, which the caller has just listed through this provider's
    /// [`DeviceProvider::targets`]: a provider that can trust that listing skips its own (one
    /// round trip less per call when several platforms are asked in turn).
    fn resolve_listed(
        &self,
        target: &Target,
        route: &DeviceRoute,
    ) -> Result<Arc<dyn Device>, DeviceError> {
        let _ = target;
        self.resolve(route)
    }
    /// Every device known to the server (`hdc list targets -v`).
    fn targets(&self, hdc_server: Option<&str>) -> Result<Vec<Target>, DeviceError>;
    /// Basic information about one listed device (may cost round trips).
    fn info(&self, route: &DeviceRoute) -> Result<DeviceInfo, DeviceError> {
        self.resolve(route)?.info()
    }
    /// Round trips the provider itself made (listing targets to resolve a route); devices
    /// count their own.
    fn cost(&self) -> Cost {
        Cost::default()
    }
}

/// A provider for builds with no device backend: every device call fails with `UNSUPPORTED`
/// and the reason given here.
#[derive(Debug, Clone)]
pub struct NoBackend(pub String);

impl DeviceProvider for NoBackend {
    fn resolve(&self, _route: &DeviceRoute) -> Result<Arc<dyn Device>, DeviceError> {
        Err(self.err())
    }
    fn targets(&self, _hdc_server: Option<&str>) -> Result<Vec<Target>, DeviceError> {
        Err(self.err())
    }
}

impl NoBackend {
    fn err(&self) -> DeviceError {
        DeviceError::Unsupported {
            op: format!("device access ({})", self.0),
            backend: "none".into(),
        }
    }
}
