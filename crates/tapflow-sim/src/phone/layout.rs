//! The uitest `dumpLayout` JSON of the current screen: every node `{"attributes":{…},"children":[…]}`
//! with string values only, a synthetic top root whose bounds are the union of all windows, and one
//! child node per window (`root` for app/desktop/IME windows, `WindowScene` for SceneBoard bars).
//!
//! Attribute keys are sorted alphabetically, as uitest (nlohmann::json over std::map) writes them
//! and every fixture shows. Every node carries the 30 attributes of the newer captures (hmdriver2,
//! vmall): uitest's `ATTR_NAMES` less `displayId`, `clip`, `originalText` and `boundsCenter`,
//! which no real dump shows (window-only `abilityName`/`bundleName`/`pagePath` are `""` below
//! window nodes); a password field's `text` is one `•` per character, never the value; `-a` adds `extraAttrs` with accessibility details;
//! `-e uniqueId` adds `uniqueId` (window id × 100000 + accessibility id).

use super::nodes::{ScreenNode, Window, WindowKind};
use super::{LayoutOptions, Phone};
use serde_json::{Map, Value, json};
use tapflow_device::model::Bounds;

/// Keys of the synthetic top root, as newer builds write it (all `""` except `bounds`).
const TOP_ROOT_KEYS: &[&str] = &[
    "accessibilityId",
    "id",
    "text",
    "key",
    "description",
    "type",
    "bounds",
    "enabled",
    "focused",
    "selected",
    "clickable",
    "longClickable",
    "scrollable",
    "checkable",
    "checked",
    "hostWindowId",
    "origBounds",
    "zIndex",
    "opacity",
    "backgroundColor",
    "backgroundImage",
    "blur",
    "hitTestBehavior",
];

/// Per-dump settings.
struct Ctx<'a> {
    win: &'a Window,
    opts: &'a LayoutOptions,
    /// Prefix of `hashcode` (SceneBoard-hosted windows report `1`).
    hash_host: i64,
}

fn b(v: bool) -> String {
    if v { "true".into() } else { "false".into() }
}

#[allow(clippy::too_many_arguments)]
fn attrs(
    ctx: &Ctx,
    n: &ScreenNode,
    hierarchy: &str,
    window_node: bool,
    hit_test: &str,
) -> Map<String, Value> {
    let mut a = Map::new();
    let mut put = |k: &str, v: String| {
        a.insert(k.to_string(), Value::String(v));
    };
    put("accessibilityId", n.accessibility_id.to_string());
    put("id", n.id.clone());
    put("text", n.text.clone());
    put("key", n.id.clone());
    put("description", n.description.clone());
    put("type", n.kind.clone());
    put("bounds", n.bounds.to_string());
    put("enabled", b(n.enabled));
    put("focused", b(n.focused));
    put("selected", b(n.selected));
    put("clickable", b(n.clickable));
    put("longClickable", b(n.long_clickable));
    put("scrollable", b(n.scrollable));
    put("checkable", b(n.checkable));
    put("checked", b(n.checked));
    put("hostWindowId", ctx.win.id.to_string());
    put("origBounds", n.orig.to_string());
    put("zIndex", "0".into());
    put("opacity", "1.000000".into());
    put("backgroundColor", n.background.clone());
    put("backgroundImage", "empty source".into());
    put("blur", String::new());
    put("hitTestBehavior", hit_test.into());
    put("hierarchy", hierarchy.into());
    if ctx.opts.unique_id {
        put(
            "uniqueId",
            (ctx.win.id * 100_000 + n.accessibility_id).to_string(),
        );
    }
    put(
        "hashcode",
        format!("{}:{}", ctx.hash_host, n.accessibility_id),
    );
    put("visible", b(n.visible));
    let (ability, bundle, page) = if window_node {
        (
            ctx.win.ability.clone(),
            ctx.win.bundle.clone(),
            ctx.win.page.clone(),
        )
    } else {
        Default::default()
    };
    put("abilityName", ability);
    put("bundleName", bundle);
    put("pagePath", page);
    put("hint", n.hint.clone());
    if ctx.opts.extra_attrs {
        a.insert(
            "extraAttrs".into(),
            json!({
                "accessibilityLevel": "auto",
                "accessibilityGroup": "false",
                "accessibilityText": "",
                "componentType": n.kind,
                "isPassword": b(n.password),
                "maxTextLength": "-1",
            }),
        );
    }
    // uitest serialises with nlohmann::json (std::map): keys come out sorted, as in every fixture.
    a.sort_keys();
    a
}

