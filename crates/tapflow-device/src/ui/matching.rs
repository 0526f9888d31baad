//! Finding the elements a [`Selector`] describes in a layout tree, with their window context,
//! and turning several hits into a deterministic list.
//!
//! Decisions (documented in `docs/tools.md`):
//! - Only nodes that can be seen are candidates: non-empty `bounds` and `visible` not `"false"`.
//! - A hit nested inside another hit (a Button and its own Text label both reading "Login")
//!   is the same element for a user: the pair collapses to the outermost clickable hit, or the
//!   deepest hit when none is clickable.
//! - Reading order: top to bottom, then left to right (by the bounds' top-left corner), ties in
//!   dump order. `index` counts in this order.

use crate::model::{Bounds, UiNode};
use crate::ui::selector::Selector;

/// One element found, with where it lives.
#[derive(Debug, Clone)]
pub struct Match<'a> {
    pub node: &'a UiNode,
    /// `hostWindowId` of the node, else of its window node.
    pub window_id: Option<i64>,
    /// `bundleName` of its window node (`""` for system windows).
    pub bundle: &'a str,
    /// Child indexes from the tree root (ancestry test).
    pub path: Vec<usize>,
    pub bounds: Bounds,
}

impl Match<'_> {
    fn is_ancestor_of(&self, other: &Match<'_>) -> bool {
        other.path.len() > self.path.len() && other.path.starts_with(&self.path)
    }
}

/// The window nodes of a tree: the children of the synthetic root, or the root itself when the
/// tree is one window (a scoped dump).
pub fn window_nodes(root: &UiNode) -> Vec<(Vec<usize>, &UiNode)> {
    if is_window(root) {
        return vec![(Vec::new(), root)];
    }
    root.children
        .iter()
        .enumerate()
        .map(|(i, w)| (vec![i], w))
        .collect()
}

fn is_window(n: &UiNode) -> bool {
    !n.attr("hostWindowId").is_empty()
        && (n.node_type() == "root" || n.node_type() == "WindowScene")
        || !n.attr("bundleName").is_empty()
}

/// Normalised bundle names compare case-insensitively, ignoring surrounding blanks.
pub fn same_bundle(a: &str, b: &str) -> bool {
    a.trim().eq_ignore_ascii_case(b.trim())
}

/// Every visible node satisfying `sel` within its scope, collapsed and in reading order.
pub fn find<'a>(root: &'a UiNode, sel: &Selector) -> Vec<Match<'a>> {
    let mut hits = Vec::new();
    for (wpath, window) in window_nodes(root) {
        let bundle = window.attr("bundleName");
        let wid = window.window_id();
        if let Some(b) = &sel.bundle_name
            && !same_bundle(bundle, b)
        {
            continue;
        }
        if let Some(w) = sel.window_id
            && wid != Some(w)
        {
            continue;
        }
        collect(window, wpath, wid, bundle, sel, &mut hits);
    }
    let mut out = collapse_nested(hits);
    if let Some(r) = &sel.refine {
        r.retain(root, sel, &mut out);
    }
    // Stable sort keeps dump order for equal corners.
    out.sort_by_key(|m| (m.bounds.top, m.bounds.left));
    out
}

fn collect<'a>(
    node: &'a UiNode,
    path: Vec<usize>,
    wid: Option<i64>,
    bundle: &'a str,
    sel: &Selector,
    out: &mut Vec<Match<'a>>,
) {
    if node.attr("visible") != "false"
        && let Some(bounds) = node.bounds()
        && !bounds.is_empty()
        && sel.matches_node(node)
    {
        out.push(Match {
            node,
            window_id: node.window_id().or(wid),
            bundle,
            path: path.clone(),
            bounds,
        });
    }
    for (i, c) in node.children.iter().enumerate() {
        let mut p = path.clone();
        p.push(i);
        collect(c, p, wid, bundle, sel, out);
    }
}

