//! Device info in one round trip (with the display manager fallback for the screen size) and
//! the power state.

use pretty_assertions::assert_eq;
use tapflow_device::Device;

use super::{Fake, SERIAL, cost, device, fixture, shell};

fn info_answer(render: &str) -> String {
    let params = [
        fixture("param_get_const_product_model.txt"),
        fixture("param_get_const_product_name.txt"),
        fixture("param_get_const_product_brand.txt"),
        fixture("param_get_const_product_software_version.txt"),
        fixture("param_get_const_ohos_apiversion.txt"),
        fixture("param_get_const_product_cpu_abilist.txt"),
        "Get parameter \"const.product.devicetype\" fail! errNum is:106!\n".to_string(),
    ];
    let mut out = String::new();
    for (i, p) in params.iter().enumerate() {
        out.push_str(&format!("==tapflow:{i}==\n{p}"));
    }
    out.push_str(&format!("==tapflow:7==\n{render}"));
    // Windows hosts deliver CRLF; the backend must not care.
    out.replace('\n', "\r\n")
}

const INFO_CMD: &str = "echo '==tapflow:0=='; param get 'const.product.model'; \
echo '==tapflow:1=='; param get 'const.product.name'; \
echo '==tapflow:2=='; param get 'const.product.brand'; \
echo '==tapflow:3=='; param get 'const.product.software.version'; \
echo '==tapflow:4=='; param get 'const.ohos.apiversion'; \
echo '==tapflow:5=='; param get 'const.product.cpu.abilist'; \
echo '==tapflow:6=='; param get 'const.product.devicetype'; \
echo '==tapflow:7=='; hidumper -s RenderService -a screen";

#[test]
fn info_is_one_round_trip() {
    let fake = Fake::new().reply(info_answer(&fixture(
        "hidumper_renderservice_screen_mate60pro.txt",
    )));
    let d = device(&fake);
    let info = d.info().unwrap();
    assert_eq!(fake.calls(), vec![shell(INFO_CMD)]);
    assert_eq!(d.cost(), cost(1, 0));
    assert_eq!(info.serial, SERIAL);
    assert_eq!(info.platform, "harmonyos");
    assert_eq!(info.model.as_deref(), Some("ALN-AL00"));
    assert_eq!(info.name.as_deref(), Some("HUAWEI Mate 60 Pro"));
    assert_eq!(info.brand.as_deref(), Some("HUAWEI"));
    assert_eq!(
        info.software_version.as_deref(),
        Some("ALN-AL00 5.0.0.22(SP35DEVC00E22R4P1log)")
    );
    assert_eq!(info.api_level, Some(12));
    assert_eq!(info.cpu_abi.as_deref(), Some("arm64-v8a"));
    assert_eq!(
        info.device_type, None,
        "a missing key is unknown, not an error"
    );
    let screen = info.screen.unwrap();
    assert_eq!((screen.width, screen.height), (1260, 2720));
}

#[test]
fn info_falls_back_to_display_manager_when_render_service_has_no_size() {
    let fake = Fake::new()
        .reply(info_answer("-- ScreenInfo\n"))
        .reply(fixture("hidumper_displaymanager_a_a_mate60pro.txt"));
    let d = device(&fake);
    let info = d.info().unwrap();
    assert_eq!(
        fake.calls(),
        vec![
            shell(INFO_CMD),
            shell("hidumper -s DisplayManagerService -a -a")
        ]
    );
    assert_eq!(d.cost(), cost(2, 0));
    let screen = info.screen.unwrap();
    assert_eq!((screen.width, screen.height), (1260, 2720));
}

#[test]
fn power_state() {
    let fake = Fake::new().reply(fixture("hidumper_powermanager_a_s_mate60pro.txt"));
    let d = device(&fake);
    let p = d.power_state().unwrap();
    assert_eq!(
        fake.calls(),
        vec![shell("hidumper -s PowerManagerService -a -s")]
    );
    assert_eq!(p.state, "AWAKE");
    assert!(p.awake);
    assert_eq!(d.cost(), cost(1, 0));
}

#[test]
fn power_state_without_a_state_line_is_a_parse_error() {
    let fake = Fake::new().reply("hidumper: no such service\n");
    let e = device(&fake).power_state().unwrap_err();
    assert_eq!(e.code(), "DEVICE_INFO_FAILED");
}
