//! `save_path`: the re-queryable snapshot inside the allowlist, and a refused path that never
//! touches the device.

use std::path::PathBuf;

use serde_json::json;
use tapflow_device::logs::{NoDevice, execute};

use super::fake_device::FakeDevice;
use super::{env_in, params, synthetic};

#[test]
fn save_path_writes_a_requeryable_snapshot_inside_the_allowlist() {
    let dir = tempfile::tempdir().unwrap();
    let env = env_in(dir.path());
    let r = execute(
        &params(json!({"logs": synthetic(), "save_path": "out/snap.log"})),
        &env,
        &NoDevice,
    )
    .unwrap();
    let saved = PathBuf::from(r.saved_path.as_ref().unwrap());
    assert!(saved.ends_with("out/snap.log"));
    assert_eq!(
        std::fs::read_to_string(&saved).unwrap(),
        synthetic().join("\n") + "\n"
    );
    // Querying the snapshot gives the same items.
    let again = execute(
        &params(json!({"input_file": "out/snap.log"})),
        &env,
        &NoDevice,
    )
    .unwrap();
    assert_eq!(again.match_count, r.match_count);
    assert_eq!(again.group_count, r.group_count);

    let denied = execute(
        &params(json!({"logs": ["x"], "save_path": "/etc/tapflow-snap.log"})),
        &env,
        &NoDevice,
    );
    assert_eq!(denied.unwrap_err().code, "PATH_NOT_ALLOWED");
    let escape = execute(
        &params(json!({"logs": ["x"], "save_path": "../escape.log"})),
        &env,
        &NoDevice,
    );
    assert_eq!(escape.unwrap_err().code, "PATH_NOT_ALLOWED");
    assert!(r.saved_path.is_some());
}

#[test]
fn a_refused_save_path_never_touches_the_device() {
    let dir = tempfile::tempdir().unwrap();
    let dev = FakeDevice::new(&synthetic().join("\n"));
    let e = execute(
        &params(json!({"save_path": "/etc/x.log"})),
        &env_in(dir.path()),
        &dev,
    )
    .unwrap_err();
    assert_eq!(e.code, "PATH_NOT_ALLOWED");
    assert!(dev.calls.borrow().is_empty());
}
