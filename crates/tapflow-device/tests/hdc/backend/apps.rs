//! Apps: install, uninstall, start, stop, clearing data, packages, package info and pids.

use std::time::Duration;

use pretty_assertions::assert_eq;
use tapflow_device::Device;

use super::{Fake, cost, device, fixture, hdc, shell};

fn temp_hap() -> tempfile::NamedTempFile {
    let f = tempfile::Builder::new().suffix(".hap").tempfile().unwrap();
    std::fs::write(f.path(), b"PK\x03\x04").unwrap();
    f
}

#[test]
fn install_replace_and_success() {
    let hap = temp_hap();
    let path = hap.path().to_str().unwrap().to_string();
    let fake = Fake::new()
        .reply(fixture("hdc_install_success.txt"))
        .reply(fixture("hdc_install_success.txt"));
    let d = device(&fake);
    d.install(hap.path(), true).unwrap();
    d.install(hap.path(), false).unwrap();
    assert_eq!(
        fake.calls(),
        vec![hdc(&["install", "-r", &path]), hdc(&["install", &path])]
    );
    assert_eq!(fake.timeouts()[0], Duration::from_secs(60));
    assert_eq!(d.cost(), cost(2, 0));
}

#[test]
fn install_failure_keeps_the_code_lines() {
    let hap = temp_hap();
    let fake = Fake::new().reply(
        "[Info]App install path:/x/entry-default-signed.hap, queuesize:0, msg:error: failed to install bundle.\ncode:9568289\nerror: install failed due to grant request permissions failed.\nPermissionName: ohos.permission.X\nAppMod finish\n",
    );
    let e = device(&fake).install(hap.path(), true).unwrap_err();
    assert_eq!(e.code(), "INSTALL_FAILED");
    let says = e.device_says().unwrap();
    assert!(says.contains("code:9568289"), "{says}");
    assert!(says.contains("ohos.permission.X"), "{says}");
}

#[test]
fn install_of_a_missing_file_sends_nothing() {
    let fake = Fake::new();
    let e = device(&fake)
        .install(std::path::Path::new("/nonexistent/app.hap"), true)
        .unwrap_err();
    assert_eq!(e.code(), "HOST_IO_ERROR");
    assert!(fake.calls().is_empty());
}

#[test]
fn uninstall() {
    let fake = Fake::new()
        .reply(fixture("hdc_uninstall_success.txt"))
        .reply("[Info]App uninstall path:, queuesize:0, msg:error: failed to uninstall bundle. code:9568386 error: uninstall missing installed bundle.\nAppMod finish\n");
    let d = device(&fake);
    d.uninstall("com.kk.hmscrcpy").unwrap();
    let e = d.uninstall("com.kk.hmscrcpy").unwrap_err();
    assert_eq!(e.code(), "UNINSTALL_FAILED");
    assert!(e.device_says().unwrap().contains("9568386"));
    assert_eq!(
        fake.calls(),
        vec![
            hdc(&["uninstall", "com.kk.hmscrcpy"]),
            hdc(&["uninstall", "com.kk.hmscrcpy"])
        ]
    );
    let e = d.uninstall("-k").unwrap_err();
    assert_eq!(e.code(), "INVALID_BUNDLE_NAME");
    assert_eq!(fake.calls().len(), 2, "an option-like bundle is never sent");
    assert_eq!(d.cost(), cost(2, 0));
}

#[test]
fn start_app() {
    let fake = Fake::new()
        .reply(fixture("aa_start_U_stdout.txt"))
        .reply(fixture("aa_start_U_stdout.txt"))
        .reply("error: failed to start ability.\nError Code:10104001  Error Message:The specified ability does not exist\n");
    let d = device(&fake);
    d.start_app("com.example.app", "EntryAbility", None)
        .unwrap();
    d.start_app("com.example.app", "EntryAbility", Some("entry"))
        .unwrap();
    let e = d
        .start_app("com.example.app", "NoSuchAbility", None)
        .unwrap_err();
    assert_eq!(e.code(), "RUN_APP_FAILED");
    assert!(e.device_says().unwrap().contains("10104001"));
    assert_eq!(
        fake.calls(),
        vec![
            shell("aa start -a 'EntryAbility' -b 'com.example.app'"),
            shell("aa start -a 'EntryAbility' -b 'com.example.app' -m 'entry'"),
            shell("aa start -a 'NoSuchAbility' -b 'com.example.app'"),
        ]
    );
    assert_eq!(d.cost(), cost(3, 0));
}

