//! `tapflow tools [--json|--markdown]` lists the tools (JSON = exactly the entries MCP
//! `tools/list` carries; Markdown = the reference in docs/tools.md); `tapflow tool NAME 'JSON'`
//! calls one tool and prints its whole envelope (exit 0 when ok, 1 when not).
//!
//! The environment and `./tapflow.toml` are read here, once, into a [`ToolConfig`]. Devices come from the hdc
//! backend when one is built in; until then every device call fails with a clear
//! `UNSUPPORTED` error (tools that need no device still work).

use std::io::Read;
use std::path::PathBuf;

use std::sync::Arc;
use tapflow_device::adb::AdbClient;
use tapflow_device::hdc::{HdcClient, HdcConfig};
use tapflow_tools::adb_provider::AdbProvider;
use tapflow_tools::hdc_provider::HdcProvider;
use tapflow_tools::platforms_provider::PlatformsProvider;
use tapflow_tools::provider::CachingProvider;

use serde_json::Value;

use tapflow_sim::Latency;

use crate::cli::exit;
use tapflow_tools::{DeviceProvider, Engine, Envelope, ToolConfig, ToolContext, ToolError};

/// Arguments of `tapflow tools`.
#[derive(Debug, clap::Args)]
pub struct ToolsArgs {
    /// Print the MCP `tools/list` entries as JSON.
    #[arg(long, conflicts_with = "markdown")]
    pub json: bool,
    /// Print the generated Markdown reference (the block embedded in docs/tools.md).
    #[arg(long)]
    pub markdown: bool,
}

/// Arguments of `tapflow tool`.
#[derive(Debug, clap::Args)]
pub struct ToolArgs {
    /// Tool name, e.g. `click`.
    pub name: String,
    /// Arguments as a JSON object (`-` reads them from stdin). Default `{}`.
    pub args: Option<String>,
    /// Call it on a simulated device (in-process, with the demo app open on its login page; no
    /// phone needed).
    #[arg(long, value_name = "N", conflicts_with = "device")]
    pub sim: Option<usize>,
    /// Platform of the simulated device: `harmonyos` (through hdc, the default) or `android`
    /// (through the real `adb` on a private server, stopped after the call).
    #[arg(long, value_parser = super::platform::parser(), default_value_t = super::platform::Platform::Harmonyos, requires = "sim")]
    pub platform: super::platform::Platform,
    /// Faults the simulated device injects (as in `tapflow sim`, docs/sim.md).
    #[arg(long, value_name = "SPEC", requires = "sim")]
    pub sim_faults: Option<String>,
    /// Seed of the simulated device (serial, faults).
    #[arg(long, value_name = "SEED", default_value_t = 1, requires = "sim")]
    pub sim_seed: u64,
    /// The device to call it on (sets `device_id` unless the arguments give one).
    #[arg(long, short = 'd', value_name = "SERIAL")]
    pub device: Option<String>,
}

/// `tapflow tools`.
pub fn list(args: ToolsArgs) -> i32 {
    let engine = Engine::new();
    if args.markdown {
        print!("{}", tapflow_tools::reference::markdown(&engine));
        return exit::SUCCESS;
    }
    if args.json {
        println!("{}", tools_json(&engine));
        return exit::SUCCESS;
    }
    let width = engine.tools().map(|t| t.name.len()).max().unwrap_or(0);
    for t in engine.tools() {
        let risk = serde_json::to_value(t.policy.risk).ok();
        let risk = risk.as_ref().and_then(Value::as_str).unwrap_or("?");
        let approval = if t.policy.needs_approval {
            " (approval)"
        } else {
            ""
        };
        println!("{:width$}  {:9}  {}{approval}", t.name, risk, t.description);
    }
    exit::SUCCESS
}

/// What `tapflow tools --json` prints for `engine`: the MCP `tools/list` entries.
pub fn tools_json(engine: &Engine) -> String {
    serde_json::to_string_pretty(&Value::Array(engine.mcp_tools())).unwrap_or_default()
}

