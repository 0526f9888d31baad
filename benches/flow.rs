//! Flow benchmarks: what the framework itself costs, apart from the device.
//!
//! - `plan/*`: validating and compiling a large suite — 200 flows of the synthetic corpus
//!   (`tapflow_core::plan::corpus::sample`: shorthands, variables with a secret, retries, repeat and
//!   retry blocks, conditions, hooks, a shared sub-flow) against the REAL tool registry
//!   (`RegistryCatalog`, JSON Schemas of every tool), and the YAML parse alone.
//! - `plan/mcp_policy_check_200`: the MCP server's step-by-step policy check of that plan
//!   (`tapflow::mcp::flow_gate`), what `run_flow` / `plan_flow` add beyond compiling.
//! - `runner/*`: framework overhead per step. A plan of N `find_elements` steps runs through
//!   `tapflow::run::run` on a simulated device with ZERO latency, against N direct
//!   `Engine::call`s of the same tool on the same device. The difference divided by N is what
//!   the runner adds per step (worker hand-off, deadline, argument resolution, masking,
//!   recording). A run also has a fixed cost (device check); a 1-step run measures it so the
//!   marginal per-step overhead can be printed apart from it.
//!
//! The per-step figures are printed (median of a few timed repetitions) before criterion's own
//! groups run. Kept short for a shared 2-core machine.
//! Run: `cargo bench --bench flow -- --quick` (figures in docs/benchmarks.md, "## Flows").

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, SamplingMode, criterion_group, criterion_main};
use serde_json::json;
use tapflow::run::{self, DeviceChoice, RunOptions, Status};
use tapflow_core::flow::{SourceFile, parse_flow};
use tapflow_core::plan::{MapLoader, Plan, PlanOptions, compile, corpus};
use tapflow_sim::Latency;
use tapflow_tools::RegistryCatalog;
use tapflow_tools::{Engine, ToolConfig, ToolContext};

use tapflow_sim::DEMO_BUNDLE as DEMO;
/// Flows in the large suite.
const SUITE: usize = 200;
/// Steps in the runner-overhead plan.
const STEPS: usize = 100;
/// Timed repetitions behind each printed per-step figure (the median is printed).
const REPS: usize = 7;

fn plan(c: &mut Criterion) {
    let (flows, loader) = corpus::sample(SUITE);
    let engine = Arc::new(Engine::new());
    let registry = RegistryCatalog::new(engine);
    let opts = PlanOptions::default();

    // The corpus must be valid against the real registry, or the figure means nothing.
    let compiled = compile(&flows, &[], &registry, &loader, &opts);
    assert!(
        !compiled.has_errors(),
        "corpus invalid against the registry: {:?}",
        compiled.diagnostics
    );
    assert_eq!(compiled.plan.flows.len(), SUITE);
    let bytes: usize = flows.iter().map(|f| f.text().len()).sum();
    println!(
        "\nplan: {SUITE} flows, {bytes} bytes of YAML, {} compiled steps (top level)",
        compiled
            .plan
            .flows
            .iter()
            .map(|f| f.steps.len())
            .sum::<usize>()
    );

    let mut g = c.benchmark_group("plan");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    g.throughput(criterion::Throughput::Elements(SUITE as u64));
    g.bench_function("parse_only_200", |b| {
        b.iter(|| {
            for f in &flows {
                black_box(parse_flow(f));
            }
        })
    });
    g.bench_function("compile_200_registry", |b| {
        b.iter(|| compile(black_box(&flows), &[], &registry, &loader, &opts))
    });
    // What `tapflow mcp` adds to run_flow / plan_flow beyond compiling (which it does twice:
    // before queueing, and the plan that runs): every tool step of the plan, walked against the
    // served tools and the approval policy (issue 19).
    let filter = tapflow::mcp::McpOptions {
        require_approval: true,
        deny_tools: vec!["build_*".into()],
        ..tapflow::mcp::McpOptions::default()
    }
    .compile()
    .unwrap();
    let mcp = tapflow::mcp::engine();
    let walked = tapflow::mcp::flow_gate::tool_steps(&compiled.plan).len();
    println!("mcp policy check: {walked} tool steps in the plan (setup, bodies, hooks, sub-flows)");
    g.bench_function("mcp_policy_check_200", |b| {
        b.iter(|| {
            let served = tapflow::mcp::flow_gate::check_served(black_box(&compiled.plan), &filter);
            let needing = tapflow::mcp::flow_gate::needing_approval(&compiled.plan, &mcp, true);
            black_box((served.is_ok(), needing.len()))
        })
    });
    g.finish();
}

/// A flow of `n` read-only `find_elements` steps on the demo app's login page.
fn steps_plan(n: usize, engine: &Arc<Engine>) -> Plan {
    let mut text = format!("name: Overhead {n}\napp: {DEMO}\nsteps:\n");
    for _ in 0..n {
        text.push_str("  - find_elements: {text: Login}\n");
    }
    let flows = [SourceFile::new(format!("flows/overhead_{n}.yaml"), text)];
    let catalog = RegistryCatalog::new(engine.clone());
    let compiled = compile(
        &flows,
        &[],
        &catalog,
        &MapLoader::new(),
        &PlanOptions::default(),
    );
    assert!(!compiled.has_errors(), "{:?}", compiled.diagnostics);
    compiled.plan
}

