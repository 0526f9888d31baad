//! `.apk` packages for the simulated device: a zip with an `AndroidManifest.xml`.
//!
//! What the simulated package installer checks (documented in `docs/android.md`):
//! - the file is a zip archive (`INSTALL_PARSE_FAILED_NOT_APK` otherwise);
//! - it holds `AndroidManifest.xml` (`INSTALL_PARSE_FAILED_BAD_MANIFEST`), in binary XML
//!   (AXML, what a built APK carries, decoded by [`super::axml`]) or, for the tests' own APKs,
//!   in text XML; a damaged binary manifest is refused with the same code, saying so;
//! - `<manifest package=…>` is a valid package name, `android:versionCode` a number,
//!   `android:versionName` present (`INSTALL_PARSE_FAILED_BAD_MANIFEST`);
//! - `android:testOnly="true"` needs `-t` (`INSTALL_FAILED_TEST_ONLY`); a lower version code
//!   than the installed one needs `-d` and never replaces a system app
//!   (`INSTALL_FAILED_VERSION_DOWNGRADE`).
//!
//! Activities come from `<activity android:name>` (relative names expanded), the launcher one
//! from an intent filter with `android.intent.action.MAIN` + `android.intent.category.LAUNCHER`,
//! permissions from `<uses-permission>`. An optional `assets/tapflow.yaml` (the app format of
//! [`crate::phone::model`]) gives the app real pages, as `tapflow.yaml` does in a `.hap`.
//! No signature, dex or resource checks are made.

use std::io::{Cursor, Read, Write};

use quick_xml::Reader;
use quick_xml::XmlVersion;
use quick_xml::events::{BytesStart, Event};

use crate::phone::loader_apps;
use crate::phone::model::{AbilitySpec, AppSpec};

/// A refusal in the package manager's words: `Failure [CODE: message]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallFailure {
    pub code: &'static str,
    pub message: String,
}

impl std::fmt::Display for InstallFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Failure [{}: {}]", self.code, self.message)
    }
}

fn bad_manifest(msg: impl Into<String>) -> InstallFailure {
    InstallFailure {
        code: "INSTALL_PARSE_FAILED_BAD_MANIFEST",
        message: msg.into(),
    }
}

/// A parsed APK.
#[derive(Debug, Clone)]
pub struct ParsedApk {
    pub spec: AppSpec,
    pub test_only: bool,
    /// `<instrumentation>` entries: `(android:name, android:targetPackage)`.
    pub instrumentations: Vec<(String, String)>,
}

fn attrs(e: &BytesStart<'_>) -> Vec<(String, String)> {
    e.attributes()
        .filter_map(Result::ok)
        .map(|a| {
            let k = String::from_utf8_lossy(a.key.as_ref()).into_owned();
            let v = a
                .normalized_value(XmlVersion::Implicit1_0)
                .map(|v| v.into_owned())
                .unwrap_or_default();
            (k, v)
        })
        .collect()
}

fn get<'a>(a: &'a [(String, String)], key: &str) -> Option<&'a str> {
    a.iter()
        .find(|(k, _)| k == key || k.rsplit(':').next() == Some(key) && key != "package")
        .map(|(_, v)| v.as_str())
}

