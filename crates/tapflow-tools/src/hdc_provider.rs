//! The [`DeviceProvider`] over the hdc backend: routes (`device_id`, `hdc_server`) become
//! `HdcRoute`s, devices are `HdcDevice`s. The transport is whatever the `HdcClient` was built
//! with: a real `hdc` process, or the simulated device in-process.

use std::sync::Arc;

use crate::context::{DeviceProvider, DeviceRoute};
use tapflow_device::hdc::HdcClient;
use tapflow_device::{Cost, Device, DeviceError, Target};

/// Resolves tool routes to hdc devices.
pub struct HdcProvider(pub HdcClient);

impl DeviceProvider for HdcProvider {
    fn resolve(&self, route: &DeviceRoute) -> Result<Arc<dyn Device>, DeviceError> {
        let route = self
            .0
            .route(route.device_id.as_deref(), route.hdc_server.as_deref());
        Ok(Arc::new(self.0.connect(route)?))
    }

    fn resolve_listed(
        &self,
        target: &Target,
        route: &DeviceRoute,
    ) -> Result<Arc<dyn Device>, DeviceError> {
        let route = self
            .0
            .route(Some(&target.serial), route.hdc_server.as_deref());
        Ok(Arc::new(self.0.connect_listed(target, route)?))
    }

    fn targets(&self, hdc_server: Option<&str>) -> Result<Vec<Target>, DeviceError> {
        self.0.list_targets_via(&self.0.route(None, hdc_server))
    }

    fn cost(&self) -> Cost {
        self.0.cost()
    }
}
