//! The hdc backend against a recording fake transport: the exact argv of every `Device`
//! operation and routing case (golden argv), round trips and UI dumps per operation, and the
//! typed errors for timeouts, a missing hdc, `[Fail]…` texts, unauthorised devices and a locked
//! screen. Canned answers are the real captures in `tests/fixtures/harmonyos/`.
//!
//! One module per group of operations; the recording fake transport, the configured device
//! over it, and the argv, cost and scratch path helpers they share live here.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tapflow_device::hdc::{HdcConfig, HdcDevice, HdcRoute};
use tapflow_device::{Cost, Output, Transport, TransportError};

mod apps;
mod client;
mod failures;
mod info;
mod input;
mod logs;
mod routing;
mod screenshots;
mod ui_tree;
mod windows;

const SERIAL: &str = "FMR0223C13000649";

fn fixture(name: &str) -> String {
    let path = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("tests/fixtures/harmonyos")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

type Responder = Box<dyn Fn(&[String]) -> Result<Output, TransportError> + Send + Sync>;

/// Answers calls in order from a script and records every argv and deadline it was given.
#[derive(Default)]
struct Fake {
    script: Mutex<VecDeque<Responder>>,
    calls: Mutex<Vec<(Vec<String>, Duration)>>,
}

fn ok(text: &str) -> Result<Output, TransportError> {
    Ok(Output {
        stdout: text.as_bytes().to_vec(),
        stderr: Vec::new(),
        status: Some(0),
    })
}

impl Fake {
    fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    fn reply(self: &Arc<Self>, text: impl Into<String>) -> Arc<Self> {
        let text = text.into();
        self.script
            .lock()
            .unwrap()
            .push_back(Box::new(move |_| ok(&text)));
        self.clone()
    }

    fn reply_with(
        self: &Arc<Self>,
        f: impl Fn(&[String]) -> Result<Output, TransportError> + Send + Sync + 'static,
    ) -> Arc<Self> {
        self.script.lock().unwrap().push_back(Box::new(f));
        self.clone()
    }

    fn calls(&self) -> Vec<Vec<String>> {
        self.calls
            .lock()
            .unwrap()
            .iter()
            .map(|(a, _)| a.clone())
            .collect()
    }

    fn timeouts(&self) -> Vec<Duration> {
        self.calls.lock().unwrap().iter().map(|(_, t)| *t).collect()
    }

    fn assert_script_used(&self) {
        assert!(
            self.script.lock().unwrap().is_empty(),
            "some scripted answers were never asked for"
        );
    }
}

impl Transport for Fake {
    fn run(&self, args: &[String], timeout: Duration) -> Result<Output, TransportError> {
        self.calls.lock().unwrap().push((args.to_vec(), timeout));
        let next = self.script.lock().unwrap().pop_front();
        match next {
            Some(f) => f(args),
            None => panic!("unexpected hdc call: {args:?}"),
        }
    }

    fn program(&self) -> String {
        "fake-hdc".into()
    }
}

pub(super) fn config() -> HdcConfig {
    HdcConfig {
        command_timeout: Duration::from_secs(5),
        dump_timeout: Duration::from_secs(9),
        transfer_timeout: Duration::from_secs(20),
        install_timeout: Duration::from_secs(60),
        ..HdcConfig::default()
    }
}

fn device(fake: &Arc<Fake>) -> HdcDevice {
    HdcDevice::new(SERIAL, HdcRoute::target(SERIAL), fake.clone(), config())
}

/// `-t SERIAL shell <cmd>`
fn shell(cmd: &str) -> Vec<String> {
    vec!["-t".into(), SERIAL.into(), "shell".into(), cmd.into()]
}

fn hdc(sub: &[&str]) -> Vec<String> {
    let mut v = vec!["-t".to_string(), SERIAL.to_string()];
    v.extend(sub.iter().map(|s| s.to_string()));
    v
}

fn cost(round_trips: u64, ui_dumps: u64) -> Cost {
    Cost {
        round_trips,
        ui_dumps,
    }
}

/// The device path a command wrote to (`/data/local/tmp/tapflow_<uuid>.<ext>`), checked for form.
fn scratch_path_in(cmd: &str, ext: &str) -> String {
    let re = regex::Regex::new(&format!(
        r"'(/data/local/tmp/tapflow_[0-9a-f]{{32}}\.{ext})'"
    ))
    .unwrap();
    re.captures(cmd)
        .unwrap_or_else(|| panic!("no scratch .{ext} path in {cmd:?}"))[1]
        .to_string()
}

/// The last scratch path in `cmd` (a command may first delete an earlier file).
fn last_scratch_path_in(cmd: &str, ext: &str) -> String {
    let re = regex::Regex::new(&format!(
        r"'(/data/local/tmp/tapflow_[0-9a-f]{{32}}\.{ext})'"
    ))
    .unwrap();
    re.captures_iter(cmd)
        .last()
        .unwrap_or_else(|| panic!("no scratch .{ext} path in {cmd:?}"))[1]
        .to_string()
}
