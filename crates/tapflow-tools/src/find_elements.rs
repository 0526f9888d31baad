//! `find_elements`: elements matching search criteria, with reusable handles. One UI dump.
//! No match is `ELEMENT_NOT_FOUND` (the contract lists it), with `match_count: 0` in details.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::context::Call;
use crate::decode::FieldCodes;
use crate::envelope::ToolError;
use crate::flow_hooks::FlowHooks;
use crate::policy::{Hints, Policy};
use crate::registry::{Digest, Tool};
use crate::search::require_criteria;
use crate::target::{ElementInfo, SearchArgs, describe_all, pick_one};
use tapflow_device::ui::selector::{Selector, TextMatch};

pub struct FindElements;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Params {
    /// Element text (see match_mode).
    pub text: Option<String>,
    /// Node type, e.g. `Button`.
    pub element_type: Option<String>,
    /// ArkUI id / key.
    pub element_id: Option<String>,
    /// Only windows of this app.
    pub bundle_name: Option<String>,
    /// Only this window.
    pub window_id: Option<i64>,
    /// How `text` is compared (default exact).
    pub match_mode: Option<TextMatch>,
    /// Return only the n-th match (0-based, reading order).
    pub index: Option<usize>,
    /// Search mode, tapflow extensions: state and position filters.
    #[serde(flatten)]
    pub refine: tapflow_device::ui::refine::Refine,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Output {
    /// Matches in reading order (top to bottom, left to right).
    pub elements: Vec<ElementInfo>,
    pub count: usize,
}

/// The search criteria and their selector (device-free): at least one criterion
/// (`MISSING_SEARCH_CRITERIA`), a valid regular expression.
fn criteria(p: &Params) -> Result<(SearchArgs, Selector), ToolError> {
    let args = SearchArgs {
        text: p.text.clone(),
        element_type: p.element_type.clone(),
        element_id: p.element_id.clone(),
        bundle_name: p.bundle_name.clone(),
        window_id: p.window_id,
        match_mode: p.match_mode,
        index: p.index,
        refine: p.refine.clone(),
        ..SearchArgs::default()
    };
    require_criteria(&args, tapflow_core::codes::MISSING_SEARCH_CRITERIA)?;
    let sel = args.selector("text")?;
    Ok((args, sel))
}

impl Tool for FindElements {
    const CORE: bool = true;
    const NAME: &'static str = "find_elements";
    const TITLE: &'static str = "Find elements";
    const DESCRIPTION: &'static str = "Find visible elements on the current screen by text (exact, contains or regex), type or id; returns them with reusable element handles, bounds and states. Use it to get a handle for `click` / `input_text`; `wait_for_element` when it may not be there yet.";
    const POLICY: Policy = Policy::READ;
    const HINTS: Hints = Hints::READ;
    const CODES: FieldCodes = FieldCodes {
        value: &[("match_mode", tapflow_core::codes::INVALID_MATCH_MODE)],
        wrong_type: &[],
    };
    const DIGEST: Option<Digest> = Some(Digest::List {
        field: "elements",
        keep: &[
            "element_handle",
            "text",
            "type",
            "id",
            "center",
            "bundle_name",
        ],
    });
    const FLOW: FlowHooks<Params> = FlowHooks {
        shorthand: Some("text"),
        ..FlowHooks::NONE
    };
    type Params = Params;
    type Output = Output;

    fn headline(result: &Value) -> Option<String> {
        let n = result.get("count")?.as_u64()?;
        Some(match n {
            0 => "no element found".into(),
            1 => "1 element found".into(),
            n => format!("{n} elements found"),
        })
    }

    fn check(p: &Params) -> Result<(), ToolError> {
        criteria(p).map(drop)
    }

    fn run(p: Params, call: &mut Call<'_>) -> Result<Output, ToolError> {
        let (args, sel) = criteria(&p)?;
        let tree = call.ui_tree()?;
        let elements = match args.index {
            Some(i) => vec![pick_one(&tree, &sel, Some(i), "search criteria")?.1],
            None => describe_all(&tree, &sel),
        };
        if elements.is_empty() {
            // Shares pick_one's wording and details.
            return Err(pick_one(&tree, &sel, None, "search criteria")
                .err()
                .unwrap_or_else(|| {
                    ToolError::new(tapflow_core::codes::ELEMENT_NOT_FOUND, "no element matches")
                }));
        }
        Ok(Output {
            count: elements.len(),
            elements,
        })
    }
}
