//! hdc failures and transport errors: `[Fail]` texts, a device not found, timeouts and a
//! missing hdc program, each a typed error.

use std::path::PathBuf;
use std::time::Duration;

use pretty_assertions::assert_eq;
use tapflow_device::hdc::{HdcClient, HdcConfig, HdcRoute};
use tapflow_device::{Device, DeviceError, DumpScope, LogQuery, Point, TapKind, TransportError};

use super::{Fake, SERIAL, config, cost, device};

#[test]
fn hdc_fail_texts_become_typed_errors() {
    let cases = [
        ("[Fail]No any connected target\n", "DEVICE_NOT_FOUND"),
        (
            "[Fail][E001005] Device not found or connected\n",
            "DEVICE_NOT_FOUND",
        ),
        (
            "[Fail]ExecuteCommand need connect-key? please confirm a device by help info\n",
            "MULTIPLE_DEVICES",
        ),
        (
            "[E000002]:The device unauthorized.\n",
            "DEVICE_UNAUTHORIZED",
        ),
        (
            "[Fail][E001003] USB communication abnormal, please check the USB communication link.\n",
            "DEVICE_DISCONNECTED",
        ),
    ];
    for (text, code) in cases {
        // Status-like and payload-like operations alike.
        let fake = Fake::new().reply(text).reply(text).reply(text);
        let d = device(&fake);
        assert_eq!(
            d.tap(Point::new(1, 1), TapKind::Single).unwrap_err().code(),
            code
        );
        assert_eq!(d.logs(&LogQuery::default()).unwrap_err().code(), code);
        assert_eq!(d.ui_tree(&DumpScope::default()).unwrap_err().code(), code);
    }
}

#[test]
fn not_found_names_the_device_and_keeps_hdc_words() {
    let fake = Fake::new().reply("[Fail][E001005] Device not found or connected\r\n");
    let e = device(&fake).missions().unwrap_err();
    assert_eq!(
        e,
        DeviceError::NotFound {
            serial: SERIAL.into(),
            device_says: "[Fail][E001005] Device not found or connected".into()
        }
    );
}

#[test]
fn timeout_is_hdc_timeout_with_the_command() {
    let fake = Fake::new().reply_with(|_| Err(TransportError::Timeout(Duration::from_secs(5))));
    let d = device(&fake);
    let e = d.tap(Point::new(3, 4), TapKind::Single).unwrap_err();
    assert_eq!(e.code(), "HDC_TIMEOUT");
    assert_eq!(
        e,
        DeviceError::Timeout {
            command: format!("fake-hdc -t {SERIAL} shell 'uitest uiInput click 3 4'"),
            after: Duration::from_secs(5)
        }
    );
    assert_eq!(d.cost(), cost(1, 0));
}

#[test]
fn missing_hdc_program_is_hdc_not_found() {
    let client = HdcClient::with_process(HdcConfig {
        program: PathBuf::from("/nonexistent/dir/hdc"),
        ..config()
    });
    let e = client.list_targets().unwrap_err();
    assert_eq!(e.code(), "HDC_NOT_FOUND");
    assert!(e.to_string().contains("/nonexistent/dir/hdc"));
    let d = client.device(SERIAL, HdcRoute::target(SERIAL));
    assert_eq!(d.power_state().unwrap_err().code(), "HDC_NOT_FOUND");
}
