//! Target resolution shared by every tool that acts on or looks for an element (click,
//! long_press, find_elements, wait_for_element, scroll_until_visible, and input_text): choosing
//! exactly one mode (coordinates | element_handle | search criteria), resolving a handle
//! (refreshing a stale one through its `lookup_hint`), resolving search criteria to exactly one
//! element, and describing found elements.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::context::Call;
use crate::envelope::ToolError;
use tapflow_device::model::{Bounds, ElementHandle, Point, UiNode};
use tapflow_device::ui::matching::{Match, find};
use tapflow_device::ui::selector::{Selector, TextMatch};
use tapflow_device::ui::{handle_of, locate};

/// Search criteria as tools receive them. input_text calls its text criterion `element_text`:
/// it sets `text` from it and `text_param: Some("element_text")` so errors name its parameter.
#[derive(Debug, Clone, Default)]
pub struct SearchArgs {
    /// The name of the text criterion in the calling tool (default `text`).
    pub text_param: Option<&'static str>,
    pub text: Option<String>,
    pub element_type: Option<String>,
    pub element_id: Option<String>,
    pub bundle_name: Option<String>,
    pub window_id: Option<i64>,
    pub match_mode: Option<TextMatch>,
    pub index: Option<usize>,
    /// State and position filters (tapflow extensions).
    pub refine: tapflow_device::ui::refine::Refine,
}

impl SearchArgs {
    /// One of text / element_type / element_id is given.
    pub fn has_criteria(&self) -> bool {
        self.text.is_some() || self.element_type.is_some() || self.element_id.is_some()
    }

    /// Any search-only parameter is given (criteria, scope or refinements).
    pub fn any_given(&self) -> bool {
        self.has_criteria()
            || self.bundle_name.is_some()
            || self.window_id.is_some()
            || self.match_mode.is_some()
            || self.index.is_some()
            || !self.refine.is_empty()
    }

    /// The compiled selector (`INVALID_PARAM` naming `text` for a bad regular expression).
    pub fn selector(&self, text_param: &str) -> Result<Selector, ToolError> {
        let refine = if self.refine.is_empty() {
            None
        } else {
            Some(
                self.refine
                    .compile()
                    .map_err(|(param, why)| ToolError::invalid_param(param, why))?,
            )
        };
        Selector::new(
            self.text.clone(),
            self.element_type.clone(),
            self.element_id.clone(),
            self.match_mode.unwrap_or_default(),
        )
        .map(|s| {
            s.scoped(self.bundle_name.clone(), self.window_id)
                .refined(refine)
        })
        .map_err(|e| {
            ToolError::invalid_param(
                text_param,
                format!("`{text_param}` is not a valid regular expression: {e}"),
            )
        })
    }
}

/// The one way a call designates its target.
#[derive(Debug, Clone)]
pub enum TargetMode {
    Point(Point),
    Handle(ElementHandle),
    Search(SearchArgs),
}