/// `tapflow tool NAME JSON`.
pub fn call(args: ToolArgs, hdc: Option<PathBuf>, adb: Option<PathBuf>) -> i32 {
    // The project file (./tapflow.toml) and the environment give the allowed roots.
    let config = match crate::cli::setup::load(None, &[]).map(|(_, c)| c) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("tapflow: {e}");
            return exit::USAGE;
        }
    };
    // Holds the simulated Android device and its private adb server until the call is done.
    let mut android_session = None;
    let faults = args.sim_faults.as_deref();
    let (provider, device) = match args.sim {
        Some(n) if args.platform == super::platform::Platform::Android => {
            match super::android_sim::AndroidSimSession::start(
                n,
                faults,
                args.sim_seed,
                Latency::None,
                adb,
            )
            .and_then(|session| {
                let provider = session.provider();
                let serial = session.serials().into_iter().next().unwrap_or_default();
                // An empty activity launches the app's launcher activity (`monkey`).
                start_demo(&provider, &serial, "")?;
                android_session = Some(session);
                Ok((provider, serial))
            }) {
                Ok((p, serial)) => (p, Some(serial)),
                Err(e) => {
                    eprintln!("tapflow tool: {e}");
                    return exit::INFRA;
                }
            }
        }
        Some(n) => {
            let cwd = crate::cli::setup::cwd();
            match crate::cli::run_cmd::sim_provider(n, faults, args.sim_seed, Latency::None, &cwd)
                .and_then(|(p, serials)| {
                    let serial = serials.into_iter().next().ok_or("no simulated device")?;
                    start_demo(&p, &serial, super::demo_cmd::DEMO_ABILITY)?;
                    Ok((p, serial))
                }) {
                Ok((p, serial)) => (p, Some(serial)),
                Err(e) => {
                    eprintln!("tapflow tool: {e}");
                    return exit::USAGE;
                }
            }
        }
        None => (provider_for(hdc, adb, &config), args.device.clone()),
    };
    let ctx = ToolContext::new(provider, config);
    let envelope = match parse_args(args.args.as_deref()) {
        Ok(mut v) => {
            if let (Some(d), Value::Object(o)) = (&device, &mut v) {
                o.entry("device_id")
                    .or_insert_with(|| Value::String(d.clone()));
            }
            Engine::new().call(&args.name, v, &ctx)
        }
        Err(e) => Envelope::new(&args.name, Err(e), 0),
    };
    println!(
        "{}",
        serde_json::to_string_pretty(&envelope.to_value()).unwrap_or_default()
    );
    drop(android_session);
    if envelope.ok() {
        exit::SUCCESS
    } else {
        exit::FAILURE
    }
}

/// Opens the demo app on the simulated device `serial` (its login page).
fn start_demo(
    provider: &Arc<dyn DeviceProvider>,
    serial: &str,
    ability: &str,
) -> Result<(), String> {
    let route = tapflow_tools::DeviceRoute {
        device_id: Some(serial.to_string()),
        hdc_server: None,
    };
    let dev = provider.resolve(&route).map_err(|e| e.to_string())?;
    dev.start_app(super::demo_cmd::DEMO_BUNDLE, ability, None)
        .map_err(|e| format!("the demo app did not start: {e}"))
}

fn parse_args(given: Option<&str>) -> Result<Value, ToolError> {
    let text = match given {
        None => return Ok(Value::Object(Default::default())),
        Some("-") => {
            let mut s = String::new();
            std::io::stdin().read_to_string(&mut s).map_err(|e| {
                ToolError::invalid_param("arguments", format!("cannot read stdin: {e}"))
            })?;
            s
        }
        Some(s) => s.to_string(),
    };
    tapflow_tools::decode::parse_arguments(&text)
}

/// The device provider for CLI calls: [`provider_for`] with `adb` from `PATH`.
pub fn provider(hdc: Option<PathBuf>, config: &ToolConfig) -> Arc<dyn DeviceProvider> {
    provider_for(hdc, None, config)
}

/// The device provider for CLI calls: HarmonyOS devices through the `hdc` executable
/// (`--hdc PATH` or `TAPFLOW_HDC`, default `hdc` on PATH, with `HARMONYOS_HDC_SERVER` as the
/// default route server) and Android devices through the `adb` executable (`--adb PATH` or
/// `TAPFLOW_ADB`, default `adb` on PATH; adb's own `ANDROID_ADB_SERVER_PORT` picks its server),
/// merged: a device id of either kind resolves. Devices are resolved once per route for the
/// duration of the command.
pub fn provider_for(
    hdc: Option<PathBuf>,
    adb: Option<PathBuf>,
    config: &ToolConfig,
) -> Arc<dyn DeviceProvider> {
    let hdc_config = HdcConfig {
        program: hdc.unwrap_or_else(|| PathBuf::from("hdc")),
        default_server: config.default_hdc_server.clone(),
        ..HdcConfig::default()
    };
    let hdc: Arc<dyn DeviceProvider> = Arc::new(HdcProvider(HdcClient::with_process(hdc_config)));
    let adb: Arc<dyn DeviceProvider> = Arc::new(AdbProvider(AdbClient::with_process(
        super::platform::adb_config(adb),
    )));
    let inner = Arc::new(PlatformsProvider::new(vec![
        (tapflow_device::Platform::Harmonyos, hdc),
        (tapflow_device::Platform::Android, adb),
    ]));
    Arc::new(CachingProvider::new(
        inner,
        std::time::Duration::from_secs(60),
    ))
}
