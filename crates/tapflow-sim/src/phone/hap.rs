//! `.hap` packages: a zip with `module.json` (real shape: `app` + `module` objects). Parsing
//! yields an [`AppSpec`]; a `tapflow.yaml` entry, when present, supplies the app's pages.
//!
//! Signature decision: real haps carry a signing block inside the zip whose magic is
//! `HAP Sig Block 42`; a hap without that magic anywhere in its bytes is rejected with
//! 9568320 `no signature file`, as an unsigned hap is on a real phone. [`build_hap`] builds
//! valid (signed or unsigned) haps for tests and tools.

use super::error::{PhoneError, codes};
use super::loader;
use super::model::{AbilitySpec, AppSpec};
use serde_json::Value;
use std::io::{Cursor, Read, Write};

/// Magic of the HAP signing block.
pub const SIG_MAGIC: &[u8] = b"HAP Sig Block 42";

/// A parsed hap.
#[derive(Debug, Clone)]
pub struct ParsedHap {
    pub spec: AppSpec,
    pub module_json: Value,
}

fn parse_err(msg: &str) -> PhoneError {
    PhoneError::new(
        codes::INSTALL_PARSE_FAILED,
        format!("install parse profile missing prop. {msg}"),
    )
}

/// Parses and checks a hap.
pub fn parse_hap(bytes: &[u8]) -> Result<ParsedHap, PhoneError> {
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| {
        PhoneError::new(
            codes::INSTALL_PARSE_FAILED,
            format!("install parse bad zip: {e}"),
        )
    })?;
    let read = |zip: &mut zip::ZipArchive<Cursor<&[u8]>>, name: &str| -> Option<String> {
        let mut f = zip.by_name(name).ok()?;
        let mut s = String::new();
        f.read_to_string(&mut s).ok()?;
        Some(s)
    };
    let module_text =
        read(&mut zip, "module.json").ok_or_else(|| parse_err("module.json not found"))?;
    let pages_yaml = read(&mut zip, "tapflow.yaml");
    if !bytes.windows(SIG_MAGIC.len()).any(|w| w == SIG_MAGIC) {
        return Err(PhoneError::new(
            codes::INSTALL_NO_SIGNATURE,
            "no signature file.",
        ));
    }
    let mj: Value =
        serde_json::from_str(&module_text).map_err(|e| parse_err(&format!("module.json: {e}")))?;
    let app = mj.get("app").ok_or_else(|| parse_err("app"))?;
    let module = mj.get("module").ok_or_else(|| parse_err("module"))?;
    let s = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    let bundle = s(app, "bundleName")
        .filter(|b| valid_bundle(b))
        .ok_or_else(|| parse_err("app.bundleName"))?;
    let version_code = app
        .get("versionCode")
        .and_then(Value::as_u64)
        .and_then(|v| u32::try_from(v).ok())
        .ok_or_else(|| parse_err("app.versionCode"))?;
    let version_name = s(app, "versionName").ok_or_else(|| parse_err("app.versionName"))?;
    let module_name = s(module, "name").ok_or_else(|| parse_err("module.name"))?;
    // `$string:app_name` resources are not resolvable here: fall back to the bundle's last segment.
    let label = s(app, "label")
        .filter(|l| !l.starts_with('$'))
        .unwrap_or_else(|| bundle.rsplit('.').next().unwrap_or(&bundle).to_string());
    let main = s(module, "mainElement");
    let mut abilities = Vec::new();
    for a in module
        .get("abilities")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let name = s(a, "name").ok_or_else(|| parse_err("module.abilities.name"))?;
        let launcher = a
            .get("skills")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .any(is_home_skill);
        abilities.push(AbilitySpec {
            launcher,
            exported: a.get("exported").and_then(Value::as_bool).unwrap_or(false) || launcher,
            page: None,
            name,
            kind: Default::default(),
            skills: Vec::new(),
            on_start: Vec::new(),
        });
    }
    if let Some(m) = &main
        && !abilities.iter().any(|a| &a.name == m)
    {
        return Err(parse_err(&format!("mainElement {m} is not an ability")));
    }
    let permissions = module
        .get("requestPermissions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|p| s(p, "name"))
        .collect();
    let mut spec = AppSpec {
        bundle: bundle.clone(),
        label,
        module: module_name,
        version_code,
        version_name,
        log_domain: 0,
        log_tag: "JSAPP".into(),
        abilities,
        permissions,
        pages: Default::default(),
    };
    if let Some(y) = pages_yaml {
        let extra = loader::parse_app(&y).map_err(|e| parse_err(&format!("tapflow.yaml: {e}")))?;
        if extra.bundle != bundle {
            return Err(parse_err("tapflow.yaml bundle differs from module.json"));
        }
        spec.pages = extra.pages;
        spec.log_domain = extra.log_domain;
        spec.log_tag = extra.log_tag;
        for a in &mut spec.abilities {
            a.page = extra
                .abilities
                .iter()
                .find(|x| x.name == a.name)
                .and_then(|x| x.page.clone());
        }
        loader::validate(&spec).map_err(|e| parse_err(&e))?;
    }
    Ok(ParsedHap {
        spec,
        module_json: mj,
    })
}

