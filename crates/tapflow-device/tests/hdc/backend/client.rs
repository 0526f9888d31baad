//! The client: listing targets (verbose, empty, through the route's server, failing) and
//! connecting to listed, unlisted, unauthorised, offline and the only device.

use std::sync::Arc;

use pretty_assertions::assert_eq;
use tapflow_device::hdc::{HdcClient, HdcRoute};
use tapflow_device::{Device, DeviceError, KeyInput, Point, TapKind};

use super::{Fake, SERIAL, config, cost, fixture, shell};

fn client(fake: &Arc<Fake>) -> HdcClient {
    HdcClient::new(config(), fake.clone())
}

#[test]
fn list_targets_verbose() {
    let fake = Fake::new().reply(fixture("hdc_list_targets_v.txt"));
    let c = client(&fake);
    let targets = c.list_targets().unwrap();
    assert_eq!(fake.calls(), vec![vec!["list", "targets", "-v"]]);
    assert_eq!(targets.len(), 2);
    assert_eq!(targets[0].serial, "127.0.0.1:5555");
    assert_eq!(targets[0].connection.as_deref(), Some("TCP"));
    assert_eq!(targets[1].serial, SERIAL);
    assert_eq!(c.cost(), cost(1, 0));
}

#[test]
fn empty_listing_is_no_targets() {
    let fake = Fake::new().reply("[Empty]\n");
    assert!(client(&fake).list_targets().unwrap().is_empty());
}

#[test]
fn listing_goes_to_the_route_server() {
    let fake = Fake::new().reply(format!("{SERIAL}\t\tUSB\tConnected\tlocalhost\n"));
    let c = client(&fake);
    let route = c.route(Some(SERIAL), Some("10.0.0.9:8710"));
    let d = c.connect(route.clone()).unwrap();
    assert_eq!(
        fake.calls(),
        vec![vec!["-s", "10.0.0.9:8710", "list", "targets", "-v"]]
    );
    assert_eq!(d.serial(), SERIAL);
    assert_eq!(d.route(), &route);
}

#[test]
fn connect_to_a_listed_device() {
    let fake = Fake::new()
        .reply(fixture("hdc_list_targets_v.txt"))
        .reply("\n");
    let c = client(&fake);
    let d = c.connect(c.route(Some(SERIAL), None)).unwrap();
    assert_eq!(d.serial(), SERIAL);
    assert_eq!(d.platform(), "harmonyos");
    d.tap(Point::new(5, 6), TapKind::Single).unwrap();
    assert_eq!(fake.calls()[1], shell("uitest uiInput click 5 6"));
    assert_eq!(
        d.cost(),
        cost(1, 0),
        "the device counts its own round trips"
    );
    fake.assert_script_used();
}

#[test]
fn connect_to_an_unlisted_device_is_not_found() {
    let fake = Fake::new().reply(fixture("hdc_list_targets_v.txt"));
    let c = client(&fake);
    let e = c.connect(c.route(Some("NOPE123"), None)).unwrap_err();
    assert_eq!(e.code(), "DEVICE_NOT_FOUND");
    assert!(e.device_says().unwrap().contains(SERIAL));

    let fake = Fake::new().reply("[Empty]\n");
    let c = client(&fake);
    let e = c
        .connect(c.route(None, Some("192.168.1.5:5555")))
        .unwrap_err();
    assert_eq!(e.code(), "DEVICE_NOT_FOUND");
    assert!(
        e.device_says()
            .unwrap()
            .contains("hdc tconn 192.168.1.5:5555")
    );
}

#[test]
fn connect_recognises_unauthorized_and_offline() {
    let fake = Fake::new().reply(format!("{SERIAL}\t\tUSB\tUnauthorized\tunknown...\n"));
    let c = client(&fake);
    let e = c.connect(c.route(Some(SERIAL), None)).unwrap_err();
    assert_eq!(
        e,
        DeviceError::Unauthorized {
            serial: SERIAL.into()
        }
    );

    let fake = Fake::new().reply(format!("{SERIAL}\tUnauthorized\n"));
    let c = client(&fake);
    assert_eq!(
        c.connect(HdcRoute::default()).unwrap_err().code(),
        "DEVICE_UNAUTHORIZED"
    );

    let fake = Fake::new().reply(format!("{SERIAL}\t\tUSB\tOffline\tunknown...\n"));
    let c = client(&fake);
    assert_eq!(
        c.connect(c.route(Some(SERIAL), None)).unwrap_err().code(),
        "DEVICE_DISCONNECTED"
    );
}

#[test]
fn connect_without_target_needs_exactly_one_device() {
    let fake = Fake::new().reply(fixture("hdc_list_targets_v.txt"));
    let e = client(&fake).connect(HdcRoute::default()).unwrap_err();
    assert_eq!(
        e,
        DeviceError::Ambiguous {
            serials: format!("127.0.0.1:5555, {SERIAL}")
        }
    );

    let fake = Fake::new()
        .reply("127.0.0.1:5555\t\tTCP\tConnected\tlocalhost\n")
        .reply("\n");
    let d = client(&fake).connect(HdcRoute::default()).unwrap();
    assert_eq!(d.serial(), "127.0.0.1:5555");
    d.key_event(&KeyInput::Home).unwrap();
    assert_eq!(
        fake.calls()[1],
        vec!["shell", "uitest uiInput keyEvent Home"],
        "no routing given → no flags"
    );

    let fake = Fake::new().reply("[Empty]\n");
    assert_eq!(
        client(&fake)
            .connect(HdcRoute::default())
            .unwrap_err()
            .code(),
        "DEVICE_NOT_FOUND"
    );
}

#[test]
fn listing_failure_is_typed() {
    // hdc's client cannot reach its server: the infrastructure, not the listing.
    let fake = Fake::new().reply("[Fail]Connect server failed\n");
    let e = client(&fake).list_targets().unwrap_err();
    assert_eq!(e.code(), "HDC_SERVER_UNREACHABLE");
    let fake = Fake::new().reply("[Fail]some other server trouble\n");
    let e = client(&fake).list_targets().unwrap_err();
    assert_eq!(e.code(), "DEVICE_LIST_FAILED");
}
