//! Issue 8's scaling check: 40 flows of different lengths split over 8 simulated phones
//! (realistic latency) against the same 40 on one phone. Efficiency = time on 1 ÷ (8 × time
//! on 8), whole runs (device checks included). Three 8-phone runs: without a previous result
//! (flows ordered by step count), with the 1-phone run's durations as the previous result
//! (what `tapflow run` reads from the latest `result.json`), and — for comparison — what the
//! old round-robin split would have taken, computed from the measured per-flow durations
//! (the slowest device's sum).

use std::time::Instant;

use tapflow::run::Status;
use tapflow::run::schedule::Expected;

use super::rig::{World, load, ms, plan_of};

pub const FLOWS: usize = 40;
pub const DEVICES: usize = 8;

/// Flow `i`: launch the demo app, then 1–9 finds on its login page (lengths spread
/// unevenly over the plan, so the split matters).
fn flows() -> Vec<(String, String)> {
    (0..FLOWS)
        .map(|i| {
            let finds = 1 + (i * 37 + i / 3) % 9;
            let mut text = format!("name: scaling {i}\nsteps:\n  - run_app: com.tapflow.demo\n");
            for _ in 0..finds {
                text.push_str("  - find_elements: {element_id: login}\n");
            }
            (format!("scaling_{i:02}.yaml"), text)
        })
        .collect()
}

/// One whole run over `devices` phones: wall ms and per-flow durations by id.
fn run_on(devices: usize, expected: Expected) -> (f64, Vec<(String, u64)>) {
    let tmp = tempfile::tempdir().expect("tmp");
    let world = World::new(devices, tmp.path());
    let plan = plan_of(&flows(), &world.engine);
    let t0 = Instant::now();
    let r = world.run_expecting(&plan, tmp.path(), &tapflow::run::NoEvents, expected);
    let wall = ms(t0.elapsed());
    assert!(
        r.flows.iter().all(|f| f.status == Status::Passed),
        "every scaling flow passes"
    );
    let durations = r
        .flows
        .iter()
        .map(|f| (f.id.clone(), f.duration_ms))
        .collect();
    (wall, durations)
}

pub fn scaling() {
    let load_before = load();
    let (one, durations) = run_on(1, Expected::default());
    let (cold, _) = run_on(DEVICES, Expected::default());
    let (warm, _) = run_on(DEVICES, Expected::from_durations(durations.clone()));
    let load_after = load();
    // The old split: flow i on device i % 8, each device's flows back to back.
    let mut sums = [0u64; DEVICES];
    for (i, (_, d)) in durations.iter().enumerate() {
        sums[i % DEVICES] += d;
    }
    // What the 1-phone run spent outside its flows (device check, between flows).
    let flows_total: u64 = durations.iter().map(|(_, d)| d).sum();
    let overhead = one - flows_total as f64;
    let round_robin = *sums.iter().max().unwrap_or(&0) as f64 + overhead;
    let eff = |t: f64| one / (DEVICES as f64 * t);
    println!("\n## scaling: {FLOWS} flows, 1 vs {DEVICES} simulated phones, realistic latency");
    println!("load average before: {load_before}; after: {load_after}\n");
    println!("| run | wall time | efficiency |");
    println!("|---|---:|---:|");
    println!("| 1 phone | {one:.0} ms | |");
    println!(
        "| {DEVICES} phones, no previous result (step counts) | {cold:.0} ms | {:.3} |",
        eff(cold)
    );
    println!(
        "| {DEVICES} phones, previous run's durations | {warm:.0} ms | {:.3} |",
        eff(warm)
    );
    println!(
        "| {DEVICES} phones, round robin (computed from the 1-phone durations) | {round_robin:.0} ms | {:.3} |",
        eff(round_robin)
    );
}
