//! `wait_for_element`: wait until an element is present (`found`) or absent (`gone`).
//!
//! One strict wall-clock budget (`timeout_ms`, from the start of the call) covers device
//! queries, polling sleeps and the second confirmation: a dump still pending at the deadline is
//! abandoned and the call returns `WAIT_TIMEOUT`. With `interval_ms > 0` a satisfied poll is
//! confirmed by one more dump `interval_ms` later. `timeout_ms = 0` returns `WAIT_TIMEOUT`
//! at once without touching the device. A transient dump failure (refused or unparsable dump)
//! counts as a poll that saw nothing and waiting continues; other device errors end the call.
//!
//! `interval_ms` is measured from the START of one poll to the start of the next (and to the
//! start of the confirmation): a dump that itself took longer than the interval (a UI dump
//! costs a device hundreds of milliseconds) has served as the wait, so the next poll follows
//! at once instead of sleeping the whole interval again ([`wait_before`]).
//!
//! In a flow (only), the first poll may be the screen the previous step ended with, observed
//! after its last action moments before this call (`Call::carried_screen`; see
//! `docs/flow-format.md`, "Flow-level behaviours"). It is not a dump of this call: `polls`
//! counts dumps only.

use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::context::{Call, sleep_within};
use crate::decode::FieldCodes;
use crate::envelope::ToolError;
use crate::flow_hooks::FlowHooks;
use crate::policy::{Hints, Policy};
use crate::registry::Tool;
use crate::search::require_criteria;
use crate::target::{ElementInfo, SearchArgs, describe_all};
use tapflow_device::ui::near::{NearMiss, near_misses, suggestion};
use tapflow_device::ui::selector::{Selector, TextMatch};

pub struct WaitForElement;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum WaitState {
    #[default]
    Found,
    Gone,
}

