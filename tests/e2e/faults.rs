//! Every fault the simulator can inject (`--faults`, docs/sim.md) reaches the hdc backend's
//! caller as the expected typed error (`DeviceError::code()`), never a panic, and never a hang
//! past the operation's deadline. Wall-time bounds below are generous hang guards, not
//! performance assertions.

use crate::common::sim_daemon;

use std::sync::Arc;
use std::time::{Duration, Instant};

use sim_daemon::SimDaemon;
use tapflow_device::hdc::{HdcClient, HdcConfig, HdcDevice, HdcRoute, TransientRetry};
use tapflow_device::{Device, DeviceError, DumpScope, TapKind, TextTarget, UiNode};
use tapflow_sim::{FaultSpec, Latency, SimOptions, SimTransport, Simulator};

use tapflow_sim::DEMO_BUNDLE as DEMO;
/// Hang guard: no single operation below may take longer than this.
const HANG_GUARD: Duration = Duration::from_secs(10);

fn simulator(faults: &str) -> Arc<Simulator> {
    Arc::new(Simulator::new(SimOptions {
        latency: Latency::None,
        seed: 11,
        faults: FaultSpec::parse(faults).expect("fault spec"),
        ..Default::default()
    }))
}

fn client(sim: Arc<Simulator>, config: HdcConfig) -> HdcClient {
    HdcClient::new(
        config,
        Arc::new(SimTransport::new(sim, std::env::temp_dir())),
    )
}

fn connect(faults: &str, config: HdcConfig) -> (Arc<Simulator>, HdcDevice) {
    let sim = simulator(faults);
    let device = client(sim.clone(), config)
        .connect(HdcRoute::default())
        .expect("connect (list targets is host-only and never faulted)");
    (sim, device)
}

/// Runs `op`, asserting it returns within the hang guard (and so does not panic either: a
/// panic would fail the test with its own message).
fn timed<T>(what: &str, op: impl FnOnce() -> T) -> T {
    let started = Instant::now();
    let out = op();
    let took = started.elapsed();
    assert!(took < HANG_GUARD, "{what} took {took:?}");
    out
}

fn err_code<T: std::fmt::Debug>(r: Result<T, DeviceError>) -> (&'static str, DeviceError) {
    let e = r.expect_err("expected a typed error");
    (e.code().as_str(), e)
}

fn username(tree: &UiNode) -> &UiNode {
    tree.walk()
        .find(|n| n.id() == "username")
        .expect("username")
}

/// The backend's configuration with no pause between resends (the simulator's `fail=P` is not
/// time-correlated, so waiting buys nothing in tests).
fn no_pause() -> HdcConfig {
    HdcConfig {
        transient_retry: TransientRetry {
            backoff: Duration::ZERO,
            ..TransientRetry::DEFAULT
        },
        ..HdcConfig::default()
    }
}

/// Seen: `[Fail][E000004] The communication channel is being established` failed operations
/// with their own code (`STOP_APP_FAILED`, …), blaming the app. It is hdc's answer before it
/// forwards anything: the backend sends the command again within its budget, and what still
/// fails is the infrastructure's `HDC_CHANNEL_NOT_READY`, whatever the operation.
#[test]
fn transient_failure_is_retried_then_infrastructure_whatever_the_operation() {
    let (_sim, device) = connect("fail=1", no_pause());
    let budget = u64::from(TransientRetry::DEFAULT.retries) + 1;
    type Op<'a> = Box<dyn Fn() -> Result<(), DeviceError> + 'a>;
    let ops: Vec<(&str, Op)> = vec![
        (
            "dump",
            Box::new(|| device.ui_tree(&DumpScope::default()).map(drop)),
        ),
        (
            "start",
            Box::new(|| device.start_app(DEMO, "EntryAbility", None)),
        ),
        ("stop", Box::new(|| device.stop_app(DEMO))),
        (
            "tap",
            Box::new(|| device.tap(tapflow_device::Point::new(10, 10), TapKind::Single)),
        ),
        ("info", Box::new(|| device.info().map(drop))),
    ];
    for (what, op) in ops {
        let before = device.cost().round_trips;
        let (code, e) = err_code(timed(what, op));
        assert_eq!(code, "HDC_CHANNEL_NOT_READY", "{what}: {e}");
        assert!(e.device_says().unwrap().contains("E000004"), "{e:?}");
        assert_eq!(device.cost().round_trips - before, budget, "{what}");
    }
}

