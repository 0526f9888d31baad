//! The simulated HarmonyOS devices as tools reach them (`sim` feature): [`SimProvider`], a
//! [`DeviceProvider`] over in-process simulated phones through the real hdc backend
//! (`HdcClient` / `HdcDevice` talking to a [`Simulator`] through [`SimTransport`]), so every
//! tool call goes through the exact argv, quoting and output parsers a real `hdc` would see.
//!
//! The one provider of simulated devices: the CLI's `--sim N` ([`sim_provider`],
//! [`sim_with_demo`], [`sim_client`]) and the tests and benchmarks ([`SimProvider::single`],
//! [`SimProvider::new`], [`hdc_provider_with_demo`]) build on it.
//!
//! Resolution is what a real provider does: every `resolve` asks hdc for its targets
//! (`hdc list targets -v`) and connects to the routed device; the device handles are kept per
//! route so that a device's cost counter (and so `include_cost`) covers every call made on it.
//! Whether that listing counts as the provider's own round trips is the constructor's choice:
//! not for the tests' providers (a host-only round trip outside the tool's device cost), as the
//! hdc provider does for the CLI's.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tapflow_device::hdc::{HdcClient, HdcConfig, HdcDevice, HdcRoute};
use tapflow_device::{Cost, Device, DeviceError, Target};
use tapflow_sim::{FaultSpec, Latency, SimOptions, SimTransport, Simulator};
use tapflow_tools::hdc_provider::HdcProvider;
use tapflow_tools::provider::CachingProvider;
use tapflow_tools::{DeviceProvider, DeviceRoute};

pub use tapflow_sim::{DEMO_ABILITY, DEMO_BUNDLE};

/// The simulated device's hdc server plus the hdc backend in front of it.
pub struct SimProvider {
    sim: Arc<Simulator>,
    client: HdcClient,
    /// Connected devices by route; a route that stops being listed is dropped on the next
    /// `resolve` (connect fails first).
    devices: Mutex<HashMap<HdcRoute, Arc<HdcDevice>>>,
    /// Whether listing targets counts as the provider's own round trips ([`DeviceProvider::cost`]).
    listing_cost: bool,
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
        Arc::new(Self::build(sim, cwd, config, false))
    }

    fn build(sim: Arc<Simulator>, cwd: &Path, config: HdcConfig, listing_cost: bool) -> Self {
        let transport = Arc::new(SimTransport::new(sim.clone(), cwd));
        SimProvider {
            sim,
            client: HdcClient::new(config, transport),
            devices: Mutex::new(HashMap::new()),
            listing_cost,
        }
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
        Ok(self.keep(hdc_route, fresh))
    }

    /// The device kept for `route` (`fresh` when none is yet).
    fn keep(&self, route: HdcRoute, fresh: HdcDevice) -> Arc<HdcDevice> {
        let mut devices = self.devices.lock().unwrap_or_else(|p| p.into_inner());
        devices
            .entry(route)
            .or_insert_with(|| Arc::new(fresh))
            .clone()
    }
}

impl DeviceProvider for SimProvider {
    fn resolve(&self, route: &DeviceRoute) -> Result<Arc<dyn Device>, DeviceError> {
        Ok(self.connect(route)?)
    }

    fn resolve_listed(
        &self,
        target: &Target,
        route: &DeviceRoute,
    ) -> Result<Arc<dyn Device>, DeviceError> {
        let hdc_route = self
            .client
            .route(Some(&target.serial), route.hdc_server.as_deref());
        let fresh = self.client.connect_listed(target, hdc_route.clone())?;
        Ok(self.keep(hdc_route, fresh))
    }

    fn targets(&self, hdc_server: Option<&str>) -> Result<Vec<Target>, DeviceError> {
        let route = self.client.route(None, hdc_server);
        self.client.list_targets_via(&route)
    }

    fn cost(&self) -> Cost {
        if self.listing_cost {
            self.client.cost()
        } else {
            Cost::default()
        }
    }
}

