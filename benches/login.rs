//! Issue 8's benchmarks, printed as tables (no criterion: these are whole runs of seconds).
//!
//! - `login`: the 7-step login flow (`benches/login/flow.yaml`) through the real runner
//!   (`tapflow::run::run`, run directory written as `tapflow run` writes it) on an in-process
//!   simulated phone with REALISTIC latency. Prints per step the wall time and hdc calls
//!   (every invocation is recorded by a transport wrapper, attributed to the step during
//!   which it started), the lower bound computed from the simulator's latency table
//!   (`login/bound.rs`) and the ratio, median of several runs (a fresh phone each).
//! - `scaling`: 40 flows on 1 and on 8 phones, scaling efficiency (`login/scaling.rs`).
//! - `growth`: validate + plan of up to 2 000 flows, a 1 000-step flow, writing the result of
//!   200 flows × 20 steps (`login/growth.rs`).
//!
//! Run: `cargo bench --bench login` (all parts) or `cargo bench --bench login -- login`
//! (or `scaling`, `growth`).
//! Figures and the explanation of the bound: `docs/benchmarks.md`.

#[path = "login/bound.rs"]
mod bound;
#[path = "login/growth.rs"]
mod growth;
#[path = "login/rig.rs"]
mod rig;
#[path = "login/scaling.rs"]
mod scaling;

use std::time::Instant;

use rig::{TimedEvents, World, load, median, ms, plan_of};
use tapflow::run::{RunEvent, Status};

const FLOW: &str = include_str!("login/flow.yaml");
/// Runs behind each median.
const RUNS: usize = 5;

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let all = args.is_empty();
    let wants = |part: &str| all || args.iter().any(|a| a == part);
    if wants("login") {
        login();
    }
    if wants("scaling") {
        scaling::scaling();
    }
    if wants("growth") {
        growth::growth();
    }
}

/// What one login run measured.
struct LoginRun {
    /// Per step: (wall ms, hdc calls).
    steps: Vec<(f64, usize)>,
    /// Per step: every hdc call's duration and argv (printed with `TAPFLOW_BENCH_CALLS=1`).
    detail: Vec<Vec<String>>,
    /// Before the first step: the device check, then the flow's own setup.
    check: (f64, usize),
    setup: (f64, usize),
    /// First step started → last step finished.
    wall: f64,
    calls: usize,
    png_bytes: u64,
}

fn login_once() -> LoginRun {
    let tmp = tempfile::tempdir().expect("tmp");
    let world = World::new(1, tmp.path());
    let plan = plan_of(&[("login_bench.yaml".into(), FLOW.into())], &world.engine);
    let events = TimedEvents::default();
    let t0 = Instant::now();
    let result = world.run(&plan, tmp.path(), &events);
    let flow = &result.flows[0];
    assert_eq!(flow.status, Status::Passed, "{:#?}", flow.error);
    let events = events.0.into_inner().unwrap();
    let calls = world.recorder.calls();
    let at = |pred: &dyn Fn(&RunEvent) -> bool| -> Vec<Instant> {
        events
            .iter()
            .filter(|(_, e)| pred(e))
            .map(|(t, _)| *t)
            .collect()
    };
    let flow_start = at(&|e| matches!(e, RunEvent::FlowStarted { .. }))[0];
    let starts = at(&|e| matches!(e, RunEvent::StepStarted { .. }));
    let ends = at(&|e| matches!(e, RunEvent::StepFinished { .. }));
    assert_eq!(starts.len(), 7, "seven top-level steps");
    let count = |from: Instant, to: Instant| {
        calls
            .iter()
            .filter(|c| c.start >= from && c.start < to)
            .count()
    };
    let steps = starts
        .iter()
        .zip(&ends)
        .map(|(s, e)| (ms(*e - *s), count(*s, *e)))
        .collect::<Vec<_>>();
    let detail = starts
        .iter()
        .zip(&ends)
        .map(|(s, e)| {
            calls
                .iter()
                .filter(|c| c.start >= *s && c.start < *e)
                .map(|c| format!("{:.0} ms: {}", ms(c.end - c.start), c.what))
                .collect()
        })
        .collect();
    let png_bytes = flow.steps[5]
        .result
        .as_ref()
        .and_then(|r| r["file_size"].as_u64())
        .expect("screenshot file_size");
    LoginRun {
        check: (ms(flow_start - t0), count(t0, flow_start)),
        setup: (ms(starts[0] - flow_start), count(flow_start, starts[0])),
        wall: ms(ends[6] - starts[0]),
        calls: count(starts[0], ends[6] + std::time::Duration::from_nanos(1)),
        steps,
        detail,
        png_bytes,
    }
}

fn login() {
    let load_before = load();
    // One warm-up run (page cache, first allocation of the phone's fonts and images).
    let _ = login_once();
    let runs: Vec<LoginRun> = (0..RUNS).map(|_| login_once()).collect();
    let load_after = load();

    let user = "demo";
    let png = runs[0].png_bytes;
    let bound_steps = bound::steps(user, png);
    let delay = bound::login_delay();
    let bound_ms: f64 = bound_steps.iter().map(bound::BoundStep::ms).sum::<f64>() + ms(delay);
    let bound_calls: usize = bound_steps.iter().map(|s| s.calls.len()).sum();

    let med = |f: &dyn Fn(&LoginRun) -> f64| median(runs.iter().map(f).collect());
    let wall = med(&|r| r.wall);
    let calls = med(&|r| r.calls as f64);
    println!(
        "\n## login flow: 7 steps, 1 simulated phone, realistic latency, median of {RUNS} runs"
    );
    println!("load average before: {load_before}; after: {load_after}\n");
    println!("| step | wall time | hdc calls | bound | bound calls | bound work |");
    println!("|---|---:|---:|---:|---:|---|");
    println!(
        "| device check (before step 1, not counted) | {:.0} ms | {:.0} | | | |",
        med(&|r| r.check.0),
        med(&|r| r.check.1 as f64)
    );
    println!(
        "| flow setup (before step 1, not counted) | {:.0} ms | {:.0} | | | |",
        med(&|r| r.setup.0),
        med(&|r| r.setup.1 as f64)
    );
    for (i, b) in bound_steps.iter().enumerate() {
        println!(
            "| {} | {:.0} ms | {:.0} | {:.0} ms | {} | {} |",
            b.name,
            med(&|r| r.steps[i].0),
            med(&|r| r.steps[i].1 as f64),
            b.ms(),
            b.calls.len(),
            b.what
        );
    }
    println!(
        "| the app's login delay | | | {:.0} ms | | read from the demo app's data |",
        ms(delay)
    );
    println!(
        "| **the 7 steps** | **{wall:.0} ms** | **{calls:.0}** | **{bound_ms:.0} ms** | **{bound_calls}** | |"
    );
    println!(
        "\nratio measured / bound = {:.3} (target <= 1.3); hdc calls = {calls:.0} (target <= 12)",
        wall / bound_ms
    );
    let per_run: Vec<String> = runs
        .iter()
        .map(|r| format!("{:.0} ms / {}", r.wall, r.calls))
        .collect();
    println!("runs: {}", per_run.join(", "));
    if std::env::var_os("TAPFLOW_BENCH_CALLS").is_some() {
        println!("\nhdc calls of the last run, per step:");
        for (b, calls) in bound_steps.iter().zip(&runs[RUNS - 1].detail) {
            println!("- {}", b.name);
            for c in calls {
                println!("    {c}");
            }
        }
    }
}
