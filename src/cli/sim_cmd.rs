//! `tapflow sim …`: start, stop and talk to simulated devices.
//!
//! `start` re-executes this binary as `tapflow sim serve …` in the background (the daemon holds
//! the simulator) and writes `DIR/bin/hdc`; `hdc` is what that script runs; `hdc-path`,
//! `status` and `stop` manage the daemon. The default state directory is
//! `$TMPDIR/tapflow-sim` (resolved here, once, like every environment read in the CLI).
//!
//! With `--platform android` the daemon runs simulated Android devices, each listening on a
//! loopback port for adb (default state directory `$TMPDIR/tapflow-sim-android`): `start`
//! prints their `adb connect` addresses, or with `--adb-port PORT` attaches them to a private
//! adb server on that port (stopped with the simulator), leaving the user's own server alone.

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Subcommand};

use super::adb_server::PrivateAdbServer;
use super::exit;
use super::platform::{Platform, adb_config};
use tapflow_device::adb::AdbClient;
use tapflow_sim::android::daemon::{FarmDaemon, addresses_in_status};
use tapflow_sim::android::{AndroidFarm, FarmOptions};
use tapflow_sim::daemon;
use tapflow_sim::{FaultSpec, Latency, SimOptions, Simulator};

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
    /// State directory (socket, pid, log, bin/hdc). Default: $TMPDIR/tapflow-sim, or
    /// $TMPDIR/tapflow-sim-android with `--platform android`.
    #[arg(long, value_name = "DIR")]
    pub state_dir: Option<PathBuf>,
    /// The platform of the simulated devices.
    #[arg(long, value_parser = super::platform::parser(), default_value_t = Platform::Harmonyos)]
    pub platform: Platform,
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
    #[arg(long, default_value = "realistic")]
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
    /// Android: attach the devices to a private adb server on this port (`adb -P PORT …`),
    /// started if needed and stopped with the simulator. Without it, `start` prints the
    /// `adb connect` addresses.
    #[arg(long, value_name = "PORT")]
    pub adb_port: Option<u16>,
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

fn state_dir(d: &DirArg) -> PathBuf {
    let default = match d.platform {
        Platform::Harmonyos => "tapflow-sim",
        Platform::Android => "tapflow-sim-android",
        Platform::Ios => unreachable!("--platform takes harmonyos or android"),
    };
    let dir = d
        .state_dir
        .clone()
        .unwrap_or_else(|| std::env::temp_dir().join(default));
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

pub fn run(args: SimArgs, adb: Option<PathBuf>) -> i32 {
    match args.command {
        SimCommand::Start(a) => start(a, adb),
        SimCommand::Serve(a) if a.dir.platform == Platform::Android => serve_android(a, adb),
        SimCommand::Serve(a) => {
            let dir = state_dir(&a.dir);
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
        SimCommand::Stop(d) => match daemon::stop(&state_dir(&d), Duration::from_secs(10)) {
            Ok(()) => {
                println!("simulator stopped");
                exit::SUCCESS
            }
            Err(e) => fail(e),
        },
        SimCommand::Status(d) => match daemon::status(&state_dir(&d)) {
            Ok(s) => {
                print!("{s}");
                exit::SUCCESS
            }
            Err(e) => fail(e),
        },
        SimCommand::HdcPath(d) => {
            let dir = state_dir(&d);
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
            let dir = state_dir(&DirArg {
                state_dir: h.state_dir.clone(),
                platform: Platform::Harmonyos,
            });
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

/// The Android devices' options; `--emulator` and `--layout` are HarmonyOS-only.
fn android_options(a: &ServeArgs) -> Result<FarmOptions, String> {
    if a.emulator || a.layout.is_some() {
        return Err("--emulator and --layout are HarmonyOS options (the Android devices always listen on loopback ports and show the demo app's screens)".into());
    }
    let faults = FaultSpec::parse(&a.faults).map_err(|e| e.to_string())?;
    Ok(FarmOptions {
        devices: a.devices,
        seed: a.seed,
        latency: a.latency,
        faults,
        ..Default::default()
    })
}

/// `sim serve --platform android`: the devices, attached to a private adb server when asked,
/// until `sim stop`.
fn serve_android(a: ServeArgs, adb: Option<PathBuf>) -> i32 {
    let dir = state_dir(&a.dir);
    let opts = match android_options(&a) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("tapflow sim: {e}");
            return exit::USAGE;
        }
    };
    let farm = match AndroidFarm::start(&opts) {
        Ok(f) => f,
        Err(e) => return fail(format!("cannot listen for adb: {e}")),
    };
    let mut note = String::new();
    // The private server is the daemon's own child (`adb_server`): it ends with the daemon,
    // also when the daemon is killed.
    let mut private = None;
    if let Some(port) = a.adb_port {
        let mut config = adb_config(adb);
        let server = match PrivateAdbServer::start(&config.program, port) {
            Ok(s) => s,
            Err(e) => return fail(e),
        };
        config.server_port = Some(port);
        config.server_host = Some("127.0.0.1".to_string());
        let client = AdbClient::with_process(config);
        for addr in farm.addresses() {
            if let Err(e) = client.adb_connect(&addr) {
                return fail(format!(
                    "cannot attach {addr} to the adb server on port {port}: {e}"
                ));
            }
        }
        note = format!("adb server: localhost:{port} (private; `adb -P {port} devices -l`)\n");
        private = Some((server, client));
    }
    // The private server ends with the simulator, before `sim stop` returns.
    let on_stop = private.map(
        |(mut server, client)| -> tapflow_sim::android::daemon::OnStop {
            Box::new(move || {
                server.stop(|| {
                    let _ = client.kill_server();
                });
            })
        },
    );
    let result = daemon::serve_backend(
        std::sync::Arc::new(FarmDaemon::new(farm, opts, note, on_stop)),
        &dir,
    );
    match result {
        Ok(()) => exit::SUCCESS,
        Err(e) => fail(e),
    }
}

fn start(a: ServeArgs, adb: Option<PathBuf>) -> i32 {
    let dir = state_dir(&a.dir);
    let checked = match a.dir.platform {
        Platform::Harmonyos => options(&a, dir.clone()).map(|_| ()),
        Platform::Android => android_options(&a).map(|_| ()),
        Platform::Ios => unreachable!("--platform takes harmonyos or android"),
    };
    if let Err(e) = checked {
        eprintln!("tapflow sim: {e}");
        return exit::USAGE;
    }
    if a.adb_port.is_some() && a.dir.platform != Platform::Android {
        eprintln!("tapflow sim: --adb-port needs --platform android");
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
    if a.dir.platform == Platform::Android {
        serve_args.extend(["--platform".to_string(), "android".to_string()]);
        if let Some(p) = a.adb_port {
            serve_args.extend(["--adb-port".to_string(), p.to_string()]);
        }
        if let Some(adb) = &adb {
            serve_args.extend(["--adb".to_string(), adb.display().to_string()]);
        }
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
        Ok(_) if a.dir.platform == Platform::Android => {
            let status = daemon::status(&dir).unwrap_or_default();
            match a.adb_port {
                Some(port) => println!(
                    "simulator started: {} Android device(s), attached to the private adb server on port {port}:\n  adb -P {port} devices -l",
                    a.devices
                ),
                None => {
                    println!(
                        "simulator started: {} Android device(s); attach them to an adb server with:",
                        a.devices
                    );
                    for addr in addresses_in_status(&status) {
                        println!("  adb connect {addr}");
                    }
                }
            }
            exit::SUCCESS
        }
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
