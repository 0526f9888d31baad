//! `tapflow run PATHS|GLOBS|DIRS…`: finds flow files, validates and compiles them against the
//! tool registry, picks the devices (hdc, or `--sim N` in-process simulated devices), installs
//! the Ctrl-C handler, shows progress (bars and a live step log on a terminal, plain lines
//! otherwise), runs the plan with `run::run`, prints a summary and returns the exit code.
//!
//! Exit codes (see `cli::exit`): 0 every flow passed; 1 a flow failed; 3 a flow is invalid;
//! 4 a device or infrastructure error kept flows from running; 130 interrupted; 2 usage.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clap::Args;

pub mod progress;

use progress::{BarProgress, PlainProgress, print_summary};

use super::exit;
use super::flow_cmd::{
    Format, load_project, parse_env, print_diagnostics, read_flows, tapflow_environment,
};
use super::setup;
use crate::device::hdc::{HdcClient, HdcConfig};
use crate::plan::{PlanOptions, RegistryCatalog};
use crate::run::{
    self, CancelToken, DeviceChoice, Masker, RunOptions, RunResult, Shard, Status, TagFilter,
};
use crate::sim::{FaultSpec, Latency, SimOptions, SimTransport, Simulator};
use crate::tools::hdc_provider::HdcProvider;
use crate::tools::provider::CachingProvider;
use crate::tools::{DeviceProvider, Engine, ToolConfig, ToolContext};

/// Arguments of `tapflow run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Flow files, directories (searched recursively) or globs (`flows/**/login*.yaml`).
    #[arg(required = true)]
    pub paths: Vec<String>,
    /// Device serial / connect key (repeatable or comma-separated).
    #[arg(long = "device", short = 'd', value_delimiter = ',')]
    pub devices: Vec<String>,
    /// Use every connected device.
    #[arg(long, conflicts_with_all = ["devices", "sim"])]
    pub all_devices: bool,
    /// Run on N simulated devices, in-process (nothing else to start).
    #[arg(long, value_name = "N", conflicts_with = "devices")]
    pub sim: Option<usize>,
    /// Faults the simulated devices inject (as in `tapflow sim`).
    #[arg(long, value_name = "SPEC", requires = "sim")]
    pub sim_faults: Option<String>,
    /// Seed of the simulated devices (serials, faults).
    #[arg(long, value_name = "SEED", default_value_t = 1, requires = "sim")]
    pub sim_seed: u64,
    /// Simulated device time: `realistic` (default) or `none`.
    #[arg(long, value_name = "MODE", default_value = "realistic", value_parser = parse_latency, requires = "sim")]
    pub sim_latency: Latency,
    /// Run every flow on every device (default: split the flows across the devices).
    #[arg(long)]
    pub each_device: bool,
    /// Run only slice I of N (1-based) of the flows, for CI matrices.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<Shard>,
    /// Run only flows with one of these tags (comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub include_tags: Vec<String>,
    /// Skip flows with any of these tags (comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub exclude_tags: Vec<String>,
    /// Stop starting flows after the first failed flow (default: continue).
    #[arg(long)]
    pub fail_fast: bool,
    /// Default deadline of each step: milliseconds or a duration as in flow files (`30s`,
    /// `1m30s`); a flow's `step_timeout` wins.
    #[arg(long, value_name = "DURATION", value_parser = super::duration_arg)]
    pub step_timeout: Option<u64>,
    /// Default deadline of each flow: milliseconds or a duration (`10m`); a flow's `timeout`
    /// wins.
    #[arg(long, value_name = "DURATION", value_parser = super::duration_arg)]
    pub flow_timeout: Option<u64>,
    /// Set a flow variable (repeatable): --env USER=demo.
    #[arg(long = "env", short = 'e', value_name = "NAME=VALUE", value_parser = parse_env)]
    pub env: Vec<(String, String)>,
    /// Write the run into DIR, which becomes an allowed root (default: <reports dir>/<run id>/,
    /// the reports dir being TAPFLOW_REPORTS_DIR, else `report_dir` of tapflow.toml, else
    /// <project>/reports).
    #[arg(long, value_name = "DIR")]
    pub report_dir: Option<PathBuf>,
    /// Project file (default: ./tapflow.toml when present): devices, report_dir, tags,
    /// timeouts, variable defaults.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Plain progress lines even on a terminal.
    #[arg(long)]
    pub no_progress: bool,
}

