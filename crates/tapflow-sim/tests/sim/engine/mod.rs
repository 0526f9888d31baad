//! The in-process simulator answers hdc argv with real hdc/device texts: client argv and device
//! selection, shell quoting and lists, every device command, transfers, faults, the transport.
//!
//! Here: simulators and the helpers that run argv and read dumps. The tests, one module per
//! subject: `client` (hdc's own argv and device selection), `quoting` (shell quoting and
//! lists), `uitest`, `aa_bm_param` (aa, bm, param, pidof), `hidumper`, `hilog_files`,
//! `transfers`, `faults`, `transport`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use pretty_assertions::assert_eq;
use serde_json::Value;
use tapflow_device::transport::{Transport, TransportError};
use tapflow_sim::{FaultSpec, Latency, SimOptions, SimTransport, Simulator};

mod aa_bm_param;
mod client;
mod faults;
mod hidumper;
mod hilog_files;
mod quoting;
mod transfers;
mod transport;
mod uitest;

fn sim_with(devices: usize, faults: &str, seed: u64) -> Simulator {
    Simulator::new(SimOptions {
        devices,
        seed,
        latency: Latency::None,
        faults: FaultSpec::parse(faults).unwrap(),
        ..Default::default()
    })
}

fn sim() -> Simulator {
    sim_with(1, "", 0)
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/tests/fixtures/harmonyos/{name}",
        concat!(env!("CARGO_MANIFEST_DIR"), "/../..")
    ))
    .unwrap()
}

fn run_in(s: &Simulator, cwd: &Path, args: &[&str]) -> String {
    let argv: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    let out = s.handle(&argv, cwd);
    assert_eq!(out.exit, 0, "hdc always exits 0");
    String::from_utf8(out.stdout).unwrap()
}

fn run(s: &Simulator, args: &[&str]) -> String {
    run_in(s, Path::new("/"), args)
}

/// `hdc shell "<cmd>"` (the whole command as one argv element).
fn sh(s: &Simulator, cmd: &str) -> String {
    run(s, &["shell", cmd])
}

fn dump(s: &Simulator) -> Value {
    let text = sh(
        s,
        "uitest dumpLayout -p /data/local/tmp/t.json >/dev/null 2>&1 && cat /data/local/tmp/t.json; rm -f /data/local/tmp/t.json",
    );
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("bad dump {e}: {text}"))
}

/// Centre of the node whose `id` is `id`.
fn center(tree: &Value, id: &str) -> Option<(i32, i32)> {
    let a = &tree["attributes"];
    if a["id"] == id {
        let b = a["bounds"].as_str()?;
        let n: Vec<i32> = b
            .split(|c: char| !c.is_ascii_digit() && c != '-')
            .filter(|t| !t.is_empty())
            .map(|t| t.parse().unwrap())
            .collect();
        return Some(((n[0] + n[2]) / 2, (n[1] + n[3]) / 2));
    }
    tree["children"]
        .as_array()?
        .iter()
        .find_map(|c| center(c, id))
}

fn text_of(tree: &Value, id: &str) -> Option<String> {
    let a = &tree["attributes"];
    if a["id"] == id {
        return a["text"].as_str().map(str::to_string);
    }
    tree["children"]
        .as_array()?
        .iter()
        .find_map(|c| text_of(c, id))
}

fn start_demo(s: &Simulator) {
    assert_eq!(
        sh(s, "aa start -a EntryAbility -b com.tapflow.demo"),
        "start ability successfully.\n"
    );
}

fn norm_time(s: &str) -> String {
    regex::Regex::new(r"(?m)^\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}")
        .unwrap()
        .replace_all(s, "MM-DD hh:mm:ss.mmm")
        .into_owned()
}
