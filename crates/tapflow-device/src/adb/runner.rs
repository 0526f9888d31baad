//! One adb round trip: global options + `-s SERIAL` + sub-command → transport (under a
//! deadline) → counted in the cost → adb's own failures classified. Everything the backend
//! sends goes through [`Runner`], so argv assembly, cost accounting and error mapping exist once.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::adb::classify::{Answer, Streams, classify, is_refused_open};
use crate::error::{DeviceError, DeviceResult};
use crate::hdc::quote::{ShellCommand, display_argv};
use crate::retry::TransientRetry;
use crate::transport::{CostCounter, Transport};

#[derive(Clone)]
pub struct Runner {
    transport: Arc<dyn Transport>,
    cost: CostCounter,
    /// `-P PORT` when a private server is configured.
    globals: Vec<String>,
    /// How a refused stream (`error: closed`) is sent again.
    retry: TransientRetry,
}

impl std::fmt::Debug for Runner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runner")
            .field("program", &self.transport.program())
            .field("globals", &self.globals)
            .field("cost", &self.cost.snapshot())
            .finish()
    }
}

impl Runner {
    pub fn new(
        transport: Arc<dyn Transport>,
        cost: CostCounter,
        globals: Vec<String>,
        retry: TransientRetry,
    ) -> Self {
        Self {
            transport,
            cost,
            globals,
            retry,
        }
    }

    pub fn cost(&self) -> &CostCounter {
        &self.cost
    }

    pub fn transport(&self) -> &Arc<dyn Transport> {
        &self.transport
    }

    /// The argv of `adb [-P PORT] [-s SERIAL] <sub…>`.
    pub fn argv(&self, serial: Option<&str>, sub: &[String]) -> Vec<String> {
        let mut argv = self.globals.clone();
        if let Some(s) = serial {
            argv.push("-s".to_string());
            argv.push(s.to_string());
        }
        argv.extend(sub.iter().cloned());
        argv
    }

    /// Runs `adb [-P PORT] [-s SERIAL] <sub…>` and returns the answer, or the typed error of
    /// adb's own failure (`serial` names the device in it; `""` for server-only commands). A
    /// stream the device refused to open (`error: closed`: the command never ran) is sent again
    /// within the retry budget, never past `timeout` counted from the first attempt; every
    /// attempt is a round trip in the cost.
    pub fn run(
        &self,
        serial: Option<&str>,
        sub: &[String],
        timeout: Duration,
        streams: Streams,
    ) -> DeviceResult<Answer> {
        self.exchange(serial, sub, sub, timeout, streams)
    }

    /// [`Runner::run`], with `shown` (the same argv, typed text replaced by its length:
    /// [`ShellCommand::shown`]) in logs and error messages instead of `sub`.
    fn exchange(
        &self,
        serial: Option<&str>,
        sub: &[String],
        shown: &[String],
        timeout: Duration,
        streams: Streams,
    ) -> DeviceResult<Answer> {
        let argv = self.argv(serial, sub);
        let logged = self.argv(serial, shown);
        let command = display_argv(&self.transport.program(), &logged);
        let deadline = Instant::now() + timeout;
        let mut attempt = 0;
        loop {
            attempt += 1;
            self.cost.round_trip();
            let started = Instant::now();
            let left = deadline.saturating_duration_since(started);
            let result = self.transport.run(&argv, left);
            tracing::debug!(
                target: "tapflow::adb",
                argv = ?logged,
                attempt,
                elapsed_ms = started.elapsed().as_millis() as u64,
                ok = result.is_ok(),
                "adb round trip"
            );
            let answer = classify(result, &command, serial.unwrap_or(""), streams);
            let refused = matches!(&answer, Err(DeviceError::Disconnected { device_says })
                if is_refused_open(device_says));
            let pause = self.retry.pause_before(attempt);
            if !refused || attempt > self.retry.retries || Instant::now() + pause >= deadline {
                return answer;
            }
            tracing::debug!(
                target: "tapflow::adb",
                attempt,
                pause_ms = pause.as_millis() as u64,
                "adb retry: the device refused the stream (the command never ran)"
            );
            std::thread::sleep(pause);
        }
    }

    /// `adb -s SERIAL shell "<command>"`: the device command is ONE argv element, which the
    /// client sends verbatim (`shell:<command>` / `shell,v2,…:<command>`) for the device's
    /// `sh -c`.
    pub fn shell(
        &self,
        serial: &str,
        command: &ShellCommand,
        timeout: Duration,
    ) -> DeviceResult<Answer> {
        self.exchange(
            Some(serial),
            &["shell".to_string(), command.to_string()],
            &["shell".to_string(), command.shown().to_string()],
            timeout,
            Streams::Stderr,
        )
    }

    /// `adb -s SERIAL exec-out "<command>"`: raw bytes, no pty, no CRLF translation, no exit
    /// status (binary and byte-exact output: screenshots, UI dumps).
    pub fn exec_out(
        &self,
        serial: &str,
        command: &ShellCommand,
        timeout: Duration,
    ) -> DeviceResult<Answer> {
        self.exchange(
            Some(serial),
            &["exec-out".to_string(), command.to_string()],
            &["exec-out".to_string(), command.shown().to_string()],
            timeout,
            Streams::Stderr,
        )
    }
}