fn node_json(ctx: &Ctx, n: &ScreenNode, hierarchy: &str) -> Value {
    let children: Vec<Value> = n
        .children
        .iter()
        .filter(|c| c.visible || ctx.opts.per_window)
        .enumerate()
        .map(|(i, c)| node_json(ctx, c, &format!("{hierarchy},{i}")))
        .collect();
    json!({ "attributes": attrs(ctx, n, hierarchy, false, "HitTestMode.Default"), "children": children })
}

/// The node of one window with its content.
fn window_json(win: &Window, opts: &LayoutOptions) -> Value {
    let scene = matches!(win.kind, WindowKind::StatusBar | WindowKind::NavBar);
    let ctx = Ctx {
        win,
        opts,
        hash_host: if scene { 1 } else { win.id },
    };
    let wn = ScreenNode {
        kind: if scene {
            "WindowScene".into()
        } else {
            "root".into()
        },
        id: if scene {
            format!("session{}", win.id)
        } else {
            String::new()
        },
        bounds: win.bounds,
        orig: win.orig,
        accessibility_id: if scene { 395 + win.id } else { 0 },
        enabled: true,
        focused: win.focused,
        visible: true,
        background: "#00000000".into(),
        ..Default::default()
    };
    let hierarchy = format!("ROOT{}", win.id);
    let children: Vec<Value> = win
        .children
        .iter()
        .filter(|c| c.visible || opts.per_window)
        .enumerate()
        .map(|(i, c)| node_json(&ctx, c, &format!("{hierarchy},{i}")))
        .collect();
    json!({ "attributes": attrs(&ctx, &wn, &hierarchy, true, ""), "children": children })
}

fn union(bs: impl Iterator<Item = Bounds>) -> Bounds {
    bs.reduce(|a, c| {
        Bounds::new(
            a.left.min(c.left),
            a.top.min(c.top),
            a.right.max(c.right),
            a.bottom.max(c.bottom),
        )
    })
    .unwrap_or(Bounds::new(0, 0, 0, 0))
}

fn top_root(bounds: Bounds, children: Vec<Value>) -> Value {
    let mut a = Map::new();
    for k in TOP_ROOT_KEYS {
        let v = if *k == "bounds" {
            bounds.to_string()
        } else {
            String::new()
        };
        a.insert((*k).into(), Value::String(v));
    }
    a.sort_keys();
    json!({ "attributes": a, "children": children })
}

/// Keeps only the windows `-b`/`-w` select; `Err` text follows uitest's failure wording.
fn select<'a, T>(
    items: &'a [T],
    opts: &LayoutOptions,
    bundle_of: impl Fn(&T) -> String,
    id_of: impl Fn(&T) -> i64,
) -> Result<Vec<&'a T>, String> {
    let sel: Vec<&T> = items
        .iter()
        .filter(|w| opts.bundle.as_ref().is_none_or(|b| &bundle_of(w) == b))
        .filter(|w| opts.window_id.is_none_or(|id| id_of(w) == id))
        .collect();
    if sel.is_empty() {
        if let Some(id) = opts.window_id {
            return Err(format!("window {id} not found"));
        }
        if let Some(b) = &opts.bundle {
            return Err(format!("no window of bundle {b}"));
        }
    }
    Ok(sel)
}

impl Phone {
    /// `uitest dumpLayout` of the current screen (see the module docs).
    pub fn layout(&self, opts: &LayoutOptions) -> Result<Value, String> {
        if let Some(rec) = &self.recorded {
            return super::recorded::serve(rec, opts);
        }
        if !self.awake {
            // As on a locked real device: the synthetic root alone, bounds [0,0][0,0].
            return Ok(if opts.per_window {
                Value::Array(Vec::new())
            } else {
                top_root(Bounds::new(0, 0, 0, 0), Vec::new())
            });
        }
        let wins = self.screen_windows(opts.per_window);
        let sel = select(&wins, opts, |w| w.bundle.clone(), |w| w.id)?;
        if opts.per_window {
            return Ok(Value::Array(
                sel.iter().map(|w| window_json(w, opts)).collect(),
            ));
        }
        let bounds = union(sel.iter().map(|w| w.orig));
        Ok(top_root(
            bounds,
            sel.iter().map(|w| window_json(w, opts)).collect(),
        ))
    }

    /// Shared with `recorded`: window selection over raw JSON window nodes.
    pub(super) fn select_json<'a>(
        nodes: &'a [Value],
        opts: &LayoutOptions,
    ) -> Result<Vec<&'a Value>, String> {
        let attr = |v: &Value, k: &str| v["attributes"][k].as_str().unwrap_or("").to_string();
        select(
            nodes,
            opts,
            |v| attr(v, "bundleName"),
            |v| attr(v, "hostWindowId").parse().unwrap_or(-1),
        )
    }
}
