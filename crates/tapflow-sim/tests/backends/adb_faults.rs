//! Faults of the simulated Android device (`--faults`, docs/sim.md) reach the adb backend's
//! caller as typed errors through the real `adb` client, never as a hang: a dropped TCP
//! connection (attached again and resent first), a device that goes offline, slow dumps,
//! dropped characters, refused streams.
//! Wall-time bounds are generous hang guards, not performance assertions.

use crate::common::adb_env;

use std::time::{Duration, Instant};

use adb_env::AdbEnv;
use tapflow_device::adb::{AdbClient, AdbConfig, AdbDevice};
use tapflow_device::retry::TransientRetry;
use tapflow_device::{Device, DeviceError, DumpScope, TapKind, TextTarget, UiNode};
use tapflow_sim::android::{AndroidFarm, FarmOptions};
use tapflow_sim::{FaultSpec, Latency};

use tapflow_sim::DEMO_BUNDLE as DEMO;
const MAIN: &str = "com.tapflow.demo.EntryAbility";
const HANG_GUARD: Duration = Duration::from_secs(30);

fn start(faults: &str) -> (AndroidFarm, AdbEnv) {
    let farm = AndroidFarm::start(&FarmOptions {
        latency: Latency::None,
        seed: 11,
        faults: FaultSpec::parse(faults).unwrap(),
        ..Default::default()
    })
    .unwrap();
    let env = AdbEnv::start();
    (farm, env)
}

fn device(farm: &AndroidFarm, _env: &AdbEnv, config: AdbConfig) -> AdbDevice {
    let client = AdbClient::with_process(config);
    let addr = &farm.addresses()[0];
    client
        .adb_connect(addr)
        .expect("connect (the handshake is never faulted)");
    client.connect(Some(addr)).expect("listed as device")
}

fn timed<T>(what: &str, op: impl FnOnce() -> T) -> T {
    let started = Instant::now();
    let out = op();
    assert!(
        started.elapsed() < HANG_GUARD,
        "{what} took {:?}",
        started.elapsed()
    );
    out
}

fn err<T: std::fmt::Debug>(r: Result<T, DeviceError>) -> DeviceError {
    r.expect_err("a typed error")
}

fn username(t: &UiNode) -> &UiNode {
    t.walk().find(|n| n.id() == "username").expect("username")
}

/// Every command's connection is cut: the backend attaches the device again and resends,
/// within its budget, then reports the lost link.
#[test]
fn a_dropped_tcp_connection_is_device_disconnected() {
    let (farm, env) = start("drop-conn=1");
    let d = device(&farm, &env, quick(&env));
    for _ in 0..3 {
        let e = err(timed("dump", || d.ui_tree(&DumpScope::default())));
        assert_eq!(e.code(), "DEVICE_DISCONNECTED", "{e:?}");
        let e = err(timed("tap", || {
            d.tap(tapflow_device::Point::new(5, 5), TapKind::Single)
        }));
        assert_eq!(e.code(), "DEVICE_DISCONNECTED", "{e:?}");
    }
}

/// Seen: one dropped connection (`drop-conn=0.05`) took an Android device out for the rest of
/// the run: adb listed it `offline` and answered `error: device offline` to every command. The
/// server forwarded none of them, so the backend attaches the device again (`adb disconnect`,
/// then `adb connect`) and resends, as hdc's undelivered commands are resent; every command
/// sent for it is a round trip in the cost.
#[test]
fn a_dropped_connection_is_attached_again_and_the_command_resent() {
    let (farm, env) = start("drop-conn=0.3");
    let d = device(&farm, &env, quick(&env));
    let before = d.cost();
    for i in 0..20 {
        timed("dump", || d.ui_tree(&DumpScope::default()))
            .unwrap_or_else(|e| panic!("dump {i}: {e:?}"));
    }
    let spent = d.cost() - before;
    assert_eq!(spent.ui_dumps, 20);
    assert!(
        spent.round_trips > 25,
        "resends and reconnects are counted: {spent:?}"
    );
    assert!(env.wait_state(d.serial(), "device", Duration::from_secs(20)));
}

/// A device that leaves the network for good: the backend tries to attach it again within its
/// budget, then reports the lost link, saying the reconnection failed.
#[test]
fn a_device_that_goes_offline_is_a_typed_error_after_the_reconnect_budget() {
    let (farm, env) = start("disconnect-after=2");
    let d = device(&farm, &env, quick(&env));
    d.start_app(DEMO, MAIN, None).expect("1st command");
    d.ui_tree(&DumpScope::default()).expect("2nd command");
    // The third command takes the device off the network.
    for (what, r) in [
        (
            "dump",
            timed("dump", || d.ui_tree(&DumpScope::default()).map(|_| ())),
        ),
        ("info", timed("info", || d.info().map(|_| ()))),
        (
            "logs",
            timed("logs", || d.logs(&Default::default()).map(|_| ())),
        ),
        ("uninstall", timed("uninstall", || d.uninstall("com.x.y"))),
    ] {
        let e = r.expect_err(what);
        assert_eq!(e.code(), "DEVICE_DISCONNECTED", "{what}: {e:?}");
        assert!(
            e.device_says()
                .unwrap()
                .contains("attaching it again failed"),
            "{what}: {e:?}"
        );
    }
}