fn valid_package(p: &str) -> bool {
    p.contains('.')
        && p.split('.').all(|s| {
            s.starts_with(|c: char| c.is_ascii_alphabetic())
                && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
}

/// Reads the manifest's text XML into an app spec.
pub fn parse_manifest(xml: &str) -> Result<ParsedApk, InstallFailure> {
    let mut reader = Reader::from_str(xml);
    let mut package = None;
    let mut version_code = None;
    let mut version_name = None;
    let mut label = None;
    let mut test_only = false;
    let mut permissions = Vec::new();
    let mut instrumentations = Vec::new();
    let mut abilities: Vec<AbilitySpec> = Vec::new();
    // Inside an <activity>: its index, and the current intent filter's action/category flags.
    let mut activity: Option<usize> = None;
    let mut filter: Option<(bool, bool)> = None;
    loop {
        let ev = reader
            .read_event()
            .map_err(|e| bad_manifest(format!("AndroidManifest.xml is not XML: {e}")))?;
        let (start, empty) = match &ev {
            Event::Start(e) => (Some(e.clone()), false),
            Event::Empty(e) => (Some(e.clone()), true),
            _ => (None, false),
        };
        if let Some(e) = start {
            let a = attrs(&e);
            match e.name().as_ref() {
                b"manifest" => {
                    package = get(&a, "package").map(str::to_string);
                    version_code = get(&a, "versionCode").map(str::to_string);
                    version_name = get(&a, "versionName").map(str::to_string);
                }
                b"application" => {
                    label = get(&a, "label").map(str::to_string);
                    test_only = get(&a, "testOnly") == Some("true");
                }
                b"instrumentation" => {
                    if let (Some(n), Some(t)) = (get(&a, "name"), get(&a, "targetPackage")) {
                        instrumentations.push((n.to_string(), t.to_string()));
                    }
                }
                b"uses-permission" => {
                    if let Some(n) = get(&a, "name") {
                        permissions.push(n.to_string());
                    }
                }
                b"activity" | b"activity-alias" => {
                    let Some(name) = get(&a, "name") else {
                        return Err(bad_manifest("<activity> without android:name"));
                    };
                    abilities.push(AbilitySpec {
                        name: name.to_string(),
                        launcher: false,
                        exported: get(&a, "exported") != Some("false"),
                        page: None,
                        kind: Default::default(),
                        skills: Vec::new(),
                        on_start: Vec::new(),
                    });
                    activity = (!empty).then_some(abilities.len() - 1);
                }
                b"intent-filter" if activity.is_some() && !empty => filter = Some((false, false)),
                b"action" if get(&a, "name") == Some("android.intent.action.MAIN") => {
                    if let Some(f) = filter.as_mut() {
                        f.0 = true;
                    }
                }
                b"category" if get(&a, "name") == Some("android.intent.category.LAUNCHER") => {
                    if let Some(f) = filter.as_mut() {
                        f.1 = true;
                    }
                }
                _ => {}
            }
            continue;
        }
        match ev {
            Event::End(e) => match e.name().as_ref() {
                b"intent-filter" => {
                    if let (Some((true, true)), Some(i)) = (filter, activity) {
                        abilities[i].launcher = true;
                    }
                    filter = None;
                }
                b"activity" | b"activity-alias" => activity = None,
                _ => {}
            },
            Event::Eof => break,
            _ => {}
        }
    }
    let package = package.ok_or_else(|| bad_manifest("<manifest> has no package attribute"))?;
    if !valid_package(&package) {
        return Err(bad_manifest(format!("invalid package name {package:?}")));
    }
    let version_code: u32 = version_code
        .ok_or_else(|| bad_manifest("<manifest> has no android:versionCode"))?
        .parse()
        .map_err(|_| bad_manifest("android:versionCode is not a number"))?;
    let version_name =
        version_name.ok_or_else(|| bad_manifest("<manifest> has no android:versionName"))?;
    for a in &mut abilities {
        if a.name.starts_with('.') {
            a.name = format!("{package}{}", a.name);
        } else if !a.name.contains('.') {
            a.name = format!("{package}.{}", a.name);
        }
    }
    let label = label
        .filter(|l| !l.starts_with('@'))
        .unwrap_or_else(|| package.rsplit('.').next().unwrap_or(&package).to_string());
    Ok(ParsedApk {
        spec: AppSpec {
            bundle: package,
            log_tag: label.replace(' ', ""),
            label,
            module: "base".into(),
            version_code,
            version_name,
            log_domain: 0,
            abilities,
            permissions,
            pages: Default::default(),
        },
        test_only,
        instrumentations,
    })
}

/// Parses an APK's bytes (see the module docs for what is checked).
pub fn parse_apk(bytes: &[u8]) -> Result<ParsedApk, InstallFailure> {
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| InstallFailure {
        code: "INSTALL_PARSE_FAILED_NOT_APK",
        message: format!("Failed to parse base.apk: not a zip archive ({e})"),
    })?;
    let mut read = |name: &str| -> Option<Vec<u8>> {
        let mut f = zip.by_name(name).ok()?;
        let mut v = Vec::new();
        f.read_to_end(&mut v).ok()?;
        Some(v)
    };
    let manifest = read("AndroidManifest.xml")
        .ok_or_else(|| bad_manifest("Failed to parse base.apk: AndroidManifest.xml not found"))?;
    let pages = read("assets/tapflow.yaml");
    // A built APK carries its manifest as binary XML (AXML): decoded to text first.
    let text = if super::axml::is_axml(&manifest) {
        super::axml::to_text(&manifest)
            .map_err(|e| bad_manifest(format!("binary AndroidManifest.xml: {e}")))?
    } else {
        String::from_utf8(manifest)
            .map_err(|_| bad_manifest("AndroidManifest.xml is not UTF-8 text"))?
    };
    let mut parsed = parse_manifest(&text)?;
    if let Some(y) = pages {
        let y =
            String::from_utf8(y).map_err(|_| bad_manifest("assets/tapflow.yaml is not UTF-8"))?;
        let extra = loader_apps::parse_app(&y)
            .map_err(|e| bad_manifest(format!("assets/tapflow.yaml: {e}")))?;
        if extra.bundle != parsed.spec.bundle {
            return Err(bad_manifest("assets/tapflow.yaml names another package"));
        }
        let spec = &mut parsed.spec;
        spec.pages = extra.pages;
        spec.log_tag = extra.log_tag;
        for a in &mut spec.abilities {
            let short = a.name.rsplit('.').next().unwrap_or(&a.name).to_string();
            a.page = extra
                .abilities
                .iter()
                .find(|x| x.name == a.name || x.name == short)
                .and_then(|x| x.page.clone());
        }
        loader_apps::validate(spec)
            .map_err(|e| bad_manifest(format!("assets/tapflow.yaml: {e}")))?;
    }
    Ok(parsed)
}

/// A text `AndroidManifest.xml` with one launcher activity.
pub fn manifest(package: &str, version_code: u32, version_name: &str, activity: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="utf-8"?>
<manifest xmlns:android="http://schemas.android.com/apk/res/android" package="{package}" android:versionCode="{version_code}" android:versionName="{version_name}">
    <uses-permission android:name="android.permission.INTERNET" />
    <application android:label="{label}">
        <activity android:name="{activity}" android:exported="true">
            <intent-filter>
                <action android:name="android.intent.action.MAIN" />
                <category android:name="android.intent.category.LAUNCHER" />
            </intent-filter>
        </activity>
    </application>
</manifest>
"#,
        label = package.rsplit('.').next().unwrap_or(package),
    )
}

