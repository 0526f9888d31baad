//! `run_app`: launch an app's ability and verify that its window appears.
//!
//! The ability is the explicit `ability_name`, else (with `auto_detect`) the main ability
//! (`query_package` candidates: main element, launcher, visible page, any page). `aa start`
//! and the first window check travel in ONE round trip (`Device::start_app_checked`: the window
//! table and the app's pids read right after the start); when the window is not there yet,
//! the check (one round trip: `Device::app_windows`) is repeated until a visible window of the
//! bundle shows up or the launch-verification deadline passes (no fixed sleep). A window that
//! has not appeared by then is reported as `window_found: false` — the launch command itself
//! succeeded. Round trips: 1 with an explicit ability, 2 with detection (`bm dump -n` first),
//! when the window is there at once.

use std::sync::Arc;
use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::app_ops::bundle_to_send;
use crate::config::ToolConfig;
use crate::context::{Call, sleep_within};
use crate::envelope::{ToolError, is_infrastructure};
use crate::flow_hooks::FlowHooks;
use crate::policy::{Hints, Policy};
use crate::query_package::main_ability_candidates;
use crate::registry::Tool;
use tapflow_device::model::WindowInfo;
use tapflow_device::ui::matching::same_bundle;
use tapflow_device::{AppWindows, DumpScope};

pub struct RunApp;

