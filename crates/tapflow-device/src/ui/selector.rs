//! Search criteria for UI elements (`text`, `element_type`, `element_id`, scoped by
//! `bundle_name` / `window_id`) and how each is compared with a node.
//!
//! Text is compared with the node's `text` attribute: exactly by default (the contract's search
//! mode must "match exactly one element"), or as a substring or regular expression on request.
//! `element_type` compares `type` exactly; `element_id` compares the ArkUI id (`id`, else `key`).

use regex::Regex;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::model::{LookupHint, UiNode};

/// How `text` is compared.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TextMatch {
    #[default]
    Exact,
    Contains,
    Regex,
}

impl TextMatch {
    /// The name handles and parameters use.
    pub fn name(self) -> &'static str {
        match self {
            TextMatch::Exact => "exact",
            TextMatch::Contains => "contains",
            TextMatch::Regex => "regex",
        }
    }

    /// The mode a name designates (`None` for anything else).
    pub fn parse(name: &str) -> Option<TextMatch> {
        [TextMatch::Exact, TextMatch::Contains, TextMatch::Regex]
            .into_iter()
            .find(|m| m.name() == name)
    }

    /// Whether `have` satisfies `want` in this mode (`regex`: an expression that does not
    /// compile satisfies nothing).
    pub fn accepts(self, want: &str, have: &str) -> bool {
        match self {
            TextMatch::Exact => have == want,
            TextMatch::Contains => have.contains(want),
            TextMatch::Regex => Regex::new(want).is_ok_and(|r| r.is_match(have)),
        }
    }
}

/// Compiled search criteria.
#[derive(Debug, Clone)]
pub struct Selector {
    pub text: Option<String>,
    pub element_type: Option<String>,
    pub element_id: Option<String>,
    pub bundle_name: Option<String>,
    pub window_id: Option<i64>,
    pub text_match: TextMatch,
    regex: Option<Regex>,
    /// State and position filters (tapflow extensions), applied after matching.
    pub refine: Option<std::sync::Arc<crate::ui::refine::CompiledRefine>>,
}

impl Selector {
    /// Builds a selector; `Err` names why a regular expression does not compile.
    pub fn new(
        text: Option<String>,
        element_type: Option<String>,
        element_id: Option<String>,
        text_match: TextMatch,
    ) -> Result<Self, String> {
        let regex = match (&text, text_match) {
            (Some(t), TextMatch::Regex) => Some(Regex::new(t).map_err(|e| e.to_string())?),
            _ => None,
        };
        Ok(Selector {
            text,
            element_type,
            element_id,
            bundle_name: None,
            window_id: None,
            text_match,
            regex,
            refine: None,
        })
    }

    /// With state and position filters (none when `refine` is empty).
    pub fn refined(mut self, refine: Option<crate::ui::refine::CompiledRefine>) -> Self {
        self.refine = refine.map(std::sync::Arc::new);
        self
    }

    pub fn scoped(mut self, bundle_name: Option<String>, window_id: Option<i64>) -> Self {
        self.bundle_name = bundle_name;
        self.window_id = window_id;
        self
    }

    /// The selector a handle's lookup hint describes, its text compared with `text_match`
    /// (callers take it from the hint's `match_mode`).
    pub fn from_hint(hint: &LookupHint, text_match: TextMatch) -> Result<Self, String> {
        Ok(Selector::new(
            hint.text.clone(),
            hint.element_type.clone(),
            hint.element_id.clone(),
            text_match,
        )?
        .scoped(hint.bundle_name.clone(), None))
    }

    /// At least one of text, type, id is given.
    pub fn has_criteria(&self) -> bool {
        self.text.is_some() || self.element_type.is_some() || self.element_id.is_some()
    }

    /// Whether the node itself satisfies the criteria (scope is checked by the matcher).
    pub fn matches_node(&self, node: &UiNode) -> bool {
        if let Some(t) = &self.element_type
            && node.node_type() != t
        {
            return false;
        }
        if let Some(id) = &self.element_id
            && node.id() != id
        {
            return false;
        }
        if let Some(text) = &self.text {
            let have = node.text();
            let ok = match self.text_match {
                TextMatch::Exact => have == text,
                TextMatch::Contains => have.contains(text.as_str()),
                TextMatch::Regex => self.regex.as_ref().is_some_and(|r| r.is_match(have)),
            };
            if !ok {
                return false;
            }
        }
        true
    }

