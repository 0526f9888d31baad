//! `aa dump -l` mission lists.
//!
//! A mission block starts with `Mission ID #<id>  mission name #[#bundle:module:Ability] …`; the
//! more indented lines below it (`bundle name [..]`, `main name [..]`, `state #FOREGROUND`) belong
//! to it. Extension and pending-want records further down carry the same keys but are not
//! missions, so a block ends at the first line that is not indented deeper than its header.
use crate::model::Mission;

pub fn parse_missions(text: &str) -> Vec<Mission> {
    let mut missions = Vec::new();
    let mut current: Option<(usize, Mission)> = None;
    for raw in text.lines() {
        let line = raw.trim_end_matches('\r');
        let content = line.trim_start();
        if content.is_empty() {
            continue;
        }
        let indent = line.len() - content.len();
        if let Some(rest) = content.strip_prefix("Mission ID #") {
            missions.extend(current.take().map(|(_, m)| m));
            current = parse_header(rest).map(|m| (indent, m));
            continue;
        }
        let Some((header_indent, mission)) = current.as_mut() else {
            continue;
        };
        if indent <= *header_indent {
            missions.extend(current.take().map(|(_, m)| m));
            continue;
        }
        if let Some(v) = bracketed(content, "bundle name [") {
            mission.bundle = v.to_string();
        } else if let Some(v) = bracketed(content, "main name [") {
            mission.ability = v.to_string();
        } else if let Some(rest) = content.strip_prefix("state #")
            && mission.state.is_empty()
        {
            mission.state = rest.split_whitespace().next().unwrap_or("").to_string();
        }
    }
    missions.extend(current.map(|(_, m)| m));
    missions
}

/// `139  mission name #[#com.kuaishou.hmapp:kwai:EntryAbility]  lockedState #0 …`
fn parse_header(rest: &str) -> Option<Mission> {
    let digits_end = rest
        .find(|c: char| !c.is_ascii_digit() && c != '-')
        .unwrap_or(rest.len());
    let mission_id = rest[..digits_end].parse().ok()?;
    let name = rest
        .split_once("mission name #[")
        .and_then(|(_, n)| n.split_once(']'))
        .map(|(n, _)| n.trim_start_matches('#'))
        .unwrap_or("");
    // `bundle:module:Ability`; older builds omit the module.
    let parts: Vec<&str> = name.split(':').collect();
    let (bundle, module, ability) = match parts.as_slice() {
        [b, a] => (*b, None, *a),
        [b, m @ .., a] => (*b, Some(m.join(":")), *a),
        [b] => (*b, None, ""),
        [] => ("", None, ""),
    };
    Some(Mission {
        mission_id,
        bundle: bundle.to_string(),
        module: module.filter(|m| !m.is_empty()),
        ability: ability.to_string(),
        state: String::new(),
    })
}

fn bracketed<'a>(content: &'a str, prefix: &str) -> Option<&'a str> {
    content
        .strip_prefix(prefix)?
        .split_once(']')
        .map(|(v, _)| v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_part_name_and_missing_fields() {
        let t = "  Mission ID #7  mission name #[#com.a:MainAbility]  lockedState #0\n    state #BACKGROUND  start time [1]\n";
        let m = parse_missions(t);
        assert_eq!(
            m,
            vec![Mission {
                mission_id: 7,
                bundle: "com.a".into(),
                module: None,
                ability: "MainAbility".into(),
                state: "BACKGROUND".into(),
            }]
        );
    }

    #[test]
    fn garbage_gives_nothing_and_never_panics() {
        assert!(parse_missions("").is_empty());
        assert!(parse_missions("Mission ID #x mission name").is_empty());
        assert_eq!(parse_missions("Mission ID #5").len(), 1);
        let _ = parse_missions("Mission ID #1 mission name #[");
    }

    #[test]
    fn app_state_does_not_override_state() {
        let t =
            "Mission ID #1  mission name #[#b:m:A]\n  app state #BACKGROUND\n  state #FOREGROUND\n";
        assert_eq!(parse_missions(t)[0].state, "FOREGROUND");
    }
}
