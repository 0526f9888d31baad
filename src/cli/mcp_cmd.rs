//! `tapflow mcp`: the MCP server over stdio (default) or streamable HTTP (`--http ADDR`), on the
//! hdc and adb backends or on `--sim N` in-process simulated devices (`--platform android`:
//! simulated Android devices on a private adb server, reached through the real `adb`). Reads the environment, the token
//! file and the flags here, once, and hands `mcp` a typed configuration. Exit codes: 0 the
//! client disconnected (stdio) or the server was stopped (Ctrl-C or SIGTERM, both transports:
//! what the server owns is cleaned up first); 2 usage or refused configuration; 4 the listener
//! could not be opened.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;

use super::exit;
use crate::mcp::McpOptions;
use crate::mcp::call::Core;
use crate::mcp::http::HttpOptions;
use tapflow_tools::ToolContext;

/// Arguments of `tapflow mcp`.
#[derive(Debug, Args)]
pub struct McpArgs {
    /// Serve streamable HTTP on this address (e.g. 127.0.0.1:8765; port 0 picks a free one)
    /// at `/mcp`, instead of stdio.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<SocketAddr>,
    /// HTTP: every request must carry `Authorization: Bearer <the file's content>`. Required
    /// for a bind address that is not loopback.
    #[arg(long, value_name = "FILE", requires = "http")]
    pub token_file: Option<PathBuf>,
    /// HTTP: also accept this `Host` header value (`name` or `name:port`; repeatable).
    #[arg(long = "allow-host", value_name = "HOST", requires = "http")]
    pub allow_hosts: Vec<String>,
    /// HTTP: also accept this `Origin` (`http://host:port`, `:*` = any port; repeatable).
    #[arg(long = "allow-origin", value_name = "ORIGIN", requires = "http")]
    pub allow_origins: Vec<String>,
    /// Serve N in-process simulated devices (to try it out; no phone needed).
    #[arg(long, value_name = "N", hide = cfg!(not(feature = "sim")))]
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
    /// Tools whose policy needs approval (install_app, uninstall_app, clear_app_data, …), alone
    /// or as steps of a flow, must be approved: by the operator (--approve-tools), by the person
    /// through MCP elicitation, or, in trusted-caller mode, by the call's own `approval`.
    #[arg(long, env = "TAPFLOW_MCP_REQUIRE_APPROVAL")]
    pub require_approval: bool,
    /// Tools the operator approves in advance (globs, comma-separated; adds to `[mcp]
    /// approve_tools` of tapflow.toml): alone or as steps of a flow, they need no further
    /// approval.
    #[arg(long, value_delimiter = ',', value_name = "GLOBS")]
    pub approve_tools: Vec<String>,
    /// Trusted-caller mode (CI): a call's own `approval` argument counts (validated, echoed).
    /// Without it (or `[mcp] approval = "caller"`), such an argument is refused.
    #[arg(long)]
    pub trust_caller_approval: bool,
    /// Serve only tools matching these globs (comma-separated, e.g. `find_*,click`).
    #[arg(long, value_delimiter = ',', value_name = "GLOBS")]
    pub allow_tools: Vec<String>,
    /// Never serve tools matching these globs (wins over --allow-tools).
    #[arg(long, value_delimiter = ',', value_name = "GLOBS")]
    pub deny_tools: Vec<String>,
    /// Only these devices may be targeted (serial / connect key globs; repeatable).
    #[arg(long = "allow-device", value_name = "SERIAL")]
    pub allow_devices: Vec<String>,
    /// Host directory tools may read (flows, packages, log files; repeatable), in addition to
    /// the project directory, the output roots, `[paths] allowed_roots` of tapflow.toml and
    /// TAPFLOW_ALLOWED_ROOTS (never the temp directory by default). Only this flag can make
    /// `/` or the home directory a root (docs/security.md).
    #[arg(long = "allow-root", value_name = "DIR")]
    pub allow_roots: Vec<PathBuf>,
    /// Host directory tools may write (screenshots, log snapshots; repeatable, and read too), in
    /// addition to the reports, screenshots and logs directories, `[paths] output_roots` of
    /// tapflow.toml and TAPFLOW_OUTPUT_ROOTS.
    #[arg(long = "output-root", value_name = "DIR")]
    pub output_roots: Vec<PathBuf>,
    /// How long a call may wait for a busy device when it has no timeout_ms of its own:
    /// milliseconds or a duration (`1m`).
    #[arg(long, value_name = "DURATION", default_value = "60000", value_parser = super::duration_arg)]
    pub busy_wait_ms: u64,
    #[command(flatten)]
    pub http_limits: HttpLimitArgs,
}

