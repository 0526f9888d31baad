//! What changed between two layout trees: the multiset difference of node identities
//! (see [`crate::ui::digest::node_key`]), summarised for people and agents.

use std::collections::HashMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::model::UiNode;
use crate::ui::digest::node_key;

/// At most this many nodes are listed per side; the counts are always complete.
pub const MAX_LISTED: usize = 20;

/// A node as a diff lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct NodeSummary {
    #[serde(rename = "type")]
    pub node_type: String,
    pub text: String,
    pub id: String,
    pub bounds: String,
}

/// Added and removed nodes between two trees.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TreeDiff {
    pub added_count: usize,
    pub removed_count: usize,
    /// Up to 20 added nodes, in dump order.
    pub added: Vec<NodeSummary>,
    /// Up to 20 removed nodes, in dump order.
    pub removed: Vec<NodeSummary>,
}

impl TreeDiff {
    pub fn is_empty(&self) -> bool {
        self.added_count == 0 && self.removed_count == 0
    }
}

fn summary(n: &UiNode) -> NodeSummary {
    NodeSummary {
        node_type: n.node_type().to_string(),
        text: n.text().to_string(),
        id: n.id().to_string(),
        bounds: n.attr("bounds").to_string(),
    }
}

/// Nodes of `after` not in `before` (added) and of `before` not in `after` (removed), counted
/// as multisets, so a duplicated row shows up as one addition.
pub fn diff(before: &UiNode, after: &UiNode) -> TreeDiff {
    let mut counts: HashMap<String, i64> = HashMap::new();
    for n in before.walk() {
        *counts.entry(node_key(n)).or_default() += 1;
    }
    let mut out = TreeDiff::default();
    let mut remaining = counts.clone();
    for n in after.walk() {
        let k = node_key(n);
        match remaining.get_mut(&k) {
            Some(c) if *c > 0 => *c -= 1,
            _ => {
                out.added_count += 1;
                if out.added.len() < MAX_LISTED {
                    out.added.push(summary(n));
                }
            }
        }
    }
    for n in before.walk() {
        let k = node_key(n);
        if let Some(c) = remaining.get_mut(&k)
            && *c > 0
        {
            *c -= 1;
            out.removed_count += 1;
            if out.removed.len() < MAX_LISTED {
                out.removed.push(summary(n));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_lists_added_and_removed_nodes() {
        let a: UiNode = serde_json::from_str(
            r#"{"attributes":{},"children":[
            {"attributes":{"type":"Text","text":"a"},"children":[]},
            {"attributes":{"type":"Text","text":"b"},"children":[]}]}"#,
        )
        .unwrap();
        let b: UiNode = serde_json::from_str(
            r#"{"attributes":{},"children":[
            {"attributes":{"type":"Text","text":"b"},"children":[]},
            {"attributes":{"type":"Text","text":"c"},"children":[]},
            {"attributes":{"type":"Text","text":"c"},"children":[]}]}"#,
        )
        .unwrap();
        let d = diff(&a, &b);
        assert_eq!((d.added_count, d.removed_count), (2, 1));
        assert_eq!(d.added[0].text, "c");
        assert_eq!(d.removed[0].text, "a");
        assert!(diff(&a, &a).is_empty());
    }
}