/// Picks the mode: exactly one of coordinates, a handle, search criteria. Device-free (tools
/// call it from [`crate::Tool::check`] and again in `run`).
/// `PARAM_CONFLICT` when several are given (scope/refinement parameters count as search mode
/// except `bundle_name` next to a handle, which scopes its refresh), `MISSING_PARAMS` when none
/// or half a coordinate pair is, `INVALID_PARAM` for a negative coordinate,
/// `INVALID_ELEMENT_HANDLE` for a malformed handle, `INVALID_PARAM` (naming the text
/// criterion) for a regular expression that does not compile. Each error names the parameter
/// at fault: for a conflict, the first parameter of the mode given last.
pub fn choose_mode(
    x: Option<i32>,
    y: Option<i32>,
    handle: Option<Value>,
    search: SearchArgs,
) -> Result<TargetMode, ToolError> {
    let coords = x.is_some() || y.is_some();
    let with_handle = handle.is_some();
    let text_param = search.text_param.unwrap_or("text");
    let search_params: Vec<&str> = [
        (text_param, search.text.is_some()),
        ("element_type", search.element_type.is_some()),
        ("element_id", search.element_id.is_some()),
        // Next to a handle, bundle_name scopes the handle's refresh.
        ("bundle_name", search.bundle_name.is_some() && !with_handle),
        ("window_id", search.window_id.is_some()),
        ("match_mode", search.match_mode.is_some()),
        ("index", search.index.is_some()),
        (
            search.refine.given().first().copied().unwrap_or("checked"),
            !search.refine.is_empty(),
        ),
    ]
    .into_iter()
    .filter_map(|(name, given)| given.then_some(name))
    .collect();
    let search_given = !search_params.is_empty();
    let modes = [coords, with_handle, search_given]
        .iter()
        .filter(|m| **m)
        .count();
    if modes > 1 {
        let mut given = Vec::new();
        if coords {
            given.push("coordinates (x, y)");
        }
        if with_handle {
            given.push("element_handle");
        }
        if search_given {
            given.push("search criteria");
        }
        let at = if search_given {
            search_params[0]
        } else {
            "element_handle"
        };
        return Err(ToolError::new(
            tapflow_core::codes::PARAM_CONFLICT,
            format!("give one target mode only, got {}", given.join(" and ")),
        )
        .with_details(json!({
            "modes": given,
            "suggestion": format!("keep one: coordinates (x, y), element_handle, or search criteria ({text_param}, element_type, element_id)"),
        }))
        .at(at));
    }
    if coords {
        return match (x, y) {
            (Some(x), Some(y)) => {
                if x < 0 || y < 0 {
                    return Err(ToolError::invalid_param(
                        if x < 0 { "x" } else { "y" },
                        "coordinates are physical pixels and cannot be negative",
                    ));
                }
                Ok(TargetMode::Point(Point::new(x, y)))
            }
            _ => {
                let (given, missing) = if x.is_none() { ("y", "x") } else { ("x", "y") };
                Err(ToolError::new(
                    tapflow_core::codes::MISSING_PARAMS,
                    format!("coordinate mode needs both x and y; `{missing}` is missing"),
                )
                .with_details(json!({ "missing": missing }))
                .at(given))
            }
        };
    }
    if let Some(h) = handle {
        let mut h: ElementHandle = serde_json::from_value(h).map_err(|e| {
            ToolError::new(
                tapflow_core::codes::INVALID_ELEMENT_HANDLE,
                format!("element_handle must be the object find_elements returns ({{window_id, id, compid, type}}): {e}"),
            )
            .at("element_handle")
        })?;
        tapflow_device::ui::handle::validate(&h).map_err(|m| {
            ToolError::new(tapflow_core::codes::INVALID_ELEMENT_HANDLE, m).at("element_handle")
        })?;
        if let (Some(b), Some(hint)) = (search.bundle_name, h.lookup_hint.as_mut()) {
            hint.bundle_name = Some(b);
        }
        return Ok(TargetMode::Handle(h));
    }
    if search.has_criteria() {
        search.selector(text_param)?;
        return Ok(TargetMode::Search(search));
    }
    Err(ToolError::new(
        tapflow_core::codes::MISSING_PARAMS,
        format!(
            "give a target: x and y, element_handle, or search criteria ({text_param}, element_type, element_id)"
        ),
    ))
}

/// A found element as results describe it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ElementInfo {
    /// Reusable handle (pass it to click, long_press, input_text).
    pub element_handle: ElementHandle,
    /// True when the lookup criteria match several elements (the hint then carries `index`).
    pub lookup_is_broad: bool,
    pub bounds: Bounds,
    /// The point taps go to (centre of bounds).
    pub center: Point,
    pub text: String,
    #[serde(rename = "type")]
    pub element_type: String,
    /// ArkUI id (`id`, else `key`); empty when unset.
    pub id: String,
    pub window_id: i64,
    pub bundle_name: String,
    pub clickable: bool,
    pub enabled: bool,
    pub focused: bool,
    pub selected: bool,
    pub checked: bool,
}

impl ElementInfo {
    pub fn of(m: &Match<'_>, handle: ElementHandle, lookup_is_broad: bool) -> Self {
        let n: &UiNode = m.node;
        ElementInfo {
            element_handle: handle,
            lookup_is_broad,
            bounds: m.bounds,
            center: m.bounds.center(),
            text: n.text().to_string(),
            element_type: n.node_type().to_string(),
            id: n.id().to_string(),
            window_id: m.window_id.unwrap_or(0),
            bundle_name: m.bundle.to_string(),
            clickable: n.flag("clickable"),
            enabled: n.flag("enabled"),
            focused: n.flag("focused"),
            selected: n.flag("selected"),
            checked: n.flag("checked"),
        }
    }
}

/// All elements matching `sel` in `tree`, with handles.
pub fn describe_all(tree: &UiNode, sel: &Selector) -> Vec<ElementInfo> {
    let hits = find(tree, sel);
    let broad = hits.len() > 1;
    hits.iter()
        .enumerate()
        .map(|(i, m)| ElementInfo::of(m, handle_of(m, sel.hint(broad.then_some(i))), broad))
        .collect()
}

/// Where a resolved target is, and how it was found.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub point: Point,
    /// `coordinates`, `element_handle`, `lookup_hint` (a stale handle refreshed) or `search`.
    pub resolved_via: &'static str,
    pub handle_refreshed: bool,
    pub element_handle: Option<ElementHandle>,
    pub element: Option<ElementInfo>,
}

