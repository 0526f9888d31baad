//! The simulated Android device driven by the real `adb` client (Debian's 29.0.6): attached
//! with `adb connect` to a private server, then every command of issue 14's acceptance list
//! through the client, compared with what a device answers.

#[path = "common/adb_env.rs"]
mod adb_env;

use adb_env::AdbEnv;
use tapflow::sim::Latency;
use tapflow::sim::android::{AndroidFarm, FarmOptions};

fn farm(n: usize) -> AndroidFarm {
    AndroidFarm::start(&FarmOptions {
        devices: n,
        latency: Latency::None,
        seed: 3,
        ..Default::default()
    })
    .expect("start the simulated devices")
}

#[test]
fn connect_devices_and_shell() {
    let f = farm(1);
    let env = AdbEnv::start();
    let addr = &f.addresses()[0];
    env.connect(addr);
    let listed = env.run(&["devices", "-l"]).text();
    assert!(listed.starts_with("List of devices attached\n"), "{listed}");
    let line = listed
        .lines()
        .find(|l| l.starts_with(addr.as_str()))
        .expect(&listed);
    assert!(
        line.contains(" device product:panther model:Pixel_7 device:panther transport_id:"),
        "{line}"
    );
    let out = env.on(addr, &["shell", "echo", "hi"]);
    assert_eq!(out.text(), "hi\n");
    assert_eq!(out.status, Some(0));
    let out = env.on(addr, &["shell", "false"]);
    assert_eq!(out.status, Some(1), "shell_v2 carries the exit status");
}