#[test]
fn a_transient_failure_rate_is_absorbed_by_the_backend() {
    // With half the commands refused before delivery, five attempts get nearly every one
    // through; what does not is the infrastructure's code, never the operation's.
    let (_sim, device) = connect("fail=0.5", no_pause());
    let mut ok = 0;
    for _ in 0..40 {
        match timed("dump", || device.ui_tree(&DumpScope::default())) {
            Ok(t) => {
                assert!(t.node_count() > 1);
                ok += 1;
            }
            Err(e) => assert_eq!(e.code(), "HDC_CHANNEL_NOT_READY", "{e:?}"),
        }
    }
    assert!(ok >= 30, "{ok} of 40 dumps got through");
    // Each resend is one more round trip in the cost.
    assert!(device.cost().round_trips > 40);
}

/// A dump that comes back empty every time is sent five times in all (each one a round trip
/// and a UI dump in the cost), then keeps the contract's code, saying so.
#[test]
fn empty_dump_is_a_fetch_error() {
    let (_sim, device) = connect("empty-dump=1", no_pause());
    let before = device.cost();
    let (code, e) = err_code(timed("dump", || device.ui_tree(&DumpScope::default())));
    assert_eq!(code, "UI_TREE_FETCH_ERROR", "{e}");
    assert!(e.to_string().contains("no JSON"), "{e}");
    assert!(e.to_string().contains("5 dumps sent"), "{e}");
    let spent = device.cost() - before;
    assert_eq!((spent.round_trips, spent.ui_dumps), (5, 5));
}

#[test]
fn truncated_dump_is_an_invalid_payload() {
    let (_sim, device) = connect("truncate-dump=1", no_pause());
    for _ in 0..5 {
        let (code, e) = err_code(timed("dump", || device.ui_tree(&DumpScope::default())));
        assert_eq!(code, "INVALID_UI_TREE_PAYLOAD", "{e}");
        assert!(e.to_string().contains("5 dumps sent"), "{e}");
    }
}

/// Seen: an empty or truncated dump made the step fail (`UI_TREE_FETCH_ERROR` /
/// `INVALID_UI_TREE_PAYLOAD`, exit 1). The backend sends a damaged dump again within its
/// budget: with half the dumps damaged, every dump still arrives (a chance of 0.5^5 per dump
/// that one does not, deterministic seed), and the resends are in the cost.
#[test]
fn damaged_dumps_are_sent_again_within_the_budget() {
    let (_sim, device) = connect("empty-dump=0.25,truncate-dump=0.25", no_pause());
    let before = device.cost();
    let mut arrived = 0;
    for _ in 0..30 {
        match timed("dump", || device.ui_tree(&DumpScope::default())) {
            Ok(t) => {
                assert!(t.node_count() > 1);
                arrived += 1;
            }
            Err(e) => assert!(
                ["UI_TREE_FETCH_ERROR", "INVALID_UI_TREE_PAYLOAD"].contains(&e.code().as_str()),
                "{e:?}"
            ),
        }
    }
    assert!(arrived >= 28, "{arrived} of 30 dumps arrived");
    let spent = device.cost() - before;
    assert!(spent.ui_dumps > 35, "resends are counted: {spent:?}");
    assert_eq!(spent.round_trips, spent.ui_dumps);
}

/// A dump chained behind an action is resent on its own: the action is accepted once, and
/// the observation comes from the resends (one round trip each).
#[test]
fn a_damaged_chained_dump_is_resent_without_the_action() {
    let (_sim, device) = connect("empty-dump=1", no_pause());
    let before = device.cost();
    let seen = timed("tap + dump", || {
        device.act_then_tree(
            &tapflow_device::UiAction::Tap(tapflow_device::Point::new(5, 5), TapKind::Single),
            &DumpScope::default(),
        )
    });
    assert!(seen.action.is_ok(), "{:?}", seen.action);
    let e = seen.tree.expect("a dump was made").unwrap_err();
    assert_eq!(e.code(), "UI_TREE_FETCH_ERROR", "{e}");
    assert!(e.to_string().contains("5 dumps sent"), "{e}");
    let spent = device.cost() - before;
    assert_eq!(
        (spent.round_trips, spent.ui_dumps),
        (5, 5),
        "the chain once, then four dumps alone"
    );
}

