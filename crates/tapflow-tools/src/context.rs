//! What a tool call runs with: the [`ToolContext`] (device provider + configuration, shared by
//! all calls) and the per-call [`Call`] (the resolved device, the one UI observation reused
//! within the step, the opt-in `verify` evidence and `include_cost` accounting).
//!
//! Device access goes only through [`tapflow_device::Device`]; devices are found through the
//! [`DeviceProvider`] trait so the CLI, the MCP server and tests can plug in any backend.
//!
//! With `verify`, the post-action observation travels with the action in one round trip
//! ([`observing`]): evidence costs the pre-action dump (usually the one the step already made)
//! and no round trip after the action.
//!
//! A caller may cancel a running call and listen to its progress through [`Signals`]: a
//! [`Call`] checks them before each device round trip and while it polls or waits.

#[macro_use]
mod forward;
mod cancelling;
pub mod carry;
mod deadline;
mod observing;
mod routing;
pub mod screen_log;
pub mod signals;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use crate::config::ToolConfig;
use crate::envelope::ToolError;
pub use carry::Carry;
use deadline::until_or;
pub use deadline::{sleep_within, until};
use observing::{Observing, Slot};
pub use routing::{DeviceProvider, DeviceRoute, NoBackend};
pub use signals::Signals;
use tapflow_device::ui::digest::{Evidence, TreeDigest};
use tapflow_device::{Cost, Device, DeviceError, DeviceResult, DumpScope, UiAction, UiNode};

/// Shared by every call: how to reach devices, and the configuration.
#[derive(Clone)]
pub struct ToolContext {
    pub provider: Arc<dyn DeviceProvider>,
    pub config: ToolConfig,
    /// Cancellation and progress of the call(s) run with this context (default: none).
    pub signals: Signals,
    /// Flows only: the screen one step hands to the next on this device ([`carry`]). A bare
    /// tool call has none.
    pub carry: Option<Arc<Carry>>,
    /// Flows only: the run's secrets ([`Redact`]). A bare tool call has none.
    pub redact: Option<Arc<dyn Redact>>,
    /// MCP only: the server's policy over a compiled flow ([`PlanGate`]), checked by the flow
    /// tools before anything runs. The CLI (the operator's own command) has none.
    pub gate: Option<Arc<dyn PlanGate>>,
}

/// Decides whether a compiled flow may run (or be planned) here: the MCP server's tool and
/// device allowlists and the approvals it holds, applied to every step of the plan.
pub trait PlanGate: Send + Sync {
    fn check(&self, plan: &tapflow_core::plan::Plan) -> Result<(), ToolError>;
    /// The approval this call was given, for the run's `result.json` (`None`: none needed).
    fn approval(&self) -> Option<serde_json::Value> {
        None
    }
}

/// Hides secret values in text (a flow run's masker). Results are masked after the call, in
/// every form of a secret the masker knows; a tool that derives new text from what the device
/// said (a log message's signature, with its digits replaced) applies it first, because the
/// derived form is not one of those.
pub trait Redact: Send + Sync {
    fn redact<'a>(&self, text: &'a str) -> std::borrow::Cow<'a, str>;
}

impl ToolContext {
    pub fn new(provider: Arc<dyn DeviceProvider>, config: ToolConfig) -> Self {
        Self {
            provider,
            config,
            signals: Signals::default(),
            carry: None,
            redact: None,
            gate: None,
        }
    }

    /// The same context with the run's secrets (the calls of one flow run).
    pub fn with_redact(&self, redact: Arc<dyn Redact>) -> Self {
        Self {
            redact: Some(redact),
            ..self.clone()
        }
    }

    /// The same context with a hand-over slot: the calls of one flow device thread.
    pub fn with_carry(&self, carry: Arc<Carry>) -> Self {
        Self {
            carry: Some(carry),
            ..self.clone()
        }
    }

    /// The same context with this flow gate (one MCP call of a flow tool).
    pub fn with_gate(&self, gate: Arc<dyn PlanGate>) -> Self {
        Self {
            gate: Some(gate),
            ..self.clone()
        }
    }

