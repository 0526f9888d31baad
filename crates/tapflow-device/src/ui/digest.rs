//! Order-independent digests of layout trees and the post-action evidence built from them.
//!
//! A node's identity for the digest is what a user could notice: type, text, id, description,
//! hint, bounds and its state flags, plus the window's bundle and page. Transient bookkeeping
//! (accessibility ids, hashcodes, hierarchy paths) is left out so that an unchanged screen
//! dumped twice digests the same. The tree digest hashes the *sorted multiset* of node hashes:
//! reordering siblings or windows does not change it, any visible change does.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::model::UiNode;
use crate::ui::windows::foreground_app;

/// Attributes that make up a node's identity for digests and diffs.
pub const IDENTITY_ATTRS: &[&str] = &[
    "type",
    "text",
    "id",
    "key",
    "description",
    "hint",
    "bounds",
    "enabled",
    "focused",
    "selected",
    "checked",
    "clickable",
    "longClickable",
    "scrollable",
    "checkable",
    "bundleName",
    "pagePath",
];

/// A digest with the counts evidence reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeDigest {
    pub digest: String,
    pub node_count: usize,
    pub interactive_node_count: usize,
    pub foreground_app: Option<String>,
}

/// Post-action evidence (`verify: true`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Evidence {
    /// Order-independent digest of the post-action node multiset (16 hex digits).
    pub digest: String,
    /// Nodes in the post-action tree (synthetic root excluded).
    pub node_count: usize,
    /// Nodes that are clickable, long-clickable, scrollable or checkable.
    pub interactive_node_count: usize,
    /// Bundle of the focused application window, when the dump shows one.
    pub foreground_app: Option<String>,
    /// Whether the post-action digest differs from the pre-action one. false is evidence, not failure.
    pub changed_from_before: bool,
}

/// One node's identity line (also used by diffs).
pub fn node_key(n: &UiNode) -> String {
    let mut s = String::new();
    for a in IDENTITY_ATTRS {
        s.push_str(n.attr(a));
        s.push('\u{1f}');
    }
    s
}

fn is_synthetic_root(n: &UiNode) -> bool {
    n.node_type().is_empty() && n.attr("hostWindowId").is_empty() && n.attr("bundleName").is_empty()
}

fn interactive(n: &UiNode) -> bool {
    ["clickable", "longClickable", "scrollable", "checkable"]
        .iter()
        .any(|f| n.flag(f))
}

impl TreeDigest {
    pub fn of(root: &UiNode) -> Self {
        let mut hashes: Vec<[u8; 32]> = Vec::new();
        let mut interactive_count = 0;
        for n in root.walk() {
            if std::ptr::eq(n, root) && is_synthetic_root(n) {
                continue;
            }
            if interactive(n) {
                interactive_count += 1;
            }
            hashes.push(Sha256::digest(node_key(n).as_bytes()).into());
        }
        hashes.sort_unstable();
        let mut all = Sha256::new();
        for h in &hashes {
            all.update(h);
        }
        TreeDigest {
            digest: hex::encode(&all.finalize()[..8]),
            node_count: hashes.len(),
            interactive_node_count: interactive_count,
            foreground_app: foreground_app(root),
        }
    }
}

impl Evidence {
    pub fn of(after: &UiNode, before: Option<&TreeDigest>) -> Self {
        let d = TreeDigest::of(after);
        Evidence {
            changed_from_before: before.is_some_and(|b| b.digest != d.digest),
            digest: d.digest,
            node_count: d.node_count,
            interactive_node_count: d.interactive_node_count,
            foreground_app: d.foreground_app,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(name: &str) -> UiNode {
        let p = format!(
            "{}/../../tests/fixtures/harmonyos/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
    }

    #[test]
    fn digest_ignores_order_but_sees_changes() {
        let t = load("layout_haptest_logindemo_login_pretty.json");
        let d = TreeDigest::of(&t);
        assert_eq!(d.node_count, t.node_count() - 1);
        assert_eq!(d.foreground_app.as_deref(), Some("com.huawei.logindemo"));
        let mut shuffled = t.clone();
        shuffled.children[0].children.reverse();
        assert_eq!(TreeDigest::of(&shuffled).digest, d.digest);
        let mut changed = t.clone();
        changed.children[0]
            .attributes
            .insert("focused".into(), "false".into());
        assert_ne!(TreeDigest::of(&changed).digest, d.digest);
        let ev = Evidence::of(&changed, Some(&d));
        assert!(ev.changed_from_before);
        assert!(!Evidence::of(&t, Some(&d)).changed_from_before);
        assert_ne!(
            TreeDigest::of(&load("layout_haptest_logindemo_save_keyboard_pretty.json")).digest,
            d.digest
        );
    }
}
