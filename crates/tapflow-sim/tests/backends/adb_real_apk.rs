//! A real, built APK (binary AXML manifest) installs on the simulated Android device through
//! the real `adb install`, and the package manager, `am`, `monkey` and the launcher queries
//! answer from its manifest (issue 26). The APK is Appium's settings helper,
//! `apks/settings_apk-debug.apk` of the npm package io.appium.settings 8.0.10, fetched by
//! scripts/test-deps.d/46-real-apk.sh; a missing one fails the test and names the script.

use crate::common::adb_env;

use std::path::PathBuf;

use adb_env::AdbEnv;
use tapflow_sim::Latency;
use tapflow_sim::android::{AndroidFarm, FarmOptions};

const PKG: &str = "io.appium.settings";

fn apk() -> PathBuf {
    let p = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join(".test-deps/io.appium.settings-8.0.10/settings_apk-debug.apk");
    assert!(
        p.exists(),
        "{} is missing: run scripts/test-deps.d/46-real-apk.sh (or scripts/test, which runs every install script)",
        p.display()
    );
    p
}

#[test]
fn the_binary_manifest_decodes_to_the_package_and_its_activities() {
    let bytes = std::fs::read(apk()).unwrap();
    let parsed = tapflow_sim::android::apk::parse_apk(&bytes).expect("a real APK parses");
    assert_eq!(parsed.spec.bundle, PKG);
    assert!(
        parsed.spec.version_code > 0,
        "{:?}",
        parsed.spec.version_code
    );
    assert!(!parsed.spec.version_name.is_empty());
    assert!(
        parsed.spec.abilities.iter().any(|a| a.launcher),
        "a launcher activity: {:?}",
        parsed.spec.abilities
    );
    assert!(
        parsed
            .spec
            .permissions
            .iter()
            .any(|p| p == "android.permission.WRITE_SETTINGS"),
        "{:?}",
        parsed.spec.permissions
    );
}

#[test]
fn a_real_apk_installs_and_its_launcher_activity_starts() {
    let f = AndroidFarm::start(&FarmOptions {
        devices: 1,
        latency: Latency::None,
        seed: 7,
        ..Default::default()
    })
    .expect("start the simulated device");
    let env = AdbEnv::start();
    let addr = &f.addresses()[0];
    env.connect(addr);
    let path = apk();
    let out = env.on(addr, &["install", path.to_str().unwrap()]);
    assert_eq!(out.status, Some(0), "{}{}", out.text(), out.stderr);
    assert!(out.text().contains("Success"), "{}", out.text());
    let listed = env.on(addr, &["shell", "pm list packages -3"]).text();
    assert!(listed.contains(&format!("package:{PKG}\n")), "{listed}");
    let p = env.on(addr, &["shell", &format!("pm path {PKG}")]).text();
    assert!(
        p.starts_with("package:/data/app/") && p.ends_with("/base.apk\n"),
        "{p}"
    );
    let dump = env
        .on(addr, &["shell", &format!("dumpsys package {PKG}")])
        .text();
    assert!(dump.contains(&format!("Package [{PKG}]")), "{dump}");
    assert!(dump.contains("android.permission.WRITE_SETTINGS"), "{dump}");
    // The launcher activity, as the launcher queries resolve it.
    let resolved = env
        .on(
            addr,
            &[
                "shell",
                &format!("cmd package resolve-activity --brief -a android.intent.action.MAIN -c android.intent.category.LAUNCHER {PKG}"),
            ],
        )
        .text();
    let component = resolved.lines().last().unwrap_or("").to_string();
    assert!(component.starts_with(&format!("{PKG}/")), "{resolved}");
    let q = env
        .on(
            addr,
            &["shell", "cmd package query-activities --brief -a android.intent.action.MAIN -c android.intent.category.LAUNCHER"],
        )
        .text();
    assert!(q.contains(&format!("    {component}\n")), "{q}");
    // monkey -p PKG 1 starts it; am start -n starts it again (brought to the front).
    let out = env.on(
        addr,
        &[
            "shell",
            &format!("monkey -p {PKG} -c android.intent.category.LAUNCHER 1"),
        ],
    );
    assert!(
        out.text().contains("Events injected: 1"),
        "{}{}",
        out.text(),
        out.stderr
    );
    let focus = env.on(addr, &["shell", "dumpsys window windows"]).text();
    assert!(
        focus.contains("mCurrentFocus=Window{") && focus.contains(&format!(" {PKG}/")),
        "{focus}"
    );
    env.on(addr, &["shell", "input keyevent KEYCODE_HOME"]);
    let out = env.on(addr, &["shell", &format!("am start -W -n {component}")]);
    assert_eq!(out.status, Some(0), "{}{}", out.text(), out.stderr);
    assert!(out.text().contains("Status: ok"), "{}", out.text());
    let pid = env.on(addr, &["shell", &format!("pidof {PKG}")]).text();
    assert!(!pid.trim().is_empty(), "it runs");
}
