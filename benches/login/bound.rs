//! The lower bound of the login flow, computed from the simulator's own latency table
//! (`tapflow_sim::latency`, documented in `docs/sim.md`) and the demo app's data — nothing
//! here is a typed-in duration. Each step's unavoidable device work is done once, chained into
//! one `hdc shell` where commands can be chained (issue 8); the app's own login delay (the
//! `delay` action behind the Login button) is added on top. `docs/benchmarks.md` walks through
//! it step by step.

use std::time::Duration;

use tapflow_sim::latency::{Cost, INPUT_TEXT_FOCUS_WAIT, Latency};
use tapflow_sim::phone::demo_app;
use tapflow_sim::phone::model::{Action, ElementSpec};

/// One step of the bound: its hdc invocations, each a list of device work.
pub struct BoundStep {
    pub name: &'static str,
    pub calls: Vec<Vec<Cost>>,
    /// What the work is, for the printed table.
    pub what: String,
}

impl BoundStep {
    pub fn ms(&self) -> f64 {
        let l = Latency::Realistic;
        self.calls
            .iter()
            .flatten()
            .map(|c| l.cost(*c).as_secs_f64() * 1e3)
            .sum()
    }
}

/// An `hdc shell` invocation running `work`: hdc's own cost, the shell round trip, the work.
fn shell(work: &[Cost]) -> Vec<Cost> {
    let mut v = vec![Cost::HdcLocal, Cost::ShellRoundTrip];
    v.extend_from_slice(work);
    v
}

/// `uitest dumpLayout -p P && cat P; rm -f P`: the dump and two builtins.
const DUMP: [Cost; 3] = [Cost::DumpLayout, Cost::Builtin, Cost::Builtin];

/// The bound's steps, in the flow's order. `user` is the typed user name, `png_bytes` the size
/// of the screenshot the run actually received (its transfer time depends on it).
pub fn steps(user: &str, png_bytes: u64) -> Vec<BoundStep> {
    let mut typing = vec![Cost::UiInput, Cost::Wait(INPUT_TEXT_FOCUS_WAIT)];
    typing.extend(std::iter::repeat_n(Cost::KeyStroke, user.chars().count()));
    typing.extend_from_slice(&DUMP);
    vec![
        BoundStep {
            name: "launch",
            calls: vec![shell(&[Cost::AbilityStart])],
            what: "`aa start`".into(),
        },
        BoundStep {
            name: "wait for title",
            calls: vec![shell(&DUMP)],
            what: "one dump".into(),
        },
        BoundStep {
            name: "input + verify",
            calls: vec![shell(&typing)],
            what: format!(
                "`uiInput inputText` (tap, uitest's {} ms focus wait, {} keys) + one dump",
                INPUT_TEXT_FOCUS_WAIT.as_millis(),
                user.chars().count()
            ),
        },
        BoundStep {
            name: "tap Login",
            calls: vec![shell(&[Cost::UiInput])],
            what: "one `uiInput click`".into(),
        },
        BoundStep {
            name: "wait for greeting",
            calls: vec![shell(&DUMP)],
            what: "one dump (after the app's delay, below)".into(),
        },
        BoundStep {
            name: "screenshot",
            calls: vec![
                shell(&[Cost::Screenshot, Cost::Builtin]),
                vec![Cost::HdcLocal, Cost::Transfer(png_bytes)],
            ],
            what: format!("capture (+ `rm` of the device file) + `file recv` of {png_bytes} bytes"),
        },
        BoundStep {
            name: "log marker",
            calls: vec![shell(&[Cost::Hilog])],
            what: "one `hilog -x` read".into(),
        },
    ]
}

/// The demo app's own delay between the tap on Login and the greeting: the `delay` action(s)
/// under the `login` button's `on_tap`, read from the app's data.
pub fn login_delay() -> Duration {
    let app = demo_app();
    let login = app
        .pages
        .values()
        .find_map(|p| find(&p.root, "login"))
        .expect("the demo app has a `login` element");
    Duration::from_millis(delays(&login.on_tap))
}

fn find<'a>(e: &'a ElementSpec, id: &str) -> Option<&'a ElementSpec> {
    if e.id.as_deref() == Some(id) {
        return Some(e);
    }
    e.children.iter().find_map(|c| find(c, id))
}

/// Sum of the delays on the path to the last action (nested delays add up).
fn delays(actions: &[Action]) -> u64 {
    actions
        .iter()
        .map(|a| match a {
            Action::Delay { ms, then } => ms + delays(then),
            Action::Submit { then, .. } => delays(then),
            _ => 0,
        })
        .max()
        .unwrap_or(0)
}
