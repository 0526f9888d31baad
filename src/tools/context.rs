//! What a tool call runs with: the [`ToolContext`] (device provider + configuration, shared by
//! all calls) and the per-call [`Call`] (the resolved device, the one UI observation reused
//! within the step, the opt-in `verify` evidence and `include_cost` accounting).
//!
//! Device access goes only through [`crate::device::Device`]; devices are found through the
//! [`DeviceProvider`] trait so the CLI, the MCP server and tests can plug in any backend.

use std::sync::Arc;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::device::{Cost, Device, DeviceError, DeviceInfo, DumpScope, Target, UiNode};
use crate::tools::config::ToolConfig;
use crate::tools::envelope::ToolError;
use crate::ui::digest::{Evidence, TreeDigest};

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

/// Shared by every call: how to reach devices, and the configuration.
#[derive(Clone)]
pub struct ToolContext {
    pub provider: Arc<dyn DeviceProvider>,
    pub config: ToolConfig,
}

impl ToolContext {
    pub fn new(provider: Arc<dyn DeviceProvider>, config: ToolConfig) -> Self {
        Self { provider, config }
    }
}

/// The state of one tool call.
pub struct Call<'a> {
    pub ctx: &'a ToolContext,
    pub route: DeviceRoute,
    device: Option<Arc<dyn Device>>,
    cost_at_start: Option<Cost>,
    provider_cost_at_start: Cost,
    /// The latest UI observation, valid until the device is acted upon.
    tree: Option<Arc<UiNode>>,
    verify: bool,
    pre_action: Option<TreeDigest>,
    evidence: Option<Evidence>,
    evidence_error: Option<String>,
    started: Instant,
}

impl<'a> Call<'a> {
    pub fn new(ctx: &'a ToolContext, route: DeviceRoute, verify: bool) -> Self {
        Call {
            ctx,
            route,
            device: None,
            cost_at_start: None,
            provider_cost_at_start: ctx.provider.cost(),
            tree: None,
            verify,
            pre_action: None,
            evidence: None,
            evidence_error: None,
            started: Instant::now(),
        }
    }

    pub fn config(&self) -> &ToolConfig {
        &self.ctx.config
    }

    pub fn started(&self) -> Instant {
        self.started
    }

    /// The routed device, resolved on first use (so calls that fail validation touch nothing).
    pub fn device(&mut self) -> Result<Arc<dyn Device>, ToolError> {
        if let Some(d) = &self.device {
            return Ok(d.clone());
        }
        let d = self.ctx.provider.resolve(&self.route)?;
        self.cost_at_start = Some(d.cost());
        self.device = Some(d.clone());
        Ok(d)
    }

    /// The serial of the resolved device (resolving it if needed).
    pub fn device_id(&mut self) -> Result<String, ToolError> {
        Ok(self.device()?.serial().to_string())
    }

    /// Round trips and dumps spent by this call so far: the device's and the provider's
    /// (resolving the route), zero when nothing was touched.
    pub fn cost(&self) -> Cost {
        let provider = self.ctx.provider.cost() - self.provider_cost_at_start;
        let device = match (&self.device, self.cost_at_start) {
            (Some(d), Some(start)) => d.cost() - start,
            _ => Cost::default(),
        };
        Cost {
            round_trips: provider.round_trips + device.round_trips,
            ui_dumps: provider.ui_dumps + device.ui_dumps,
        }
    }

    /// The current UI tree: the observation already made in this step, or one fresh dump.
    /// Always the whole screen; scoping to a bundle or window happens on the host, so that one
    /// dump serves every scope a step needs.
    pub fn ui_tree(&mut self) -> Result<Arc<UiNode>, ToolError> {
        if let Some(t) = &self.tree {
            return Ok(t.clone());
        }
        self.fresh_ui_tree()
    }

    /// A new dump, replacing the cached one.
    pub fn fresh_ui_tree(&mut self) -> Result<Arc<UiNode>, ToolError> {
        let device = self.device()?;
        let tree = Arc::new(device.ui_tree(&DumpScope::default()).map_err(tree_error)?);
        self.tree = Some(tree.clone());
        Ok(tree)
    }