/// Collapses hits nested in other hits (input in dump order) to one representative each.
pub fn collapse_nested(hits: Vec<Match<'_>>) -> Vec<Match<'_>> {
    let mut groups: Vec<Vec<Match<'_>>> = Vec::new();
    for m in hits {
        match groups.last_mut() {
            Some(g) if g[0].is_ancestor_of(&m) => g.push(m),
            _ => groups.push(vec![m]),
        }
    }
    groups
        .into_iter()
        .map(|g| {
            let clickable = g.iter().position(|m| m.node.flag("clickable"));
            let pick = clickable.unwrap_or_else(|| {
                g.iter()
                    .enumerate()
                    .max_by_key(|(i, m)| (m.path.len(), usize::MAX - i))
                    .map(|(i, _)| i)
                    .unwrap_or(0)
            });
            g.into_iter().nth(pick).expect("non-empty group")
        })
        .collect()
}

/// The part of a tree in scope: a synthetic root holding only the windows of `bundle` /
/// `window_id` (the whole tree when neither is given).
pub fn scope_tree(root: &UiNode, bundle: Option<&str>, window_id: Option<i64>) -> UiNode {
    if bundle.is_none() && window_id.is_none() {
        return root.clone();
    }
    let windows = window_nodes(root)
        .into_iter()
        .map(|(_, w)| w)
        .filter(|w| bundle.is_none_or(|b| same_bundle(w.attr("bundleName"), b)))
        .filter(|w| window_id.is_none_or(|id| w.window_id() == Some(id)))
        .cloned()
        .collect();
    UiNode {
        attributes: Default::default(),
        children: windows,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::selector::TextMatch;

    fn tree() -> UiNode {
        let json = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/fixtures/harmonyos/layout_haptest_logindemo_login_pretty.json"
        ))
        .unwrap();
        serde_json::from_str(&json).unwrap()
    }

    #[test]
    fn finds_by_type_in_reading_order_on_a_real_dump() {
        let t = tree();
        let sel = Selector::new(None, Some("TextInput".into()), None, TextMatch::Exact).unwrap();
        let hits = find(&t, &sel);
        assert!(hits.len() >= 2, "login page has user and password inputs");
        assert!(hits.windows(2).all(|w| w[0].bounds.top <= w[1].bounds.top));
        assert!(
            hits.iter()
                .all(|m| m.window_id == Some(155) && m.bundle == "com.huawei.logindemo")
        );
        let other_bundle = sel.clone().scoped(Some("com.other".into()), None);
        assert!(find(&t, &other_bundle).is_empty());
        let same_bundle_upper = sel.scoped(Some(" COM.HUAWEI.LOGINDEMO ".into()), Some(155));
        assert_eq!(find(&t, &same_bundle_upper).len(), hits.len());
    }

    #[test]
    fn nested_hits_collapse_to_the_clickable_one() {
        let json = r#"{"attributes":{"bounds":"[0,0][100,100]"},"children":[
          {"attributes":{"type":"root","hostWindowId":"7","bundleName":"a.b","bounds":"[0,0][100,100]"},"children":[
            {"attributes":{"type":"Button","text":"OK","clickable":"true","bounds":"[0,50][100,90]"},"children":[
              {"attributes":{"type":"Text","text":"OK","clickable":"false","bounds":"[10,60][90,80]"},"children":[]}]},
            {"attributes":{"type":"Text","text":"OK","bounds":"[0,0][100,10]"},"children":[]},
            {"attributes":{"type":"Text","text":"OK","bounds":"[0,0][0,0]"},"children":[]}]}]}"#;
        let t: UiNode = serde_json::from_str(json).unwrap();
        let hits = find(
            &t,
            &Selector::new(Some("OK".into()), None, None, TextMatch::Exact).unwrap(),
        );
        assert_eq!(hits.len(), 2);
        assert_eq!(hits[0].bounds.top, 0, "reading order: the top one first");
        assert_eq!(hits[1].node.node_type(), "Button");
        assert_eq!(hits[1].window_id, Some(7));
    }
}
