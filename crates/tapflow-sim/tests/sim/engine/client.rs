//! The hdc client: listing targets, the version, the emulator's key and tcp row, device
//! selection errors.

use super::*;
use pretty_assertions::assert_eq;

#[test]
fn list_targets_and_version() {
    let s = sim_with(2, "", 1);
    let keys = s.serials();
    assert_eq!(
        run(&s, &["list", "targets"]),
        format!("{}\n{}\n", keys[0], keys[1])
    );
    assert_eq!(
        run(&s, &["list", "targets", "-v"]),
        format!(
            "{}\t\tUSB\tConnected\tunknown...\n{}\t\tUSB\tConnected\tunknown...\n",
            keys[0], keys[1]
        )
    );
    assert_eq!(run(&s, &["-v"]), "Ver: 3.1.0e\n");
    assert_eq!(run(&s, &["version"]), "Ver: 3.1.0e\n");
    let none = sim_with(0, "", 0);
    assert_eq!(run(&none, &["list", "targets"]), "[Empty]\n");
    assert_eq!(
        run(&none, &["shell", "ls"]),
        "[Fail]No any connected target\n"
    );
}

#[test]
fn emulator_key_and_tcp_row() {
    let s = Simulator::new(SimOptions {
        devices: 2,
        latency: Latency::None,
        emulator: true,
        ..Default::default()
    });
    let v = run(&s, &["list", "targets", "-v"]);
    assert!(
        v.ends_with("127.0.0.1:5555\t\tTCP\tConnected\tlocalhost\n"),
        "{v}"
    );
    assert_eq!(
        run(&s, &["-t", "127.0.0.1:5555", "shell", "echo ok"]),
        "ok\n"
    );
}

#[test]
fn device_selection_errors() {
    let s = sim_with(2, "", 3);
    assert_eq!(
        sh(&s, "echo hi"),
        "[Fail]ExecuteCommand need connect-key? please confirm a device by help info\n"
    );
    assert_eq!(
        run(&s, &["-t", "NOPE0000X00000000", "shell", "echo hi"]),
        "[Fail][E001005] Device not found or connected\n"
    );
    let k = s.serials()[1].clone();
    assert_eq!(run(&s, &["-t", &k, "shell", "echo hi"]), "hi\n");
    assert_eq!(
        run(&s, &["-t", &k, "-s", "127.0.0.1:8710", "shell", "echo hi"]),
        "hi\n"
    );
    assert_eq!(
        run(&s, &["-s", "127.0.0.1:9999", "list", "targets"]),
        "[Fail]Connect server failed\n"
    );
    assert_eq!(run(&s, &["frobnicate"]), "[Fail]Unknown command...\n");
}
