//! Property tests of the UI functions over random layout trees: matching, collapsing, reading
//! order, handles and digests keep their promises on any tree, not just the recorded ones.

use proptest::prelude::*;

use crate::model::{Bounds, UiNode};
use crate::ui::digest::TreeDigest;
use crate::ui::handle::{handle_of, locate};
use crate::ui::matching::find;
use crate::ui::selector::{Selector, TextMatch};

/// A node with a unique accessibility id (assigned later) and random text/type/bounds/flags.
fn node() -> impl Strategy<Value = UiNode> {
    (
        prop::sample::select(vec!["OK", "Cancel", "Row", ""]),
        prop::sample::select(vec!["Text", "Button", "Column"]),
        (0i32..1000, 0i32..2000, 0i32..300, 0i32..300),
        any::<bool>(),
    )
        .prop_map(|(text, ty, (l, t, w, h), clickable)| {
            let mut n = UiNode::default();
            n.attributes.insert("text".into(), text.into());
            n.attributes.insert("type".into(), ty.into());
            n.attributes
                .insert("bounds".into(), Bounds::new(l, t, l + w, t + h).to_string());
            n.attributes
                .insert("clickable".into(), clickable.to_string());
            n
        })
}

fn subtree() -> impl Strategy<Value = UiNode> {
    node().prop_recursive(3, 24, 4, |inner| {
        (node(), prop::collection::vec(inner, 0..4)).prop_map(|(mut n, kids)| {
            n.children = kids;
            n
        })
    })
}

fn tree() -> impl Strategy<Value = UiNode> {
    prop::collection::vec(subtree(), 1..3).prop_map(|windows| {
        let mut root = UiNode::default();
        root.attributes
            .insert("bounds".into(), "[0,0][1260,2720]".into());
        for (w, content) in windows.into_iter().enumerate() {
            let wid = 10 + w as i64;
            let mut win = UiNode::default();
            win.attributes.insert("type".into(), "root".into());
            win.attributes
                .insert("hostWindowId".into(), wid.to_string());
            win.attributes
                .insert("bundleName".into(), format!("app.{w}"));
            win.attributes
                .insert("bounds".into(), "[0,0][1260,2720]".into());
            win.children.push(content);
            root.children.push(win);
        }
        // Unique ids per window, as uitest assigns them.
        let mut next = 0;
        for win in &mut root.children {
            let wid = win.attr("hostWindowId").to_string();
            stamp(win, &wid, &mut next);
        }
        root
    })
}

fn stamp(n: &mut UiNode, wid: &str, next: &mut u32) {
    n.attributes
        .insert("accessibilityId".into(), next.to_string());
    n.attributes
        .insert("hashcode".into(), format!("{wid}:{next}"));
    n.attributes.insert("hostWindowId".into(), wid.to_string());
    *next += 1;
    for c in &mut n.children {
        stamp(c, wid, next);
    }
}

fn reverse_all(n: &mut UiNode) {
    n.children.reverse();
    for c in &mut n.children {
        reverse_all(c);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn matches_are_sorted_visible_unnested_and_relocatable(
        t in tree(),
        text in prop::sample::select(vec!["OK", "Row", "C"]),
        mode in prop::sample::select(vec![TextMatch::Exact, TextMatch::Contains]),
    ) {
        let sel = Selector::new(Some(text.into()), None, None, mode).unwrap();
        let hits = find(&t, &sel);
        for w in hits.windows(2) {
            prop_assert!((w[0].bounds.top, w[0].bounds.left) <= (w[1].bounds.top, w[1].bounds.left));
        }
        for (i, a) in hits.iter().enumerate() {
            prop_assert!(!a.bounds.is_empty());
            prop_assert!(sel.matches_node(a.node));
            for b in &hits[i + 1..] {
                let nested = a.path.starts_with(&b.path) || b.path.starts_with(&a.path);
                prop_assert!(!nested, "nested hits {:?} {:?}", a.path, b.path);
            }
            let h = handle_of(a, sel.hint(None));
            let back = locate(&t, &h);
            prop_assert!(back.is_some_and(|m| m.path == a.path));
        }
    }

    #[test]
    fn digest_ignores_sibling_order(t in tree()) {
        let mut r = t.clone();
        reverse_all(&mut r);
        prop_assert_eq!(TreeDigest::of(&r).digest, TreeDigest::of(&t).digest);
        prop_assert_eq!(TreeDigest::of(&t).node_count + 1, t.node_count());
    }
}
