//! `tapflow sim …`: start, stop and talk to simulated HarmonyOS devices.
//!
//! `start` re-executes this binary as `tapflow sim serve …` in the background (the daemon holds
//! the simulator) and writes `DIR/bin/hdc`; `hdc` is what that script runs; `hdc-path`,
//! `status` and `stop` manage the daemon. The default state directory is
//! `$TMPDIR/tapflow-sim` (resolved here, once, like every environment read in the CLI).

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Subcommand};

use super::exit;
use crate::sim::daemon;
use crate::sim::{FaultSpec, Latency, SimOptions, Simulator};

/// Arguments of `tapflow sim`.
#[derive(Debug, Args)]
pub struct SimArgs {
    #[command(subcommand)]
    pub command: SimCommand,
}

#[derive(Debug, Subcommand)]
pub enum SimCommand {
    /// Start a simulator daemon in the background and write its `hdc` executable.
    Start(ServeArgs),
    /// Run the simulator daemon in the foreground (what `start` runs in the background).
    Serve(ServeArgs),
    /// Stop the simulator daemon.
    Stop(DirArg),
    /// Show whether a simulator runs, and its devices.
    Status(DirArg),
    /// Print the absolute path of the simulator's `hdc` executable.
    HdcPath(DirArg),
    /// The hdc client of the simulator (what `DIR/bin/hdc` runs): forwards argv to the daemon.
    #[command(disable_help_flag = true, disable_version_flag = true)]
    Hdc(HdcArgs),
    /// Demonstrate tapflow: drive a simulated phone's demo app through the hdc backend.
    Demo(super::demo_cmd::DemoArgs),
}

#[derive(Debug, Clone, Args)]
pub struct DirArg {
    /// State directory (socket, pid, log, bin/hdc). Default: $TMPDIR/tapflow-sim.
    #[arg(long, value_name = "DIR")]
    pub state_dir: Option<PathBuf>,
}

#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    #[command(flatten)]
    pub dir: DirArg,
    /// Number of simulated devices.
    #[arg(long, default_value_t = 1)]
    pub devices: usize,
    /// Seed for serials and faults.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Simulated device time per command: realistic or none.
    #[arg(long, default_value = "realistic", value_parser = parse_latency)]
    pub latency: Latency,
    /// Faults to inject, e.g. "fail=0.1,empty-dump=0.05,drop-chars=0.02,disconnect-after=40".
    #[arg(long, default_value = "")]
    pub faults: String,
    /// Make the last device an emulator reachable as 127.0.0.1:5555.
    #[arg(long)]
    pub emulator: bool,
    /// Show this recorded uitest layout (JSON) on every device; dumps serve it back.
    #[arg(long, value_name = "FILE")]
    pub layout: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct HdcArgs {
    /// State directory of the simulator to talk to.
    #[arg(long, value_name = "DIR")]
    pub state_dir: Option<PathBuf>,
    /// The hdc argv, passed through untouched.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
    pub args: Vec<String>,
}

fn parse_latency(s: &str) -> Result<Latency, String> {
    s.parse()
}

fn state_dir(opt: &Option<PathBuf>) -> PathBuf {
    let dir = opt
        .clone()
        .unwrap_or_else(|| std::env::temp_dir().join("tapflow-sim"));
    // Absolute, so the hdc script and the daemon agree whatever the cwd.
    if dir.is_absolute() {
        dir
    } else {
        std::env::current_dir().map(|c| c.join(&dir)).unwrap_or(dir)
    }
}

fn options(a: &ServeArgs, dir: PathBuf) -> Result<SimOptions, String> {
    let faults = FaultSpec::parse(&a.faults).map_err(|e| e.to_string())?;
    Ok(SimOptions {
        devices: a.devices,
        seed: a.seed,
        latency: a.latency,
        faults,
        state_dir: Some(dir),
        emulator: a.emulator,
    })
}

fn fail(msg: impl std::fmt::Display) -> i32 {
    eprintln!("tapflow sim: {msg}");
    exit::INFRA
}