fn yes() -> bool {
    true
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Params {
    /// Target app bundle.
    pub bundle_name: Option<String>,
    /// Explicit launch ability (skips detection).
    pub ability_name: Option<String>,
    /// Explicit module of the ability.
    pub module_name: Option<String>,
    /// Find the main ability when ability_name is omitted.
    #[serde(default = "yes")]
    #[schemars(default = "yes")]
    pub auto_detect: bool,
    /// Deadline for the window to appear, in ms (default: the configured 5000).
    #[schemars(range(min = 0))]
    pub window_timeout_ms: Option<u64>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Output {
    pub bundle_name: String,
    pub ability_name: String,
    pub module_name: Option<String>,
    /// The ability was chosen by detection, not given.
    pub auto_detected: bool,
    /// `main_element`, `launcher`, `visible_page`, `page` or `explicit`.
    pub ability_source: String,
    /// `aa start` reported success.
    pub command_success: bool,
    /// A visible window of the bundle appeared before the deadline.
    pub window_found: bool,
    /// That window, as list_windows describes it.
    pub window: Option<WindowInfo>,
    /// Window-table polls made.
    pub window_checks: u32,
}

const POLL: Duration = Duration::from_millis(100);

/// The device-free rules: the bundle (`MISSING_BUNDLE_NAME`, `INVALID_BUNDLE_NAME`), an
/// explicit ability when detection is off (`ABILITY_RESOLUTION_FAILED`), ability and module
/// names the device can take (`INVALID_PARAM`). Returns the bundle and the explicit ability.
fn launch(p: &Params) -> Result<(String, Option<String>), ToolError> {
    let bundle = bundle_to_send(p.bundle_name.as_deref())?;
    let explicit = p
        .ability_name
        .as_deref()
        .map(str::trim)
        .filter(|a| !a.is_empty())
        .map(str::to_string);
    if explicit.is_none() && !p.auto_detect {
        return Err(ToolError::new(
            tapflow_core::codes::ABILITY_RESOLUTION_FAILED,
            "auto_detect=false needs an explicit ability_name",
        )
        .at("auto_detect"));
    }
    for (param, value) in [
        ("ability_name", explicit.as_deref()),
        ("module_name", p.module_name.as_deref()),
    ] {
        if let Some(v) = value {
            tapflow_device::hdc::validate::component_name(param, v).map_err(|e| {
                ToolError::invalid_param(
                    param,
                    format!(
                        "{param} {:?} is not valid: {}",
                        crate::decode::clip(v),
                        "it must be non-empty, not start with '-', and have no whitespace"
                    ),
                )
                .with_details(json!({ "cause_code": e.code() }))
            })?;
        }
    }
    Ok((bundle, explicit))
}

impl Tool for RunApp {
    const CORE: bool = true;
    const NAME: &'static str = "run_app";
    const TITLE: &'static str = "Run app";
    const DESCRIPTION: &'static str = "Launch an app (its main ability unless `ability_name` is given) and verify its window appears. Use it before UI tools; `stop_app` force-stops, `clear_app_data` first for a fresh state.";
    const POLICY: Policy = Policy::UI_ACTION;
    const HINTS: Hints = Hints::ACTION;
    const REQUIRED: &'static [&'static str] = &["bundle_name"];
    const FLOW: FlowHooks<Params> = FlowHooks {
        shorthand: Some("bundle_name"),
        known_as: &[("launchApp", "or `clean_state: true` on the flow")],
        ..FlowHooks::NONE
    };
    type Params = Params;
    type Output = Output;

    fn check(p: &Params) -> Result<(), ToolError> {
        launch(p).map(drop)
    }

    fn budget_ms(p: &Params, config: &ToolConfig) -> Option<u64> {
        Some(
            p.window_timeout_ms
                .unwrap_or(config.launch_verify_timeout_ms),
        )
    }

    fn run(p: Params, call: &mut Call<'_>) -> Result<Output, ToolError> {
        let (bundle, explicit) = launch(&p)?;
        let (ability, module, source) = match explicit {
            Some(a) => (a, p.module_name.clone(), "explicit".to_string()),
            None => {
                // A device that cannot be reached keeps the device layer's code (as every
                // other tool reports it); only a bundle bm cannot read is a resolution failure.
                let device = call.device()?;
                let info = device.package_info(&bundle).map_err(|e| {
                    if is_infrastructure(&e) {
                        return ToolError::from(e);
                    }
                    let cause = e.code();
                    let e = ToolError::from(e);
                    ToolError::new(
                        tapflow_core::codes::ABILITY_RESOLUTION_FAILED,
                        format!("cannot read the abilities of {bundle}: {}", e.message),
                    )
                    .with_details(e.details)
                    .with_details(json!({ "bundle_name": bundle, "cause_code": cause }))
                })?;
                let Some(best) = main_ability_candidates(&info).into_iter().next() else {
                    return Err(ToolError::new(
                        tapflow_core::codes::ABILITY_RESOLUTION_FAILED,
                        format!("{bundle} declares no main, launcher or page ability"),
                    ));
                };
                let module = p.module_name.clone().or(best.module_name);
                (best.ability_name, module, best.reason)
            }
        };
        let device = call.device()?;
        call.before_action()?;
        // In a flow whose next step starts by looking at the screen, the launch brings it back
        // in the same shell (flow-level behaviour, see `docs/flow-format.md`).
        let whole = DumpScope::default();
        let observe = call.observe_after().then_some(&whole);
        let launched = device.start_app_checked(&bundle, &ability, module.as_deref(), observe);
        launched.started.map_err(|e| {
            ToolError::from_device_op(e, tapflow_core::codes::RUN_APP_FAILED)
                .with_details(json!({ "ability_name": ability }))
        })?;
        call.invalidate();
        let mut screen = launched.tree.and_then(Result::ok).map(Arc::new);

        let timeout = p
            .window_timeout_ms
            .unwrap_or(call.config().launch_verify_timeout_ms);
        let deadline = Instant::now() + Duration::from_millis(timeout);
        let mut checks = 1;
        let mut seen = launched
            .windows
            .expect("read whenever the start was accepted");
        let window = loop {
            let found = window_of(&seen?, &bundle);
            if found.is_some() || !sleep_within(POLL, deadline) {
                break found;
            }
            checks += 1;
            // The screen that came with the launch is older than this check: not handed on.
            screen = None;
            seen = device.app_windows(&bundle);
        };
        call.after_action()?;
        if let Some(tree) = screen {
            call.keep(tree);
        }
        Ok(Output {
            bundle_name: bundle,
            ability_name: ability,
            module_name: module,
            auto_detected: source != "explicit",
            ability_source: source,
            command_success: true,
            window_found: window.is_some(),
            window,
            window_checks: checks,
        })
    }
}

/// The app's first visible window: named by its bundle, or owned by one of its processes
/// (then named after the bundle, which is what reading its `/proc/<pid>/cmdline` would say).
fn window_of(seen: &AppWindows, bundle: &str) -> Option<WindowInfo> {
    let mut w = seen
        .table
        .windows
        .iter()
        .find(|w| {
            w.visible
                && (w
                    .bundle_name
                    .as_deref()
                    .is_some_and(|b| same_bundle(b, bundle))
                    || (w.pid > 0 && seen.pids.iter().any(|p| i64::from(*p) == w.pid)))
        })?
        .clone();
    w.bundle_name.get_or_insert_with(|| bundle.to_string());
    Some(w)
}
