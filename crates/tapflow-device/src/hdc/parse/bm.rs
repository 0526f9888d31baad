//! `bm dump -a` and `bm dump -n <bundle>`.
//!
//! `-a`: `ID: <user>:` headers, then one `\t<bundle>` line per installed bundle.
//! `-n`: a `<bundle>:` line, then one pretty-printed JSON object, reduced here to [`PackageInfo`].
//! Numbers in bm's JSON are sometimes strings on other builds, so every field accepts both.
use super::ParseError;
use crate::model::{AbilityInfo, ModuleInfo, PackageInfo};
use serde_json::{Map, Value};

const WHAT_LIST: &str = "bundle list";
const WHAT_INFO: &str = "bundle info";

/// Bundle names in listing order (deduplicated across users).
///
/// Lines made only of dots are elision marks (documentation copies end with `  ...`) and are
/// skipped; any other line that is neither a user header nor a bundle name is an error, so a
/// failure message is never mistaken for a bundle.
pub fn parse_bundle_list(text: &str) -> Result<Vec<String>, ParseError> {
    let mut bundles: Vec<String> = Vec::new();
    for line in super::lines(text) {
        if is_user_header(line) || line.chars().all(|c| c == '.') {
            continue;
        }
        if !is_bundle_name(line) {
            return Err(ParseError::new(WHAT_LIST, line));
        }
        if !bundles.iter().any(|b| b == line) {
            bundles.push(line.to_string());
        }
    }
    Ok(bundles)
}

/// `ID: 100:`
fn is_user_header(line: &str) -> bool {
    line.strip_prefix("ID:")
        .and_then(|rest| rest.trim().strip_suffix(':'))
        .is_some_and(|id| !id.is_empty() && id.chars().all(|c| c.is_ascii_digit()))
}