/// Ten attempts in all, one millisecond apart (the simulator's faults are not correlated in
/// time: waiting buys nothing here).
fn quick(env: &AdbEnv) -> AdbConfig {
    AdbConfig {
        refused_retry: TransientRetry {
            retries: 9,
            backoff: Duration::from_millis(1),
        },
        ..env.config()
    }
}

#[test]
fn slow_dumps_time_out_at_the_deadline_and_pass_within_it() {
    let (farm, env) = start("slow-dump=4s");
    let config = AdbConfig {
        dump_timeout: Duration::from_millis(1500),
        ..env.config()
    };
    let d = device(&farm, &env, config);
    let started = Instant::now();
    let e = err(d.ui_tree(&DumpScope::default()));
    assert_eq!(e.code(), "ADB_TIMEOUT", "{e:?}");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "killed at its deadline"
    );
    assert!(e.is_transient());
    // The device is still there: a generous deadline sees the dump.
    let d = AdbClient::with_process(AdbConfig {
        dump_timeout: Duration::from_secs(20),
        ..env.config()
    })
    .device(d.serial());
    timed("slow dump", || d.ui_tree(&DumpScope::default())).expect("within the deadline");
}

#[test]
fn dropped_characters_are_only_visible_by_reading_back() {
    let (farm, env) = start("drop-chars=1");
    let d = device(&farm, &env, env.config());
    d.start_app(DEMO, MAIN, None).unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    let t = loop {
        let t = d.ui_tree(&DumpScope::default()).unwrap();
        if t.walk().any(|n| n.id() == "username") || Instant::now() > deadline {
            break t;
        }
    };
    let at = username(&t).bounds().unwrap().center();
    d.input_text(TextTarget::At(at), "alice")
        .expect("`input text` says nothing");
    let t = d.ui_tree(&DumpScope::default()).unwrap();
    assert_eq!(
        username(&t).text(),
        "Username",
        "every key was dropped: the hint shows"
    );
    // ADBKeyBoard commits text at once: nothing to drop.
    d.input_text(TextTarget::Focused, "名前").unwrap();
    assert_eq!(
        username(&d.ui_tree(&DumpScope::default()).unwrap()).text(),
        "名前"
    );
}

/// A stream the device refuses to open (`error: closed`) never ran, so the backend sends the
/// command again within its budget, like hdc's `[Fail][E000004]`; every attempt is a round
/// trip in the cost. Only when every attempt is refused does the error reach the caller.
#[test]
fn refused_streams_are_sent_again_within_the_budget() {
    let (farm, env) = start("fail=1");
    let d = device(&farm, &env, quick(&env));
    let before = d.cost();
    let e = err(timed("dump", || d.ui_tree(&DumpScope::default())));
    assert_eq!(e.code(), "DEVICE_DISCONNECTED", "`error: closed`: {e:?}");
    assert_eq!((d.cost() - before).round_trips, 10, "1 attempt + 9 resends");
    drop((farm, env));
    // One command in five refused: with ten attempts each, every operation goes through
    // (a chance of 0.2^10 per operation that one does not).
    let (farm, env) = start("fail=0.2");
    let d = device(&farm, &env, quick(&env));
    d.start_app(DEMO, MAIN, None).expect("launch");
    for _ in 0..10 {
        timed("dump", || d.ui_tree(&DumpScope::default())).expect("resent until it answered");
    }
}

#[test]
fn refused_streams_and_every_fault_at_once_never_hang() {
    let (farm, env) = start("fail=1");
    let d = device(&farm, &env, env.config());
    let e = err(timed("dump", || d.ui_tree(&DumpScope::default())));
    assert_eq!(e.code(), "DEVICE_DISCONNECTED", "`error: closed`: {e:?}");
    drop((farm, env));
    let (farm, env) = start(
        "fail=0.2,empty-dump=0.2,truncate-dump=0.2,slow-dump=3s@0.2,drop-chars=0.3,drop-conn=0.1,disconnect-after=60",
    );
    let d = device(
        &farm,
        &env,
        AdbConfig {
            dump_timeout: Duration::from_secs(2),
            command_timeout: Duration::from_secs(5),
            ..env.config()
        },
    );
    let known = [
        "UI_TREE_FETCH_ERROR",
        "INVALID_UI_TREE_PAYLOAD",
        "ADB_TIMEOUT",
        "DEVICE_DISCONNECTED",
        "DEVICE_NOT_FOUND",
        "INPUT_FAILED",
        "RUN_APP_FAILED",
        "SCREEN_LOCKED",
    ];
    for i in 0..40 {
        let r: Result<(), DeviceError> = match i % 4 {
            0 => d.ui_tree(&DumpScope::default()).map(|_| ()),
            1 => d.start_app(DEMO, MAIN, None),
            2 => d.tap(tapflow_device::Point::new(500, 900), TapKind::Single),
            _ => d.input_text(TextTarget::Focused, "abc"),
        };
        if let Err(e) = timed("op", || r) {
            assert!(
                known.contains(&e.code().as_str()),
                "undocumented code: {e:?}"
            );
        }
    }
}
