//! `tapflow run PATHS|GLOBS|DIRS…`: finds flow files, validates and compiles them against the
//! tool registry, picks the devices (hdc, or `--sim N` in-process simulated devices), installs
//! the Ctrl-C handler, shows progress (bars and a live step log on a terminal, plain lines
//! otherwise), runs the plan with `run::run`, prints a summary and returns the exit code.
//!
//! Exit codes (see `cli::exit`): 0 every flow passed; 1 a flow failed; 3 a flow file is invalid
//! (listed as `invalid`; the valid flows still ran); 4 a device or infrastructure error kept
//! flows from running; 5 nothing was selected (unless `--allow-empty`); 130 interrupted (Ctrl-C);
//! 143 stopped by SIGTERM (handled as Ctrl-C: hooks run, reports are written); 2 usage.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use clap::Args;

mod invalid;
pub mod progress;

use progress::{BarProgress, PlainProgress, print_summary};

use super::exit;
use super::flow_cmd::{
    Format, load_project, parse_env, print_diagnostics, read_flows, tapflow_environment,
};
use super::interrupt::Stop;
use super::providers::provider_for;
use super::setup;
use crate::run::schedule::Expected;
use crate::run::{
    self, CancelToken, DeviceChoice, Masker, RunOptions, RunResult, Shard, Status, TagFilter,
};
#[cfg(feature = "sim")]
use crate::sim_provider::sim_provider;
use crate::{report, session};
use tapflow_core::plan::PlanOptions;
use tapflow_tools::RegistryCatalog;
use tapflow_tools::{Engine, ToolConfig, ToolContext};

/// Arguments of `tapflow run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Flow files, directories (searched recursively) or globs (`flows/**/login*.yaml`).
    /// Taken as paths (a name that is not UTF-8 is reported as such, not as missing).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Device serial / connect key (repeatable or comma-separated).
    #[arg(long = "device", short = 'd', value_delimiter = ',')]
    pub devices: Vec<String>,
    /// Use every connected device.
    #[arg(long, conflicts_with_all = ["devices", "sim"])]
    pub all_devices: bool,
    /// Run on N simulated devices, in-process (nothing else to start).
    #[arg(long, value_name = "N", conflicts_with = "devices", hide = cfg!(not(feature = "sim")))]
    pub sim: Option<usize>,
    /// Faults the simulated devices inject (as in `tapflow sim`).
    #[arg(long, value_name = "SPEC", requires = "sim", hide = cfg!(not(feature = "sim")))]
    pub sim_faults: Option<String>,
    /// Seed of the simulated devices (serials, faults).
    #[arg(long, value_name = "SEED", default_value_t = 1, requires = "sim", hide = cfg!(not(feature = "sim")))]
    pub sim_seed: u64,
    /// Simulated device time: `realistic` (default) or `none`.
    #[arg(
        long,
        value_name = "MODE",
        default_value = "realistic",
        requires = "sim", hide = cfg!(not(feature = "sim")))]
    pub sim_latency: super::sim_feature::SimLatency,
    /// Platform of the simulated devices: `harmonyos` (through hdc, the default) or `android`
    /// (through the real `adb` on a private server).
    #[arg(long, value_parser = super::platform::parser(), default_value_t = super::platform::Platform::Harmonyos, requires = "sim", hide = cfg!(not(feature = "sim")))]
    pub platform: super::platform::Platform,
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
    /// Exit 0 when the selection (tags, shard, paths) runs no flow at all (default: exit 5,
    /// "nothing was run").
    #[arg(long)]
    pub allow_empty: bool,
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
    /// Write the JUnit report to PATH (default: junit.xml in the run directory).
    #[arg(long, value_name = "PATH")]
    pub junit: Option<PathBuf>,
    /// Write the HTML report to PATH (default: report.html in the run directory).
    #[arg(long, value_name = "PATH", conflicts_with = "no_html")]
    pub html: Option<PathBuf>,
    /// Write no HTML report.
    #[arg(long)]
    pub no_html: bool,
    /// Screenshots as evidence: `on-failure` (default) or `every-step` (a thumbnail per step in
    /// the HTML report, a film strip of the flow).
    #[arg(long, value_name = "WHEN", default_value = "on-failure", value_parser = ["on-failure", "every-step"])]
    pub screenshots: String,
    /// GitHub Actions: append a Markdown summary to $GITHUB_STEP_SUMMARY and print an
    /// `::error file=…,line=…::` annotation for every failed flow.
    #[arg(long)]
    pub github_summary: bool,
}

