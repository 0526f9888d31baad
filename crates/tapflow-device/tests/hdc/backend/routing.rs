//! Routing: the golden argv of every combination of device id, hdc server and
//! `HARMONYOS_HDC_SERVER`.

use pretty_assertions::assert_eq;
use tapflow_device::hdc::{HdcClient, HdcConfig};
use tapflow_device::{Device, Point, TapKind};

use super::{Fake, config};

/// `(device_id, hdc_server, HARMONYOS_HDC_SERVER, expected flags)`
type RouteCase = (
    Option<&'static str>,
    Option<&'static str>,
    Option<&'static str>,
    &'static [&'static str],
);

#[test]
fn routing_golden_argv_for_every_case() {
    let cases: [RouteCase; 7] = [
        (None, None, None, &[]),
        (
            None,
            Some("192.168.43.34:35215"),
            None,
            &["-t", "192.168.43.34:35215"],
        ),
        (
            Some("3QC0124C11000711"),
            None,
            None,
            &["-t", "3QC0124C11000711"],
        ),
        (
            Some("3QC0124C11000711"),
            Some("192.168.43.34:35215"),
            None,
            &["-t", "3QC0124C11000711", "-s", "192.168.43.34:35215"],
        ),
        (None, None, Some("10.1.1.1:5555"), &["-t", "10.1.1.1:5555"]),
        (
            Some("3QC0124C11000711"),
            None,
            Some("10.1.1.1:5555"),
            &["-t", "3QC0124C11000711", "-s", "10.1.1.1:5555"],
        ),
        (
            None,
            Some("192.168.43.34:35215"),
            Some("10.1.1.1:5555"),
            &["-t", "192.168.43.34:35215"],
        ),
    ];
    for (device_id, server, default_server, flags) in cases {
        let fake = Fake::new().reply("\n");
        let client = HdcClient::new(
            HdcConfig {
                default_server: default_server.map(String::from),
                ..config()
            },
            fake.clone(),
        );
        let route = client.route(device_id, server);
        client
            .device("X", route)
            .tap(Point::new(10, 20), TapKind::Single)
            .unwrap();
        let mut expected: Vec<String> = flags.iter().map(|s| s.to_string()).collect();
        expected.extend([
            "shell".to_string(),
            "uitest uiInput click 10 20".to_string(),
        ]);
        assert_eq!(
            fake.calls(),
            vec![expected],
            "{device_id:?} {server:?} {default_server:?}"
        );
    }
}
