//! `scroll_until_visible`: swipe in a direction until an element matching the criteria is on
//! screen, against a wall-clock deadline and a swipe budget.
//!
//! Each round is one dump (reused to find the target, the scroll area and the end-of-content
//! check) and, if the target is absent, one swipe across the largest scrollable container in
//! scope (else the scope's window, else the screen). When a swipe leaves the screen unchanged
//! the content's end is reached: `ELEMENT_NOT_FOUND` with `reached_end: true`. Swipe budget
//! exhausted: `ELEMENT_NOT_FOUND`; deadline: `WAIT_TIMEOUT`.

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::context::Call;
use crate::decode::FieldCodes;
use crate::envelope::ToolError;
use crate::flow_hooks::FlowHooks;
use crate::gesture::dispatch;
use crate::policy::{Hints, Policy};
use crate::registry::Tool;
use crate::search::require_criteria;
use crate::swipe::direction_points;
use crate::target::{ElementInfo, SearchArgs, describe_all};
use tapflow_device::UiAction;
use tapflow_device::model::{Bounds, Direction, Gesture, UiNode};
use tapflow_device::ui::digest::TreeDigest;
use tapflow_device::ui::matching::scope_tree;
use tapflow_device::ui::selector::{Selector, TextMatch};

pub struct ScrollUntilVisible;