fn valid_bundle(b: &str) -> bool {
    let parts: Vec<&str> = b.split('.').collect();
    (7..=128).contains(&b.len())
        && parts.len() >= 2
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        && b.starts_with(|c: char| c.is_ascii_alphabetic())
}

fn is_home_skill(skill: &Value) -> bool {
    let has = |k: &str, vals: &[&str]| {
        skill.get(k).and_then(Value::as_array).is_some_and(|a| {
            a.iter()
                .any(|x| x.as_str().is_some_and(|s| vals.contains(&s)))
        })
    };
    has("entities", &["entity.system.home"])
        && has("actions", &["action.system.home", "ohos.want.action.home"])
}

/// A real-shaped `module.json` for `bundle` with one launcher ability.
pub fn module_json(bundle: &str, version_code: u32, version_name: &str, ability: &str) -> Value {
    serde_json::json!({
        "app": {
            "bundleName": bundle,
            "vendor": "example",
            "versionCode": version_code,
            "versionName": version_name,
            "icon": "$media:app_icon",
            "label": "$string:app_name",
            "minAPIVersion": 12,
            "targetAPIVersion": 12,
            "apiReleaseType": "Release",
            "debug": true
        },
        "module": {
            "name": "entry",
            "type": "entry",
            "srcEntry": "./ets/entryability/EntryAbility.ets",
            "mainElement": ability,
            "deviceTypes": ["phone", "tablet"],
            "deliveryWithInstall": true,
            "installationFree": false,
            "pages": "$profile:main_pages",
            "abilities": [{
                "name": ability,
                "srcEntry": "./ets/entryability/EntryAbility.ets",
                "description": "$string:EntryAbility_desc",
                "icon": "$media:layered_image",
                "label": "$string:EntryAbility_label",
                "exported": true,
                "skills": [{ "entities": ["entity.system.home"], "actions": ["ohos.want.action.home"] }]
            }],
            "requestPermissions": [{ "name": "ohos.permission.INTERNET" }]
        }
    })
}

/// Builds a hap zip from a `module.json` value (plus optional `tapflow.yaml` pages); `signed`
/// appends the signing-block magic as the zip comment.
pub fn build_hap(module_json: &Value, pages_yaml: Option<&str>, signed: bool) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default();
    let mut add = |name: &str, data: &[u8]| {
        // Writing into an in-memory buffer cannot fail short of OOM.
        if w.start_file(name, opts).is_ok() {
            let _ = w.write_all(data);
        }
    };
    add("module.json", module_json.to_string().as_bytes());
    add("ets/modules.abc", b"PANDA\0\0\0");
    add("resources.index", b"\0");
    if let Some(y) = pages_yaml {
        add("tapflow.yaml", y.as_bytes());
    }
    if signed {
        w.set_comment(String::from_utf8_lossy(SIG_MAGIC).to_string());
    }
    w.finish().map(Cursor::into_inner).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_built_hap() {
        let hap = build_hap(
            &module_json("com.example.hello", 3, "1.2.0", "EntryAbility"),
            None,
            true,
        );
        let p = parse_hap(&hap).unwrap();
        assert_eq!(p.spec.bundle, "com.example.hello");
        assert_eq!(p.spec.version_code, 3);
        assert!(p.spec.abilities[0].launcher);
        assert_eq!(p.spec.label, "hello");
    }

    #[test]
    fn rejects_unsigned_garbage_and_bad_module() {
        let m = module_json("com.example.hello", 3, "1.2.0", "EntryAbility");
        assert_eq!(
            parse_hap(&build_hap(&m, None, false)).unwrap_err().code,
            codes::INSTALL_NO_SIGNATURE
        );
        assert_eq!(
            parse_hap(b"not a zip").unwrap_err().code,
            codes::INSTALL_PARSE_FAILED
        );
        let mut bad = m.clone();
        bad["app"]["bundleName"] = Value::from("x");
        assert_eq!(
            parse_hap(&build_hap(&bad, None, true)).unwrap_err().code,
            codes::INSTALL_PARSE_FAILED
        );
    }
}