pub fn run(args: SimArgs) -> i32 {
    match args.command {
        SimCommand::Start(a) => start(a),
        SimCommand::Serve(a) => {
            let dir = state_dir(&a.dir.state_dir);
            let opts = match options(&a, dir.clone()) {
                Ok(o) => o,
                Err(e) => {
                    eprintln!("tapflow sim: {e}");
                    return exit::USAGE;
                }
            };
            let sim = Simulator::new(opts);
            if let Some(path) = &a.layout {
                let text = match std::fs::read_to_string(path) {
                    Ok(t) => t,
                    Err(e) => return fail(format!("cannot read {}: {e}", path.display())),
                };
                for serial in sim.serials() {
                    let shown = sim
                        .phone(&serial)
                        .map(|mut p| p.show_recorded_layout(&text));
                    if let Some(Err(e)) = shown {
                        eprintln!(
                            "tapflow sim: {} is not a usable layout: {e}",
                            path.display()
                        );
                        return exit::USAGE;
                    }
                }
            }
            match daemon::serve(sim, &dir) {
                Ok(()) => exit::SUCCESS,
                Err(e) => fail(e),
            }
        }
        SimCommand::Stop(d) => {
            match daemon::stop(&state_dir(&d.state_dir), Duration::from_secs(10)) {
                Ok(()) => {
                    println!("simulator stopped");
                    exit::SUCCESS
                }
                Err(e) => fail(e),
            }
        }
        SimCommand::Status(d) => match daemon::status(&state_dir(&d.state_dir)) {
            Ok(s) => {
                print!("{s}");
                exit::SUCCESS
            }
            Err(e) => fail(e),
        },
        SimCommand::HdcPath(d) => {
            let dir = state_dir(&d.state_dir);
            let p = daemon::hdc_script_path(&dir);
            if !p.exists() {
                return fail(format!(
                    "{} does not exist (start the simulator with `tapflow sim start --state-dir {}`)",
                    p.display(),
                    dir.display()
                ));
            }
            println!("{}", p.display());
            exit::SUCCESS
        }
        SimCommand::Demo(a) => super::demo_cmd::run(a),
        SimCommand::Hdc(h) => {
            let dir = state_dir(&h.state_dir);
            let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
            let stdout = std::io::stdout();
            let mut lock = stdout.lock();
            match daemon::run_hdc(&dir, &h.args, &cwd, &mut lock) {
                Ok(code) => {
                    let _ = lock.flush();
                    code
                }
                Err(daemon::DaemonError::OutputClosed) => exit::SUCCESS,
                Err(e @ daemon::DaemonError::NotRunning { .. }) => {
                    // Real hdc's words when its server cannot be reached (src/host/client.cpp),
                    // so clients classify a stopped or killed simulator as they would a dead
                    // hdc server; then how to start one.
                    eprintln!("Connect server failed");
                    fail(e)
                }
                Err(e) => fail(e),
            }
        }
    }
}

fn start(a: ServeArgs) -> i32 {
    let dir = state_dir(&a.dir.state_dir);
    if let Err(e) = options(&a, dir.clone()) {
        eprintln!("tapflow sim: {e}");
        return exit::USAGE;
    }
    let exe = match std::env::current_exe() {
        Ok(p) => p,
        Err(e) => return fail(format!("cannot find the tapflow executable: {e}")),
    };
    let mut serve_args = vec![
        "sim".to_string(),
        "serve".into(),
        "--state-dir".into(),
        dir.display().to_string(),
        "--devices".into(),
        a.devices.to_string(),
        "--seed".into(),
        a.seed.to_string(),
        "--latency".into(),
        match a.latency {
            Latency::Realistic => "realistic".into(),
            Latency::None => "none".into(),
        },
        "--faults".into(),
        a.faults.clone(),
    ];
    if a.emulator {
        serve_args.push("--emulator".into());
    }
    if let Some(layout) = &a.layout {
        // The daemon runs elsewhere: hand it an absolute path it can read.
        let abs = match std::fs::canonicalize(layout) {
            Ok(p) => p,
            Err(e) => return fail(format!("cannot read {}: {e}", layout.display())),
        };
        serve_args.push("--layout".into());
        serve_args.push(abs.display().to_string());
    }
    match daemon::start(&exe, &dir, &serve_args, Duration::from_secs(15)) {
        Ok(script) => {
            println!(
                "simulator started: {} device(s); hdc: {}",
                a.devices,
                script.display()
            );
            exit::SUCCESS
        }
        Err(e) => fail(e),
    }
}