fn parse_latency(s: &str) -> Result<Latency, String> {
    s.parse()
}

/// `tapflow run`.
pub fn run(args: RunArgs, hdc: Option<PathBuf>) -> i32 {
    let cwd = setup::cwd();
    let loaded = match load_project(args.config.as_deref(), &cwd) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("tapflow run: {e}");
            return exit::USAGE;
        }
    };
    let sources = match read_flows(&args.paths, &cwd, &loaded) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("tapflow run: {e}");
            return exit::USAGE;
        }
    };
    let project = &loaded.config;
    let engine = Arc::new(Engine::new());
    let catalog = RegistryCatalog::new(engine.clone());
    let defaults = PlanOptions::default();
    // Precedence: command line > tapflow.toml > built-in defaults.
    let popts = PlanOptions {
        env: args.env.iter().cloned().collect(),
        environment: tapflow_environment(),
        project_env: project.env.clone(),
        devices: Vec::new(),
        default_flow_timeout_ms: args
            .flow_timeout
            .or(project.flow_timeout_ms)
            .unwrap_or(defaults.default_flow_timeout_ms),
        default_step_timeout_ms: args
            .step_timeout
            .or(project.step_timeout_ms)
            .unwrap_or(defaults.default_step_timeout_ms),
        default_wait_ms: project.wait_ms.unwrap_or(defaults.default_wait_ms),
    };
    let compiled = sources.compile(&catalog, &popts);
    if compiled.has_errors() {
        print_diagnostics(&compiled, Format::Text);
        return exit::INVALID;
    }
    print_diagnostics(&compiled, Format::Text);

    let config = match setup::tool_config(&loaded, &cwd, &[]) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("tapflow run: {e}");
            return exit::USAGE;
        }
    };
    let (provider, choice) = match args.sim {
        Some(n) => match sim_provider(
            n,
            args.sim_faults.as_deref(),
            args.sim_seed,
            args.sim_latency,
            &cwd,
        ) {
            Ok((p, serials)) => (p, DeviceChoice::Serials(serials)),
            Err(e) => {
                eprintln!("tapflow run: {e}");
                return exit::USAGE;
            }
        },
        None => {
            let choice = if args.all_devices {
                DeviceChoice::All
            } else if !args.devices.is_empty() {
                DeviceChoice::Serials(args.devices.clone())
            } else if !project.devices.is_empty() {
                DeviceChoice::Serials(project.devices.clone())
            } else {
                DeviceChoice::Auto
            };
            (super::tools_cmd::provider(hdc, &config), choice)
        }
    };
    let run_id = run::new_run_id();
    let (config, run_dir) = match run_directory(config, args.report_dir.as_deref(), &run_id) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("tapflow run: {e}");
            return exit::USAGE;
        }
    };
    let ctx = ToolContext::new(provider, config);
    let mut opts = RunOptions::new(run_id);
    opts.devices = choice;
    opts.each_device = args.each_device;
    opts.shard = args.shard;
    opts.tags = TagFilter {
        include: if args.include_tags.is_empty() {
            project.tags.clone()
        } else {
            args.include_tags.clone()
        },
        exclude: args.exclude_tags.clone(),
    };
    opts.fail_fast = args.fail_fast;
    opts.run_dir = Some(run_dir.clone());
    install_ctrl_c(opts.cancel.clone(), opts.abort.clone());

    // Every secret of the plan, in every form, for everything printed from here on.
    let masker = Masker::for_plan(&compiled.plan);
    run::mask::log_masker().set(masker.clone());
    let fancy = !args.no_progress && std::io::stderr().is_terminal();
    let result = if fancy {
        let sink = BarProgress::new(masker.clone());
        let r = run::run(&compiled.plan, engine, ctx, &opts, &sink);
        sink.finish();
        r
    } else {
        let sink = PlainProgress(masker.clone());
        run::run(&compiled.plan, engine, ctx, &opts, &sink)
    };
    print_summary(&result, &run_dir, &masker);
    exit_code(&result)
}

