//! Device providers that wrap another: [`CachingProvider`] resolves each route once and reuses
//! the device for a while, so that a session of tool calls (an MCP client, a flow) does not pay
//! a `list targets` round trip before every step.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::context::{DeviceProvider, DeviceRoute};
use tapflow_device::{Cost, Device, DeviceError, DeviceInfo, Target};

/// Resolved devices by route, with when they were resolved.
type Cache = HashMap<DeviceRoute, (Instant, Arc<dyn Device>)>;

/// Caches resolved devices per route for `ttl`. A device that has gone away fails its own
/// commands (`DEVICE_DISCONNECTED`), and its route is resolved afresh once the entry expires;
/// [`CachingProvider::forget`] drops entries at once.
pub struct CachingProvider {
    inner: Arc<dyn DeviceProvider>,
    ttl: Duration,
    cache: Mutex<Cache>,
}

impl CachingProvider {
    pub fn new(inner: Arc<dyn DeviceProvider>, ttl: Duration) -> Self {
        CachingProvider {
            inner,
            ttl,
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// Drops every cached device.
    pub fn forget(&self) {
        self.lock().clear();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Cache> {
        // A poisoned cache only means another call panicked mid-insert; the map is still valid.
        self.cache.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl DeviceProvider for CachingProvider {
    fn resolve(&self, route: &DeviceRoute) -> Result<Arc<dyn Device>, DeviceError> {
        if let Some((at, d)) = self.lock().get(route)
            && at.elapsed() < self.ttl
        {
            return Ok(d.clone());
        }
        let d = self.inner.resolve(route)?;
        self.lock()
            .insert(route.clone(), (Instant::now(), d.clone()));
        Ok(d)
    }

    fn targets(&self, hdc_server: Option<&str>) -> Result<Vec<Target>, DeviceError> {
        self.inner.targets(hdc_server)
    }

    fn info(&self, route: &DeviceRoute) -> Result<DeviceInfo, DeviceError> {
        self.resolve(route)?.info()
    }

    fn cost(&self) -> Cost {
        self.inner.cost()
    }
}
