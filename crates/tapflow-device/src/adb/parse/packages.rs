//! Package manager outputs: `pm list packages`, `dumpsys package PKG` and `cmd package
//! resolve-activity --brief`.
//!
//! `dumpsys package PKG` is read for the `Package [PKG] (…):` block (`versionCode=… minSdk=…
//! targetSdk=…`, `versionName=`, `pkgFlags=[ … DEBUGGABLE … ]`, `requested permissions:`) and for
//! the activities of the `Activity Resolver Table:` (`<hash> PKG/.Act filter <hash>` followed by
//! `Action: "…"` / `Category: "…"` lines), which give the launcher activity.

use std::sync::OnceLock;

use regex::Regex;

use super::ParseError;
use crate::model::{AbilityInfo, PackageInfo};

/// `pm list packages [-f] [-U]`: one `package:` line each (`package:NAME`,
/// `package:/data/app/…/base.apk=NAME`, `package:NAME uid:N`), in the device's order.
pub fn parse_package_list(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.trim().strip_prefix("package:"))
        .map(|rest| {
            let rest = rest.split_whitespace().next().unwrap_or("");
            // `-f`: the path ends at the last `=` (paths contain `==` base64 padding).
            match rest.rfind('=') {
                Some(i) if rest.starts_with('/') => rest[i + 1..].to_string(),
                _ => rest.to_string(),
            }
        })
        .filter(|p| !p.is_empty())
        .collect()
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

fn activity_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"^\s+[0-9a-f]+ ([A-Za-z0-9_.]+)/(\S+)(?: filter [0-9a-f]+)?\s*$")
            .expect("static activity regex")
    })
}

fn quoted(line: &str, key: &str) -> Option<String> {
    let rest = line.trim().strip_prefix(key)?.trim();
    Some(rest.trim_matches('"').to_string())
}

/// Expands `.Main` to `com.x.Main` (a component's class relative to its package).
pub fn full_class(package: &str, class: &str) -> String {
    if class.starts_with('.') {
        format!("{package}{class}")
    } else {
        class.to_string()
    }
}

/// Parses `dumpsys package PKG` into what tools need. `Err` when the output has no
/// `Package [PKG]` block (the package is not installed).
pub fn parse_dumpsys_package(text: &str, package: &str) -> Result<PackageInfo, ParseError> {
    let header = format!("Package [{package}] (");
    let lines: Vec<&str> = text.lines().collect();
    let Some(start) = lines
        .iter()
        .position(|l| l.trim_start().starts_with(&header))
    else {
        return Err(ParseError::new(
            "dumpsys package",
            format!("no `Package [{package}]` block: the package is not installed"),
        ));
    };
    let base = indent(lines[start]);
    let block: Vec<&str> = lines[start + 1..]
        .iter()
        .take_while(|l| l.trim().is_empty() || indent(l) > base)
        .copied()
        .collect();
    let mut info = PackageInfo {
        bundle_name: package.to_string(),
        ..Default::default()
    };
    let mut in_requested: Option<usize> = None;
    for line in &block {
        let t = line.trim();
        if let Some(level) = in_requested {
            if indent(line) > level && !t.is_empty() && !t.ends_with(':') {
                let name = t.split(':').next().unwrap_or(t).trim();
                if !info.permissions.iter().any(|p| p == name) {
                    info.permissions.push(name.to_string());
                }
                continue;
            }
            in_requested = None;
        }
        if t == "requested permissions:" {
            in_requested = Some(indent(line));
            continue;
        }
        for word in t.split_whitespace() {
            if let Some(v) = word.strip_prefix("versionCode=") {
                info.version_code = v.parse().ok();
            }
        }
        if let Some(v) = t.strip_prefix("versionName=") {
            info.version_name = Some(v.to_string());
        }
        if let Some(flags) = t
            .strip_prefix("pkgFlags=[")
            .or_else(|| t.strip_prefix("flags=["))
        {
            let debuggable = flags.split_whitespace().any(|f| f == "DEBUGGABLE");
            info.debug = Some(info.debug.unwrap_or(false) || debuggable);
        }
    }
    info.abilities = activities(&lines, package);
    let launcher = info
        .abilities
        .iter()
        .find(|a| a.is_launcher)
        .map(|a| a.name.clone());
    info.main_ability = launcher;
    Ok(info)
}