/// The exit code of a finished run: 130 interrupted; 1 when a flow failed because of the app
/// or the flow; 4 when flows could not run or failed only because a device or the host
/// tooling did (disconnected, not found, hdc missing or timing out); 0 otherwise.
pub fn exit_code(r: &RunResult) -> i32 {
    if r.interrupted {
        return exit::INTERRUPTED;
    }
    let any = |s: Status| r.flows.iter().any(|f| f.status == s);
    if any(Status::Failed) && !r.failed_on_infrastructure_only() {
        exit::FAILURE
    } else if any(Status::Failed)
        || any(Status::NotRun)
        || (r.flows.is_empty() && r.devices.iter().any(|d| !d.ready))
    {
        exit::INFRA
    } else {
        exit::SUCCESS
    }
}

/// First Ctrl-C: stop steps cleanly (hooks still run, the result is written). Second: stop
/// hooks too. Third: leave at once.
fn install_ctrl_c(cancel: CancelToken, abort: CancelToken) {
    let presses = Mutex::new(0u32);
    let _ = ctrlc::set_handler(move || {
        let mut n = presses.lock().unwrap_or_else(|p| p.into_inner());
        *n += 1;
        match *n {
            1 => {
                eprintln!(
                    "\ninterrupted: stopping after cleanup (`finally` steps); Ctrl-C again to skip them"
                );
                cancel.cancel();
            }
            2 => {
                eprintln!("\ninterrupted again: skipping cleanup, writing the result");
                abort.cancel();
            }
            _ => std::process::exit(exit::INTERRUPTED),
        }
    });
}

/// The run directory, created through the host-path policy: `--report-dir DIR` (an output
/// directory the operator names, so it becomes an allowed root), else `<reports dir>/<run id>`
/// (`TAPFLOW_REPORTS_DIR`, else `report_dir` of tapflow.toml, else `<project>/reports`, a root
/// already). Returns the configuration (with the new root) and the directory's real path.
fn run_directory(
    config: ToolConfig,
    report_dir: Option<&Path>,
    run_id: &str,
) -> Result<(ToolConfig, PathBuf), String> {
    let (config, dir) = match report_dir {
        Some(d) => (config.with_root(d), d.to_path_buf()),
        None => {
            let d = config.reports_dir.join(run_id);
            (config, d)
        }
    };
    let real = config
        .paths
        .ensure_dir(&dir.display().to_string())
        .map_err(|e| format!("report directory: {}", e.message))?;
    Ok((config, real))
}

/// N in-process simulated devices behind one simulated hdc server, reached through the real
/// hdc backend (`SimTransport` → `HdcClient`), so every step goes through the same argv,
/// quoting and parsers as with a phone. Returns the provider and the devices' serials.
pub fn sim_provider(
    n: usize,
    faults: Option<&str>,
    seed: u64,
    latency: Latency,
    cwd: &Path,
) -> Result<(Arc<dyn DeviceProvider>, Vec<String>), String> {
    if n == 0 {
        return Err("--sim needs at least one device".into());
    }
    let faults = match faults {
        Some(spec) => FaultSpec::parse(spec).map_err(|e| format!("--sim-faults: {e}"))?,
        None => FaultSpec::none(),
    };
    let sim = Arc::new(Simulator::new(SimOptions {
        devices: n,
        seed,
        latency,
        faults,
        ..SimOptions::default()
    }));
    let serials = sim.serials();
    let transport = Arc::new(SimTransport::new(sim, cwd));
    let client = HdcClient::new(HdcConfig::default(), transport);
    let inner: Arc<dyn DeviceProvider> = Arc::new(HdcProvider(client));
    // A run resolves each device once; steps then reuse it (no `list targets` per step).
    let cached = CachingProvider::new(inner, Duration::from_secs(3600));
    Ok((Arc::new(cached), serials))
}
