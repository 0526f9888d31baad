//! The trees of the fake's screens (login, home, desktop, the status bar) and the installed
//! packages' info.

use super::*;

fn attrs(ty: &str, text: &str, id: &str, aid: u32, b: Bounds, clickable: bool) -> UiNode {
    let mut n = UiNode::default();
    let a = &mut n.attributes;
    a.insert("accessibilityId".into(), aid.to_string());
    a.insert("bounds".into(), b.to_string());
    a.insert("clickable".into(), clickable.to_string());
    a.insert("enabled".into(), "true".into());
    a.insert("focused".into(), "false".into());
    a.insert("hashcode".into(), format!("{APP_WINDOW}:{aid}"));
    a.insert("hostWindowId".into(), APP_WINDOW.to_string());
    a.insert("id".into(), id.into());
    a.insert("key".into(), id.into());
    a.insert("longClickable".into(), "false".into());
    a.insert("scrollable".into(), "false".into());
    a.insert("text".into(), text.into());
    a.insert("type".into(), ty.into());
    a.insert("visible".into(), "true".into());
    n
}

fn window(page: &str, children: Vec<UiNode>) -> UiNode {
    let mut w = attrs("root", "", "", 0, Bounds::new(0, 100, W, H), false);
    w.attributes.insert("bundleName".into(), BUNDLE.into());
    w.attributes
        .insert("abilityName".into(), "EntryAbility".into());
    w.attributes.insert("pagePath".into(), page.into());
    w.attributes.insert("focused".into(), "true".into());
    w.children = children;
    w
}

pub(super) fn login(st: &State) -> UiNode {
    let mut button = attrs(
        "Button",
        "Login",
        "loginBtn",
        4,
        Bounds::new(100, 700, 1160, 820),
        true,
    );
    button.children.push(attrs(
        "Text",
        "Login",
        "",
        5,
        Bounds::new(500, 730, 760, 790),
        false,
    ));
    let mut kids = vec![
        attrs(
            "Text",
            "Welcome",
            "",
            1,
            Bounds::new(100, 200, 1160, 300),
            false,
        ),
        attrs(
            "TextInput",
            &st.typed,
            "user",
            2,
            Bounds::new(100, 400, 1160, 520),
            true,
        ),
        button,
        attrs(
            "Text",
            "Item",
            "",
            6,
            Bounds::new(660, 900, 1160, 1000),
            false,
        ),
        attrs(
            "Text",
            "Item",
            "",
            7,
            Bounds::new(100, 900, 600, 1000),
            false,
        ),
        attrs(
            "Button",
            "Later",
            "laterBtn",
            8,
            Bounds::new(100, 1100, 1160, 1220),
            true,
        ),
    ];
    if st.loading {
        kids.push(attrs(
            "Text",
            "Loading…",
            "",
            9,
            Bounds::new(100, 1300, 1160, 1400),
            false,
        ));
    }
    let column = {
        let mut c = attrs("Column", "", "", 20, Bounds::new(0, 100, W, 2600), false);
        c.children = kids;
        c
    };
    window("pages/Login", vec![column])
}

pub(super) fn home(st: &State) -> UiNode {
    let mut list = attrs("List", "", "list", 30, Bounds::new(0, 300, W, 2500), false);
    list.attributes.insert("scrollable".into(), "true".into());
    for (slot, i) in (st.offset..(st.offset + VISIBLE_ROWS).min(ROWS)).enumerate() {
        let top = 300 + slot as i32 * 220;
        let mut item = attrs(
            "ListItem",
            "",
            "",
            100 + i as u32 * 2,
            Bounds::new(0, top, W, top + 220),
            true,
        );
        item.children.push(attrs(
            "Text",
            &format!("Row {i}"),
            "",
            101 + i as u32 * 2,
            Bounds::new(40, top + 40, 1000, top + 180),
            false,
        ));
        list.children.push(item);
    }
    window(
        "pages/Home",
        vec![
            attrs(
                "Text",
                "Home",
                "",
                1,
                Bounds::new(100, 150, 1160, 250),
                false,
            ),
            list,
            attrs(
                "Button",
                "Back",
                "backBtn",
                40,
                Bounds::new(100, 2520, 1160, 2640),
                true,
            ),
        ],
    )
}

pub(super) fn desktop() -> UiNode {
    let mut w = attrs("root", "", "", 0, Bounds::new(0, 0, W, H), false);
    w.attributes.insert("hostWindowId".into(), "2".into());
    w.attributes.insert("hashcode".into(), "2:0".into());
    w.attributes
        .insert("bundleName".into(), "com.ohos.sceneboard".into());
    w.children.push({
        let mut t = attrs(
            "Text",
            "Desktop",
            "",
            1,
            Bounds::new(100, 200, 1160, 300),
            false,
        );
        t.attributes.insert("hostWindowId".into(), "2".into());
        t.attributes.insert("hashcode".into(), "2:1".into());
        t
    });
    w
}

pub(super) fn status_bar() -> UiNode {
    let mut w = attrs("root", "", "", 0, Bounds::new(0, 0, W, 100), false);
    w.attributes.insert("hostWindowId".into(), "3".into());
    w.attributes.insert("hashcode".into(), "3:0".into());
    w.attributes
        .insert("bundleName".into(), "com.ohos.systemui".into());
    w.children.push({
        let mut t = attrs("Text", "12:00", "", 1, Bounds::new(20, 20, 200, 80), false);
        t.attributes.insert("hostWindowId".into(), "3".into());
        t.attributes.insert("hashcode".into(), "3:1".into());
        t
    });
    w
}

pub(super) fn package(bundle: &str) -> Option<PackageInfo> {
    let ability = |name: &str, kind: &str, visible: bool, launcher: bool| AbilityInfo {
        name: name.into(),
        module: "entry".into(),
        bundle: bundle.into(),
        kind: Some(kind.into()),
        visible: Some(visible),
        is_launcher: launcher,
        actions: vec![],
        entities: vec![],
    };
    let module = ModuleInfo {
        name: "entry".into(),
        module_type: Some("entry".into()),
        main_ability: None,
    };
    let mut p = PackageInfo {
        bundle_name: bundle.into(),
        version_name: Some("1.0.0".into()),
        version_code: Some(1000000),
        debug: Some(true),
        entry_module: Some("entry".into()),
        main_ability: None,
        main_module: None,
        modules: vec![module],
        abilities: vec![],
        permissions: vec![],
    };
    match bundle {
        BUNDLE => {
            p.main_ability = Some("EntryAbility".into());
            p.main_module = Some("entry".into());
            p.abilities = vec![
                ability("EntryAbility", "page", true, true),
                ability("SyncService", "service", false, false),
            ];
            p.permissions = vec![
                "ohos.permission.INTERNET".into(),
                "ohos.permission.CAMERA".into(),
            ];
        }
        "com.example.pages" => {
            p.abilities = vec![
                ability("HiddenAbility", "page", false, false),
                ability("ShownAbility", "page", true, false),
            ];
        }
        "com.example.service" => {
            p.abilities = vec![ability("OnlyService", "service", false, false)]
        }
        "com.example.hidden" => {
            p.abilities = vec![
                ability("OnlyService", "service", false, false),
                ability("HiddenAbility", "page", false, false),
            ]
        }
        "com.ohos.settings" => p.abilities = vec![ability("MainAbility", "page", true, true)],
        _ => return None,
    }
    Some(p)
}