/// Builds an APK zip: the manifest, a stand-in `classes.dex`, and optional pages.
pub fn build_apk(manifest_xml: &str, pages_yaml: Option<&str>) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default();
    let mut add = |name: &str, data: &[u8]| {
        if w.start_file(name, opts).is_ok() {
            let _ = w.write_all(data);
        }
    };
    add("AndroidManifest.xml", manifest_xml.as_bytes());
    add("classes.dex", b"dex\n035\0");
    if let Some(y) = pages_yaml {
        add("assets/tapflow.yaml", y.as_bytes());
    }
    w.finish().map(Cursor::into_inner).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_built_apk() {
        let apk = build_apk(
            &manifest("com.example.hello", 3, "1.2", ".MainActivity"),
            None,
        );
        let p = parse_apk(&apk).unwrap();
        assert_eq!(p.spec.bundle, "com.example.hello");
        assert_eq!(p.spec.version_code, 3);
        assert_eq!(p.spec.abilities[0].name, "com.example.hello.MainActivity");
        assert!(p.spec.abilities[0].launcher);
        assert_eq!(p.spec.permissions, ["android.permission.INTERNET"]);
    }

    #[test]
    fn refusals() {
        assert_eq!(
            parse_apk(b"nope").unwrap_err().code,
            "INSTALL_PARSE_FAILED_NOT_APK"
        );
        let no_manifest = {
            let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
            w.start_file("classes.dex", zip::write::SimpleFileOptions::default())
                .unwrap();
            w.finish().unwrap().into_inner()
        };
        assert_eq!(
            parse_apk(&no_manifest).unwrap_err().code,
            "INSTALL_PARSE_FAILED_BAD_MANIFEST"
        );
        let bad = manifest("nodots", 1, "1", ".A");
        assert!(parse_apk(&build_apk(&bad, None)).is_err());
        let binary = build_apk("\u{3}\u{0}\u{8}\u{0}xxxx", None);
        assert!(parse_apk(&binary).unwrap_err().message.contains("binary"));
    }
}