    /// The same context with these signals (one MCP call).
    pub fn with_signals(&self, signals: Signals) -> Self {
        Self {
            signals,
            ..self.clone()
        }
    }
}

/// The error of a call whose caller cancelled it.
pub fn cancelled() -> ToolError {
    ToolError::new(
        tapflow_core::codes::CANCELLED,
        "the call was cancelled by its caller; no further device command was sent",
    )
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
    /// When that observation arrived and the action count then (see [`carry::Tracking`]); for
    /// a screen handed over by the previous step, when it arrived there and 0.
    tree_seen: Option<(Instant, u64)>,
    /// Operations that may have changed the screen so far (flows only; else stays 0).
    epoch: Arc<AtomicU64>,
    /// Flows only: the step after this one starts by looking at the screen, so the last action
    /// brings it back (see [`carry`]).
    observe_after: bool,
    /// The screen the previous step handed over: the tree, when it arrived, and whether it was
    /// already relayed once (see [`Call::carried_screen`]). Used only by the tools that ask.
    carried: Option<carry::Handed>,
    /// The current observation is the handed-over screen (not one of this call's own).
    tree_carried: bool,
    /// A wait took the handed-over screen as its poll: if it ends on it, it may relay it once.
    relay: bool,
    /// The tool returned a result (not an error): only then is its screen handed on.
    succeeded: bool,
    /// A target is being looked up on the handed-over screen ([`Call::start_from_carried`]).
    resolving_on_carried: bool,
    /// The carry's generation when this call started (see [`Carry::abandon`]).
    carry_generation: u64,
    verify: bool,
    pre_action: Option<TreeDigest>,
    /// With `verify`: where the device parks the tree dumped with the action.
    post_action: Option<Slot>,
    evidence: Option<Evidence>,
    evidence_error: Option<String>,
    started: Instant,
    observations: u32,
    /// Makes the context's signals current on this thread for the call's lifetime.
    _signals: signals::Entered,
}

impl<'a> Call<'a> {
    pub fn new(ctx: &'a ToolContext, route: DeviceRoute, verify: bool) -> Self {
        let (observe_after, carried) = match &ctx.carry {
            Some(c) => c.take(),
            None => (false, None),
        };
        let carry_generation = ctx.carry.as_ref().map_or(0, |c| c.generation());
        Call {
            ctx,
            route,
            device: None,
            cost_at_start: None,
            provider_cost_at_start: ctx.provider.cost(),
            tree: None,
            tree_seen: None,
            epoch: Arc::new(AtomicU64::new(0)),
            observe_after,
            carried,
            tree_carried: false,
            relay: false,
            succeeded: false,
            resolving_on_carried: false,
            carry_generation,
            verify,
            pre_action: None,
            post_action: None,
            evidence: None,
            evidence_error: None,
            started: Instant::now(),
            observations: 0,
            _signals: signals::enter(&ctx.signals),
        }
    }

