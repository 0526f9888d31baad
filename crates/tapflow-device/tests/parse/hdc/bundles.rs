//! `bm dump`: the bundle list and bundle info.

use tapflow_device::hdc::parse::bm::{parse_bundle_info, parse_bundle_list};

use super::cleaned;

#[test]
fn bm_dump_a_truncated() {
    let bundles = parse_bundle_list(&cleaned("bm_dump_a_truncated.txt")).unwrap();
    assert_eq!(bundles.len(), 12);
    assert_eq!(bundles[0], "com.huawei.associateassistant");
    assert_eq!(bundles[11], "com.huawei.hmos.authcredmgr");
    // The README's `  ...` elision is not a bundle.
    assert!(bundles.iter().all(|b| !b.contains("...")));
}

#[test]
fn bm_dump_n_camera_abridged() {
    let p = parse_bundle_info(&cleaned("bm_dump_n_camera_abridged.txt")).unwrap();
    assert_eq!(p.bundle_name, "com.huawei.hmos.camera");
    assert_eq!(p.entry_module.as_deref(), Some("phone"));
    assert_eq!(
        p.main_ability.as_deref(),
        Some("com.huawei.hmos.camera.MainAbility")
    );
    assert_eq!(p.main_module.as_deref(), Some("phone"));
    let modules: Vec<(&str, Option<&str>)> = p
        .modules
        .iter()
        .map(|m| (m.name.as_str(), m.module_type.as_deref()))
        .collect();
    assert_eq!(
        modules,
        [("phone", Some("entry")), ("picker", Some("feature"))]
    );
    assert_eq!(p.modules[1].main_ability, None, "\"\" is unset");
    let names: Vec<&str> = p.abilities.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "com.huawei.hmos.camera.CollaborationAbility",
            "com.huawei.hmos.camera.MainAbility",
            "PickerAbility"
        ]
    );
    // isLauncherAbility says false, but the home skill makes MainAbility the launcher.
    let launchers: Vec<&str> = p
        .abilities
        .iter()
        .filter(|a| a.is_launcher)
        .map(|a| a.name.as_str())
        .collect();
    assert_eq!(launchers, ["com.huawei.hmos.camera.MainAbility"]);
    assert_eq!(p.abilities[1].entities, ["entity.system.home"]);
    assert_eq!(
        p.abilities[1].actions,
        ["action.system.home", "ohos.want.action.home"]
    );
    assert_eq!(p.abilities[2].module, "picker");
    assert_eq!(p.abilities[2].bundle, "com.huawei.hmos.camera");
    assert_eq!(p.abilities[2].kind, None);
    assert_eq!(p.version_name, None);
    assert!(p.permissions.is_empty());
}

#[test]
fn bm_dump_n_himovie_abridged() {
    let p = parse_bundle_info(&cleaned("bm_dump_n_himovie_abridged.txt")).unwrap();
    assert_eq!(p.bundle_name, "com.huawei.hmsapp.himovie");
    assert_eq!(p.main_ability.as_deref(), Some("MainAbility"));
    assert_eq!(p.main_module.as_deref(), Some("entry"));
    assert_eq!(p.modules.len(), 1);
    assert_eq!(p.abilities.len(), 1);
    let a = &p.abilities[0];
    assert!(a.is_launcher);
    // Actions and entities over all skills, deduplicated, in order.
    assert_eq!(
        a.actions,
        [
            "action.system.home",
            "ohos.want.action.viewData",
            "wxentity.action.open"
        ]
    );
    assert_eq!(
        a.entities,
        ["entity.system.home", "entity.system.browsable"]
    );
}

/// The README copy elides parts with `...`: not JSON. The parser refuses it and says where;
/// with the elision lines removed (done here, not in the parser) the real content maps fully.
#[test]
fn bm_dump_n_kuaishou_abridged_readme() {
    let text = cleaned("bm_dump_n_kuaishou_abridged_readme.txt");
    let err = parse_bundle_info(&text).unwrap_err();
    assert_eq!(err.what, "bundle info");
    assert!(err.detail.contains("line 7 column 9"), "{}", err.detail);

    let unelided: String = text
        .lines()
        .filter(|l| l.trim() != "...")
        .map(|l| format!("{l}\n"))
        .collect();
    let p = parse_bundle_info(&unelided).unwrap();
    assert_eq!(p.bundle_name, "com.kuaishou.hmapp");
    assert_eq!(p.version_name.as_deref(), Some("12.2.40"));
    assert_eq!(p.version_code, Some(999_999));
    assert_eq!(p.debug, Some(true));
    // applicationInfo.entryModuleName is "" there; the top-level one names the module.
    assert_eq!(p.entry_module.as_deref(), Some("kwai"));
    assert!(p.modules.is_empty());
    assert_eq!(p.main_ability, None);
    assert_eq!(p.permissions.len(), 6);
    assert_eq!(p.permissions[0], "ohos.permission.ACCELEROMETER");
    assert_eq!(p.permissions[5], "ohos.permission.STORE_PERSISTENT_DATA");
}