/// The activities of `package` in the `Activity Resolver Table`, with their intent filters.
fn activities(lines: &[&str], package: &str) -> Vec<AbilityInfo> {
    let Some(start) = lines
        .iter()
        .position(|l| l.trim() == "Activity Resolver Table:")
    else {
        return Vec::new();
    };
    let base = indent(lines[start]);
    let mut out: Vec<AbilityInfo> = Vec::new();
    let mut current: Option<usize> = None;
    for line in &lines[start + 1..] {
        if !line.trim().is_empty() && indent(line) <= base {
            break;
        }
        if let Some(c) = activity_re().captures(line) {
            current = None;
            if &c[1] != package {
                continue;
            }
            let name = full_class(package, &c[2]);
            let idx = match out.iter().position(|a| a.name == name) {
                Some(i) => i,
                None => {
                    out.push(AbilityInfo {
                        name,
                        bundle: package.to_string(),
                        kind: Some("activity".into()),
                        ..Default::default()
                    });
                    out.len() - 1
                }
            };
            current = Some(idx);
            continue;
        }
        let Some(i) = current else { continue };
        if let Some(a) = quoted(line, "Action:") {
            if !out[i].actions.contains(&a) {
                out[i].actions.push(a);
            }
        } else if let Some(c) = quoted(line, "Category:")
            && !out[i].entities.contains(&c)
        {
            out[i].entities.push(c);
        }
    }
    for a in &mut out {
        a.is_launcher = a.actions.iter().any(|x| x == "android.intent.action.MAIN")
            && a.entities
                .iter()
                .any(|x| x == "android.intent.category.LAUNCHER");
        a.visible = Some(true);
    }
    out
}

/// `cmd package resolve-activity --brief …`: the last non-empty line when it names a
/// component (`com.x/.Main`); `None` for `No activity found` and the ambiguous
/// `android/com.android.internal.app.ResolverActivity`.
pub fn parse_resolve_activity(text: &str) -> Option<(String, String)> {
    let last = text.lines().map(str::trim).rfind(|l| !l.is_empty())?;
    let (pkg, class) = last.split_once('/')?;
    if pkg == "android" || pkg.is_empty() || class.is_empty() || last.contains(' ') {
        return None;
    }
    Some((pkg.to_string(), class.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn package_lists() {
        let text = "package:com.android.settings\npackage:/data/app/~~YWJj==/com.x-ZGVm==/base.apk=com.x\npackage:com.google.android.gms uid:10145\n\n";
        assert_eq!(
            parse_package_list(text),
            ["com.android.settings", "com.x", "com.google.android.gms"]
        );
        assert!(parse_package_list("").is_empty());
    }

    const DUMP: &str = "Activity Resolver Table:\n  Non-Data Actions:\n      android.intent.action.MAIN:\n        5f0c8a1 com.x/.MainActivity filter 2b6a4c6\n          Action: \"android.intent.action.MAIN\"\n          Category: \"android.intent.category.LAUNCHER\"\n        77aa001 com.other/.Home filter 1\n          Action: \"android.intent.action.MAIN\"\n          Category: \"android.intent.category.LAUNCHER\"\n      com.x.OPEN:\n        9d2f11d com.x/com.x.DetailActivity filter 3f0e92\n          Action: \"com.x.OPEN\"\n\nPackages:\n  Package [com.x] (3e2a1b0):\n    userId=10134\n    versionCode=7 minSdk=24 targetSdk=29\n    versionName=1.2.3\n    flags=[ DEBUGGABLE HAS_CODE ALLOW_CLEAR_USER_DATA ]\n    pkgFlags=[ DEBUGGABLE HAS_CODE ALLOW_CLEAR_USER_DATA ]\n    requested permissions:\n      android.permission.INTERNET\n      android.permission.CAMERA\n    install permissions:\n      android.permission.INTERNET: granted=true\n    User 0: ceDataInode=1 installed=true\n";

    #[test]
    fn dumpsys_package() {
        let p = parse_dumpsys_package(DUMP, "com.x").unwrap();
        assert_eq!(p.version_code, Some(7));
        assert_eq!(p.version_name.as_deref(), Some("1.2.3"));
        assert_eq!(p.debug, Some(true));
        assert_eq!(
            p.permissions,
            ["android.permission.INTERNET", "android.permission.CAMERA"]
        );
        assert_eq!(p.abilities.len(), 2);
        assert_eq!(p.main_ability.as_deref(), Some("com.x.MainActivity"));
        assert!(!p.abilities[1].is_launcher);
        assert_eq!(p.abilities[1].actions, ["com.x.OPEN"]);
        assert!(parse_dumpsys_package(DUMP, "com.y").is_err());
    }

    #[test]
    fn resolve_activity() {
        let text = "priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=true\ncom.x/.MainActivity\n";
        assert_eq!(
            parse_resolve_activity(text),
            Some(("com.x".into(), ".MainActivity".into()))
        );
        assert_eq!(parse_resolve_activity("No activity found\n"), None);
        assert_eq!(
            parse_resolve_activity("x\nandroid/com.android.internal.app.ResolverActivity\n"),
            None
        );
    }
}