/// `tapflow mcp`.
pub fn run(args: McpArgs, hdc: Option<PathBuf>, adb: Option<PathBuf>) -> i32 {
    // The environment, ./tapflow.toml and the --allow-root / --output-root flags give the
    // roots; the token file, like the project file, is configuration no tool may write.
    let line = super::setup::CommandLine {
        allow_roots: args.allow_roots.clone(),
        output_roots: args.output_roots.clone(),
        trusted_files: args.token_file.iter().cloned().collect(),
    };
    let (project, config) = match super::setup::load_with(None, &line) {
        Ok(pc) => pc,
        Err(e) => {
            eprintln!("tapflow mcp: {e}");
            return exit::USAGE;
        }
    };
    // Holds the simulated Android devices and their private adb server while the server runs.
    #[cfg(feature = "sim")]
    let mut android_session = None;
    let provider = match args.sim {
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
                    let provider = session.provider();
                    android_session = Some(session);
                    provider
                }
                Err(e) => {
                    eprintln!("tapflow mcp: {e}");
                    return exit::INFRA;
                }
            }
        }
        #[cfg(feature = "sim")]
        Some(n) => match crate::sim_provider::sim_provider(
            n,
            args.sim_faults.as_deref(),
            args.sim_seed,
            args.sim_latency,
            &super::setup::cwd(),
        ) {
            Ok((p, _)) => p,
            Err(e) => {
                eprintln!("tapflow mcp: {e}");
                return exit::USAGE;
            }
        },
        #[cfg(not(feature = "sim"))]
        Some(_) => return super::sim_feature::without_sim("tapflow mcp", "--sim"),
        None => super::providers::provider_for(hdc, adb, &config),
    };
    let options = McpOptions {
        require_approval: args.require_approval,
        // The flags add to tapflow.toml's [mcp] (the operator's file).
        approve_tools: [
            &args.approve_tools[..],
            &project.config.mcp.approve_tools[..],
        ]
        .concat(),
        trust_caller_approval: args.trust_caller_approval
            || project.config.mcp.trust_caller_approval,
        allow_tools: args.allow_tools.clone(),
        deny_tools: [&args.deny_tools[..], &project.config.mcp.deny_tools[..]].concat(),
        allow_devices: args.allow_devices.clone(),
        busy_wait_ms: args.busy_wait_ms,
    };
    let ctx = ToolContext::new(provider, config);
    let core = match Core::new(Arc::new(crate::mcp::engine()), ctx, options) {
        Ok(c) => Arc::new(c),
        Err(e) => {
            eprintln!("tapflow mcp: {e}");
            return exit::USAGE;
        }
    };
    let http = match &args.http {
        None => None,
        Some(bind) => {
            let token = match &args.token_file {
                None => None,
                Some(f) => match std::fs::read_to_string(f) {
                    Ok(t) => Some(t.trim().to_string()),
                    Err(e) => {
                        eprintln!(
                            "tapflow mcp: cannot read the token file {}: {e}",
                            f.display()
                        );
                        return exit::USAGE;
                    }
                },
            };
            let opts = HttpOptions {
                bind: *bind,
                token,
                allow_hosts: args.allow_hosts.clone(),
                allow_origins: args.allow_origins.clone(),
                limits: args.http_limits.limits(),
            };
            if let Err(e) = crate::mcp::http::prepare(&opts) {
                eprintln!("tapflow mcp: {e}");
                return exit::USAGE;
            }
            Some(opts)
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("tapflow mcp: cannot start the async runtime: {e}");
            return exit::INFRA;
        }
    };
    let outcome = runtime.block_on(async move {
        match http {
            None => {
                tokio::select! {
                    served = crate::mcp::stdio::serve(core) => served,
                    () = stop_requested() => Ok(()),
                }
            }
            Some(opts) => {
                crate::mcp::http::serve(
                    core,
                    opts,
                    |bound| eprintln!("tapflow mcp: listening on http://{bound}/mcp"),
                    stop_requested(),
                )
                .await
            }
        }
    });
    // Tool calls still running on the blocking pool are abandoned with the process.
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    #[cfg(feature = "sim")]
    drop(android_session);
    match outcome {
        Ok(()) => exit::SUCCESS,
        Err(e) => {
            eprintln!("tapflow mcp: {e}");
            exit::INFRA
        }
    }
}

/// `tapflow mcp --http`'s connection and session limits (docs/mcp.md, "HTTP limits").
#[derive(Debug, Args)]
pub struct HttpLimitArgs {
    /// HTTP: connections served at once; beyond, 503 with Retry-After. Default: 4096, or
    /// less if the open-file limit (raised to its hard value at start-up) leaves less.
    #[arg(long, value_name = "N", requires = "http")]
    pub http_max_connections: Option<usize>,
    /// HTTP: a connection must send a complete request head within this long of opening or
    /// of its previous response (also the keep-alive idle timeout), and a body within as long.
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = super::duration_arg, requires = "http")]
    pub http_header_timeout: u64,
    /// HTTP: sessions (handshake-era clients) alive at once; beyond, 503 with Retry-After.
    #[arg(long, value_name = "N", default_value_t = crate::mcp::http::limits::DEFAULT_MAX_SESSIONS, requires = "http")]
    pub http_max_sessions: usize,
    /// HTTP: a session with no traffic for this long is closed.
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = super::duration_arg, requires = "http")]
    pub http_session_idle_timeout: u64,
}

impl HttpLimitArgs {
    fn limits(&self) -> crate::mcp::http::HttpLimits {
        crate::mcp::http::HttpLimits {
            max_connections: self.http_max_connections,
            header_timeout: std::time::Duration::from_millis(self.http_header_timeout),
            max_sessions: self.http_max_sessions,
            session_idle: std::time::Duration::from_millis(self.http_session_idle_timeout),
        }
    }
}

/// Ctrl-C or SIGTERM (what a supervisor sends to stop a server): the server stops serving and
/// `run` returns, so what it owns (the private adb server of `--platform android`) is stopped.
async fn stop_requested() {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    let terminated = async {
        match term.as_mut() {
            Some(t) => {
                t.recv().await;
            }
            None => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        () = terminated => {}
    }
}