fn default_timeout() -> i64 {
    5000
}
fn default_interval() -> i64 {
    300
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Params {
    /// Only windows of this app.
    pub bundle_name: Option<String>,
    /// Only this window.
    pub window_id: Option<i64>,
    /// Element text (see match_mode).
    pub text: Option<String>,
    /// Node type.
    pub element_type: Option<String>,
    /// ArkUI id / key.
    pub element_id: Option<String>,
    /// How `text` is compared (default exact).
    pub match_mode: Option<TextMatch>,
    /// `found` only: wait for the n-th match (0-based, reading order) and return it.
    pub index: Option<usize>,
    /// Search mode, tapflow extensions: state and position filters.
    #[serde(flatten)]
    pub refine: tapflow_device::ui::refine::Refine,
    /// `found` (present) or `gone` (absent).
    #[serde(default)]
    pub state: WaitState,
    /// Strict wall-clock budget in ms, shared by queries, sleeps and confirmation.
    #[serde(default = "default_timeout")]
    #[schemars(default = "default_timeout", range(min = 0))]
    pub timeout_ms: i64,
    /// Poll and confirmation interval in ms.
    #[serde(default = "default_interval")]
    #[schemars(default = "default_interval", range(min = 0))]
    pub interval_ms: i64,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Output {
    pub state: WaitState,
    /// Always true on success (expiry is the WAIT_TIMEOUT error).
    pub satisfied: bool,
    pub elapsed_ms: u64,
    /// The element (first in reading order, or the `index`-th) for `found`; null for `gone`.
    pub element: Option<ElementInfo>,
    /// How many elements matched in the confirming observation.
    pub match_count: usize,
    /// UI dumps made.
    pub polls: u32,
}

/// What the polls saw so far: reported in `WAIT_TIMEOUT`'s details.
#[derive(Default)]
struct Polls {
    count: u32,
    last_match_count: Option<usize>,
    last_error: Option<ToolError>,
    /// What the last dump showed close to the selector (`found` waits that saw nothing).
    near_misses: Vec<NearMiss>,
    /// The selector, as messages name it.
    criteria: String,
}

impl Polls {
    fn timeout(&self, state: WaitState, started: Instant) -> ToolError {
        let elapsed = started.elapsed().as_millis() as u64;
        ToolError::new(
            tapflow_core::codes::WAIT_TIMEOUT,
            format!(
                "{} was not {} within the time budget ({elapsed}ms elapsed){}",
                self.criteria,
                match state {
                    WaitState::Found => "found",
                    WaitState::Gone => "gone",
                },
                suggestion(&self.near_misses)
            ),
        )
        .with_details(json!({
            "state": state,
            "satisfied": false,
            "elapsed_ms": elapsed,
            "polls": self.count,
            "last_match_count": self.last_match_count,
            "last_error": self.last_error,
            "criteria": self.criteria,
            "near_misses": self.near_misses,
        }))
    }
}

/// The device-free rules: a criterion (`INVALID_WAIT_TARGET`), budgets `>= 0`, a valid regular
/// expression, `index` only with `found`. Returns the selector.
fn selector(p: &Params) -> Result<Selector, ToolError> {
    let args = SearchArgs {
        text: p.text.clone(),
        element_type: p.element_type.clone(),
        element_id: p.element_id.clone(),
        bundle_name: p.bundle_name.clone(),
        window_id: p.window_id,
        match_mode: p.match_mode,
        refine: p.refine.clone(),
        ..SearchArgs::default()
    };
    require_criteria(&args, tapflow_core::codes::INVALID_WAIT_TARGET)?;
    if p.timeout_ms < 0 {
        return Err(ToolError::new(
            tapflow_core::codes::INVALID_TIMEOUT,
            "timeout_ms must be >= 0",
        )
        .at("timeout_ms"));
    }
    if p.interval_ms < 0 {
        return Err(ToolError::new(
            tapflow_core::codes::INVALID_INTERVAL,
            "interval_ms must be >= 0",
        )
        .at("interval_ms"));
    }
    let sel = args.selector("text")?;
    if p.index.is_some() && p.state == WaitState::Gone {
        return Err(ToolError::new(
            tapflow_core::codes::PARAM_CONFLICT,
            "index applies to state=found only",
        )
        .at("index"));
    }
    Ok(sel)
}

impl Tool for WaitForElement {
    const CORE: bool = true;
    const NAME: &'static str = "wait_for_element";
    const TITLE: &'static str = "Wait for element";
    const DESCRIPTION: &'static str = "Wait until an element is present (state found) or gone, polling within timeout_ms (default 5000) and confirming once more after interval_ms; returns the element with its handle. Use it after an action to confirm its effect instead of sleeping; cancellable, with progress.";
    const POLICY: Policy = Policy::READ;
    const HINTS: Hints = Hints::READ;
    const CODES: FieldCodes = FieldCodes {
        value: &[
            ("state", tapflow_core::codes::INVALID_WAIT_STATE),
            ("timeout_ms", tapflow_core::codes::INVALID_TIMEOUT),
            ("interval_ms", tapflow_core::codes::INVALID_INTERVAL),
            ("match_mode", tapflow_core::codes::INVALID_MATCH_MODE),
        ],
        wrong_type: &[
            ("state", tapflow_core::codes::INVALID_WAIT_STATE),
            ("timeout_ms", tapflow_core::codes::INVALID_TIMEOUT),
            ("interval_ms", tapflow_core::codes::INVALID_INTERVAL),
        ],
    };
    const FLOW: FlowHooks<Params> = FlowHooks {
        shorthand: Some("text"),
        known_as: &[("extendedWaitUntil", "")],
        // Flows poll back to back without the second confirmation (`docs/flow-format.md`,
        // "Flow-level behaviours"): the next step re-observes before it acts.
        defaults: &[("interval_ms", "0")],
        // Flows: starts by looking at the screen.
        looks_first: |_p| true,
        ..FlowHooks::NONE
    };
    type Params = Params;
    type Output = Output;

    fn check(p: &Params) -> Result<(), ToolError> {
        selector(p).map(drop)
    }

    fn budget_ms(p: &Params, _config: &crate::ToolConfig) -> Option<u64> {
        u64::try_from(p.timeout_ms).ok()
    }

    fn run(p: Params, call: &mut Call<'_>) -> Result<Output, ToolError> {
        let sel = selector(&p)?;
        let index = p.index.unwrap_or(0);
        let started = call.started();
        let mut polls = Polls {
            criteria: sel.describe(),
            ..Polls::default()
        };
        if p.timeout_ms == 0 {
            return Err(polls.timeout(p.state, started));
        }
        let deadline = started + Duration::from_millis(p.timeout_ms as u64);
        let interval = Duration::from_millis(p.interval_ms as u64);
        // In a flow, the screen the previous step ended with (after its last action, moments
        // ago) is the first poll; it is no dump of this call, so `polls` does not count it.
        let mut carried = call.carried_screen();
        let mut next_is_carried = carried.is_some();
        // One poll: the matches when the wait is satisfied, `None` otherwise (a transient dump
        // failure counts as a poll that saw nothing); `Err` at the deadline or on device loss.
        let mut poll = |call: &mut Call<'_>, polls: &mut Polls| {
            let obs = match carried.take() {
                Some(tree) => Ok(tree),
                None => {
                    let Some(obs) = call.observe(deadline)? else {
                        return Err(polls.timeout(p.state, started));
                    };
                    polls.count += 1;
                    obs.map(std::sync::Arc::new)
                }
            };
            match obs {
                Err(e) => {
                    polls.last_error = Some(e);
                    Ok(None)
                }
                Ok(tree) => {
                    let found = describe_all(&tree, &sel);
                    polls.last_match_count = Some(found.len());
                    if p.state == WaitState::Found && found.is_empty() {
                        polls.near_misses = near_misses(&tree, &sel, 3);
                    }
                    let ok = match p.state {
                        WaitState::Found => found.len() > index,
                        WaitState::Gone => found.is_empty(),
                    };
                    Ok(ok.then_some(found))
                }
            }
        };
        loop {
            // A handed-over screen arrived before this call started: its interval runs from
            // the start of the call.
            let poll_started = if std::mem::take(&mut next_is_carried) {
                started
            } else {
                Instant::now()
            };
            if let Some(mut found) = poll(call, &mut polls)? {
                // A satisfied poll is confirmed by one more, `interval_ms` after it started.
                let confirmed = interval.is_zero() || {
                    let wait = wait_before(poll_started, interval, Instant::now());
                    if !sleep_within(wait, deadline) {
                        return Err(polls.timeout(p.state, started));
                    }
                    match poll(call, &mut polls)? {
                        Some(again) => {
                            found = again;
                            true
                        }
                        None => false,
                    }
                };
                if confirmed {
                    return Ok(Output {
                        state: p.state,
                        satisfied: true,
                        elapsed_ms: started.elapsed().as_millis() as u64,
                        match_count: found.len(),
                        element: match p.state {
                            WaitState::Found => found.into_iter().nth(index),
                            WaitState::Gone => None,
                        },
                        polls: polls.count,
                    });
                }
            }
            let wait = wait_before(poll_started, interval, Instant::now());
            if !sleep_within(wait, deadline) {
                return Err(polls.timeout(p.state, started));
            }
        }
    }
}

/// How long to wait at `now` before the poll that follows one started at `previous`:
/// `interval` is measured start to start, so the time the previous poll itself took counts,
/// and a poll that took the whole interval or longer is followed at once.
fn wait_before(previous: Instant, interval: Duration, now: Instant) -> Duration {
    (previous + interval).saturating_duration_since(now)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_interval_runs_from_the_start_of_the_previous_poll() {
        let t0 = Instant::now();
        let interval = Duration::from_millis(300);
        // A poll that answered after 40 ms: the rest of the interval is waited.
        let after_fast = t0 + Duration::from_millis(40);
        assert_eq!(
            wait_before(t0, interval, after_fast),
            Duration::from_millis(260)
        );
        // A dump that took 290 ms of the 300: 10 ms left.
        let after_dump = t0 + Duration::from_millis(290);
        assert_eq!(
            wait_before(t0, interval, after_dump),
            Duration::from_millis(10)
        );
        // A dump longer than the interval has served as the wait: the next poll follows at once.
        let after_slow = t0 + Duration::from_millis(450);
        assert_eq!(wait_before(t0, interval, after_slow), Duration::ZERO);
        // interval_ms = 0 never waits.
        assert_eq!(wait_before(t0, Duration::ZERO, t0), Duration::ZERO);
    }
}