/// Resolves the target against the call's current observation (one dump, reused).
pub fn resolve(call: &mut Call<'_>, mode: &TargetMode) -> Result<Resolved, ToolError> {
    match mode {
        TargetMode::Point(p) => Ok(Resolved {
            point: *p,
            resolved_via: "coordinates",
            handle_refreshed: false,
            element_handle: None,
            element: None,
        }),
        TargetMode::Handle(h) => {
            let tree = call.ui_tree()?;
            if let Some(m) = locate(&tree, h) {
                let info = ElementInfo::of(&m, h.clone(), false);
                return Ok(Resolved {
                    point: m.bounds.center(),
                    resolved_via: "element_handle",
                    handle_refreshed: false,
                    element_handle: Some(h.clone()),
                    element: Some(info),
                });
            }
            let Some(hint) = &h.lookup_hint else {
                return Err(ToolError::new(
                    tapflow_core::codes::ELEMENT_NOT_FOUND,
                    format!(
                        "element {} is no longer on screen and the handle has no lookup_hint",
                        h.compid
                    ),
                )
                .with_details(json!({ "stale_handle": h })));
            };
            // The hint's text is compared as it was when the handle was minted (`match_mode`);
            // hints without one (older handles) try exactly, then as a substring.
            let modes = match hint.match_mode.as_deref() {
                Some(name) => vec![TextMatch::parse(name).ok_or_else(|| {
                    ToolError::new(
                        tapflow_core::codes::INVALID_ELEMENT_HANDLE,
                        format!(
                            "lookup_hint.match_mode must be exact, contains or regex, not {name:?}"
                        ),
                    )
                })?],
                None => vec![TextMatch::Exact, TextMatch::Contains],
            };
            let mut hits_and_sel = None;
            for mode in modes {
                let sel = Selector::from_hint(hint, mode)
                    .map_err(|e| ToolError::new(tapflow_core::codes::INVALID_ELEMENT_HANDLE, e))?;
                if !sel.has_criteria() {
                    return Err(ToolError::new(
                        tapflow_core::codes::INVALID_ELEMENT_HANDLE,
                        "lookup_hint has no criteria",
                    ));
                }
                let hits = find(&tree, &sel);
                if !hits.is_empty() || hint.text.is_none() {
                    hits_and_sel = Some((hits.len(), sel));
                    break;
                }
            }
            let sel = match hits_and_sel {
                Some((n, sel)) if n > 0 => sel,
                _ => {
                    return Err(ToolError::new(
                        tapflow_core::codes::ELEMENT_NOT_FOUND,
                        format!(
                            "element {} is stale and nothing matches its lookup_hint",
                            h.compid
                        ),
                    )
                    .with_details(json!({ "stale_handle": h })));
                }
            };
            let (m, info) = pick_one(&tree, &sel, hint.index, "element_handle.lookup_hint")?;
            let _ = m;
            Ok(Resolved {
                point: info.center,
                resolved_via: "lookup_hint",
                handle_refreshed: true,
                element_handle: Some(info.element_handle.clone()),
                element: Some(info),
            })
        }
        TargetMode::Search(s) => {
            let sel = s.selector(s.text_param.unwrap_or("text"))?;
            let tree = call.ui_tree()?;
            let (_, info) = pick_one(&tree, &sel, s.index, "search criteria")?;
            Ok(Resolved {
                point: info.center,
                resolved_via: "search",
                handle_refreshed: false,
                element_handle: Some(info.element_handle.clone()),
                element: Some(info),
            })
        }
    }
}

/// Exactly one element for `sel` (or the `index`-th in reading order).
/// `ELEMENT_NOT_FOUND` / `AMBIGUOUS_ELEMENT_MATCH` (with up to 5 candidates in details).
pub fn pick_one(
    tree: &UiNode,
    sel: &Selector,
    index: Option<usize>,
    what: &str,
) -> Result<(usize, ElementInfo), ToolError> {
    let all = describe_all(tree, sel);
    let count = all.len();
    if count == 0 {
        // What is on screen that is close to what was asked (same dump, no extra cost).
        let near = tapflow_device::ui::near::near_misses(tree, sel, 3);
        return Err(ToolError::new(
            tapflow_core::codes::ELEMENT_NOT_FOUND,
            format!(
                "no visible element matches {what}: {}{}",
                sel.describe(),
                tapflow_device::ui::near::suggestion(&near)
            ),
        )
        .with_details(
            json!({ "match_count": 0, "criteria": sel.describe(), "near_misses": near }),
        ));
    }
    match index {
        Some(i) if i >= count => Err(ToolError::new(
            tapflow_core::codes::ELEMENT_NOT_FOUND,
            format!(
                "index {i} is out of range: {count} element(s) match {}",
                sel.describe()
            ),
        )
        .with_details(json!({ "match_count": count, "index": i }))),
        Some(i) => Ok((i, all.into_iter().nth(i).expect("in range"))),
        None if count == 1 => Ok((0, all.into_iter().next().expect("one"))),
        None => {
            let candidates: Vec<Value> = all
                .iter()
                .take(5)
                .map(|e| json!({ "text": e.text, "type": e.element_type, "id": e.id, "bounds": e.bounds, "element_handle": e.element_handle }))
                .collect();
            Err(ToolError::new(
                tapflow_core::codes::AMBIGUOUS_ELEMENT_MATCH,
                format!("{count} elements match {}; narrow the criteria or pass index (0-based, reading order)", sel.describe()),
            )
            .with_details(json!({ "match_count": count, "candidates": candidates })))
        }
    }
}