/// The command line as reports show it (display only, never run): the value of every
/// `--env NAME=VALUE` is masked (it may be a secret), arguments with spaces or quotes quoted.
pub fn masked_command_line(args: &[String]) -> String {
    let mut out = Vec::with_capacity(args.len());
    let mut mask_next = false;
    for a in args {
        let shown = if mask_next {
            mask_next = false;
            mask_value(a)
        } else if a == "--env" || a == "-e" {
            mask_next = true;
            a.clone()
        } else if let Some(v) = a.strip_prefix("--env=") {
            format!("--env={}", mask_value(v))
        } else if let Some(v) = a
            .strip_prefix("-e")
            .filter(|v| !v.is_empty() && !a.starts_with("--"))
        {
            format!("-e{}", mask_value(v))
        } else {
            a.clone()
        };
        out.push(shown);
    }
    out.iter()
        .map(|a| {
            if a.is_empty() || a.contains(|c: char| c.is_whitespace() || "'\"$`\\".contains(c)) {
                format!("'{}'", a.replace('\'', "'\\''"))
            } else {
                a.clone()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn mask_value(kv: &str) -> String {
    match kv.split_once('=') {
        Some((k, _)) => format!("{k}=******"),
        None => kv.to_string(),
    }
}

/// `tapflow run`.
pub fn run(args: RunArgs, hdc: Option<PathBuf>, adb: Option<PathBuf>) -> i32 {
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
    let mut compiled = sources.compile(&catalog, &popts);
    print_diagnostics(&compiled, Format::Text);
    // Invalid flow files are listed in the result (`invalid`); the valid ones still run.
    let mut invalid = invalid::unreadable(&sources.problems, &compiled);
    invalid.extend(invalid::take_invalid(&sources.flows, &mut compiled));
    if compiled.has_errors() && invalid.is_empty() {
        // Only sub-flow files given on their own are invalid: nothing to list as a flow.
        return exit::INVALID;
    }
    if !invalid.is_empty() {
        eprintln!(
            "tapflow run: {} flow file(s) invalid, listed in the result as `invalid` and not run; running the {} valid flow(s)",
            invalid.len(),
            compiled.plan.flows.len()
        );
    }

    let config = match setup::tool_config(&loaded, &cwd, &[]) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("tapflow run: {e}");
            return exit::USAGE;
        }
    };
    // Holds the simulated Android devices and their private adb server for the whole run.
    #[cfg(feature = "sim")]
    let mut android_session = None;
    let (provider, choice) = match args.sim {
        #[cfg(feature = "sim")]
        Some(n) if args.platform == super::platform::Platform::Android => {
            match super::android_sim::AndroidSimSession::start(
                n,
                args.sim_faults.as_deref(),
                args.sim_seed,
                args.sim_latency,
                adb,
            ) {
                Ok(session) => {
                    let provided = (session.provider(), DeviceChoice::Serials(session.serials()));
                    android_session = Some(session);
                    provided
                }
                Err(e) => {
                    eprintln!("tapflow run: {e}");
                    return exit::INFRA;
                }
            }
        }
        #[cfg(feature = "sim")]
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
        #[cfg(not(feature = "sim"))]
        Some(_) => return super::sim_feature::without_sim("tapflow run", "--sim"),
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
            (provider_for(hdc, adb, &config), choice)
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
    let expected = previous_durations(&config, &run_id);
    let ctx = ToolContext::new(provider, config);
    let mut opts = RunOptions::new(run_id);
    opts.expected = expected;
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
    opts.invalid = invalid;
    let outputs = outputs(&args, &run_dir, &cwd);
    opts.run_dir = Some(outputs.run_dir.clone());
    opts.every_step_screenshots = args.screenshots == "every-step";
    // `args_os`: `args` panics on an argument that is not UTF-8 (a flow file's name).
    let argv: Vec<String> = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    opts.command = Some(masked_command_line(&argv));
    opts.sources = sources
        .flows
        .iter()
        .chain(&sources.subflows)
        .map(|f| (f.name().to_string(), f.text().to_string()))
        .collect();
    let stopped_by = install_ctrl_c(opts.cancel.clone(), opts.abort.clone());

    // Every secret of the plan, in every form, for everything printed from here on (log lines
    // are masked by the log gate, which the runner gives the same secrets).
    let masker = Masker::for_plan(&compiled.plan);
    let fancy = !args.no_progress && std::io::stderr().is_terminal();
    let reported = if fancy {
        let sink = BarProgress::new(masker.clone());
        let r = session::run_with_reports(&compiled.plan, engine, ctx, &opts, &sink, &outputs);
        sink.finish();
        r
    } else {
        let sink = PlainProgress(masker.clone());
        session::run_with_reports(&compiled.plan, engine, ctx, &opts, &sink, &outputs)
    };
    let result = &reported.result;
    print_summary(result, &outputs.run_dir, &masker);
    for e in &reported.written.errors {
        eprintln!("tapflow run: {e}");
    }
    if let Some(j) = &reported.written.junit {
        println!("junit: {}", j.display());
    }
    if let Some(h) = &reported.written.html {
        println!("report: {}", h.display());
    }
    if args.github_summary {
        github_outputs(result, reported.written.html.as_deref(), &masker);
    }
    #[cfg(feature = "sim")]
    drop(android_session);
    if let Some(code) = nothing_ran(result, &args) {
        return code;
    }
    match *stopped_by.lock().unwrap_or_else(|p| p.into_inner()) {
        Some(stop) if result.interrupted => stop.exit_code(),
        _ => exit_code(result),
    }
}

/// A run that selected no flow at all (tags, shard, an empty folder) ran nothing: say so and
/// exit [`exit::NOTHING_RAN`], unless `--allow-empty`.
fn nothing_ran(r: &RunResult, args: &RunArgs) -> Option<i32> {
    if r.interrupted || args.allow_empty {
        return None;
    }
    let considered = |s: Status| !matches!(s, Status::Skipped | Status::Invalid);
    if r.flows.iter().any(|f| considered(f.status)) || r.totals.invalid > 0 {
        return None;
    }
    let skipped = r.totals.skipped;
    let mut why = Vec::new();
    if !args.include_tags.is_empty() {
        why.push(format!("--include-tags {}", args.include_tags.join(",")));
    }
    if !args.exclude_tags.is_empty() {
        why.push(format!("--exclude-tags {}", args.exclude_tags.join(",")));
    }
    if let Some(s) = &args.shard {
        why.push(format!("--shard {s}"));
    }
    let by = if why.is_empty() {
        String::new()
    } else {
        format!(" (selected by {})", why.join(" "))
    };
    eprintln!(
        "tapflow run: nothing was run: no flow was selected{by}; {skipped} flow(s) skipped. Pass --allow-empty if an empty selection is expected."
    );
    Some(exit::NOTHING_RAN)
}

/// Where the reports go: the run directory, and `--junit`/`--html` where given. The policy
/// allows exactly those places (paths the user typed on the command line).
fn outputs(args: &RunArgs, run_dir: &Path, cwd: &Path) -> report::Outputs {
    let mut o = report::Outputs::in_run_dir(&cwd.join(run_dir));
    let mut roots = vec![o.run_dir.clone()];
    if let Some(j) = &args.junit {
        o.junit = report::write::absolute(&cwd.join(j));
        roots.extend(o.junit.parent().map(report::write::existing_ancestor));
    }
    if args.no_html {
        o.html = None;
    } else if let Some(h) = &args.html {
        let h = report::write::absolute(&cwd.join(h));
        roots.extend(h.parent().map(report::write::existing_ancestor));
        o.html = Some(h);
    }
    o.policy = tapflow_device::hostfs::PathPolicy::new(cwd, roots);
    o
}

/// `--github-summary`: the Markdown summary appended to `$GITHUB_STEP_SUMMARY` and the
/// `::error` annotations on stdout.
fn github_outputs(result: &RunResult, html: Option<&Path>, masker: &Masker) {
    // Masked field by field before GitHub's escaping (which changes a secret's form).
    for line in report::github::annotations(result, masker) {
        println!("{line}");
    }
    match std::env::var_os("GITHUB_STEP_SUMMARY") {
        Some(path) if !path.is_empty() => {
            if let Err(e) =
                report::write::append_github_summary(result, Path::new(&path), html, masker)
            {
                eprintln!("tapflow run: {e}");
            }
        }
        _ => eprintln!(
            "tapflow run: --github-summary: GITHUB_STEP_SUMMARY is not set (not on GitHub \
             Actions?); annotations printed, no summary written"
        ),
    }
}

/// The exit code of a finished run: 130 interrupted; 1 when a flow failed because of the app
/// or the flow; 4 when flows could not run or failed only because a device or the host
/// tooling did (disconnected, not found, hdc missing or timing out); 0 otherwise.
pub fn exit_code(r: &RunResult) -> i32 {
    if r.interrupted {
        return exit::INTERRUPTED;
    }
    // Invalid flow files are the first thing to fix, whatever the valid flows did.
    if r.totals.invalid > 0 {
        return exit::INVALID;
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

/// First Ctrl-C or SIGTERM: stop steps cleanly (hooks still run, the result is written).
/// Second: stop hooks too. Third: leave at once. Returns the signal that stopped the run first
/// (`None` while none did), which decides the exit code (130 or 143).
fn install_ctrl_c(cancel: CancelToken, abort: CancelToken) -> Arc<Mutex<Option<Stop>>> {
    let first = Arc::new(Mutex::new(None));
    let stopped = first.clone();
    let presses = Mutex::new(0u32);
    let _ = super::interrupt::on_interrupt(move |stop| {
        let mut n = presses.lock().unwrap_or_else(|p| p.into_inner());
        *n += 1;
        let by = *stopped
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get_or_insert(stop);
        let (what, again) = match stop {
            Stop::Interrupt => ("interrupted", "Ctrl-C"),
            Stop::Terminate => ("terminated (SIGTERM)", "a signal"),
        };
        match *n {
            1 => {
                eprintln!(
                    "\n{what}: stopping after cleanup (`finally` steps); {again} again to skip them"
                );
                cancel.cancel();
            }
            2 => {
                eprintln!("\n{what} again: skipping cleanup, writing the result");
                abort.cancel();
            }
            // Child processes (the private adb server) die with the process: see android_sim.
            _ => std::process::exit(by.exit_code()),
        }
    });
    first
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

/// The flow durations of the latest earlier run in the reports directory (run ids sort by
/// time), read through the host-path policy, for handing out the longest flows first. Nothing
/// readable there: no figures (flows are then ordered by their step counts).
fn previous_durations(config: &ToolConfig, this_run: &str) -> Expected {
    let Ok(entries) = std::fs::read_dir(&config.reports_dir) else {
        return Expected::default();
    };
    let mut runs: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.file_name().is_some_and(|n| n != this_run))
        .filter(|p| p.join("result.json").is_file())
        .collect();
    runs.sort();
    let Some(latest) = runs.last() else {
        return Expected::default();
    };
    let file = latest.join("result.json").display().to_string();
    match config.paths.read_file(&file, 64 << 20) {
        Ok((_, bytes)) => Expected::from_result_json(&String::from_utf8_lossy(&bytes)),
        Err(_) => Expected::default(),
    }
}
