//! Selectors by state and position: extensions beyond the tool reference (each property is
//! marked `"x-tapflow-extension": true` in the exact input schema; the schema `tools/list`
//! publishes drops vendor keys to stay small). They
//! narrow what the base criteria (`text`, `element_type`, `element_id`) match:
//!
//! - state: `checked`, `enabled`, `focused`, `selected`, `clickable`, `scrollable` (the
//!   element's own flag must equal the value);
//! - position, each holding a selector (`{text: …}`, `{element_id: …}`, …) of an anchor:
//!   `below`, `above`, `left_of`, `right_of` (by bounds: entirely on that side of one anchor),
//!   `child_of` (inside an anchor in the tree), `contains_child` (an anchor inside it).
//!
//! A call without them matches exactly as the reference says. (Anchors are boxed: search
//! arguments travel by value and most calls have none.)

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::ui::matching::{Match, find};
use crate::ui::selector::{Selector, TextMatch};

/// An anchor element for a position filter.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Anchor {
    // The anchor's text (exact unless match_mode says otherwise). Plain comments here: the
    // names say it to a model, and each word is repeated in every selector tool's schema.
    pub text: Option<String>,
    // Its node type.
    pub element_type: Option<String>,
    // Its id (ArkUI id / key, Android resource-id).
    pub element_id: Option<String>,
    // How its `text` is compared (default exact).
    pub match_mode: Option<TextMatch>,
}

/// State and position filters (all optional; all given must hold).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Refine {
    /// State filters (`checked` … `scrollable`): the element's flag equals this.
    #[schemars(extend("x-tapflow-extension" = true))]
    pub checked: Option<bool>,
    // The element's `enabled` flag equals this (described once, at `checked`).
    #[schemars(extend("x-tapflow-extension" = true))]
    pub enabled: Option<bool>,
    // Its `focused` flag equals this.
    #[schemars(extend("x-tapflow-extension" = true))]
    pub focused: Option<bool>,
    // Its `selected` flag equals this.
    #[schemars(extend("x-tapflow-extension" = true))]
    pub selected: Option<bool>,
    // Its `clickable` flag equals this.
    #[schemars(extend("x-tapflow-extension" = true))]
    pub clickable: Option<bool>,
    // Its `scrollable` flag equals this.
    #[schemars(extend("x-tapflow-extension" = true))]
    pub scrollable: Option<bool>,
    /// Entirely below this anchor.
    #[schemars(extend("x-tapflow-extension" = true))]
    pub below: Option<Box<Anchor>>,
    /// Entirely above this anchor.
    #[schemars(extend("x-tapflow-extension" = true))]
    pub above: Option<Box<Anchor>>,
    /// Entirely left of this anchor.
    #[schemars(extend("x-tapflow-extension" = true))]
    pub left_of: Option<Box<Anchor>>,
    /// Entirely right of this anchor.
    #[schemars(extend("x-tapflow-extension" = true))]
    pub right_of: Option<Box<Anchor>>,
    /// Inside this anchor (in the tree).
    #[schemars(extend("x-tapflow-extension" = true))]
    pub child_of: Option<Box<Anchor>>,
    /// Contains this anchor.
    #[schemars(extend("x-tapflow-extension" = true))]
    pub contains_child: Option<Box<Anchor>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Relation {
    Below,
    Above,
    LeftOf,
    RightOf,
    ChildOf,
    ContainsChild,
}

/// [`Refine`] compiled (anchors as selectors).
#[derive(Debug, Clone)]
pub struct CompiledRefine {
    states: Vec<(&'static str, bool)>,
    relations: Vec<(Relation, Selector)>,
}

impl Refine {
    /// The names of the filters given, in declaration order.
    pub fn given(&self) -> Vec<&'static str> {
        let mut out: Vec<&'static str> = self.states().iter().map(|(n, _)| *n).collect();
        out.extend(self.anchors().iter().map(|(n, _, _)| *n));
        out
    }

    pub fn is_empty(&self) -> bool {
        self.given().is_empty()
    }

    fn states(&self) -> Vec<(&'static str, bool)> {
        [
            ("checked", self.checked),
            ("enabled", self.enabled),
            ("focused", self.focused),
            ("selected", self.selected),
            ("clickable", self.clickable),
            ("scrollable", self.scrollable),
        ]
        .into_iter()
        .filter_map(|(n, v)| v.map(|v| (n, v)))
        .collect()
    }

    fn anchors(&self) -> Vec<(&'static str, Relation, &Anchor)> {
        [
            ("below", Relation::Below, &self.below),
            ("above", Relation::Above, &self.above),
            ("left_of", Relation::LeftOf, &self.left_of),
            ("right_of", Relation::RightOf, &self.right_of),
            ("child_of", Relation::ChildOf, &self.child_of),
            (
                "contains_child",
                Relation::ContainsChild,
                &self.contains_child,
            ),
        ]
        .into_iter()
        .filter_map(|(n, r, a)| a.as_deref().map(|a| (n, r, a)))
        .collect()
    }

    /// Compiles the anchors; `Err((param, why))` for an anchor without criteria or with a bad
    /// regular expression.
    pub fn compile(&self) -> Result<CompiledRefine, (&'static str, String)> {
        let mut relations = Vec::new();
        for (name, rel, a) in self.anchors() {
            let sel = Selector::new(
                a.text.clone(),
                a.element_type.clone(),
                a.element_id.clone(),
                a.match_mode.unwrap_or_default(),
            )
            .map_err(|e| {
                (
                    name,
                    format!("`{name}.text` is not a valid regular expression: {e}"),
                )
            })?;
            if !sel.has_criteria() {
                return Err((
                    name,
                    format!("`{name}` needs at least one of text, element_type, element_id"),
                ));
            }
            relations.push((rel, sel));
        }
        Ok(CompiledRefine {
            states: self.states(),
            relations,
        })
    }
}

impl CompiledRefine {
    /// Keeps the hits that satisfy every filter (anchors searched in the same scope).
    pub fn retain(&self, root: &crate::model::UiNode, scope: &Selector, hits: &mut Vec<Match<'_>>) {
        hits.retain(|m| {
            self.states
                .iter()
                .all(|(flag, want)| m.node.flag(flag) == *want)
        });
        for (rel, anchor) in &self.relations {
            let anchor = anchor
                .clone()
                .scoped(scope.bundle_name.clone(), scope.window_id);
            let anchors = find(root, &anchor);
            hits.retain(|m| anchors.iter().any(|a| holds(*rel, m, a)));
        }
    }
}

fn holds(rel: Relation, m: &Match<'_>, a: &Match<'_>) -> bool {
    if m.path == a.path {
        return false;
    }
    let (b, ab) = (m.bounds, a.bounds);
    match rel {
        Relation::Below => b.top >= ab.bottom,
        Relation::Above => b.bottom <= ab.top,
        Relation::LeftOf => b.right <= ab.left,
        Relation::RightOf => b.left >= ab.right,
        Relation::ChildOf => m.path.len() > a.path.len() && m.path.starts_with(&a.path),
        Relation::ContainsChild => a.path.len() > m.path.len() && a.path.starts_with(&m.path),
    }
}
