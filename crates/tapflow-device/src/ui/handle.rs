//! Element handles: minting one for a found element, and finding a handle's element again.
//!
//! A handle is `{window_id, id, compid, type, lookup_hint}`: `window_id` from `hostWindowId`,
//! `id` the node's `accessibilityId`, `compid` uitest's `hashcode` (`"<window>:<accessibilityId>"`),
//! `type` the node type. It is *live* in a tree when a visible node has that `compid` (or that
//! window and accessibility id), the same type, and — when the hint has a text — a text that
//! still satisfies the hint (compared as its `match_mode` says; without one, as older handles
//! were: equal or containing it). Otherwise it is stale and callers refresh it through the hint.

use crate::model::{ElementHandle, LookupHint, UiNode};
use crate::ui::matching::{Match, window_nodes};
use crate::ui::selector::TextMatch;

/// The handle for a found element.
pub fn handle_of(m: &Match<'_>, hint: LookupHint) -> ElementHandle {
    let window_id = m.window_id.unwrap_or(0);
    let aid = m.node.attr("accessibilityId").to_string();
    let hashcode = m.node.attr("hashcode");
    let compid = if hashcode.is_empty() {
        format!("{window_id}:{aid}")
    } else {
        hashcode.to_string()
    };
    ElementHandle {
        window_id,
        id: aid,
        compid,
        element_type: m.node.node_type().to_string(),
        lookup_hint: Some(hint),
    }
}

/// Checks the structural validity of a handle (what a caller can get wrong).
pub fn validate(h: &ElementHandle) -> Result<(), String> {
    if h.compid.trim().is_empty() && h.id.trim().is_empty() {
        return Err("element_handle needs a non-empty `compid` or `id`".into());
    }
    Ok(())
}

/// The live element a handle designates in `root`, if any.
pub fn locate<'a>(root: &'a UiNode, h: &ElementHandle) -> Option<Match<'a>> {
    for (wpath, window) in window_nodes(root) {
        let wid = window.window_id();
        if let Some(found) = search(window, wpath, wid, window.attr("bundleName"), h) {
            return Some(found);
        }
    }
    None
}

fn search<'a>(
    node: &'a UiNode,
    path: Vec<usize>,
    wid: Option<i64>,
    bundle: &'a str,
    h: &ElementHandle,
) -> Option<Match<'a>> {
    let node_wid = node.window_id().or(wid);
    let same = if !h.compid.is_empty() && !node.attr("hashcode").is_empty() {
        node.attr("hashcode") == h.compid
    } else {
        node_wid == Some(h.window_id) && node.attr("accessibilityId") == h.id
    };
    if same {
        let type_ok = h.element_type.is_empty() || node.node_type() == h.element_type;
        let text_ok = match h.lookup_hint.as_ref() {
            Some(LookupHint {
                text: Some(t),
                match_mode: Some(mode),
                ..
            }) => TextMatch::parse(mode).is_some_and(|m| m.accepts(t, node.text())),
            Some(LookupHint { text: Some(t), .. }) => node.text().contains(t.as_str()),
            _ => true,
        };
        let bounds = node.bounds().filter(|b| !b.is_empty());
        return match (type_ok && text_ok, bounds) {
            (true, Some(bounds)) => Some(Match {
                node,
                window_id: node_wid,
                bundle,
                path,
                bounds,
            }),
            _ => None,
        };
    }
    for (i, c) in node.children.iter().enumerate() {
        let mut p = path.clone();
        p.push(i);
        if let Some(m) = search(c, p, wid, bundle, h) {
            return Some(m);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::matching::find;
    use crate::ui::selector::{Selector, TextMatch};

    #[test]
    fn a_minted_handle_is_located_again_and_goes_stale_when_the_text_changes() {
        let json = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/fixtures/harmonyos/layout_haptest_logindemo_login_pretty.json"
        ))
        .unwrap();
        let t: UiNode = serde_json::from_str(&json).unwrap();
        let sel = Selector::new(None, Some("TextInput".into()), None, TextMatch::Exact).unwrap();
        let m = find(&t, &sel).into_iter().next().unwrap();
        let h = handle_of(&m, sel.hint(None));
        assert_eq!(h.window_id, 155);
        assert_eq!(h.compid, format!("155:{}", h.id));
        assert_eq!(h.element_type, "TextInput");
        let again = locate(&t, &h).unwrap();
        assert_eq!(again.path, m.path);

        let mut wrong_type = h.clone();
        wrong_type.element_type = "Button".into();
        assert!(locate(&t, &wrong_type).is_none());
        let mut gone = h.clone();
        gone.compid = "155:99999".into();
        assert!(locate(&t, &gone).is_none());
        assert!(validate(&h).is_ok());
    }

    #[test]
    fn every_recorded_layout_yields_handles_that_locate_their_element() {
        let dir = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/fixtures/harmonyos"
        );
        let mut layouts = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            if !(name.starts_with("layout_") && name.ends_with(".json")) {
                continue;
            }
            layouts += 1;
            let t: UiNode = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            let digest = crate::ui::digest::TreeDigest::of(&t);
            assert_eq!(digest.node_count + 1, t.node_count(), "{name}");
            for ty in ["Text", "Button", "TextInput", "Image", "staticText"] {
                let sel = Selector::new(None, Some(ty.into()), None, TextMatch::Exact).unwrap();
                for m in find(&t, &sel) {
                    let h = handle_of(&m, sel.hint(None));
                    let back = locate(&t, &h)
                        .unwrap_or_else(|| panic!("{name}: {} not located", h.compid));
                    assert_eq!(back.node.node_type(), ty, "{name}");
                }
            }
        }
        assert!(layouts >= 5, "fixtures present");
    }
}
