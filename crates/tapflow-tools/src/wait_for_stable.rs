//! `wait_for_stable`: wait until the UI stops changing — the tree digest (optionally of one
//! app's or window's part of the screen) stays the same for `quiet_ms` — within a strict
//! wall-clock budget, and report what changed since the call began.
//!
//! The first dump is the baseline; stability needs two observations at least `quiet_ms` apart
//! with no different digest between them (`quiet_ms = 0`: the first dump is enough).

use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::context::{Call, sleep_within};
use crate::envelope::ToolError;
use crate::flow_hooks::FlowHooks;
use crate::policy::{Hints, Policy};
use crate::registry::Tool;
use tapflow_device::model::UiNode;
use tapflow_device::ui::diff::{TreeDiff, diff};
use tapflow_device::ui::digest::TreeDigest;
use tapflow_device::ui::matching::scope_tree;

pub struct WaitForStable;

fn default_quiet() -> u64 {
    500
}
fn default_timeout() -> u64 {
    10000
}
fn default_interval() -> u64 {
    100
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Params {
    /// Watch only this app's windows.
    pub bundle_name: Option<String>,
    /// Watch only this window.
    pub window_id: Option<i64>,
    /// How long the UI must stay unchanged, in ms (default 500).
    #[serde(default = "default_quiet")]
    #[schemars(default = "default_quiet")]
    pub quiet_ms: u64,
    /// Strict wall-clock budget in ms (default 10000).
    #[serde(default = "default_timeout")]
    #[schemars(default = "default_timeout")]
    pub timeout_ms: u64,
    /// Pause between observations in ms (default 100).
    #[serde(default = "default_interval")]
    #[schemars(default = "default_interval")]
    pub interval_ms: u64,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Output {
    pub stable: bool,
    pub elapsed_ms: u64,
    /// UI dumps made.
    pub polls: u32,
    /// Digest of the settled tree (in scope).
    pub digest: String,
    pub node_count: usize,
    /// The settled tree differs from the one seen when the call began.
    pub changed: bool,
    /// What changed since the call began.
    pub changes: TreeDiff,
}

impl Tool for WaitForStable {
    const NAME: &'static str = "wait_for_stable";
    const TITLE: &'static str = "Wait for stable UI";
    const DESCRIPTION: &'static str = "Wait until the UI tree stays unchanged for a quiet window (within a deadline) and report what changed since the call began. Use it after an action that animates or loads before reading the screen; use `wait_for_element` when you know which element should appear or disappear.";
    const POLICY: Policy = Policy::READ;
    const HINTS: Hints = Hints::READ;
    const FLOW: FlowHooks<Params> = FlowHooks {
        shorthand: Some("bundle_name"),
        ..FlowHooks::NONE
    };
    type Params = Params;
    type Output = Output;

    fn budget_ms(p: &Params, _config: &crate::ToolConfig) -> Option<u64> {
        Some(p.timeout_ms)
    }

    fn run(p: Params, call: &mut Call<'_>) -> Result<Output, ToolError> {
        let started = call.started();
        let deadline = started + Duration::from_millis(p.timeout_ms);
        let quiet = Duration::from_millis(p.quiet_ms);
        let interval = Duration::from_millis(p.interval_ms);
        let scope = |t: &UiNode| scope_tree(t, p.bundle_name.as_deref(), p.window_id);
        let mut polls = 0;
        let mut baseline: Option<UiNode> = None;
        let mut current: Option<(UiNode, TreeDigest, Instant)> = None;
        let timeout = |polls: u32, changed: Option<bool>| {
            ToolError::new(
                tapflow_core::codes::WAIT_TIMEOUT,
                format!(
                    "the UI did not stay unchanged for {}ms within {}ms",
                    p.quiet_ms, p.timeout_ms
                ),
            )
            .with_details(json!({ "polls": polls, "changed_since_start": changed }))
        };
        loop {
            let Some(obs) = call.observe(deadline)? else {
                let changed = current
                    .as_ref()
                    .zip(baseline.as_ref())
                    .map(|(c, b)| c.1.digest != TreeDigest::of(b).digest);
                return Err(timeout(polls, changed));
            };
            polls += 1;
            let seen_at = Instant::now();
            if let Ok(tree) = obs {
                let tree = scope(&tree);
                let d = TreeDigest::of(&tree);
                if baseline.is_none() {
                    baseline = Some(tree.clone());
                }
                match &current {
                    Some((_, cd, _)) if cd.digest == d.digest => {
                        let since = current.as_ref().map(|c| c.2).unwrap_or(seen_at);
                        current = Some((tree, d, since));
                    }
                    _ => current = Some((tree, d, seen_at)),
                }
            }
            if let (Some((tree, d, since)), Some(base)) = (&current, &baseline)
                && seen_at.duration_since(*since) >= quiet
            {
                let changes = diff(base, tree);
                return Ok(Output {
                    stable: true,
                    elapsed_ms: started.elapsed().as_millis() as u64,
                    polls,
                    digest: d.digest.clone(),
                    node_count: d.node_count,
                    changed: !changes.is_empty(),
                    changes,
                });
            }
            if !sleep_within(interval, deadline) {
                let changed = current
                    .as_ref()
                    .zip(baseline.as_ref())
                    .map(|(c, b)| c.1.digest != TreeDigest::of(b).digest);
                return Err(timeout(polls, changed));
            }
        }
    }
}