    /// `Err(CANCELLED)` once the caller has cancelled the call.
    pub fn check_cancelled(&self) -> Result<(), ToolError> {
        if self.ctx.signals.is_cancelled() {
            Err(cancelled())
        } else {
            Ok(())
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
        // Every device round trip goes through here first.
        self.check_cancelled()?;
        if let Some(d) = &self.device {
            return Ok(d.clone());
        }
        let mut d = self.ctx.provider.resolve(&self.route)?;
        self.cost_at_start = Some(d.cost());
        if let Some(carry) = &self.ctx.carry {
            d = Arc::new(carry::Tracking {
                inner: d,
                epoch: self.epoch.clone(),
                carry: carry.clone(),
            });
        }
        if self.ctx.signals.is_cancellable() {
            d = Arc::new(cancelling::Cancelling {
                inner: d,
                signals: self.ctx.signals.clone(),
            });
        }
        if self.verify || self.observe_after {
            let slot = Slot::default();
            self.post_action = Some(slot.clone());
            d = Arc::new(Observing { inner: d, slot });
        }
        self.device = Some(d.clone());
        Ok(d)
    }

    /// The serial of the resolved device (resolving it if needed).
    pub fn device_id(&mut self) -> Result<String, ToolError> {
        Ok(self.device()?.serial().to_string())
    }

    /// The platform of the device this call resolved (`harmonyos`, `android`); `None` when the
    /// call touched no device (host-only tools, calls refused before resolving one).
    pub fn platform(&self) -> Option<tapflow_device::Platform> {
        self.device.as_ref().map(|d| d.platform())
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

    /// The current UI tree: the observation already made in this step (in a flow, also the
    /// one the previous step handed over), or one fresh dump. Always the whole screen; scoping
    /// to a bundle or window happens on the host, so that one dump serves every scope a step
    /// needs. An observation older than an action of this step is never reused.
    pub fn ui_tree(&mut self) -> Result<Arc<UiNode>, ToolError> {
        if let Some(t) = &self.tree
            && self.tree_is_current()
        {
            return Ok(t.clone());
        }
        self.fresh_ui_tree()
    }

    /// A new dump, replacing the cached one.
    pub fn fresh_ui_tree(&mut self) -> Result<Arc<UiNode>, ToolError> {
        let device = self.device()?;
        let tree = Arc::new(device.ui_tree(&DumpScope::default()).map_err(tree_error)?);
        self.keep(tree.clone());
        Ok(tree)
    }

    /// Makes `tree`, just observed on the routed device, the call's current observation (for
    /// observations a tool got through other device operations, e.g. a launch's chained dump).
    pub fn keep(&mut self, tree: Arc<UiNode>) {
        self.tree = Some(tree);
        self.tree_seen = Some((Instant::now(), self.epoch.load(Ordering::SeqCst)));
        self.tree_carried = false;
    }

    /// No operation that may change the screen ran since the current observation was made
    /// (a handed-over screen counts as made before this call's first action).
    fn tree_is_current(&self) -> bool {
        let seen_epoch = self.tree_seen.map_or(0, |(_, e)| e);
        seen_epoch == self.epoch.load(Ordering::SeqCst)
    }

    /// Flows only, for tools that act on what they find (`click`, `long_press`, `input_text`,
    /// `scroll_until_visible`): start from the screen the previous step handed over (observed
    /// after its last action, moments ago) instead of dumping, while this call has not acted.
    /// Tools whose result *is* the observation (`find_elements`, `get_ui_tree`) never do.
    pub fn start_from_carried(&mut self) -> bool {
        let t = self.carried_screen_inner().is_some();
        self.resolving_on_carried = t;
        t
    }

    /// The call failed having looked its target up on a handed-over screen, before acting:
    /// forgets that screen (and says so) so that the engine runs the tool once more, as a bare
    /// call would, on a fresh observation.
    pub fn missed_on_carried(&mut self) -> bool {
        let missed = std::mem::take(&mut self.resolving_on_carried)
            && self.epoch.load(Ordering::SeqCst) == 0;
        if missed {
            self.carried = None;
            self.invalidate();
        }
        missed
    }

    /// Flows only, for waits: the handed-over screen as the first poll. A wait that ends on it
    /// hands it on once more (the state it waited for is what the next step builds on); a
    /// screen relayed once already is not relayed again.
    pub fn carried_screen(&mut self) -> Option<Arc<UiNode>> {
        let t = self.carried_screen_inner()?;
        self.relay = true;
        Some(t)
    }

    fn carried_screen_inner(&mut self) -> Option<Arc<UiNode>> {
        if self.epoch.load(Ordering::SeqCst) != 0 {
            return None;
        }
        let h = self.carried.as_ref()?;
        // Its age counts from when it arrived; it counts as seen before this call acted.
        self.tree = Some(h.tree.clone());
        self.tree_seen = Some((h.at, 0));
        self.tree_carried = true;
        Some(h.tree.clone())
    }

    /// The tool returned its result: in a flow, its last screen may go to the next step.
    pub fn succeeded(&mut self) {
        self.succeeded = true;
    }

    /// The call is a flow's step (it has a carry), so flow-level behaviours apply; a bare tool
    /// call keeps the reference semantics.
    pub fn in_flow(&self) -> bool {
        self.ctx.carry.is_some()
    }

    /// Flows only: the next step starts by looking at the screen, so this step's last action
    /// should bring it back in the same round trip.
    pub fn observe_after(&self) -> bool {
        self.observe_after
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
        self.observations += 1;
        if self.ctx.signals.wants_progress() {
            let total = deadline.saturating_duration_since(self.started).as_millis();
            self.ctx.signals.progress(&format!(
                "observation {} at {} ms of {} ms",
                self.observations,
                self.started.elapsed().as_millis(),
                total
            ));
        }
        let signals = self.ctx.signals.clone();
        let seen = until_or(
            deadline,
            move || device.ui_tree(&DumpScope::default()),
            || signals.is_cancelled(),
        );
        if self.ctx.signals.is_cancelled() {
            return Err(cancelled());
        }
        match seen {
            None => Ok(None),
            Some(Ok(t)) => {
                // The latest observation is the call's current one (and, in a flow, what the
                // next step may start from).
                if self.ctx.carry.is_some() {
                    self.keep(Arc::new(t.clone()));
                }
                Ok(Some(Ok(t)))
            }
            Some(Err(e)) if e.is_transient() => Ok(Some(Err(tree_error(e)))),
            Some(Err(e)) => Err(tree_error(e)),
        }
    }

    /// Performs `action` and observes the whole screen right after it, in ONE round trip where
    /// the backend can chain them (hdc). The observation, when it arrived, becomes the call's
    /// current one; the action's verdict and the dump's are kept apart (see [`Acted`]).
    /// `Err` only when no device could be resolved (nothing was sent).
    pub fn act_then_observe(&mut self, action: &UiAction) -> Result<Acted, ToolError> {
        let device = self.device()?;
        self.invalidate();
        let seen = device.act_then_tree(action, &DumpScope::default());
        let tree = seen.tree.map(|t| t.map(Arc::new));
        if let Some(Ok(t)) = &tree {
            self.keep(t.clone());
        }
        Ok(Acted {
            action: seen.action,
            tree,
        })
    }

    /// Performs `actions` in order and observes the whole screen after the last one, in ONE
    /// round trip where the backend can chain them (hdc). Like [`Call::act_then_observe`];
    /// each action's verdict is kept (see [`tapflow_device::ActsObserved`]).
    pub fn acts_then_observe(&mut self, actions: &[UiAction]) -> Result<ActedAll, ToolError> {
        let device = self.device()?;
        self.invalidate();
        let seen = device.acts_then_tree(actions, &DumpScope::default());
        let tree = seen.tree.map(|t| t.map(Arc::new));
        if let Some(Ok(t)) = &tree {
            self.keep(t.clone());
        }
        Ok(ActedAll {
            actions: seen.actions,
            tree,
        })
    }

    /// Performs `action` alone (no observation), dropping the stale cached one.
    pub fn act_only(&mut self, action: &UiAction) -> Result<Acted, ToolError> {
        let device = self.device()?;
        self.invalidate();
        Ok(Acted {
            action: device.act(action),
            tree: None,
        })
    }

    /// Forget the cached observation (the device was acted upon).
    pub fn invalidate(&mut self) {
        self.tree = None;
        self.tree_seen = None;
        self.tree_carried = false;
    }

    /// Call right before acting on the device: with `verify`, records the pre-action digest
    /// (reusing the observation the step already made, if any) and arranges for the next UI
    /// action to bring the post-action tree back with it. Evidence is best-effort: a failed
    /// observation never stops the action, it is reported as `evidence_error`.
    pub fn before_action(&mut self) -> Result<(), ToolError> {
        if self.verify && self.pre_action.is_none() && self.evidence_error.is_none() {
            match self.ui_tree() {
                Ok(tree) => self.pre_action = Some(TreeDigest::of(&tree)),
                Err(e) => self.evidence_error = Some(format!("pre-action observation failed: {e}")),
            }
        }
        if (self.verify && self.evidence_error.is_none()) || self.observe_after {
            self.device()?;
            if let Some(slot) = &self.post_action {
                let mut p = slot.lock().unwrap_or_else(|p| p.into_inner());
                p.armed = true;
                p.tree = None;
            }
        }
        Ok(())
    }

    /// Call right after acting: drops the stale observation and, with `verify`, records the
    /// evidence from the tree that came back with the action (one more dump only when the
    /// action was not a UI action that could carry it, e.g. an app launch). Best-effort, like
    /// [`Call::before_action`].
    pub fn after_action(&mut self) -> Result<(), ToolError> {
        self.invalidate();
        let chained = self.post_action.as_ref().and_then(|slot| {
            let mut p = slot.lock().unwrap_or_else(|p| p.into_inner());
            p.armed = false;
            p.tree.take()
        });
        if self.verify && self.evidence_error.is_none() {
            let tree = match chained {
                Some(t) => t.map(Arc::new).map_err(tree_error),
                None => self.fresh_ui_tree(),
            };
            match tree {
                Ok(tree) => {
                    self.keep(tree.clone());
                    let pre = self.pre_action.take();
                    self.evidence = Some(Evidence::of(&tree, pre.as_ref()));
                }
                Err(e) => {
                    self.evidence_error = Some(format!("post-action observation failed: {e}"))
                }
            }
        } else if let Some(Ok(tree)) = chained {
            // Brought back for the next step (flows): the screen right after the action.
            self.keep(Arc::new(tree));
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

/// In a flow, a finishing call hands its last observation to the next step on the device,
/// when nothing that may change the screen ran after it (see [`carry`]).
impl Drop for Call<'_> {
    fn drop(&mut self) {
        let Some(carry) = &self.ctx.carry else {
            return;
        };
        let relayed_before = self.carried.as_ref().is_some_and(|h| h.relayed);
        let own = match (&self.tree, self.tree_seen) {
            (Some(t), Some((at, _))) if self.succeeded && self.tree_is_current() => {
                if !self.tree_carried {
                    Some(carry::Handed::new(t.clone(), at, false))
                } else if self.relay && !relayed_before {
                    Some(carry::Handed::new(t.clone(), at, true))
                } else {
                    None
                }
            }
            _ => None,
        };
        carry.leave(self.carry_generation, own);
    }
}

/// What [`Call::act_then_observe`] saw: whether the device accepted the action (an `Err` when
/// it refused it *or* when it is unknown whether it ran, so `dispatched` is never claimed on
/// doubt) and, only when it accepted it, the tree dumped right after it or why that failed.
#[derive(Debug, Clone)]
pub struct Acted {
    pub action: DeviceResult<()>,
    pub tree: Option<DeviceResult<Arc<UiNode>>>,
}

/// What [`Call::acts_then_observe`] saw: the verdict of every action sent (a refusal may end
/// the list early) and, when all were accepted, the tree dumped after the last one.
#[derive(Debug, Clone)]
pub struct ActedAll {
    pub actions: Vec<DeviceResult<()>>,
    pub tree: Option<DeviceResult<Arc<UiNode>>>,
}

/// How a failed dump is reported: unparsable output is `INVALID_UI_TREE_PAYLOAD`, a refused
/// dump `UI_TREE_FETCH_ERROR`; infrastructure errors keep their own code.
pub fn tree_error(e: DeviceError) -> ToolError {
    match &e {
        DeviceError::Parse { .. } => {
            ToolError::from_device_op(e, tapflow_core::codes::INVALID_UI_TREE_PAYLOAD)
        }
        _ => ToolError::from_device_op(e, tapflow_core::codes::UI_TREE_FETCH_ERROR),
    }
}
