//! `logs_query` through `Engine::call`: inline logs, files and the allowlist, parameter codes,
//! and device capture against the in-process simulated phone driven through the real hdc
//! backend (`HdcClient` over `SimTransport`). Every envelope is validated against the tool's
//! published output schema; a call that needs no device must not even resolve one.
//!
//! Here: the counting and simulated-device providers, [`Env`] and the inline log lines. `inline`
//! holds inline logs, files, parameters and the published definition; `device` the capture on
//! the simulated phone and the CLI.

use crate::common::cli;
use crate::common::envelope;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tapflow_device::hdc::{HdcClient, HdcConfig};
use tapflow_device::{Device, DeviceError, DumpScope, Point, TapKind, Target, TextTarget, UiNode};
use tapflow_sim::{FaultSpec, Latency, SimOptions, SimTransport, Simulator};
use tapflow_tools::{
    DeviceProvider, DeviceRoute, Engine, Envelope, NoBackend, ToolConfig, ToolContext,
};

use tapflow_sim::DEMO_BUNDLE as DEMO;

mod device;
mod inline;

/// Any provider, counting how often a device is resolved.
struct Counting {
    inner: Arc<dyn DeviceProvider>,
    resolves: AtomicUsize,
}

impl DeviceProvider for Counting {
    fn resolve(&self, route: &DeviceRoute) -> Result<Arc<dyn Device>, DeviceError> {
        self.resolves.fetch_add(1, Ordering::SeqCst);
        self.inner.resolve(route)
    }
    fn targets(&self, hdc_server: Option<&str>) -> Result<Vec<Target>, DeviceError> {
        self.inner.targets(hdc_server)
    }
}

/// Devices from the hdc backend, whose transport is the in-process simulator.
struct SimProvider {
    client: HdcClient,
}

impl DeviceProvider for SimProvider {
    fn resolve(&self, route: &DeviceRoute) -> Result<Arc<dyn Device>, DeviceError> {
        let r = self
            .client
            .route(route.device_id.as_deref(), route.hdc_server.as_deref());
        Ok(Arc::new(self.client.connect(r)?))
    }
    fn targets(&self, hdc_server: Option<&str>) -> Result<Vec<Target>, DeviceError> {
        self.client
            .list_targets_via(&self.client.route(None, hdc_server))
    }
}

struct Env {
    engine: Engine,
    ctx: ToolContext,
    provider: Arc<Counting>,
    /// The project (working) directory.
    project: PathBuf,
    /// In none of the roots.
    outside: PathBuf,
    _tmp: tempfile::TempDir,
}

fn env_with(inner: Arc<dyn DeviceProvider>) -> Env {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("project");
    let outside = tmp.path().join("outside");
    let extra = tmp.path().join("extra");
    for d in [&project, &outside, &extra] {
        std::fs::create_dir_all(d).unwrap();
    }
    // As the CLI builds it: the project (the working directory), its reports and screenshots,
    // and one more root from TAPFLOW_ALLOWED_ROOTS.
    let vars: std::collections::HashMap<String, String> = [
        ("HOME", tmp.path().join("home")),
        ("TAPFLOW_ALLOWED_ROOTS", extra.clone()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.display().to_string()))
    .collect();
    let config = ToolConfig::from_env_map(&vars, &project).unwrap();
    let provider = Arc::new(Counting {
        inner,
        resolves: AtomicUsize::new(0),
    });
    Env {
        engine: Engine::new(),
        ctx: ToolContext::new(provider.clone(), config),
        provider,
        project,
        outside,
        _tmp: tmp,
    }
}

/// No device backend at all.
fn env() -> Env {
    env_with(Arc::new(NoBackend("no device in this test".into())))
}

impl Env {
    fn call(&self, args: Value) -> Envelope {
        let e = self.engine.call("logs_query", args, &self.ctx);
        let v = e.to_value();
        assert_eq!(v["isError"], json!(!e.ok()));
        let schema = self.engine.get("logs_query").unwrap().output_schema();
        envelope::assert_matches_schema("logs_query", &schema, &v["structuredContent"]);
        e
    }

    fn ok(&self, args: Value) -> Value {
        envelope::expect_ok(&self.call(args.clone()), "logs_query", &args)
    }

    fn err(&self, args: Value) -> (String, Value) {
        envelope::expect_err(self.call(args.clone()), "logs_query", &args)
    }

    fn resolves(&self) -> usize {
        self.provider.resolves.load(Ordering::SeqCst)
    }
}

const LINES: &[&str] = &[
    "01-23 21:00:00.000  1200  1200 I A0d0d0/DemoApp: PAGE_SHOWN page=LoginPage",
    "01-23 21:00:01.000  1200  1200 E A0d0d0/DemoApp: request 17 failed: timeout",
    "01-23 21:00:02.000  1200  1200 E A0d0d0/DemoApp: request 18 failed: timeout",
    "01-23 21:00:03.000  1200  1200 W A0d0d0/DemoApp: slow frame",
    "01-23 21:00:04.000  1200  1200 I A0d0d0/DemoApp: TypeError: Cannot read property x of undefined",
    "01-23 21:00:05.000  1200  1200 I A0d0d0/DemoApp: LOGIN_SUCCESS user=alice",
];

fn lines() -> Vec<String> {
    LINES.iter().map(|s| s.to_string()).collect()
}