struct Rig {
    engine: Arc<Engine>,
    ctx: ToolContext,
    serials: Vec<String>,
    _tmp: tempfile::TempDir,
}

impl Rig {
    fn new() -> Self {
        let tmp = tempfile::tempdir().expect("tmp");
        let (provider, serials) =
            tapflow::sim_provider::sim_provider(1, None, 1, Latency::None, tmp.path())
                .expect("sim provider");
        let config = ToolConfig {
            screenshots_dir: tmp.path().join("shots"),
            ..ToolConfig::rooted_at(tmp.path())
        };
        let rig = Rig {
            engine: Arc::new(Engine::new()),
            ctx: ToolContext::new(provider, config),
            serials,
            _tmp: tmp,
        };
        let env = rig
            .engine
            .call("run_app", json!({"bundle_name": DEMO}), &rig.ctx);
        assert!(env.ok(), "run_app: {:?}", env.structured.error);
        rig
    }

    fn direct(&self, n: usize) {
        for _ in 0..n {
            let env = self
                .engine
                .call("find_elements", json!({"text": "Login"}), &self.ctx);
            assert!(env.ok(), "{:?}", env.structured.error);
        }
    }

    fn run(&self, plan: &Plan, steps: usize) {
        let mut opts = RunOptions::new(run::new_run_id());
        opts.devices = DeviceChoice::Serials(self.serials.clone());
        // run_dir None: nothing written, no evidence collected.
        let r = run::run(
            plan,
            self.engine.clone(),
            self.ctx.clone(),
            &opts,
            &run::NoEvents,
        );
        assert_eq!(r.status, Status::Passed, "{:?}", r.flows[0].error);
        assert_eq!(r.flows[0].steps.len(), steps);
    }
}

fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort();
    xs[xs.len() / 2]
}

fn timed(f: &mut dyn FnMut()) -> Duration {
    let t = Instant::now();
    f();
    t.elapsed()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn runner(c: &mut Criterion) {
    let rig = Rig::new();
    let big = steps_plan(STEPS, &rig.engine);
    let one = steps_plan(1, &rig.engine);

    // Warm up both paths once (first dumps, caches), then time them.
    rig.direct(5);
    rig.run(&one, 1);
    // The four measures are interleaved within each repetition, so a change of machine load
    // during the measurement hits them alike (the overhead is a small difference of two
    // large times).
    let mut samples: [Vec<Duration>; 4] = Default::default();
    for _ in 0..REPS {
        samples[0].push(timed(&mut || rig.direct(STEPS)));
        // Control: the same direct calls made from one spawned thread, as the runner's worker
        // makes them (separates the cost of running on another thread from the runner's own).
        samples[1].push(std::thread::scope(|s| {
            s.spawn(|| timed(&mut || rig.direct(STEPS)))
                .join()
                .expect("thread")
        }));
        samples[2].push(timed(&mut || rig.run(&big, STEPS)));
        samples[3].push(timed(&mut || rig.run(&one, 1)));
    }
    let [direct, direct_thread, run_big, run_one] = samples.map(median);
    let direct_step = ms(direct) / STEPS as f64;
    let runner_step = ms(run_big) / STEPS as f64;
    let marginal = (ms(run_big) - ms(run_one)) / (STEPS - 1) as f64;
    println!(
        "\nrunner overhead, simulated device latency none, `find_elements` by text, \
         median of {REPS} (release build)"
    );
    println!("| measure | time |\n|---|---:|");
    println!("| {STEPS} direct `Engine::call`s | {:.1} ms |", ms(direct));
    println!(
        "| {STEPS} direct `Engine::call`s from a spawned thread (control) | {:.1} ms |",
        ms(direct_thread)
    );
    println!(
        "| run of {STEPS} steps (`run::run`) | {:.1} ms |",
        ms(run_big)
    );
    println!(
        "| run of 1 step (fixed: device check, flow setup) | {:.2} ms |",
        ms(run_one)
    );
    println!("| per step, direct | {direct_step:.3} ms |");
    println!("| per step, through the runner | {runner_step:.3} ms |");
    println!(
        "| overhead per step, (runner − direct) / N | {:.3} ms |",
        runner_step - direct_step
    );
    println!(
        "| overhead per step vs direct calls on a spawned thread | {:.3} ms |",
        runner_step - ms(direct_thread) / STEPS as f64
    );
    println!(
        "| marginal overhead per step, (run(N) − run(1)) / (N−1) − direct | {:.3} ms |\n",
        marginal - direct_step
    );

    let mut g = c.benchmark_group("runner");
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    g.bench_function("direct_100_find_elements", |b| b.iter(|| rig.direct(STEPS)));
    g.bench_function("run_100_find_elements", |b| b.iter(|| rig.run(&big, STEPS)));
    g.bench_function("run_1_find_elements", |b| b.iter(|| rig.run(&one, 1)));
    g.finish();
}

criterion_group!(benches, runner, plan);
criterion_main!(benches);