#[test]
fn slow_dump_beyond_the_deadline_is_a_timeout() {
    let config = HdcConfig {
        dump_timeout: Duration::from_millis(400),
        ..Default::default()
    };
    let (_sim, device) = connect("slow-dump=20s", config);
    let started = Instant::now();
    let (code, e) = err_code(timed("dump", || device.ui_tree(&DumpScope::default())));
    assert_eq!(code, "HDC_TIMEOUT", "{e}");
    assert!(e.to_string().contains("uitest dumpLayout"), "{e}");
    // Killed at its deadline, not when the slow device would have answered.
    assert!(started.elapsed() < Duration::from_secs(5));
    // Other commands are not slowed down.
    timed("start", || device.start_app(DEMO, "EntryAbility", None)).expect("start");
}

#[test]
fn slow_dump_within_the_deadline_still_succeeds() {
    let (_sim, device) = connect("slow-dump=300ms", HdcConfig::default());
    let started = Instant::now();
    let tree = timed("dump", || device.ui_tree(&DumpScope::default())).expect("dump");
    assert!(tree.node_count() > 1);
    assert!(started.elapsed() >= Duration::from_millis(300));
}

#[test]
fn slow_typing_beyond_the_deadline_is_a_timeout() {
    let config = HdcConfig {
        command_timeout: Duration::from_millis(500),
        ..Default::default()
    };
    let (_sim, device) = connect("slow-chars=100ms", config);
    device.start_app(DEMO, "EntryAbility", None).expect("start");
    let tree = device.ui_tree(&DumpScope::default()).expect("dump");
    let at = username(&tree).bounds().unwrap().center();
    device.tap(at, TapKind::Single).expect("tap");
    let (code, e) = err_code(timed("type", || {
        device.input_text(
            TextTarget::Focused,
            "forty characters typed one key at a time",
        )
    }));
    assert_eq!(code, "HDC_TIMEOUT", "{e}");
}

/// Dropped keys cannot be seen by uitest (it reports success), so the backend cannot report
/// them either: `input_text` succeeds and only reading the field back shows the loss. This is
/// why text steps must verify what arrived (the tool layer's job, not the transport's).
#[test]
fn dropped_characters_are_only_visible_by_reading_back() {
    let (_sim, device) = connect("drop-chars=1", HdcConfig::default());
    device.start_app(DEMO, "EntryAbility", None).expect("start");
    let tree = device.ui_tree(&DumpScope::default()).expect("dump");
    let at = username(&tree).bounds().unwrap().center();
    device.tap(at, TapKind::Single).expect("tap");
    timed("type", || device.input_text(TextTarget::Focused, "alice")).expect("uitest says ok");
    let tree = device.ui_tree(&DumpScope::default()).expect("dump");
    assert_eq!(username(&tree).text(), "", "every key was dropped");
    // Pasted text (non-ASCII) is not typed key by key, so it is never dropped.
    device
        .input_text(TextTarget::Focused, "名前")
        .expect("paste");
    let tree = device.ui_tree(&DumpScope::default()).expect("dump");
    assert_eq!(username(&tree).text(), "名前");
}

