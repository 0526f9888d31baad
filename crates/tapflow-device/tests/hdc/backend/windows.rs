//! Windows (both hidumper formats, bundles resolved in a second round trip) and missions.

use pretty_assertions::assert_eq;
use tapflow_device::Device;

use super::{Fake, cost, device, fixture, shell};

#[test]
fn windows_resolve_bundles_in_a_second_round_trip() {
    let fake = Fake::new()
        .reply(fixture("hidumper_wms_a_window_list_openharmony_docs_720x1280.txt"))
        .reply(
            "==tapflow:0==\ncom.ohos.systemui\0\n==tapflow:1==\ncom.ohos.settings\0==tapflow:2==\ncom.ohos.launcher\0==tapflow:3==\n",
        );
    let d = device(&fake);
    let table = d.windows().unwrap();
    assert_eq!(
        fake.calls(),
        vec![
            shell("hidumper -s WindowManagerService -a '-a'"),
            shell(
                "echo '==tapflow:0=='; cat '/proc/1274/cmdline' 2>/dev/null; \
echo '==tapflow:1=='; cat '/proc/10733/cmdline' 2>/dev/null; \
echo '==tapflow:2=='; cat '/proc/1546/cmdline' 2>/dev/null; \
echo '==tapflow:3=='; cat '/proc/1530/cmdline' 2>/dev/null"
            ),
        ]
    );
    assert_eq!(d.cost(), cost(2, 0));
    assert_eq!(table.windows.len(), 10);
    assert_eq!(table.focus_window, Some(2));
    let bundle = |name: &str| {
        table
            .windows
            .iter()
            .find(|w| w.name == name)
            .unwrap()
            .bundle_name
            .clone()
    };
    assert_eq!(bundle("settings0").as_deref(), Some("com.ohos.settings"));
    assert_eq!(
        bundle("SystemUi_StatusBar").as_deref(),
        Some("com.ohos.systemui")
    );
    assert_eq!(bundle("EntryView").as_deref(), Some("com.ohos.launcher"));
    assert_eq!(bundle("imeWindow"), None, "the process is gone: no bundle");
}

#[test]
fn next_format_windows() {
    let fake = Fake::new()
        .reply(fixture(
            "hidumper_wms_a_window_list_next_2in1_trimmed_test_embedded.txt",
        ))
        .reply("==tapflow:0==\ncom.ohos.installer\0==tapflow:1==\ncom.huawei.hmos.browser\0");
    let table = device(&fake).windows().unwrap();
    assert_eq!(table.windows.len(), 2);
    assert_eq!(
        table.windows[1].bundle_name.as_deref(),
        Some("com.huawei.hmos.browser")
    );
}

#[test]
fn missions() {
    let fake = Fake::new().reply(fixture("aa_dump_l_mission_list.txt"));
    let d = device(&fake);
    let missions = d.missions().unwrap();
    assert_eq!(fake.calls(), vec![shell("aa dump -l")]);
    let fg = missions.iter().find(|m| m.state == "FOREGROUND").unwrap();
    assert_eq!(fg.bundle, "com.huawei.hmsapp.himovie");
    assert_eq!(fg.ability, "MainAbility");
    assert_eq!(d.cost(), cost(1, 0));
}