/// N in-process simulated devices behind one simulated hdc server, reached through the real
/// hdc backend (`SimTransport` → `HdcClient`), so every step goes through the same argv,
/// quoting and parsers as with a phone (`--sim N` of `run`, `tool`, `mcp`). Listing targets
/// counts as the provider's round trips, and each route is resolved once for the command (no
/// `list targets` per step). Returns the provider and the devices' serials.
pub fn sim_provider(
    n: usize,
    faults: Option<&str>,
    seed: u64,
    latency: Latency,
    cwd: &Path,
) -> Result<(Arc<dyn DeviceProvider>, Vec<String>), String> {
    if n == 0 {
        return Err("--sim needs at least one device".into());
    }
    let faults = match faults {
        Some(spec) => FaultSpec::parse(spec).map_err(|e| format!("--sim-faults: {e}"))?,
        None => FaultSpec::none(),
    };
    let sim = Arc::new(Simulator::new(SimOptions {
        devices: n,
        seed,
        latency,
        faults,
        ..SimOptions::default()
    }));
    let serials = sim.serials();
    let mut config = HdcConfig::default();
    if latency == Latency::None {
        // No simulated time at all: the pause before resending an undelivered command (which
        // waits for a real device's handshake) has nothing to wait for.
        config.transient_retry.backoff = Duration::ZERO;
    }
    let inner: Arc<dyn DeviceProvider> = Arc::new(SimProvider::build(sim, cwd, config, true));
    // A run resolves each device once; steps then reuse it (no `list targets` per step).
    let cached = CachingProvider::new(inner, Duration::from_secs(3600));
    Ok((Arc::new(cached), serials))
}

/// N simulated devices, the first with the demo app open (its login page), for one-off
/// commands that take `--sim` (`inspect`): returns the provider and that device's serial.
pub fn sim_with_demo(n: usize, cwd: &Path) -> Result<(Arc<dyn DeviceProvider>, String), String> {
    let (provider, serials) = sim_provider(n, None, 1, Latency::None, cwd)?;
    let serial = serials.into_iter().next().ok_or("no simulated device")?;
    start_demo(&provider, &serial, DEMO_ABILITY)?;
    Ok((provider, serial))
}

/// Opens the demo app on the simulated device `serial` (its login page) through `provider`;
/// an empty `ability` launches the app's launcher ability.
pub fn start_demo(
    provider: &Arc<dyn DeviceProvider>,
    serial: &str,
    ability: &str,
) -> Result<(), String> {
    let route = DeviceRoute {
        device_id: Some(serial.to_string()),
        hdc_server: None,
    };
    let dev = provider.resolve(&route).map_err(|e| e.to_string())?;
    dev.start_app(DEMO_BUNDLE, ability, None)
        .map_err(|e| format!("the demo app did not start: {e}"))
}

/// The real hdc backend over an in-process simulator (`tapflow devices --sim N`).
pub fn sim_client(sim: Arc<Simulator>, cwd: &Path) -> HdcClient {
    HdcClient::new(HdcConfig::default(), Arc::new(SimTransport::new(sim, cwd)))
}

/// The CLI's hdc provider ([`HdcProvider`], with no device kept) over a fresh simulated phone
/// without latency, with the demo app already started through a connection of its own (so the
/// provider's cost counts only what the test does). Host paths are relative to `cwd`.
pub fn hdc_provider_with_demo(cwd: &Path) -> Arc<HdcProvider> {
    let sim = Arc::new(Simulator::new(SimOptions {
        latency: Latency::None,
        ..SimOptions::default()
    }));
    sim_client(sim.clone(), cwd)
        .connect(HdcRoute::default())
        .expect("the simulated phone is connected")
        .start_app(DEMO_BUNDLE, DEMO_ABILITY, None)
        .expect("the demo app starts on a fresh simulated phone");
    Arc::new(HdcProvider(sim_client(sim, cwd)))
}