    /// The lookup hint a handle found by this selector carries (index only when needed; the
    /// text's match mode whenever there is a text, so a refresh compares it the same way).
    pub fn hint(&self, index: Option<usize>) -> LookupHint {
        LookupHint {
            text: self.text.clone(),
            element_type: self.element_type.clone(),
            element_id: self.element_id.clone(),
            bundle_name: self.bundle_name.clone(),
            index,
            match_mode: self
                .text
                .as_ref()
                .map(|_| self.text_match.name().to_string()),
        }
    }

    /// A short human description, for messages.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(t) = &self.text {
            let how = match self.text_match {
                TextMatch::Exact => "text",
                TextMatch::Contains => "text containing",
                TextMatch::Regex => "text matching",
            };
            parts.push(format!("{how} {t:?}"));
        }
        if let Some(t) = &self.element_type {
            parts.push(format!("type {t:?}"));
        }
        if let Some(i) = &self.element_id {
            parts.push(format!("id {i:?}"));
        }
        if let Some(b) = &self.bundle_name {
            parts.push(format!("in bundle {b}"));
        }
        if let Some(w) = self.window_id {
            parts.push(format!("in window {w}"));
        }
        parts.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(text: &str, ty: &str, id: &str) -> UiNode {
        let mut n = UiNode::default();
        n.attributes.insert("text".into(), text.into());
        n.attributes.insert("type".into(), ty.into());
        n.attributes.insert("key".into(), id.into());
        n
    }

    #[test]
    fn text_modes_type_and_id() {
        let n = node("Login now", "Button", "loginBtn");
        let exact = Selector::new(Some("Login".into()), None, None, TextMatch::Exact).unwrap();
        assert!(!exact.matches_node(&n));
        let contains =
            Selector::new(Some("Login".into()), None, None, TextMatch::Contains).unwrap();
        assert!(contains.matches_node(&n));
        let re = Selector::new(
            Some("^Log.*now$".into()),
            Some("Button".into()),
            None,
            TextMatch::Regex,
        )
        .unwrap();
        assert!(re.matches_node(&n));
        let by_id = Selector::new(
            None,
            Some("Button".into()),
            Some("loginBtn".into()),
            TextMatch::Exact,
        )
        .unwrap();
        assert!(by_id.matches_node(&n));
        let wrong_type = Selector::new(None, Some("Text".into()), None, TextMatch::Exact).unwrap();
        assert!(!wrong_type.matches_node(&n));
        assert!(Selector::new(Some("(".into()), None, None, TextMatch::Regex).is_err());
        assert!(
            !Selector::new(None, None, None, TextMatch::Exact)
                .unwrap()
                .has_criteria()
        );
    }

    #[test]
    fn hints_record_the_text_match_mode() {
        let re = Selector::new(Some("^A.+".into()), None, None, TextMatch::Regex).unwrap();
        let hint = re.hint(Some(2));
        assert_eq!(hint.match_mode.as_deref(), Some("regex"));
        assert_eq!(hint.index, Some(2));
        let back = Selector::from_hint(&hint, TextMatch::parse("regex").unwrap()).unwrap();
        assert!(back.matches_node(&node("Alice", "Text", "")));
        let by_type = Selector::new(None, Some("Text".into()), None, TextMatch::Exact).unwrap();
        assert_eq!(by_type.hint(None).match_mode, None, "no text, no mode");
        for m in [TextMatch::Exact, TextMatch::Contains, TextMatch::Regex] {
            assert_eq!(TextMatch::parse(m.name()), Some(m));
        }
        assert_eq!(TextMatch::parse("fuzzy"), None);
        assert!(TextMatch::Exact.accepts("ab", "ab") && !TextMatch::Exact.accepts("a", "ab"));
        assert!(TextMatch::Contains.accepts("b", "abc"));
        assert!(TextMatch::Regex.accepts("^a.c$", "abc"));
        assert!(
            !TextMatch::Regex.accepts("(", "("),
            "a broken expression matches nothing"
        );
        // Serialised only when present, so older consumers see the handles they knew.
        let v = serde_json::to_value(by_type.hint(None)).unwrap();
        assert!(v.get("match_mode").is_none());
        let old: LookupHint = serde_json::from_value(serde_json::json!({"text": "x"})).unwrap();
        assert_eq!(old.match_mode, None);
    }
}