    /// One fresh observation that must arrive before `deadline` (for waits that poll):
    /// `Ok(None)` when the deadline came first (the pending query is abandoned, not awaited);
    /// `Ok(Some(Err(..)))` for a transient failure (a refused or unparsable dump) that a
    /// polling caller may ride out; `Err` for anything else (device gone, hdc missing, …).
    pub fn observe(
        &mut self,
        deadline: Instant,
    ) -> Result<Option<Result<UiNode, ToolError>>, ToolError> {
        let device = self.device()?;
        match until(deadline, move || device.ui_tree(&DumpScope::default())) {
            None => Ok(None),
            Some(Ok(t)) => Ok(Some(Ok(t))),
            Some(Err(e)) if e.is_transient() => Ok(Some(Err(tree_error(e)))),
            Some(Err(e)) => Err(tree_error(e)),
        }
    }

    /// Forget the cached observation (the device was acted upon).
    pub fn invalidate(&mut self) {
        self.tree = None;
    }

    /// Call right before acting on the device: with `verify`, records the pre-action digest
    /// (reusing the observation the step already made, if any). Evidence is best-effort: a
    /// failed observation never stops the action, it is reported as `evidence_error`.
    pub fn before_action(&mut self) -> Result<(), ToolError> {
        if self.verify && self.pre_action.is_none() && self.evidence_error.is_none() {
            match self.ui_tree() {
                Ok(tree) => self.pre_action = Some(TreeDigest::of(&tree)),
                Err(e) => self.evidence_error = Some(format!("pre-action observation failed: {e}")),
            }
        }
        Ok(())
    }

    /// Call right after acting: drops the stale observation and, with `verify`, dumps once more
    /// and records the evidence (best-effort, like [`Call::before_action`]).
    pub fn after_action(&mut self) -> Result<(), ToolError> {
        self.invalidate();
        if self.verify && self.evidence_error.is_none() {
            match self.fresh_ui_tree() {
                Ok(tree) => {
                    let pre = self.pre_action.take();
                    self.evidence = Some(Evidence::of(&tree, pre.as_ref()));
                }
                Err(e) => {
                    self.evidence_error = Some(format!("post-action observation failed: {e}"))
                }
            }
        }
        Ok(())
    }

    /// Why `verify` produced no evidence, if it did not.
    pub fn take_evidence_error(&mut self) -> Option<String> {
        self.evidence_error.take()
    }

    pub fn take_evidence(&mut self) -> Option<Evidence> {
        self.evidence.take()
    }
}

/// How a failed dump is reported: unparsable output is `INVALID_UI_TREE_PAYLOAD`, a refused
/// dump `UI_TREE_FETCH_ERROR`; infrastructure errors keep their own code.
pub fn tree_error(e: DeviceError) -> ToolError {
    match &e {
        DeviceError::Parse { .. } => ToolError::from_device_op(e, "INVALID_UI_TREE_PAYLOAD"),
        _ => ToolError::from_device_op(e, "UI_TREE_FETCH_ERROR"),
    }
}

/// Runs `f` on a helper thread and waits for it until `deadline`; `None` when it is late.
/// A late call finishes in the background and its answer is dropped.
pub fn until<T: Send + 'static>(
    deadline: Instant,
    f: impl FnOnce() -> T + Send + 'static,
) -> Option<T> {
    let left = deadline.checked_duration_since(Instant::now())?;
    if left.is_zero() {
        return None;
    }
    let (tx, rx) = mpsc::sync_channel(1);
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(left).ok()
}

/// Sleeps `wanted`, but never past `deadline`; returns false when the deadline cut it short.
pub fn sleep_within(wanted: Duration, deadline: Instant) -> bool {
    let now = Instant::now();
    let left = deadline.saturating_duration_since(now);
    if wanted > left {
        std::thread::sleep(left);
        false
    } else {
        std::thread::sleep(wanted);
        true
    }
}