#[test]
fn disconnect_after_n_commands_is_device_not_found_then_offline() {
    let sim = simulator("disconnect-after=3");
    let serial = sim.serials()[0].clone();
    let client = client(sim.clone(), HdcConfig::default());
    // Addressed by serial (`-t KEY`), as a tool call with `device_id` is.
    let device = client.connect(HdcRoute::target(&serial)).expect("connect");
    // The same device addressed without a key (the contract's "no device_id → no flags").
    let unpinned = client.connect(HdcRoute::default()).expect("connect");
    device.start_app(DEMO, "EntryAbility", None).expect("1st");
    device.ui_tree(&DumpScope::default()).expect("2nd");
    device.info().expect("3rd");
    // hdc's words for an unplugged device: `[Fail][E001005] Device not found or connected`.
    for (what, r) in [
        ("dump", device.ui_tree(&DumpScope::default()).map(|_| ())),
        (
            "tap",
            device.tap(tapflow_device::Point::new(5, 5), TapKind::Single),
        ),
        ("logs", device.logs(&Default::default()).map(|_| ())),
    ] {
        let (code, e) = err_code(r);
        assert_eq!(code, "DEVICE_NOT_FOUND", "{what}: {e}");
        assert!(e.device_says().unwrap().contains("E001005"), "{e:?}");
    }
    // Without a key hdc says `[Fail]No any connected target`: also not found.
    let (code, e) = err_code(unpinned.ui_tree(&DumpScope::default()));
    assert_eq!(code, "DEVICE_NOT_FOUND", "{e}");
    // Reconnecting by serial: hdc lists it as Offline → DEVICE_DISCONNECTED.
    let (code, e) = err_code(client.connect(HdcRoute::target(&serial)));
    assert_eq!(code, "DEVICE_DISCONNECTED", "{e}");
    // Without a serial: nothing usable is left.
    let (code, e) = err_code(client.connect(HdcRoute::default()));
    assert_eq!(code, "DEVICE_NOT_FOUND", "{e}");
    assert!(client.list_targets().expect("listing still works").len() == 1);
}

#[test]
fn every_fault_at_once_never_panics_or_hangs() {
    // A noisy device: each operation either succeeds or fails with a documented code.
    let known = [
        "UI_TREE_FETCH_ERROR",
        "INVALID_UI_TREE_PAYLOAD",
        "HDC_TIMEOUT",
        "INPUT_FAILED",
        "RUN_APP_FAILED",
        "DEVICE_INFO_FAILED",
        "LOG_QUERY_FAILED",
        "SCREENSHOT_ERROR",
        "DEVICE_NOT_FOUND",
        "HDC_CHANNEL_NOT_READY",
    ];
    let config = HdcConfig {
        dump_timeout: Duration::from_millis(300),
        command_timeout: Duration::from_millis(1500),
        ..no_pause()
    };
    let (_sim, device) = connect(
        "fail=0.2,empty-dump=0.2,truncate-dump=0.2,slow-dump=2s@0.2,drop-chars=0.3,disconnect-after=40",
        config,
    );
    let started = Instant::now();
    let mut codes = std::collections::BTreeMap::<&str, u32>::new();
    for i in 0..45 {
        let r: Result<(), DeviceError> = timed("op", || match i % 5 {
            0 => device.start_app(DEMO, "EntryAbility", None),
            1 => device.ui_tree(&DumpScope::default()).map(|_| ()),
            2 => device.tap(tapflow_device::Point::new(600, 900), TapKind::Single),
            3 => device.input_text(TextTarget::Focused, "abc"),
            _ => device.info().map(|_| ()),
        });
        let code = match &r {
            Ok(()) => "OK",
            Err(e) => e.code().as_str(),
        };
        assert!(code == "OK" || known.contains(&code), "{r:?}");
        *codes.entry(code).or_default() += 1;
    }
    assert!(started.elapsed() < Duration::from_secs(60));
    // The device disconnected after its 40th command.
    assert!(codes.contains_key("DEVICE_NOT_FOUND"), "{codes:?}");
    assert!(codes.contains_key("OK"), "{codes:?}");
}

/// The process path: `hdc` (the simulator's executable) is killed at the dump deadline, and
/// the daemon keeps answering other commands while the slow dump's device time runs out.
#[test]
fn slow_dump_through_the_hdc_executable_is_killed_at_its_deadline() {
    let daemon = SimDaemon::start(&["--faults", "slow-dump=20s"]);
    let client = HdcClient::with_process(HdcConfig {
        program: daemon.hdc.clone(),
        dump_timeout: Duration::from_secs(1),
        ..Default::default()
    });
    let device = client.connect(HdcRoute::default()).expect("connect");
    let (code, e) = err_code(timed("dump", || device.ui_tree(&DumpScope::default())));
    assert_eq!(code, "HDC_TIMEOUT", "{e}");
    let started = Instant::now();
    device
        .start_app(DEMO, "EntryAbility", None)
        .expect("the daemon still answers");
    assert!(started.elapsed() < Duration::from_secs(5));
}
