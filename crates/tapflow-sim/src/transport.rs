//! [`SimTransport`]: the in-process [`Transport`] over a [`Simulator`].
//!
//! The hdc backend hands it the exact argv it would give the `hdc` executable, so quoting and
//! output parsing are exercised exactly as with a real process. The timeout is honoured like a
//! killed process: simulated device time beyond it (a slow fault) or a stream still running at
//! it ends in [`TransportError::Timeout`]; a cancelled call's command ends in
//! [`TransportError::Abandoned`] (see [`tapflow_device::abort`]).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use super::simulator::Simulator;
use tapflow_device::transport::{Output, Transport, TransportError};

/// Talks to an in-process [`Simulator`]; host paths are resolved against `cwd`.
#[derive(Clone)]
pub struct SimTransport {
    sim: Arc<Simulator>,
    cwd: PathBuf,
}

impl SimTransport {
    pub fn new(sim: Arc<Simulator>, cwd: impl Into<PathBuf>) -> Self {
        Self {
            sim,
            cwd: cwd.into(),
        }
    }

    pub fn simulator(&self) -> &Arc<Simulator> {
        &self.sim
    }
}

impl Transport for SimTransport {
    fn run(&self, args: &[String], timeout: Duration) -> Result<Output, TransportError> {
        // Like a killed process: a cancelled call sends nothing more, and a command in flight
        // when it was cancelled stops spending device time and its answer is discarded.
        if tapflow_device::abort::is_raised() {
            return Err(TransportError::Abandoned);
        }
        let answer = self.sim.handle_with_timeout(args, &self.cwd, timeout);
        if tapflow_device::abort::is_raised() {
            return Err(TransportError::Abandoned);
        }
        match answer {
            Ok(out) => Ok(Output {
                stdout: out.stdout,
                stderr: Vec::new(),
                status: Some(out.exit),
            }),
            Err(t) => Err(TransportError::Timeout(t.0)),
        }
    }

    fn program(&self) -> String {
        "sim:hdc".to_string()
    }
}
