//! Loads the apps shipped with the phone: the demo app (embedded YAML) and the preinstalled system
//! bundles, and validates app specs (every referenced page and dialog exists).

use super::model::{Action, AppSpec, ElementSpec};

/// The demo app's YAML, embedded in the binary.
pub const DEMO_YAML: &str = include_str!("apps/demo.yaml");

/// The launcher's bundle (SceneBoard hosts the desktop, status bar and navigation on HarmonyOS NEXT).
pub const SCENEBOARD: &str = "com.ohos.sceneboard";
/// The IME bundle.
pub const IME_BUNDLE: &str = "com.huawei.hmos.inputmethod";

/// Parses and validates an app spec from YAML.
pub fn parse_app(yaml: &str) -> Result<AppSpec, String> {
    let spec: AppSpec =
        serde_saphyr::from_str(yaml).map_err(|e| format!("invalid app spec: {e}"))?;
    validate(&spec)?;
    Ok(spec)
}

/// Every page an ability or action names exists, and every dialog a page shows exists.
pub fn validate(spec: &AppSpec) -> Result<(), String> {
    for a in &spec.abilities {
        if let Some(p) = &a.page
            && !spec.pages.contains_key(p)
        {
            return Err(format!("ability {} starts at unknown page {p}", a.name));
        }
    }
    for (path, page) in &spec.pages {
        let mut errs = Vec::new();
        let mut check = |actions: &[Action]| check_actions(spec, page, actions, &mut errs);
        check(&page.on_show);
        walk(&page.root, &mut |e| {
            check(&e.on_tap);
            check(&e.on_enter);
        });
        for d in page.dialogs.values() {
            walk(d, &mut |e| {
                check(&e.on_tap);
                check(&e.on_enter);
            });
        }
        if let Some(e) = errs.first() {
            return Err(format!("page {path}: {e}"));
        }
    }
    Ok(())
}

fn walk(e: &ElementSpec, f: &mut dyn FnMut(&ElementSpec)) {
    f(e);
    for c in &e.children {
        walk(c, f);
    }
    if let Some(r) = &e.repeat {
        walk(&r.item, f);
    }
}

fn check_actions(
    spec: &AppSpec,
    page: &super::model::PageSpec,
    actions: &[Action],
    errs: &mut Vec<String>,
) {
    for a in actions {
        match a {
            Action::Navigate(p) | Action::Reset(p) if !spec.pages.contains_key(p) => {
                errs.push(format!("unknown page {p}"))
            }
            Action::ShowDialog(d) if !page.dialogs.contains_key(d) => {
                errs.push(format!("unknown dialog {d}"))
            }
            Action::Submit { then, .. } | Action::Delay { then, .. } => {
                check_actions(spec, page, then, errs)
            }
            _ => {}
        }
    }
}

/// The system bundles (YAML list), embedded in the binary.
pub const SYSTEM_YAML: &str = include_str!("apps/system.yaml");
/// The system screen recorder, embedded in the binary.
pub const SCREENRECORDER_YAML: &str = include_str!("apps/screenrecorder.yaml");

/// Parses and validates a YAML list of app specs.
pub fn parse_apps(yaml: &str) -> Result<Vec<AppSpec>, String> {
    let specs: Vec<AppSpec> =
        serde_saphyr::from_str(yaml).map_err(|e| format!("invalid app list: {e}"))?;
    for s in &specs {
        validate(s).map_err(|e| format!("{}: {e}", s.bundle))?;
    }
    Ok(specs)
}

/// The apps every phone boots with: (spec, system app, shown on the launcher). An app is on the
/// launcher when one of its abilities has the launcher skill.
pub fn builtin_apps() -> Vec<(AppSpec, bool, bool)> {
    let system = parse_apps(SYSTEM_YAML).expect("the embedded system apps are valid (tested)");
    let recorder =
        parse_app(SCREENRECORDER_YAML).expect("the embedded screen recorder is valid (tested)");
    let demo = parse_app(DEMO_YAML).expect("the embedded demo app is valid (tested)");
    let on_launcher = |s: &AppSpec| s.abilities.iter().any(|a| a.launcher);
    system
        .into_iter()
        .chain([recorder])
        .map(|s| {
            let l = on_launcher(&s);
            (s, true, l)
        })
        .chain([(demo, false, true)])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demo_app_parses_with_contract_names() {
        let d = parse_app(DEMO_YAML).unwrap();
        assert_eq!(d.bundle, super::super::DEMO_BUNDLE);
        assert_eq!(d.label, "Tapflow Demo");
        assert_eq!(d.abilities[0].name, "EntryAbility");
        for p in [
            "pages/LoginPage",
            "pages/HomePage",
            "pages/ItemsPage",
            "pages/SettingsPage",
        ] {
            assert!(d.pages.contains_key(p), "{p}");
        }
    }

    #[test]
    fn system_apps_parse_and_include_the_fixture_bundles() {
        let apps = builtin_apps();
        let names: Vec<&str> = apps.iter().map(|(s, _, _)| s.bundle.as_str()).collect();
        for b in [
            SCENEBOARD,
            IME_BUNDLE,
            "com.huawei.hmos.screenrecorder",
            "com.huawei.hmos.camera",
        ] {
            assert!(names.contains(&b), "{b}");
        }
        assert!(apps.iter().filter(|(_, sys, _)| !sys).count() == 1);
    }

    #[test]
    fn rejects_unknown_page_and_bad_yaml() {
        let y = "bundle: a.b\nlabel: X\nabilities: [{name: E, page: pages/Nope}]\n";
        assert!(parse_app(y).unwrap_err().contains("unknown page"));
        assert!(parse_app("bundle: [").is_err());
        assert!(parse_app("bundle: a\nlabel: b\nabilities: []\nbogus: 1\n").is_err());
    }
}
