//! Issue 8's growth checks: nothing slows down as work grows.
//!
//! - validate + plan (`tapflow_core::plan::compile`, what `tapflow validate` and `tapflow plan` run)
//!   of 250 … 2 000 flow files: time per flow should stay flat (linear total);
//! - one flow of 100 … 1 000 steps through the real runner on a simulated phone with latency
//!   `none` (so the figure is tapflow's own work plus the simulator's): time per step should
//!   stay flat;
//! - writing the result of a run of 200 flows × 20 steps as the live `result.json` reporter
//!   does (masked as values, pretty JSON, no-follow create + rename): target ≤ 200 ms. The flows are copies of a real 20-step flow
//!   result (run once on the simulator), each with its own id.

use std::time::Instant;

use tapflow::run::{Masker, NoEvents, RunResult, Status};
use tapflow_device::hostfs::{Overwrite, PathPolicy};
use tapflow_sim::Latency;

use super::rig::{World, load, median, ms, plan_of};

/// A realistic flow file: launch, waits, input, taps, keys, screenshot, log check.
fn flow_text(i: usize) -> String {
    format!(
        "name: growth {i}
app: com.tapflow.demo
tags: [growth, t{t}]
env:
  USER: user{i}
steps:
  - run_app: com.tapflow.demo
  - wait_for_element: {{element_id: title}}
  - input_text: {{element_id: username, text: \"{{{{ USER }}}}\"}}
    expect: {{verified: true}}
  - click: {{element_id: login}}
  - wait_for_element: {{text: \"Hello, {{{{ USER }}}}!\", timeout_ms: 8000}}
  - find_elements: {{element_type: Button}}
    keep: buttons
  - press_key: Back
  - swipe: up
  - screenshot: {{local_path: shot_{i}.png}}
  - logs_query: {{mode: markers, marker_keywords: [\"LOGIN_SUCCESS\"], seconds: 60}}
",
        t = i % 7
    )
}

fn compile_ms(n: usize) -> f64 {
    let engine = std::sync::Arc::new(tapflow_tools::Engine::new());
    let files: Vec<(String, String)> = (0..n)
        .map(|i| (format!("growth_{i:04}.yaml"), flow_text(i)))
        .collect();
    median(
        (0..3)
            .map(|_| {
                let t0 = Instant::now();
                let plan = plan_of(&files, &engine);
                assert_eq!(plan.flows.len(), n);
                ms(t0.elapsed())
            })
            .collect(),
    )
}

/// A flow of `n` steps: (ms as `tapflow run` runs it, with every reporter; ms of the runner
/// alone).
fn steps_ms(n: usize) -> (f64, f64) {
    let tmp = tempfile::tempdir().expect("tmp");
    let world = World::with_latency(1, tmp.path(), Latency::None);
    let mut text = String::from("name: long\nsteps:\n  - run_app: com.tapflow.demo\n");
    for _ in 0..n - 1 {
        text.push_str("  - find_elements: {element_id: login}\n");
    }
    let plan = plan_of(&[("long.yaml".into(), text)], &world.engine);
    let t0 = Instant::now();
    let r = world.run(&plan, tmp.path(), &NoEvents);
    let with_reports = ms(t0.elapsed());
    assert_eq!(r.flows[0].status, Status::Passed);
    assert_eq!(r.flows[0].steps.len(), n);
    // The runner alone (no reporter listening, nothing written), to tell the two apart.
    let mut opts = tapflow::run::RunOptions::new("plain");
    opts.devices = tapflow::run::DeviceChoice::Serials(world.serials.clone());
    let t0 = Instant::now();
    let r = tapflow::run::run(
        &plan,
        world.engine.clone(),
        world.ctx.clone(),
        &opts,
        &NoEvents,
    );
    let plain = ms(t0.elapsed());
    assert_eq!(r.flows[0].status, Status::Passed);
    (with_reports, plain)
}

/// A run result of `flows` copies of a real 20-step flow result.
fn big_result(flows: usize) -> RunResult {
    let tmp = tempfile::tempdir().expect("tmp");
    let world = World::with_latency(1, tmp.path(), Latency::None);
    let mut text = String::from("name: twenty\nsteps:\n  - run_app: com.tapflow.demo\n");
    for i in 0..19 {
        text.push_str(if i % 2 == 0 {
            "  - find_elements: {element_id: login}\n"
        } else {
            "  - wait_for_element: {element_id: title}\n"
        });
    }
    let plan = plan_of(&[("twenty.yaml".into(), text)], &world.engine);
    let mut r = world.run(&plan, tmp.path(), &NoEvents);
    let one = r.flows[0].clone();
    assert_eq!(one.steps.len(), 20);
    r.flows = (0..flows)
        .map(|i| {
            let mut f = one.clone();
            f.id = format!("twenty_{i:03}");
            f
        })
        .collect();
    r
}

pub fn growth() {
    let load_before = load();
    println!("\n## growth checks");
    println!("\n### validate + plan\n");
    println!("| flows | time | per flow |");
    println!("|---:|---:|---:|");
    let mut per = Vec::new();
    for n in [250, 500, 1000, 2000] {
        let t = compile_ms(n);
        per.push(t / n as f64);
        println!("| {n} | {t:.0} ms | {:.3} ms |", t / n as f64);
    }
    println!(
        "\nper-flow time at 2 000 ÷ at 250: {:.2} (1.00 = linear)",
        per[3] / per[0]
    );

    println!("\n### one long flow (latency none)\n");
    println!("| steps | with reports | per step | runner alone | per step |");
    println!("|---:|---:|---:|---:|---:|");
    let (mut per, mut per_plain) = (Vec::new(), Vec::new());
    for n in [100, 500, 1000] {
        let (t, p) = steps_ms(n);
        per.push(t / n as f64);
        per_plain.push(p / n as f64);
        println!(
            "| {n} | {t:.0} ms | {:.3} ms | {p:.0} ms | {:.3} ms |",
            t / n as f64,
            p / n as f64
        );
    }
    println!(
        "\nper-step time at 1 000 ÷ at 100: {:.2} with reports, {:.2} runner alone (1.00 = flat)",
        per[2] / per[0],
        per_plain[2] / per_plain[0]
    );

    println!("\n### writing the result of 200 flows × 20 steps\n");
    let r = big_result(200);
    let tmp = tempfile::tempdir().expect("tmp");
    // As the live result.json reporter writes it: masked as values, pretty JSON, written
    // through the run directory's policy (no-follow create + rename).
    let masker = Masker::new(["s3cret-value"]);
    let policy = PathPolicy::new(tmp.path(), [tmp.path().to_path_buf()]);
    let path = tmp.path().join("result.json").display().to_string();
    let times: Vec<f64> = (0..5)
        .map(|_| {
            let t0 = Instant::now();
            let v = masker.to_value(&r).expect("masked");
            let bytes = serde_json::to_vec_pretty(&v).expect("json");
            policy
                .prepare_write(&path)
                .and_then(|t| t.write(&bytes, Overwrite::Replace))
                .expect("written");
            ms(t0.elapsed())
        })
        .collect();
    let size = std::fs::metadata(tmp.path().join("result.json"))
        .map(|m| m.len())
        .unwrap_or(0);
    println!(
        "result.json: {size} bytes, written in {:.1} ms (median of 5; target <= 200 ms)",
        median(times)
    );
    println!("\nload average before: {load_before}; after: {}", load());
}
