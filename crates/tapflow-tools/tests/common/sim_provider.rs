//! A [`DeviceProvider`] over an in-process simulated HarmonyOS device: the real hdc backend
//! (`HdcClient` / `HdcDevice`) talking to a [`Simulator`] through [`SimTransport`], so every
//! tool call goes through the exact argv, quoting and output parsers a real `hdc` would see.
//!
//! Shared by the tool suites (`crates/tapflow-tools/tests/tools/sim_*.rs`) and the tools benchmark
//! (`benches/tools.rs`); a test uses it as `crate::common::sim_provider`.
//!
//! Resolution is what a real provider does: every `resolve` asks hdc for its targets
//! (`hdc list targets -v`, one host-only round trip that is not part of the tool's device cost)
//! and connects to the routed device; the device handles are kept per route so that a device's
//! cost counter (and so `include_cost`) covers every call made on it.

#![allow(dead_code)]

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use tapflow_device::hdc::{HdcClient, HdcConfig, HdcDevice, HdcRoute};

use tapflow_device::{Cost, Device, DeviceError, Target};
use tapflow_sim::{FaultSpec, Latency, SimOptions, SimTransport, Simulator};
use tapflow_tools::{DeviceProvider, DeviceRoute};

/// The simulated device's hdc server plus the hdc backend in front of it.
pub struct SimProvider {
    sim: Arc<Simulator>,
    client: HdcClient,
    /// Connected devices by route; a route that stops being listed is dropped on the next
    /// `resolve` (connect fails first).
    devices: Mutex<HashMap<HdcRoute, Arc<HdcDevice>>>,
}

impl SimProvider {
    /// A provider over `sim`; host paths (screenshots received, packages sent) are relative to
    /// `cwd`.
    pub fn new(sim: Arc<Simulator>, cwd: &Path) -> Arc<Self> {
        let config = HdcConfig {
            program: "sim:hdc".into(),
            host_tmp_dir: Some(cwd.to_path_buf()),
            ..HdcConfig::default()
        };
        Self::with_config(sim, cwd, config)
    }

    /// One simulated phone (demo app installed, launcher shown) with the given latency and
    /// faults, seeded deterministically.
    pub fn single(latency: Latency, faults: FaultSpec, seed: u64, cwd: &Path) -> Arc<Self> {
        let sim = Arc::new(Simulator::new(SimOptions {
            devices: 1,
            seed,
            latency,
            faults,
            ..SimOptions::default()
        }));
        Self::new(sim, cwd)
    }

    /// The same, with a different hdc backend configuration (e.g. a short dump deadline).
    pub fn with_config(sim: Arc<Simulator>, cwd: &Path, config: HdcConfig) -> Arc<Self> {
        let transport = Arc::new(SimTransport::new(sim.clone(), cwd));
        Arc::new(SimProvider {
            sim,
            client: HdcClient::new(config, transport),
            devices: Mutex::new(HashMap::new()),
        })
    }

    pub fn simulator(&self) -> &Arc<Simulator> {
        &self.sim
    }

    /// The first device's connect key.
    pub fn serial(&self) -> String {
        self.sim.serials()[0].clone()
    }

    /// The hdc device for the default route (connecting if needed), for test set-up and
    /// round-trip accounting outside tool calls.
    pub fn device(&self) -> Arc<HdcDevice> {
        self.connect(&DeviceRoute::default())
            .expect("the simulated device is connected")
    }

    /// Round trips spent on the default route's device so far.
    pub fn device_cost(&self) -> Cost {
        self.device().cost()
    }

    /// Round trips the client spent listing targets (resolution), not counted in tool costs.
    pub fn listing_cost(&self) -> Cost {
        self.client.cost()
    }

    fn connect(&self, route: &DeviceRoute) -> Result<Arc<HdcDevice>, DeviceError> {
        let hdc_route = self
            .client
            .route(route.device_id.as_deref(), route.hdc_server.as_deref());
        // Always ask hdc first, as a real provider must: a device that was unplugged since the
        // last call is reported as not found instead of being handed out stale.
        let fresh = self.client.connect(hdc_route.clone())?;
        let mut devices = self.devices.lock().unwrap_or_else(|p| p.into_inner());
        let dev = devices
            .entry(hdc_route)
            .or_insert_with(|| Arc::new(fresh))
            .clone();
        Ok(dev)
    }
}

impl DeviceProvider for SimProvider {
    fn resolve(&self, route: &DeviceRoute) -> Result<Arc<dyn Device>, DeviceError> {
        Ok(self.connect(route)?)
    }

    fn targets(&self, hdc_server: Option<&str>) -> Result<Vec<Target>, DeviceError> {
        let route = self.client.route(None, hdc_server);
        self.client.list_targets_via(&route)
    }
}

/// The CLI's own provider (`tools::hdc_provider::HdcProvider`) over a fresh simulated phone
/// without latency, with the demo app already started through a connection of its own (so the
/// provider's cost counts only what the test does). Host paths are relative to `cwd`.
pub fn hdc_provider_with_demo(cwd: &Path) -> Arc<tapflow_tools::hdc_provider::HdcProvider> {
    let sim = Arc::new(Simulator::new(SimOptions {
        latency: Latency::None,
        ..SimOptions::default()
    }));
    let client = || {
        HdcClient::new(
            HdcConfig::default(),
            Arc::new(SimTransport::new(sim.clone(), cwd)),
        )
    };
    client()
        .connect(HdcRoute::default())
        .unwrap()
        .start_app("com.tapflow.demo", "EntryAbility", None)
        .unwrap();
    Arc::new(tapflow_tools::hdc_provider::HdcProvider(client()))
}
