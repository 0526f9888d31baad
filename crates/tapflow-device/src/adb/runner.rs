//! One adb round trip: global options + `-s SERIAL` + sub-command → transport (under a
//! deadline) → counted in the cost → adb's own failures classified. Everything the backend
//! sends goes through [`Runner`], so argv assembly, cost accounting and error mapping exist once.
//!
//! Resends, only of commands that never reached the device, within [`TransientRetry`] and never
//! past the command's deadline: a stream the device refused to open (`error: closed`) is sent
//! again after the budget's pause; a command the server did not forward because the network
//! device's connection dropped (`error: device offline`, `device 'HOST:PORT' not found`) is sent
//! again after the device was attached once more ([`super::reconnect`]: `adb disconnect` +
//! `adb connect`). Every attempt and every reconnecting command is one round trip in the cost;
//! each resend is logged at INFO (target `tapflow::adb`), a budget that ran out at WARN.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::adb::classify::{Answer, Streams, classify, detect_line, is_refused_open};
use crate::adb::reconnect;
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
    /// command that never reached the device is sent again (see the module doc) within the
    /// retry budget, never past `timeout` counted from the first attempt; every attempt is a
    /// round trip in the cost.
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
        let deadline = Instant::now() + timeout;
        let mut attempt = 0;
        // Resends spent from the budget. A connection cut while a stream opened shows as
        // `error: closed`, then `device offline` on the resend: one fault, one resend spent.
        let mut spent = 0;
        let mut was_refused = false;
        // Why the last attempt to attach the device again failed, if it did.
        let mut unattached: Option<String> = None;
        loop {
            attempt += 1;
            let answer = self.once(serial, sub, shown, deadline, streams, attempt);
            let Err(e) = &answer else {
                return answer;
            };
            let refused = matches!(e, DeviceError::Disconnected { device_says }
                if is_refused_open(device_says));
            let dropped = serial.filter(|s| not_forwarded(e) && reconnect::is_network_serial(s));
            if !refused && dropped.is_none() {
                return answer;
            }
            if !(dropped.is_some() && was_refused) {
                spent += 1;
            }
            was_refused = refused;
            let pause = self.retry.pause_before(spent);
            if spent > self.retry.retries || Instant::now() + pause >= deadline {
                if attempt > 1 {
                    tracing::warn!(target: "tapflow::adb", argv = ?self.argv(serial, shown),
                        attempts = attempt, error = %e,
                        "adb: the command still did not reach the device; giving up");
                }
                return match unattached {
                    // The device's link dropped and it could not be attached again (adb
                    // no longer lists it after `disconnect`): still a lost link.
                    Some(why) if dropped.is_some() => Err(DeviceError::Disconnected {
                        device_says: format!(
                            "{}; attaching it again failed: {why}",
                            e.device_says().unwrap_or("the connection dropped")
                        ),
                    }),
                    _ => answer,
                };
            }
            match dropped {
                Some(serial) => {
                    tracing::info!(target: "tapflow::adb", serial, attempt, error = %e,
                        "adb reconnect: the device's connection dropped (the command was not forwarded)");
                    unattached = self.reconnect(serial, deadline).err();
                    if let Some(why) = &unattached {
                        tracing::info!(target: "tapflow::adb", serial, why = %why,
                            "adb reconnect failed");
                        crate::abort::sleep_until(Instant::now() + pause);
                    }
                }
                None => {
                    tracing::info!(target: "tapflow::adb", attempt,
                        pause_ms = pause.as_millis() as u64,
                        "adb retry: the device refused the stream (the command never ran)");
                    crate::abort::sleep_until(Instant::now() + pause);
                }
            }
        }
    }

    /// One invocation: counted, logged, classified (`attempt` for the log; `shown`, the
    /// argv as logs and messages show it).
    fn once(
        &self,
        serial: Option<&str>,
        sub: &[String],
        shown: &[String],
        deadline: Instant,
        streams: Streams,
        attempt: u32,
    ) -> DeviceResult<Answer> {
        let argv = self.argv(serial, sub);
        let logged = self.argv(serial, shown);
        let command = display_argv(&self.transport.program(), &logged);
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
        classify(result, &command, serial.unwrap_or(""), streams)
    }

    /// Attaches the network device `serial` again: when its port answers, `adb disconnect`
    /// (its answer does not matter: the transport may already be gone), then `adb connect`,
    /// judged by its words. `Err` says why the device could not be attached.
    pub fn reconnect(&self, serial: &str, deadline: Instant) -> Result<(), String> {
        // A device gone for good keeps its (offline) place in adb's list.
        const PROBE: Duration = Duration::from_secs(2);
        let left = deadline.saturating_duration_since(Instant::now());
        reconnect::port_answers(serial, left.min(PROBE))?;
        let server = |verb: &str| {
            let sub = [verb.to_string(), serial.to_string()];
            self.once(None, &sub, &sub, deadline, Streams::Both, 1)
        };
        let _ = server("disconnect");
        match server("connect") {
            Ok(a) if reconnect::connected(&a.text()) => Ok(()),
            Ok(a) => Err(a.text().trim().to_string()),
            Err(e) => Err(e.to_string()),
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

/// adb's server answered without forwarding the command: the device's connection is gone.
fn not_forwarded(e: &DeviceError) -> bool {
    match e {
        DeviceError::Disconnected { device_says } | DeviceError::NotFound { device_says, .. } => {
            detect_line(device_says).is_some_and(|f| reconnect::never_forwarded(&f))
        }
        _ => false,
    }
}
