//! Apps: haps built in the test installed and uninstalled, a hap's own pages, and `bm dump -n`
//! with the shape of the real one.

use super::*;

#[test]
fn installs_a_hap_built_in_the_test() {
    use std::io::Write;
    let (mut p, t0) = phone();
    let module = serde_json::json!({
        "app": {"bundleName": "com.example.notes", "vendor": "example", "versionCode": 2000000, "versionName": "2.0.0", "label": "Notes"},
        "module": {"name": "entry", "type": "entry", "mainElement": "MainAbility",
            "abilities": [{"name": "MainAbility", "exported": true,
                "skills": [{"entities": ["entity.system.home"], "actions": ["ohos.want.action.home"]}]}],
            "requestPermissions": [{"name": "ohos.permission.INTERNET"}]}
    });
    let build = |module: &Value, signed: bool| {
        let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        w.start_file("module.json", zip::write::SimpleFileOptions::default())
            .unwrap();
        w.write_all(module.to_string().as_bytes()).unwrap();
        if signed {
            w.set_comment("HAP Sig Block 42");
        }
        w.finish().unwrap().into_inner()
    };
    assert_eq!(
        p.install_hap(&build(&module, false), false, t0)
            .unwrap_err()
            .code,
        9568320
    );
    assert_eq!(
        p.install_hap(&build(&module, true), false, t0).unwrap(),
        "com.example.notes"
    );
    assert!(p.bundles().contains(&"com.example.notes".to_string()));
    let dumpn = p.bundle_dump("com.example.notes").unwrap();
    assert_eq!(dumpn["applicationInfo"]["versionName"], "2.0.0");
    assert_eq!(dumpn["hapModuleInfos"][0]["mainElementName"], "MainAbility");
    assert_eq!(
        dumpn["hapModuleInfos"][0]["abilityInfos"][0]["isLauncherAbility"],
        true
    );
    assert_eq!(dumpn["reqPermissions"][0], "ohos.permission.INTERNET");
    assert!(p.bundle_dump("com.example.none").is_none());
    p.start_ability("com.example.notes", "MainAbility", Some("entry"), t0)
        .unwrap();
    let d = dump(&p);
    assert!(
        by_text(&d, "Notes").is_some(),
        "default page shows the label"
    );
    assert_eq!(attr(&d["children"][0], "bundleName"), "com.example.notes");
    let mut older = module.clone();
    older["app"]["versionCode"] = Value::from(1);
    assert_eq!(
        p.install_hap(&build(&older, true), true, t0)
            .unwrap_err()
            .code,
        9568263
    );
    assert_eq!(
        p.start_ability("com.example.notes", "Nope", None, t0)
            .unwrap_err()
            .code,
        10104001
    );
    p.uninstall("com.example.notes").unwrap();
    assert_eq!(p.uninstall("com.example.notes").unwrap_err().code, 9568386);
}

#[test]
fn hap_with_pages_runs_its_own_screens() {
    use tapflow_sim::phone::hap::{build_hap, module_json};
    let (mut p, t0) = phone();
    let pages = r#"
bundle: com.example.counter
label: Counter
log_domain: 0x1234
log_tag: Counter
abilities: [{name: EntryAbility, launcher: true, page: pages/Index}]
pages:
  pages/Index:
    root:
      type: Column
      children:
        - {type: Text, id: count, text: "on=${flag}"}
        - {type: Button, id: bump, text: Bump, on_tap: [{set: {var: flag, value: "yes"}}, {log: {message: BUMPED, level: W}}]}
        - {type: TextInput, id: note, hint: Note}
        - {type: Button, id: done, text: Done, flags: {focusable: true}}
"#;
    let hap = build_hap(
        &module_json("com.example.counter", 1, "1.0", "EntryAbility"),
        Some(pages),
        true,
    );
    p.install_hap(&hap, false, t0).unwrap();
    p.start_ability("com.example.counter", "EntryAbility", None, t0)
        .unwrap();
    assert_eq!(attr(by_id(&dump(&p), "count").unwrap(), "text"), "on=");
    tap_id(&mut p, "bump", t0);
    assert_eq!(attr(by_id(&dump(&p), "count").unwrap(), "text"), "on=yes");
    let line = p
        .hilog()
        .iter()
        .map(|r| r.format())
        .find(|l| l.contains("BUMPED"))
        .unwrap();
    assert!(line.contains(" W A01234/Counter: BUMPED"), "{line}");
    // A plain button leaves the field focused; a focusOnTouch one takes the focus (IME closes).
    tap_id(&mut p, "note", t0);
    tap_id(&mut p, "bump", t0);
    assert_eq!(attr(by_id(&dump(&p), "note").unwrap(), "focused"), "true");
    tap_id(&mut p, "done", t0);
    assert_eq!(attr(by_id(&dump(&p), "note").unwrap(), "focused"), "false");
    assert!(p.type_text("x", &mut no_drop, t0).is_err());
    // A spec naming a page that does not exist is rejected at install time.
    let bad = pages.replace("page: pages/Index}", "page: pages/Nope}");
    let hap = build_hap(
        &module_json("com.example.counter", 2, "1.1", "EntryAbility"),
        Some(&bad),
        true,
    );
    assert!(p.install_hap(&hap, true, t0).is_err());
}

/// Every key path of `v` (objects only; array elements share their parent's path with `[]`).
fn key_paths(v: &Value, prefix: &str, out: &mut std::collections::BTreeSet<String>) {
    match v {
        Value::Object(o) => {
            for (k, c) in o {
                let p = format!("{prefix}.{k}");
                out.insert(p.clone());
                key_paths(c, &p, out);
            }
        }
        Value::Array(a) => a
            .iter()
            .for_each(|c| key_paths(c, &format!("{prefix}[]"), out)),
        _ => {}
    }
}

#[test]
fn bundle_dump_has_the_shape_of_real_bm_dump_n() {
    let (p, _) = phone();
    let mine = p.bundle_dump(DEMO).unwrap();
    let mut have = std::collections::BTreeSet::new();
    key_paths(&mine, "", &mut have);
    for f in [
        "bm_dump_n_camera_abridged.txt",
        "bm_dump_n_himovie_abridged.txt",
    ] {
        let text = std::fs::read_to_string(format!(
            "{}/tests/fixtures/harmonyos/{f}",
            concat!(env!("CARGO_MANIFEST_DIR"), "/../..")
        ))
        .unwrap();
        let real: Value = serde_json::from_str(&text[text.find('{').unwrap()..]).unwrap();
        let mut want = std::collections::BTreeSet::new();
        key_paths(&real, "", &mut want);
        // Keys our app cannot have (no extensions) are allowed to be missing.
        let missing: Vec<_> = want
            .iter()
            .filter(|k| !have.contains(*k) && !k.contains("extensionInfos[]"))
            .collect();
        assert!(missing.is_empty(), "{f}: missing {missing:?}");
    }
    assert_eq!(mine["hapModuleInfos"][0]["moduleType"], 1);
    assert_eq!(mine["applicationInfo"]["bundleName"], DEMO);
    assert_eq!(
        mine["applicationInfo"]["codePath"],
        "/data/app/el1/bundle/public/com.tapflow.demo"
    );
    let skills = &mine["hapModuleInfos"][0]["abilityInfos"][0]["skills"][0];
    assert!(
        skills["entities"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e == "entity.system.home")
    );
}
