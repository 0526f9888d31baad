//! The command line: clap commands, exit codes, terminal output. Reads the environment and
//! config files once, at start-up, into a typed configuration passed down; nothing else in the
//! crate calls `std::env`.

#[cfg(feature = "sim")]
pub mod adb_server;
#[cfg(feature = "sim")]
pub mod android_sim;
#[cfg(feature = "sim")]
pub mod demo_cmd;
pub mod devices_cmd;
pub mod flow_cmd;
pub mod inspect_cmd;
mod interrupt;
pub mod log_gate;
pub mod logging;
pub mod mcp_cmd;
pub mod platform;
pub mod providers;
pub mod report_cmd;
pub mod run_cmd;
pub mod setup;
#[cfg(feature = "sim")]
pub mod sim_cmd;
pub mod sim_feature;
pub mod term;
pub mod tools_cmd;

use clap::{Parser, Subcommand};

/// Exit codes, documented in `docs/run.md` ("Exit codes"); `validate` uses 0/3, `tool` 0/1,
/// `devices` 0/4.
pub mod exit {
    pub const SUCCESS: i32 = 0;
    /// A flow or tool call failed.
    pub const FAILURE: i32 = 1;
    /// clap's own code for usage errors.
    pub const USAGE: i32 = 2;
    /// Flows are invalid (validation errors).
    pub const INVALID: i32 = 3;
    /// Device or infrastructure error (no device, hdc missing, simulator unreachable).
    pub const INFRA: i32 = 4;
    /// `tapflow run` selected no flow (tags, shard, empty folder) and `--allow-empty` was not
    /// given: nothing was run.
    pub const NOTHING_RAN: i32 = 5;
    /// Interrupted (Ctrl-C).
    pub const INTERRUPTED: i32 = 130;
    /// Stopped by SIGTERM (128 + 15, as a shell reports it).
    pub const TERMINATED: i32 = 143;
}

/// Every duration flag: milliseconds (`1500`) or the flow files' duration syntax (`30s`,
/// `1m30s`, `500ms`).
pub fn duration_arg(s: &str) -> Result<u64, String> {
    tapflow_core::flow::duration::parse_ms(s)
}

#[derive(Debug, Parser)]
#[command(
    name = "tapflow",
    version,
    about = "Test automation for HarmonyOS, Android and Appium devices"
)]
pub struct Cli {
    /// Path of the hdc executable (default: `hdc` on PATH).
    #[arg(long, global = true, env = "TAPFLOW_HDC")]
    pub hdc: Option<std::path::PathBuf>,
    /// More log on stderr: -v every hdc call (argv, duration, exit status) and resend, -vv
    /// everything. RUST_LOG, when set, decides instead (docs/logging.md).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// Format of the log lines on stderr.
    #[arg(long, global = true, value_enum, default_value_t = logging::LogFormat::Text)]
    pub log_format: logging::LogFormat,
    /// Path of the adb executable (default: `adb` on PATH).
    #[arg(long, global = true, env = "TAPFLOW_ADB")]
    pub adb: Option<std::path::PathBuf>,
    /// Colour diagnostics and progress: `auto` (a terminal, unless NO_COLOR is set), `always`,
    /// `never`.
    #[arg(long, global = true, value_enum, default_value_t = term::ColorChoice::Auto)]
    pub color: term::ColorChoice,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run and control the simulated devices (HarmonyOS through hdc, Android through adb).
    #[cfg(feature = "sim")]
    Sim(sim_cmd::SimArgs),
    /// Not in this build (built without the `sim` feature): says so.
    #[cfg(not(feature = "sim"))]
    #[command(hide = true, disable_help_flag = true)]
    Sim(sim_feature::NoSimArgs),
    /// Check flow files: report every error at once, with file:line:col.
    Validate(flow_cmd::ValidateArgs),
    /// Print the compiled plan of flow files (steps, arguments, deadlines, devices).
    Plan(flow_cmd::PlanArgs),
    /// Run flows on devices (or simulated devices) and write the run's result and evidence.
    Run(Box<run_cmd::RunArgs>),
    /// Render a run's reports again from its result.json, verify its artifacts, or merge the
    /// run directories of CI shards.
    Report(report_cmd::ReportArgs),
    /// List the tools (`--json`: the MCP tools/list entries).
    Tools(tools_cmd::ToolsArgs),
    /// Call one tool with JSON arguments and print its envelope.
    Tool(tools_cmd::ToolArgs),
    /// Print the current screen as a tree of actionable elements, each with the shortest
    /// selector to paste into a flow (`--sim N` / `--device SERIAL`, `--watch`).
    Inspect(inspect_cmd::InspectArgs),
    /// List connected devices (serial, state, model, API level, screen size).
    Devices(devices_cmd::DevicesArgs),
    /// Serve every tool over MCP: stdio, or streamable HTTP with --http (see docs/mcp.md).
    Mcp(Box<mcp_cmd::McpArgs>),
}

/// Entry point of the `tapflow` binary; returns the process exit code.
pub fn main() -> i32 {
    term::quiet_closed_pipe();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return e.exit_code();
        }
    };
    // The simulator's hdc client answers as hdc does, on stdout and stderr: no log lines there.
    #[cfg(feature = "sim")]
    let hdc_client = matches!(
        &cli.command,
        Command::Sim(sim_cmd::SimArgs {
            command: sim_cmd::SimCommand::Hdc(_)
        })
    );
    #[cfg(not(feature = "sim"))]
    let hdc_client = false;
    if !hdc_client {
        logging::install(
            cli.verbose,
            cli.log_format,
            std::env::var("RUST_LOG").ok().as_deref(),
        );
    }
    term::init_color(cli.color, std::env::var_os("NO_COLOR"));
    match cli.command {
        #[cfg(feature = "sim")]
        Command::Sim(args) => sim_cmd::run(args, cli.adb),
        #[cfg(not(feature = "sim"))]
        Command::Sim(_) => sim_feature::without_sim("tapflow sim", "the simulator"),
        Command::Validate(args) => flow_cmd::run_validate(args),
        Command::Plan(args) => flow_cmd::run_plan(args),
        Command::Run(args) => run_cmd::run(*args, cli.hdc, cli.adb),
        Command::Report(args) => report_cmd::run(args),
        Command::Tools(args) => tools_cmd::list(args),
        Command::Tool(args) => tools_cmd::call(args, cli.hdc, cli.adb),
        Command::Devices(args) => devices_cmd::run(args, cli.hdc, cli.adb),
        Command::Mcp(args) => mcp_cmd::run(*args, cli.hdc, cli.adb),
        Command::Inspect(args) => inspect_cmd::run(args, cli.hdc),
    }
}