fn default_direction() -> Direction {
    Direction::Up
}
fn default_max_swipes() -> u32 {
    10
}
fn default_timeout() -> u64 {
    30000
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Params {
    /// Element text (see match_mode).
    pub text: Option<String>,
    /// Node type.
    pub element_type: Option<String>,
    /// ArkUI id / key.
    pub element_id: Option<String>,
    /// Only windows of this app (also where the swipes go).
    pub bundle_name: Option<String>,
    /// How `text` is compared (default exact).
    pub match_mode: Option<TextMatch>,
    /// Scroll until the n-th match (0-based, reading order) is on screen and return it.
    pub index: Option<usize>,
    /// Search mode, tapflow extensions: state and position filters.
    #[serde(flatten)]
    pub refine: tapflow_device::ui::refine::Refine,
    /// The way the finger moves (default `up`: reveals content further down).
    #[serde(default = "default_direction")]
    #[schemars(default = "default_direction")]
    pub direction: Direction,
    /// Most swipes to make (default 10).
    #[serde(default = "default_max_swipes")]
    #[schemars(default = "default_max_swipes", range(min = 0, max = 200))]
    pub max_swipes: u32,
    /// Wall-clock budget in ms (default 30000).
    #[serde(default = "default_timeout")]
    #[schemars(default = "default_timeout")]
    pub timeout_ms: u64,
    /// Swipe speed in px/s.
    // Default 4000: a list scrolls a screen in a fraction of a second; `swipe`'s gentler 600
    // took 15 s for 6 swipes.
    #[serde(default = "default_scroll_speed")]
    #[schemars(default = "default_scroll_speed", range(min = 200, max = 40000))]
    pub speed: u32,
}

/// Scrolling to find something is not a gesture under test: fast by default (issue 7).
fn default_scroll_speed() -> u32 {
    4000
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Output {
    /// The first match in reading order (or the `index`-th).
    pub element: ElementInfo,
    pub match_count: usize,
    /// Swipes made before the element appeared.
    pub swipes: u32,
    pub direction: Direction,
    pub elapsed_ms: u64,
}

/// Where to swipe: the largest scrollable node in scope, else the scope's window(s).
fn scroll_area(scoped: &UiNode) -> Option<Bounds> {
    let largest = scoped
        .walk()
        .filter(|n| n.flag("scrollable"))
        .filter_map(|n| n.bounds())
        .filter(|b| !b.is_empty())
        .max_by_key(|b| b.width() as i64 * b.height() as i64);
    largest.or_else(|| {
        scoped
            .children
            .iter()
            .filter_map(|w| w.bounds())
            .filter(|b| !b.is_empty())
            .max_by_key(|b| b.width() as i64 * b.height() as i64)
    })
}

/// The device-free rules: a criterion (`MISSING_SEARCH_CRITERIA`), a valid regular expression.
fn selector(p: &Params) -> Result<Selector, ToolError> {
    let args = SearchArgs {
        text: p.text.clone(),
        element_type: p.element_type.clone(),
        element_id: p.element_id.clone(),
        bundle_name: p.bundle_name.clone(),
        match_mode: p.match_mode,
        refine: p.refine.clone(),
        ..SearchArgs::default()
    };
    require_criteria(&args, tapflow_core::codes::MISSING_SEARCH_CRITERIA)?;
    args.selector("text")
}

impl Tool for ScrollUntilVisible {
    const NAME: &'static str = "scroll_until_visible";
    const TITLE: &'static str = "Scroll until visible";
    const DESCRIPTION: &'static str = "Swipe in a direction until an element matching text / type / id is on screen (stops at the end of the content, the swipe budget or the deadline) and return it with its handle. Use it for targets in long lists.";
    const POLICY: Policy = Policy::UI_ACTION;
    const HINTS: Hints = Hints::ACTION;
    const CODES: FieldCodes = FieldCodes {
        value: &[
            ("direction", tapflow_core::codes::INVALID_DIRECTION),
            ("match_mode", tapflow_core::codes::INVALID_MATCH_MODE),
        ],
        wrong_type: &[],
    };
    const FLOW: FlowHooks<Params> = FlowHooks {
        shorthand: Some("text"),
        ..FlowHooks::NONE
    };
    type Params = Params;
    type Output = Output;

    fn check(p: &Params) -> Result<(), ToolError> {
        selector(p).map(drop)
    }

    fn budget_ms(p: &Params, _config: &crate::ToolConfig) -> Option<u64> {
        Some(p.timeout_ms)
    }

    fn run(p: Params, call: &mut Call<'_>) -> Result<Output, ToolError> {
        let sel = selector(&p)?;
        let started = call.started();
        let deadline = started + Duration::from_millis(p.timeout_ms);
        let mut swipes = 0;
        let mut previous: Option<String> = None;
        let timeout = |swipes: u32| {
            ToolError::new(
                tapflow_core::codes::WAIT_TIMEOUT,
                format!(
                    "{} did not appear within {}ms",
                    sel.describe(),
                    p.timeout_ms
                ),
            )
            .with_details(json!({ "swipes": swipes }))
        };
        loop {
            let tree = match call.observe(deadline)? {
                None => return Err(timeout(swipes)),
                Some(t) => t?,
            };
            let found = describe_all(&tree, &sel);
            if let Some(first) = found.get(p.index.unwrap_or(0)).cloned() {
                return Ok(Output {
                    element: first,
                    match_count: found.len(),
                    swipes,
                    direction: p.direction,
                    elapsed_ms: started.elapsed().as_millis() as u64,
                });
            }
            let scoped = scope_tree(&tree, p.bundle_name.as_deref(), None);
            let digest = TreeDigest::of(&scoped).digest;
            let reached_end = previous.as_deref() == Some(digest.as_str());
            if reached_end || swipes >= p.max_swipes {
                return Err(ToolError::new(
                    tapflow_core::codes::ELEMENT_NOT_FOUND,
                    format!(
                        "{} is not on screen after {swipes} swipe(s){}",
                        sel.describe(),
                        if reached_end {
                            "; the content stopped moving"
                        } else {
                            ""
                        }
                    ),
                )
                .with_details(json!({ "swipes": swipes, "reached_end": reached_end })));
            }
            let area = scroll_area(&scoped)
                .or_else(|| tree.bounds().filter(|b| !b.is_empty()))
                .ok_or_else(|| {
                    ToolError::new(
                        tapflow_core::codes::ELEMENT_NOT_FOUND,
                        "nothing in scope to scroll",
                    )
                })?;
            let (from, to) = direction_points(area, p.direction);
            if std::time::Instant::now() >= deadline {
                return Err(timeout(swipes));
            }
            let swipe = Gesture::Swipe {
                from,
                to,
                speed: p.speed,
            };
            dispatch(call, &UiAction::Gesture(swipe))?;
            swipes += 1;
            previous = Some(digest);
        }
    }
}
