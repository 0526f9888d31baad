//! aa, bm, param and pidof: the ability and bundle managers' texts, parameters and processes.

use super::*;
use pretty_assertions::assert_eq;

#[test]
fn ability_manager_texts() {
    let s = sim();
    start_demo(&s);
    assert_eq!(
        sh(&s, "aa start -a Nope -b com.tapflow.demo"),
        "error: failed to start ability.\n\
Error Code:10104001  Error Message:The specified ability does not exist\n\
Error cause: The specified Ability is not installed\n\
\x20 Try the following:\n\
\x20 > Check if the parameter abilityName of aa -a and the parameter bundleName of -b are correct\n\
\x20 > Check if the application corresponding to the specified bundleName is installed\n\
\x20 > For multi-HAP applications, it is necessary to confirm whether the HAP to which the ability belongs has been installed\n\n"
    );
    let missions = sh(&s, "aa dump -l");
    assert!(missions.starts_with("User ID #100\n  current mission lists:{\n"));
    assert!(
        missions.contains("mission name #[#com.tapflow.demo:entry:EntryAbility]  lockedState #0")
    );
    assert!(missions.contains("        state #FOREGROUND  start time ["));
    assert!(
        missions.contains("\n }\n  ExtensionRecords:\n"),
        "{missions}"
    );
    assert!(missions.contains("\n  AppRunningRecords:\n"), "{missions}");
    assert_eq!(
        sh(&s, "aa force-stop com.tapflow.demo"),
        "force stop process successfully.\n"
    );
    assert!(!sh(&s, "aa dump -l").contains("com.tapflow.demo:entry"));
}

#[test]
fn bundle_manager_texts() {
    let s = sim();
    let all = sh(&s, "bm dump -a");
    assert!(all.starts_with("ID: 100:\n\t"));
    assert!(all.contains("\tcom.tapflow.demo\n"));
    let one = sh(&s, "bm dump -n com.tapflow.demo");
    let (first, json) = one.split_once('\n').unwrap();
    assert_eq!(first, "com.tapflow.demo:");
    let v: Value = serde_json::from_str(json).unwrap();
    assert!(v.is_object());
    assert!(json.starts_with("{\n    \""), "pretty JSON, indent 4");
    assert_eq!(
        sh(&s, "bm dump -n com.nope.app"),
        "error: failed to get information and the parameters may be wrong.\n"
    );
    assert_eq!(
        sh(&s, "bm clean -n com.tapflow.demo -d"),
        "clean bundle data files successfully.\n"
    );
    assert_eq!(
        sh(&s, "bm clean -n com.tapflow.demo -c"),
        "clean bundle cache files successfully.\n"
    );
    assert_eq!(
        sh(&s, "bm clean -n com.nope.app -c"),
        "error: failed to clean bundle cache files.\n"
    );
}

#[test]
fn params_and_processes() {
    let s = sim();
    assert_eq!(sh(&s, "param get const.product.model"), "ALN-AL00\n");
    assert_eq!(
        sh(&s, "param get const.product.name"),
        "HUAWEI Mate 60 Pro\n"
    );
    assert_eq!(sh(&s, "param get const.ohos.apiversion"), "12\n");
    assert_eq!(
        sh(&s, "param get x.y"),
        "Get parameter \"x.y\" fail! errNum is:106!\n"
    );
    assert_eq!(sh(&s, "pidof com.tapflow.demo; echo rc=$?"), "rc=1\n");
    start_demo(&s);
    let pid = sh(&s, "pidof com.tapflow.demo");
    let pid = pid.trim();
    assert!(pid.parse::<u32>().is_ok());
    assert_eq!(
        sh(&s, &format!("cat /proc/{pid}/cmdline")),
        "com.tapflow.demo\0"
    );
}
