//! The log subscriber of the `tapflow` binary. Everything the crate reports through `tracing`
//! (every hdc call with its argv, duration and exit status; every resend of a command hdc did
//! not deliver) goes to **stderr only**: stdout carries results (`tapflow tool`'s envelope,
//! `--json` output, and the JSON-RPC of `tapflow mcp`) and must stay clean.
//!
//! What is shown: `RUST_LOG` when it is set (`tracing_subscriber::EnvFilter` syntax), otherwise
//! the `-v` count: none = warnings, `-v` = tapflow's debug events (the hdc calls), `-vv` =
//! tapflow's trace events and the dependencies' debug events (but the JSON-RPC messages rmcp
//! prints whole). `--log-format json` writes one
//! JSON object per line. Every line, whatever its format or origin, goes through one gate
//! ([`super::log_gate`]): masked with every secret the process's runs registered, and inert for
//! CI (no device text starts a line); see `docs/logging.md`.

use std::io::IsTerminal;

use clap::ValueEnum;
use tracing_subscriber::EnvFilter;

use super::log_gate::LogGate;

/// `--log-format`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// One human-readable line per event.
    #[default]
    Text,
    /// One JSON object per line (`timestamp`, `level`, `target`, `fields`).
    Json,
}

/// The filter for `-v` given `verbose` times, unless `rust_log` (the `RUST_LOG` value) is set.
/// An invalid `RUST_LOG` is reported in the second value; the `-v` level applies then.
pub fn filter(verbose: u8, rust_log: Option<&str>) -> (EnvFilter, Option<String>) {
    let by_flag = || {
        EnvFilter::new(match verbose {
            0 => "warn",
            1 => "warn,tapflow=debug",
            // rmcp's own debug events print every JSON-RPC message whole, before a `run_flow`
            // has compiled its flow and so before the gate knows which `env` values are secret:
            // `RUST_LOG=rmcp=debug` shows them when asked for (see docs/logging.md).
            _ => "debug,tapflow=trace,rmcp::service=info",
        })
    };
    match rust_log.map(str::trim).filter(|s| !s.is_empty()) {
        None => (by_flag(), None),
        Some(spec) => match EnvFilter::try_new(spec) {
            Ok(f) => (f, None),
            Err(e) => (
                by_flag(),
                Some(format!(
                    "ignoring RUST_LOG={spec:?}: {e}; use directives like `tapflow=debug` or `info` (logging by -v instead)"
                )),
            ),
        },
    }
}

/// Installs the subscriber for the whole process (once, at start-up).
pub fn install(verbose: u8, format: LogFormat, rust_log: Option<&str>) {
    let (filter, problem) = filter(verbose, rust_log);
    let builder = tracing_subscriber::fmt().with_env_filter(filter);
    let installed = match format {
        LogFormat::Text => builder
            .with_writer(LogGate { json: false })
            .with_ansi(std::io::stderr().is_terminal())
            .try_init(),
        LogFormat::Json => builder
            .with_writer(LogGate { json: true })
            .json()
            .with_ansi(false)
            .try_init(),
    };
    if let Err(e) = installed {
        eprintln!("tapflow: logging is unavailable: {e}");
    }
    if let Some(p) = problem {
        tracing::warn!(target: "tapflow", "{p}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flag_sets_the_level_unless_rust_log_is_given() {
        let shown = |v, env| filter(v, env).0.to_string();
        assert_eq!(shown(0, None), "warn");
        assert_eq!(shown(1, None), "tapflow=debug,warn");
        assert_eq!(shown(2, None), "rmcp::service=info,tapflow=trace,debug");
        assert_eq!(shown(2, Some("tapflow::hdc=info")), "tapflow::hdc=info");
        assert_eq!(shown(1, Some("  ")), "tapflow=debug,warn");
        let (f, problem) = filter(1, Some("tapflow=loud"));
        assert_eq!(f.to_string(), "tapflow=debug,warn");
        assert!(problem.unwrap().contains("RUST_LOG"));
    }
}
