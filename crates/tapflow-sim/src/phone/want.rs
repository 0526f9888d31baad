//! Wants: what `aa start` asks the ability manager for (an element, or an action, URI, entities
//! and a MIME type for an implicit start, plus typed parameters), and the skill matching that
//! resolves an implicit want, following OpenHarmony's `Skill::Match` rules: the ability must
//! declare actions (an empty want action matches any), every want entity must be declared, and a
//! want URI must match a declared URI by scheme (and host when the skill names one); a want without
//! a URI matches only skills without URIs.

use super::model::{AbilitySpec, SkillSpec};
use indexmap::IndexMap;

/// `action.system.home`, the launcher action (`ohos.want.action.home` is its alias).
pub const ACTION_HOME: &str = "action.system.home";
pub const WANT_ACTION_HOME: &str = "ohos.want.action.home";
pub const ENTITY_HOME: &str = "entity.system.home";

/// A typed want parameter (`--pi`, `--pb`, `--ps`, `--psn`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WantParam {
    Int(i32),
    Bool(bool),
    Str(String),
}

impl WantParam {
    /// The value as an app template sees it.
    pub fn text(&self) -> String {
        match self {
            WantParam::Int(i) => i.to_string(),
            WantParam::Bool(b) => b.to_string(),
            WantParam::Str(s) => s.clone(),
        }
    }
}

/// One want, as `aa start`'s options build it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Want {
    pub device: String,
    pub bundle: String,
    pub ability: String,
    pub module: String,
    pub action: String,
    pub uri: String,
    pub entities: Vec<String>,
    pub mime_type: String,
    pub params: IndexMap<String, WantParam>,
}

impl Want {
    /// An explicit want for `bundle/ability` (`aa start -a A -b B [-m M]`).
    pub fn explicit(bundle: &str, ability: &str, module: Option<&str>) -> Self {
        Want {
            bundle: bundle.to_string(),
            ability: ability.to_string(),
            module: module.unwrap_or_default().to_string(),
            ..Default::default()
        }
    }

    /// An element with an ability name is explicit; anything else is resolved by skills.
    pub fn is_explicit(&self) -> bool {
        !self.ability.is_empty()
    }

    /// What an app template's `${want.KEY}` reads: `uri`, `action`, `type`, `entities` (comma
    /// separated), `bundleName`, `abilityName`, `moduleName`, or a parameter key.
    pub fn values(&self) -> IndexMap<String, String> {
        let mut m = IndexMap::new();
        m.insert("bundleName".into(), self.bundle.clone());
        m.insert("abilityName".into(), self.ability.clone());
        m.insert("moduleName".into(), self.module.clone());
        m.insert("uri".into(), self.uri.clone());
        m.insert("action".into(), self.action.clone());
        m.insert("type".into(), self.mime_type.clone());
        m.insert("entities".into(), self.entities.join(","));
        for (k, v) in &self.params {
            m.insert(k.clone(), v.text());
        }
        m
    }
}

/// The skill a launcher ability carries implicitly.
pub fn launcher_skill() -> SkillSpec {
    SkillSpec {
        actions: vec![ACTION_HOME.into(), WANT_ACTION_HOME.into()],
        entities: vec![ENTITY_HOME.into()],
        uris: Vec::new(),
    }
}

/// Every skill of an ability (the launcher skill first when it has one).
pub fn skills_of(a: &AbilitySpec) -> Vec<SkillSpec> {
    let mut v = Vec::new();
    if a.launcher {
        v.push(launcher_skill());
    }
    v.extend(a.skills.iter().cloned());
    v
}

/// Does `skill` answer `want`?
pub fn skill_matches(skill: &SkillSpec, want: &Want) -> bool {
    action_matches(skill, &want.action)
        && want.entities.iter().all(|e| skill.entities.contains(e))
        && uri_matches(skill, &want.uri)
}

fn action_matches(skill: &SkillSpec, action: &str) -> bool {
    if skill.actions.is_empty() {
        return false;
    }
    if action.is_empty() {
        return true;
    }
    let alias = match action {
        ACTION_HOME => WANT_ACTION_HOME,
        WANT_ACTION_HOME => ACTION_HOME,
        other => other,
    };
    skill.actions.iter().any(|a| a == action || a == alias)
}

fn uri_matches(skill: &SkillSpec, uri: &str) -> bool {
    if uri.is_empty() {
        return skill.uris.is_empty();
    }
    let lower = uri.to_ascii_lowercase();
    skill.uris.iter().any(|u| {
        let u = u.to_ascii_lowercase();
        match u.split_once("://") {
            // `scheme://host`: the want URI must start with it.
            Some(_) => lower.starts_with(&u),
            // `scheme` only: `scheme`, `scheme:`, `scheme:/…`, `scheme://…`.
            None => lower == u || lower.starts_with(&format!("{u}:")),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skill(actions: &[&str], entities: &[&str], uris: &[&str]) -> SkillSpec {
        SkillSpec {
            actions: actions.iter().map(|s| s.to_string()).collect(),
            entities: entities.iter().map(|s| s.to_string()).collect(),
            uris: uris.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn matching_follows_openharmony_rules() {
        let browser = skill(
            &["ohos.want.action.viewData"],
            &["entity.system.browsable"],
            &["http", "https"],
        );
        let uri = |u: &str| Want {
            uri: u.into(),
            ..Default::default()
        };
        assert!(skill_matches(&browser, &uri("http://www.baidu.com")));
        assert!(skill_matches(&browser, &uri("HTTPS://x")));
        assert!(!skill_matches(&browser, &uri("ftp://x")));
        // No URI in the want: only URI-less skills match.
        assert!(!skill_matches(&browser, &Want::default()));
        assert!(skill_matches(&launcher_skill(), &Want::default()));
        // Entities must all be declared; actions match by alias.
        let w = Want {
            action: WANT_ACTION_HOME.into(),
            entities: vec![ENTITY_HOME.into()],
            ..Default::default()
        };
        assert!(skill_matches(&launcher_skill(), &w));
        let w2 = Want {
            entities: vec!["entity.other".into()],
            ..Default::default()
        };
        assert!(!skill_matches(&launcher_skill(), &w2));
        // A skill without actions never matches.
        assert!(!skill_matches(&skill(&[], &[], &[]), &Want::default()));
    }
}