#[test]
fn stop_app() {
    let fake = Fake::new()
        .reply("force stop process successfully.\n")
        .reply("error: failed to force stop process.\n");
    let d = device(&fake);
    d.stop_app("com.example.app").unwrap();
    assert_eq!(
        d.stop_app("com.example.app").unwrap_err().code(),
        "STOP_APP_FAILED"
    );
    assert_eq!(
        fake.calls(),
        vec![
            shell("aa force-stop 'com.example.app'"),
            shell("aa force-stop 'com.example.app'")
        ]
    );
    assert_eq!(d.cost(), cost(2, 0));
}

#[test]
fn clear_app_data_is_data_and_cache_in_one_round_trip() {
    let fake = Fake::new()
        .reply("==tapflow:0==\nclean bundle data files successfully.\n==tapflow:1==\nclean bundle cache files successfully.\n")
        .reply("==tapflow:0==\nclean bundle data files successfully.\n==tapflow:1==\nerror: failed to clean bundle cache files.\n");
    let d = device(&fake);
    d.clear_app_data("com.example.app").unwrap();
    let e = d.clear_app_data("com.example.app").unwrap_err();
    assert_eq!(e.code(), "CLEAR_DATA_FAILED");
    assert!(
        e.device_says()
            .unwrap()
            .contains("failed to clean bundle cache")
    );
    let cmd = "echo '==tapflow:0=='; bm clean -n 'com.example.app' -d; echo '==tapflow:1=='; bm clean -n 'com.example.app' -c";
    assert_eq!(fake.calls(), vec![shell(cmd), shell(cmd)]);
    assert_eq!(d.cost(), cost(2, 0));
}

#[test]
fn clear_app_data_with_a_missing_answer_fails() {
    let fake = Fake::new().reply("==tapflow:0==\nclean bundle data files successfully.\n");
    let e = device(&fake).clear_app_data("com.example.app").unwrap_err();
    assert_eq!(e.code(), "CLEAR_DATA_FAILED");
    assert!(e.device_says().unwrap().contains("bm clean -c"));
}

#[test]
fn packages_and_package_info() {
    let fake = Fake::new()
        .reply(fixture("bm_dump_a_truncated.txt"))
        .reply(fixture("bm_dump_n_camera_abridged.txt"))
        .reply("error: failed to get information and the parameters may be wrong.\n");
    let d = device(&fake);
    let pkgs = d.packages().unwrap();
    assert_eq!(
        pkgs.first().map(String::as_str),
        Some("com.huawei.associateassistant")
    );
    assert_eq!(pkgs.len(), 12);
    let info = d.package_info("com.huawei.hmos.camera").unwrap();
    assert_eq!(info.bundle_name, "com.huawei.hmos.camera");
    assert!(!info.abilities.is_empty());
    let e = d.package_info("com.no.such").unwrap_err();
    assert_eq!(e.code(), "PACKAGE_QUERY_FAILED");
    assert!(
        e.device_says()
            .unwrap()
            .contains("failed to get information")
    );
    assert_eq!(
        fake.calls(),
        vec![
            shell("bm dump -a"),
            shell("bm dump -n 'com.huawei.hmos.camera'"),
            shell("bm dump -n 'com.no.such'"),
        ]
    );
    assert_eq!(d.cost(), cost(3, 0));
}

#[test]
fn pid_of_running_and_not_running() {
    let fake = Fake::new().reply("6724\n").reply("").reply("pidof: bad\n");
    let d = device(&fake);
    assert_eq!(d.pid_of("com.example.app").unwrap(), Some(6724));
    assert_eq!(d.pid_of("com.example.app").unwrap(), None);
    assert_eq!(
        d.pid_of("com.example.app").unwrap_err().code(),
        "PID_QUERY_FAILED"
    );
    assert_eq!(fake.calls()[0], shell("pidof 'com.example.app'"));
    assert_eq!(d.cost(), cost(3, 0));
}
