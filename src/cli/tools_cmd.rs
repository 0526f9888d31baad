//! `tapflow tools [--json|--markdown]` lists the tools (JSON = exactly the entries MCP
//! `tools/list` carries; Markdown = the reference in docs/tools.md); `tapflow tool NAME 'JSON'`
//! calls one tool and prints its whole envelope (exit 0 when ok, 1 when not).
//!
//! The environment and `./tapflow.toml` are read here, once, into a
//! [`ToolConfig`](tapflow_tools::ToolConfig). Devices come from the hdc and adb backends
//! ([`super::providers`]), or with `--sim N` from simulated ones (the `sim` feature).

use std::io::Read;
use std::path::PathBuf;

use serde_json::Value;

use super::providers::provider_for;
use crate::cli::exit;
use tapflow_tools::{Engine, Envelope, Routing, ToolContext, ToolError};

#[cfg(feature = "sim")]
use crate::sim_provider::{DEMO_ABILITY, sim_provider, start_demo};

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
    #[arg(long, value_name = "N", conflicts_with = "device", hide = cfg!(not(feature = "sim")))]
    pub sim: Option<usize>,
    /// Platform of the simulated device: `harmonyos` (through hdc, the default) or `android`
    /// (through the real `adb` on a private server, stopped after the call).
    #[arg(long, value_parser = super::platform::parser(), default_value_t = super::platform::Platform::Harmonyos, requires = "sim", hide = cfg!(not(feature = "sim")))]
    pub platform: super::platform::Platform,
    /// Faults the simulated device injects (as in `tapflow sim`, docs/sim.md).
    #[arg(long, value_name = "SPEC", requires = "sim", hide = cfg!(not(feature = "sim")))]
    pub sim_faults: Option<String>,
    /// Seed of the simulated device (serial, faults).
    #[arg(long, value_name = "SEED", default_value_t = 1, requires = "sim", hide = cfg!(not(feature = "sim")))]
    pub sim_seed: u64,
    /// The device to call it on (sets `device_id` unless the arguments give one).
    #[arg(long, short = 'd', value_name = "SERIAL")]
    pub device: Option<String>,
}

/// `tapflow tools`.
pub fn list(args: ToolsArgs) -> i32 {
    let engine = Engine::new();
    if args.markdown {
        print!("{}", crate::mcp::catalog::reference_markdown(&engine));
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
    #[cfg(feature = "sim")]
    let mut android_session = None;
    #[cfg(feature = "sim")]
    let faults = args.sim_faults.as_deref();
    let (provider, device) = match args.sim {
        #[cfg(feature = "sim")]
        Some(n) if args.platform == super::platform::Platform::Android => {
            match super::android_sim::AndroidSimSession::start(
                n,
                faults,
                args.sim_seed,
                tapflow_sim::Latency::None,
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
        #[cfg(feature = "sim")]
        Some(n) => {
            let cwd = crate::cli::setup::cwd();
            match sim_provider(n, faults, args.sim_seed, tapflow_sim::Latency::None, &cwd).and_then(
                |(p, serials)| {
                    let serial = serials.into_iter().next().ok_or("no simulated device")?;
                    start_demo(&p, &serial, DEMO_ABILITY)?;
                    Ok((p, serial))
                },
            ) {
                Ok((p, serial)) => (p, Some(serial)),
                Err(e) => {
                    eprintln!("tapflow tool: {e}");
                    return exit::USAGE;
                }
            }
        }
        #[cfg(not(feature = "sim"))]
        Some(_) => return super::sim_feature::without_sim("tapflow tool", "--sim"),
        None => (provider_for(hdc, adb, &config), args.device.clone()),
    };
    let ctx = ToolContext::new(provider, config);
    let engine = Engine::new();
    // Only a tool that takes a device is routed to one (`build_app` runs on the host).
    let routed = engine
        .get(&args.name)
        .is_none_or(|t| t.routing == Routing::Full);
    let envelope = match parse_args(args.args.as_deref()) {
        Ok(mut v) => {
            if let (true, Some(d), Value::Object(o)) = (routed, &device, &mut v) {
                o.entry("device_id")
                    .or_insert_with(|| Value::String(d.clone()));
            }
            engine.call(&args.name, v, &ctx)
        }
        Err(e) => Envelope::new(&args.name, Err(e), 0),
    };
    println!(
        "{}",
        serde_json::to_string_pretty(&envelope.to_value()).unwrap_or_default()
    );
    #[cfg(feature = "sim")]
    drop(android_session);
    if envelope.ok() {
        exit::SUCCESS
    } else {
        exit::FAILURE
    }
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
