//! Near misses: when a selector finds nothing, the texts and ids on screen that are close to
//! what it asked for ("did you mean `Login`?"), from the same dump that found nothing.
//!
//! A candidate is close when it equals the wanted value ignoring case, or ignoring whitespace,
//! when one contains the other (ignoring case), or when few edits separate them (Levenshtein
//! distance up to a third of the wanted length). Only visible nodes in the selector's scope
//! count; a regular expression is not compared (it has no "close").

use serde::Serialize;

use crate::model::UiNode;
use crate::ui::matching::{same_bundle, window_nodes};
use crate::ui::selector::{Selector, TextMatch};

/// Longest value compared (longer texts are paragraphs, not labels a selector names).
const MAX_LEN: usize = 200;

/// One close value on screen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NearMiss {
    /// `text` or `id`: which field of the element is close.
    pub field: &'static str,
    /// The value on screen.
    pub value: String,
    /// How it differs: `case`, `whitespace`, `contains`, `contained`, `edit distance N`.
    pub why: String,
    #[serde(skip)]
    rank: (u8, usize),
}

fn squash(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_whitespace())
        .flat_map(char::to_lowercase)
        .collect()
}

/// How `have` is close to `want`, with a rank (lower is closer), or `None`.
fn closeness(want: &str, have: &str) -> Option<(String, (u8, usize))> {
    if have == want || have.is_empty() || have.len() > MAX_LEN || want.len() > MAX_LEN {
        return None;
    }
    let (wl, hl) = (want.to_lowercase(), have.to_lowercase());
    if wl == hl {
        return Some(("case".into(), (0, 0)));
    }
    if squash(want) == squash(have) {
        return Some(("whitespace".into(), (1, 0)));
    }
    let dist = strsim::levenshtein(&wl, &hl);
    let budget = (want.chars().count() / 3).max(1);
    if dist <= budget {
        return Some((format!("edit distance {dist}"), (2, dist)));
    }
    if wl.chars().count() >= 3 && hl.contains(&wl) {
        return Some(("contains".into(), (3, hl.len() - wl.len())));
    }
    if hl.chars().count() >= 3 && wl.contains(&hl) {
        return Some(("contained".into(), (3, wl.len() - hl.len())));
    }
    None
}

fn walk<'a>(node: &'a UiNode, out: &mut Vec<&'a UiNode>) {
    if node.attr("visible") != "false" && node.bounds().is_some_and(|b| !b.is_empty()) {
        out.push(node);
    }
    for c in &node.children {
        walk(c, out);
    }
}

/// Up to `max` values on screen close to the selector's text and id, closest first.
pub fn near_misses(root: &UiNode, sel: &Selector, max: usize) -> Vec<NearMiss> {
    let mut nodes = Vec::new();
    for (_, window) in window_nodes(root) {
        if let Some(b) = &sel.bundle_name
            && !same_bundle(window.attr("bundleName"), b)
        {
            continue;
        }
        if let Some(w) = sel.window_id
            && window.window_id() != Some(w)
        {
            continue;
        }
        walk(window, &mut nodes);
    }
    let mut out: Vec<NearMiss> = Vec::new();
    let text = sel
        .text
        .as_deref()
        .filter(|_| sel.text_match != TextMatch::Regex);
    for (field, want) in [("text", text), ("id", sel.element_id.as_deref())] {
        let Some(want) = want else { continue };
        for n in &nodes {
            let have = if field == "text" { n.text() } else { n.id() };
            if let Some((why, rank)) = closeness(want, have)
                && !out.iter().any(|m| m.field == field && m.value == have)
            {
                out.push(NearMiss {
                    field,
                    value: have.to_string(),
                    why,
                    rank,
                });
            }
        }
    }
    out.sort_by_key(|m| m.rank);
    out.truncate(max);
    out
}

/// `; did you mean text `Login` (whitespace)?` for a message, or nothing.
pub fn suggestion(misses: &[NearMiss]) -> String {
    if misses.is_empty() {
        return String::new();
    }
    let list: Vec<String> = misses
        .iter()
        .map(|m| format!("{} `{}` ({})", m.field, m.value, m.why))
        .collect();
    format!("; did you mean {}?", list.join(" or "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closeness_orders_case_whitespace_edits_and_containment() {
        assert_eq!(closeness("login", "Login").unwrap().0, "case");
        assert_eq!(closeness("Log in", "Login").unwrap().0, "whitespace");
        assert_eq!(
            closeness("Settngs", "Settings").unwrap().0,
            "edit distance 1"
        );
        assert_eq!(closeness("Item", "Item 45 details").unwrap().0, "contains");
        assert_eq!(
            closeness("Reset all data now", "Reset all data?").map(|c| c.1.0),
            Some(2)
        );
        assert_eq!(closeness("Login", "Logout"), None);
        assert_eq!(closeness("Items", "Crash"), None);
        assert_eq!(closeness("Login", "Login"), None);
    }
}
