//! Intent resolution over the installed apps' activities, and the package manager's answers
//! built on it and on the device's features: `cmd package query-activities`, `has-feature`,
//! `pm list features` (AOSP `PackageManagerShellCommand`), used by `am start -a`.
//!
//! An activity answers an intent as its filters say: the launcher activity answers `MAIN` +
//! `LAUNCHER` (also with no category, as `CATEGORY_DEFAULT` is implied for MAIN), and each
//! skill of the app's model answers its actions, with its entities as categories and its URI
//! prefixes as data.

use crate::android::component::{activity_class, short_class};
use crate::phone::Phone;
use crate::phone::model::AbilityKind;
use crate::shell::CmdResult;

pub const ACTION_MAIN: &str = "android.intent.action.MAIN";
pub const CATEGORY_LAUNCHER: &str = "android.intent.category.LAUNCHER";
const CATEGORY_DEFAULT: &str = "android.intent.category.DEFAULT";

/// The features a simulated phone declares (`pm list features`): a phone's usual hardware.
pub const FEATURES: &[&str] = &[
    "android.hardware.audio.output",
    "android.hardware.bluetooth",
    "android.hardware.camera",
    "android.hardware.camera.any",
    "android.hardware.faketouch",
    "android.hardware.location",
    "android.hardware.location.gps",
    "android.hardware.microphone",
    "android.hardware.screen.landscape",
    "android.hardware.screen.portrait",
    "android.hardware.sensor.accelerometer",
    "android.hardware.telephony",
    "android.hardware.touchscreen",
    "android.hardware.touchscreen.multitouch",
    "android.hardware.wifi",
    "android.software.home_screen",
    "android.software.input_methods",
    "android.software.webview",
];

/// An intent as `am start` / `query-activities` take it.
#[derive(Debug, Clone, Default)]
pub struct Intent {
    pub action: Option<String>,
    pub categories: Vec<String>,
    pub data: Option<String>,
    pub package: Option<String>,
}

impl Intent {
    /// Takes the intent options it knows from `args`: `-a`, `-c`, `-d`, `-p`; returns what is
    /// left (a trailing package for `query-activities`, other options).
    pub fn parse(args: &[String]) -> (Intent, Vec<String>) {
        let mut i = Intent::default();
        let mut rest = Vec::new();
        let mut it = args.iter();
        while let Some(a) = it.next() {
            match a.as_str() {
                "-a" => i.action = it.next().cloned(),
                "-c" => i.categories.extend(it.next().cloned()),
                "-d" => i.data = it.next().cloned(),
                "-p" => i.package = it.next().cloned(),
                _ => rest.push(a.clone()),
            }
        }
        (i, rest)
    }

    /// `act=… cat=[…] dat=… pkg=…`, in `Intent.toShortString`'s order.
    pub fn describe(&self, flags: Option<&str>) -> String {
        let mut parts = Vec::new();
        if let Some(a) = &self.action {
            parts.push(format!("act={a}"));
        }
        if !self.categories.is_empty() {
            parts.push(format!("cat=[{}]", self.categories.join(",")));
        }
        if let Some(d) = &self.data {
            // Android prints only the scheme and host of a URI (the rest is redacted).
            let shown = match d.split_once("://") {
                Some((s, rest)) => format!("{s}://{}/...", rest.split('/').next().unwrap_or("")),
                None => d.clone(),
            };
            parts.push(format!("dat={shown}"));
        }
        if let Some(f) = flags {
            parts.push(format!("flg={f}"));
        }
        if let Some(p) = &self.package {
            parts.push(format!("pkg={p}"));
        }
        parts.join(" ")
    }
}

/// The activities (`(package, activity class)`) that answer `intent`, in install order.
pub fn resolve(phone: &Phone, intent: &Intent) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for app in phone.installed_apps() {
        let pkg = &app.spec.bundle;
        if intent.package.as_ref().is_some_and(|p| p != pkg) {
            continue;
        }
        for a in app
            .spec
            .abilities
            .iter()
            .filter(|a| a.kind == AbilityKind::Page)
        {
            let cats_ok = |filter_cats: &[&str]| {
                intent
                    .categories
                    .iter()
                    .all(|c| c == CATEGORY_DEFAULT || filter_cats.contains(&c.as_str()))
            };
            let main = a.launcher
                && intent.action.as_deref().is_none_or(|x| x == ACTION_MAIN)
                && intent.data.is_none()
                && cats_ok(&[CATEGORY_LAUNCHER]);
            let skill = a.exported
                && a.skills.iter().any(|s| {
                    intent.action.as_ref().is_none_or(|x| s.actions.contains(x))
                        && cats_ok(&s.entities.iter().map(String::as_str).collect::<Vec<_>>())
                        && match &intent.data {
                            None => s.uris.is_empty(),
                            Some(d) => s.uris.iter().any(|u| d.starts_with(u.as_str())),
                        }
                });
            if main || skill {
                out.push((pkg.clone(), activity_class(pkg, &a.name)));
            }
        }
    }
    out
}

/// `cmd package query-activities [--brief|--components] [-a …] [-c …] [-d …] [PKG]`.
pub fn query_activities(phone: &Phone, args: &[String]) -> CmdResult {
    let (mut intent, rest) = Intent::parse(args);
    let brief = rest.iter().any(|a| a == "--brief");
    let components = rest.iter().any(|a| a == "--components");
    if let Some(p) = rest.iter().find(|a| !a.starts_with('-')) {
        intent.package = Some(p.clone());
    }
    let found = resolve(phone, &intent);
    if found.is_empty() {
        return CmdResult::ok("No activities found\n");
    }
    let head = "priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false";
    let mut out = String::new();
    if components {
        for (p, c) in &found {
            out.push_str(&format!("{p}/{}\n", short_class(p, c)));
        }
        return CmdResult::ok(out);
    }
    out.push_str(&format!("{} activities found:\n", found.len()));
    for (i, (p, c)) in found.iter().enumerate() {
        out.push_str(&format!("  Activity #{i}:\n"));
        if brief {
            out.push_str(&format!("    {head}\n    {p}/{}\n", short_class(p, c)));
        } else {
            out.push_str(&format!(
                "    {head}\n    ActivityInfo:\n      name={c}\n      packageName={p}\n      enabled=true exported=true directBootAware=false\n"
            ));
        }
    }
    CmdResult::ok(out)
}

/// `cmd package has-feature NAME [VERSION]`: `true` (status 0) or `false` (status 1).
pub fn has_feature(args: &[String]) -> CmdResult {
    let Some(name) = args.iter().find(|a| !a.starts_with('-')) else {
        return CmdResult::fail_err("Error: no feature specified\n", 1);
    };
    if FEATURES.contains(&name.as_str()) {
        CmdResult::ok("true\n")
    } else {
        CmdResult::fail_out("false\n", 1)
    }
}

/// `pm list features`: one `feature:NAME` line each, then the GLES version, as AOSP lists them.
pub fn list_features() -> CmdResult {
    let mut out = String::new();
    for f in FEATURES {
        out.push_str(&format!("feature:{f}\n"));
    }
    out.push_str("feature:reqGlEsVersion=0x30002\n");
    CmdResult::ok(out)
}