/// Reverse-domain bundle names: letters, digits, `.`, `_`, `-`, starting with a letter.
fn is_bundle_name(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

/// `bm dump -n` output → [`PackageInfo`].
///
/// bm's refusal (`error: failed to get information and the parameters may be wrong.`) is a
/// [`ParseError`] whose `detail` is that text. Text that is not valid JSON after the first `{` is
/// a [`ParseError`] naming the line and column in the *whole* output (e.g. the `...` elisions of
/// a README copy): a real device never elides, so nothing is guessed around a gap.
pub fn parse_bundle_info(text: &str) -> Result<PackageInfo, ParseError> {
    let Some(start) = text.find('{') else {
        let said = text.trim();
        return Err(ParseError::new(
            WHAT_INFO,
            if said.is_empty() { "no output" } else { said },
        ));
    };
    let head = &text[..start];
    if let Some(pos) = head.find("error:") {
        // `error:` and everything after it on the device's words, verbatim.
        return Err(ParseError::new(WHAT_INFO, text[pos..].trim()));
    }
    let mut stream = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
    let json = match stream.next() {
        Some(Ok(v)) => v,
        Some(Err(e)) => {
            let line = head.matches('\n').count() + e.line();
            let column = if e.line() == 1 {
                start - head.rfind('\n').map_or(0, |i| i + 1) + e.column()
            } else {
                e.column()
            };
            return Err(ParseError::new(
                WHAT_INFO,
                format!("invalid JSON at line {line} column {column} of the output: {e}"),
            ));
        }
        None => return Err(ParseError::new(WHAT_INFO, "no JSON object")),
    };
    let Value::Object(obj) = json else {
        return Err(ParseError::new(WHAT_INFO, "JSON is not an object"));
    };
    // The `<bundle>:` line names the bundle when the JSON (abridged) does not.
    let header_name = head
        .lines()
        .map(str::trim)
        .rev()
        .find(|l| !l.is_empty())
        .and_then(|l| l.strip_suffix(':'))
        .map(str::trim)
        .filter(|n| is_bundle_name(n));
    Ok(package_from_json(&obj, header_name))
}

fn package_from_json(obj: &Map<String, Value>, header_name: Option<&str>) -> PackageInfo {
    let app = obj.get("applicationInfo").and_then(Value::as_object);
    let from_app_or_top = |key: &str| app.and_then(|a| a.get(key)).or_else(|| obj.get(key));

    let bundle_name = app
        .and_then(|a| string(a.get("bundleName")))
        .or_else(|| string(obj.get("name")))
        .or_else(|| header_name.map(str::to_string))
        .unwrap_or_default();
    let entry_module = string(obj.get("entryModuleName")).or_else(|| string(obj.get("mainEntry")));

    let mut modules = Vec::new();
    let mut abilities = Vec::new();
    let mut main: Option<(String, String)> = None;
    for module in array(obj.get("hapModuleInfos")) {
        let Some(m) = module.as_object() else {
            continue;
        };
        let name = string(m.get("moduleName"))
            .or_else(|| string(m.get("name")))
            .unwrap_or_default();
        let main_ability =
            string(m.get("mainElementName")).or_else(|| string(m.get("mainAbility")));
        if main.is_none()
            && entry_module.as_deref() == Some(name.as_str())
            && let Some(a) = &main_ability
        {
            main = Some((a.clone(), name.clone()));
        }
        for ability in array(m.get("abilityInfos")) {
            if let Some(a) = ability.as_object() {
                abilities.push(ability_from_json(a, &name, &bundle_name));
            }
        }
        modules.push(ModuleInfo {
            module_type: module_type(m.get("moduleType")),
            main_ability,
            name,
        });
    }
    // Without an entry module naming its main element: the entry-type module's, then the first
    // launcher ability (what a home screen would start).
    if main.is_none() {
        main = modules
            .iter()
            .find(|m| m.module_type.as_deref() == Some("entry") && m.main_ability.is_some())
            .map(|m| (m.main_ability.clone().unwrap_or_default(), m.name.clone()))
            .or_else(|| {
                abilities
                    .iter()
                    .find(|a| a.is_launcher)
                    .map(|a| (a.name.clone(), a.module.clone()))
            });
    }

    let permissions = array(obj.get("reqPermissions"))
        .filter_map(|p| match p {
            Value::String(s) => Some(s.clone()),
            Value::Object(o) => string(o.get("name")),
            _ => None,
        })
        .collect();

    PackageInfo {
        bundle_name,
        version_name: string(from_app_or_top("versionName")),
        version_code: number(from_app_or_top("versionCode")),
        debug: boolean(
            app.and_then(|a| a.get("debug"))
                .or_else(|| obj.get("debug")),
        ),
        entry_module,
        main_ability: main.as_ref().map(|(a, _)| a.clone()),
        main_module: main.map(|(_, m)| m),
        modules,
        abilities,
        permissions,
    }
}

fn ability_from_json(a: &Map<String, Value>, module: &str, bundle: &str) -> AbilityInfo {
    let mut actions: Vec<String> = Vec::new();
    let mut entities: Vec<String> = Vec::new();
    let mut launcher_skill = false;
    for skill in array(a.get("skills")) {
        let skill_actions: Vec<String> = array(skill.get("actions"))
            .filter_map(|v| string(Some(v)))
            .collect();
        let skill_entities: Vec<String> = array(skill.get("entities"))
            .filter_map(|v| string(Some(v)))
            .collect();
        // One skill must carry both: that is how a launcher want matches.
        if skill_entities.iter().any(|e| e == "entity.system.home")
            && skill_actions
                .iter()
                .any(|x| x == "action.system.home" || x == "ohos.want.action.home")
        {
            launcher_skill = true;
        }
        for x in skill_actions {
            if !actions.contains(&x) {
                actions.push(x);
            }
        }
        for e in skill_entities {
            if !entities.contains(&e) {
                entities.push(e);
            }
        }
    }
    AbilityInfo {
        name: string(a.get("name")).unwrap_or_default(),
        module: string(a.get("moduleName")).unwrap_or_else(|| module.to_string()),
        bundle: string(a.get("bundleName")).unwrap_or_else(|| bundle.to_string()),
        kind: ability_kind(a.get("type")),
        visible: boolean(a.get("visible")).or_else(|| boolean(a.get("exported"))),
        is_launcher: launcher_skill || boolean(a.get("isLauncherAbility")) == Some(true),
        actions,
        entities,
    }
}

/// bm's `ModuleType` enum (1 entry, 2 feature, 3 shared) or its name.
fn module_type(v: Option<&Value>) -> Option<String> {
    enum_name(v, &["unknown", "entry", "feature", "shared"])
}

/// bm's `AbilityType` enum (1 page, 2 service, 3 data, 4 form, 5 extension) or its name.
fn ability_kind(v: Option<&Value>) -> Option<String> {
    enum_name(
        v,
        &["unknown", "page", "service", "data", "form", "extension"],
    )
}

fn enum_name(v: Option<&Value>, names: &[&str]) -> Option<String> {
    match v? {
        Value::Number(n) => {
            let i = usize::try_from(n.as_u64()?).ok()?;
            Some(
                names
                    .get(i)
                    .map_or_else(|| i.to_string(), |s| s.to_string()),
            )
        }
        Value::String(s) if s.chars().all(|c| c.is_ascii_digit()) && !s.is_empty() => {
            enum_name(Some(&Value::from(s.parse::<u64>().ok()?)), names)
        }
        Value::String(s) if !s.is_empty() => Some(s.to_ascii_lowercase()),
        _ => None,
    }
}

fn array(v: Option<&Value>) -> impl Iterator<Item = &Value> {
    v.and_then(Value::as_array).into_iter().flatten()
}

/// A non-empty string (bm writes `""` for unset).
fn string(v: Option<&Value>) -> Option<String> {
    v.and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

fn number(v: Option<&Value>) -> Option<u64> {
    match v? {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

fn boolean(v: Option<&Value>) -> Option<bool> {
    match v? {
        Value::Bool(b) => Some(*b),
        Value::String(s) => match s.as_str() {
            "true" | "1" => Some(true),
            "false" | "0" => Some(false),
            _ => None,
        },
        Value::Number(n) => n.as_u64().map(|n| n != 0),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_rejects_failure_text_and_keeps_order() {
        assert_eq!(
            parse_bundle_list("ID: 100:\n\tcom.b\n\tcom.a\nID: 0:\n\tcom.b\n"),
            Ok(vec!["com.b".to_string(), "com.a".to_string()])
        );
        assert!(parse_bundle_list("error: failed to get information.\n").is_err());
        assert_eq!(parse_bundle_list(""), Ok(vec![]));
    }

    #[test]
    fn unknown_bundle_is_a_parse_error_with_the_device_words() {
        let said = "error: failed to get information and the parameters may be wrong.";
        let err = parse_bundle_info(&format!("{said}\n")).unwrap_err();
        assert_eq!(err.detail, said);
        assert_eq!(err.what, "bundle info");
        assert_eq!(parse_bundle_info("").unwrap_err().detail, "no output");
    }

    #[test]
    fn strings_and_objects_for_numbers_and_permissions() {
        let text = r#"com.x:
{
  "applicationInfo": {"bundleName": "com.x", "versionCode": "42", "versionName": "1.0", "debug": "false"},
  "mainEntry": "entry",
  "hapModuleInfos": [
    {"name": "entry", "moduleType": "entry", "mainElementName": "",  "mainAbility": "EntryAbility",
     "abilityInfos": [{"name": "EntryAbility", "type": "PAGE", "visible": true,
                       "skills": [{"actions": ["ohos.want.action.home"], "entities": ["entity.system.home"]}]},
                      {"name": "Svc", "type": 2, "exported": false, "skills": [
                          {"actions": ["action.system.home"], "entities": []},
                          {"actions": [], "entities": ["entity.system.home"]}]}]}
  ],
  "reqPermissions": [{"name": "ohos.permission.INTERNET"}, "ohos.permission.CAMERA", 5]
}"#;
        let p = parse_bundle_info(text).unwrap();
        assert_eq!(p.bundle_name, "com.x");
        assert_eq!(p.version_code, Some(42));
        assert_eq!(p.debug, Some(false));
        assert_eq!(p.entry_module.as_deref(), Some("entry"));
        assert_eq!(p.main_ability.as_deref(), Some("EntryAbility"));
        assert_eq!(p.main_module.as_deref(), Some("entry"));
        assert_eq!(p.modules[0].module_type.as_deref(), Some("entry"));
        assert_eq!(p.abilities[0].kind.as_deref(), Some("page"));
        assert!(p.abilities[0].is_launcher);
        assert_eq!(p.abilities[1].kind.as_deref(), Some("service"));
        assert_eq!(p.abilities[1].visible, Some(false));
        // Home action and home entity in different skills: not a launcher.
        assert!(!p.abilities[1].is_launcher);
        assert_eq!(p.abilities[1].module, "entry");
        assert_eq!(p.abilities[1].bundle, "com.x");
        assert_eq!(
            p.permissions,
            ["ohos.permission.INTERNET", "ohos.permission.CAMERA"]
        );
    }

    #[test]
    fn main_ability_falls_back_to_a_launcher() {
        let text = r#"{"hapModuleInfos":[{"moduleName":"m","moduleType":2,"abilityInfos":[
            {"name":"A","skills":[]},
            {"name":"B","skills":[{"actions":["action.system.home"],"entities":["entity.system.home"]}]}]}]}"#;
        let p = parse_bundle_info(text).unwrap();
        assert_eq!(p.main_ability.as_deref(), Some("B"));
        assert_eq!(p.main_module.as_deref(), Some("m"));
        assert_eq!(p.modules[0].module_type.as_deref(), Some("feature"));
    }

    #[test]
    fn invalid_json_position_counts_from_the_output_start() {
        let err = parse_bundle_info("com.x:\n{\n  \"a\": 1,\n  ...\n}\n").unwrap_err();
        assert!(err.detail.contains("line 4 column 3"), "{}", err.detail);
        let err = parse_bundle_info("com.x: {\"a\" 1}").unwrap_err();
        assert!(err.detail.contains("line 1 column 13"), "{}", err.detail);
    }

    #[test]
    fn non_object_and_odd_input_never_panic() {
        for t in [
            "{",
            "{]",
            "x: { \"a\": [1,2,",
            "{\"hapModuleInfos\": 3}",
            "{}\n{}",
        ] {
            let _ = parse_bundle_info(t);
        }
        assert_eq!(parse_bundle_info("{}").unwrap().bundle_name, "");
    }
}
