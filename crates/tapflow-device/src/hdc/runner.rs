//! One hdc round trip: routing flags + sub-command → transport (under a deadline) → counted in
//! the cost → logged → classified. Everything the backend sends goes through [`Runner`], so argv
//! assembly, cost accounting, logging, the transient-failure retry and error mapping exist
//! exactly once.
//!
//! Retry: hdc's `[Fail][E000004]` "channel is being established" answer comes from the hdc
//! server before it forwards anything, so the command is sent again within the budget of
//! [`TransientRetry`] (see `docs/logging.md` and `docs/run.md`). Only an output that is that
//! answer and nothing else is retried ([`parse::failure::never_delivered`]); a command whose
//! fate is unknown (a timeout, a lost link, any other text) is never sent twice. Every attempt is
//! one device round trip in the cost.
//!
//! Logging (`tracing`, target `tapflow::hdc`): every attempt at DEBUG with its argv as typed
//! text-free display ([`ShellCommand::shown`]), duration, exit status and outcome; every retry at
//! INFO; a budget that ran out at WARN.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::error::{DeviceError, DeviceResult};
use crate::hdc::classify::{Op, Scan, classify};
use crate::hdc::config::TransientRetry;
use crate::hdc::parse;
use crate::hdc::quote::{ShellCommand, display_argv};
use crate::hdc::route::HdcRoute;
use crate::transport::{CostCounter, Output, Transport, TransportError};

#[derive(Clone)]
pub struct Runner {
    transport: Arc<dyn Transport>,
    cost: CostCounter,
    retry: TransientRetry,
}

impl std::fmt::Debug for Runner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runner")
            .field("program", &self.transport.program())
            .field("cost", &self.cost.snapshot())
            .field("retry", &self.retry)
            .finish()
    }
}

impl Runner {
    pub fn new(transport: Arc<dyn Transport>, cost: CostCounter, retry: TransientRetry) -> Self {
        Self {
            transport,
            cost,
            retry,
        }
    }

    pub fn cost(&self) -> &CostCounter {
        &self.cost
    }

    pub fn transport(&self) -> &Arc<dyn Transport> {
        &self.transport
    }

    /// Runs `hdc <route flags> <sub…>` and returns the cleaned text, or the typed error.
    pub fn run(
        &self,
        route: &HdcRoute,
        sub: &[String],
        timeout: Duration,
        op: &Op,
        scan: Scan,
    ) -> DeviceResult<String> {
        self.exchange(route, sub, sub, timeout, op, scan)
    }

    /// Runs `hdc <route flags> shell "<command>"`: the device command is one argv element.
    pub fn shell(
        &self,
        route: &HdcRoute,
        command: &ShellCommand,
        timeout: Duration,
        op: &Op,
        scan: Scan,
    ) -> DeviceResult<String> {
        let shell = "shell".to_string();
        self.exchange(
            route,
            &[shell.clone(), command.to_string()],
            &[shell, command.shown().to_string()],
            timeout,
            op,
            scan,
        )
    }

    /// Sends `sub` (logged as `shown`) until it gets an answer other than hdc's "channel is
    /// being established", the retry budget is spent, or the next pause would pass `timeout`
    /// (which bounds all attempts together).
    fn exchange(
        &self,
        route: &HdcRoute,
        sub: &[String],
        shown: &[String],
        timeout: Duration,
        op: &Op,
        scan: Scan,
    ) -> DeviceResult<String> {
        let argv = route.argv(sub);
        let program = self.transport.program();
        let logged = display_argv(&program, &route.argv(shown));
        let deadline = Instant::now() + timeout;
        let mut attempt: u32 = 1;
        loop {
            self.cost.round_trip();
            let started = Instant::now();
            let remaining = if attempt == 1 {
                timeout
            } else {
                deadline.saturating_duration_since(started)
            };
            let result = self.transport.run(&argv, remaining);
            let took = started.elapsed();
            let undelivered = matches!(&result, Ok(out) if undelivered(out));
            let exit = exit_of(&result);
            // Messages name the command as logs do: typed text by its length only.
            let classified = classify(result, &logged, route, op, scan);
            tracing::debug!(
                target: "tapflow::hdc",
                argv = %logged,
                duration_ms = took.as_millis() as u64,
                exit = %exit,
                attempt,
                outcome = outcome_of(&classified),
                "hdc call"
            );
            let Err(DeviceError::ChannelNotReady { device_says, .. }) = classified else {
                return classified;
            };
            let pause = self.retry.pause_before(attempt);
            let can_retry =
                undelivered && attempt <= self.retry.retries && Instant::now() + pause < deadline;
            if !can_retry {
                if undelivered {
                    tracing::warn!(
                        target: "tapflow::hdc",
                        argv = %logged,
                        attempts = attempt,
                        "hdc's channel to the device is still being established; giving up"
                    );
                }
                return Err(DeviceError::ChannelNotReady {
                    device_says,
                    attempts: attempt,
                });
            }
            tracing::info!(
                target: "tapflow::hdc",
                argv = %logged,
                attempt,
                pause_ms = pause.as_millis() as u64,
                device_says = %device_says,
                "hdc retry: the command was not delivered (channel being established)"
            );
            // The pause hdc asks for ("wait for several seconds"), bounded by the deadline.
            crate::abort::sleep_until(Instant::now() + pause);
            attempt += 1;
        }
    }
}

/// hdc's "channel is being established" answer and nothing else (a short text: payloads such
/// as layout dumps are not cleaned twice).
fn undelivered(out: &Output) -> bool {
    out.status == Some(0)
        && out.stdout.len() + out.stderr.len() < 512
        && parse::failure::never_delivered(&parse::clean_output(&out.text()))
}

/// The exit status as logged: the code, `signal`, or why there is none.
fn exit_of(result: &Result<Output, TransportError>) -> String {
    match result {
        Ok(Output {
            status: Some(code), ..
        }) => code.to_string(),
        Ok(_) => "signal".to_string(),
        Err(TransportError::Timeout(_)) => "timeout".to_string(),
        Err(TransportError::Spawn { .. }) => "not started".to_string(),
        Err(TransportError::Io(_)) => "i/o error".to_string(),
        Err(TransportError::Abandoned) => "abandoned".to_string(),
    }
}

fn outcome_of(r: &DeviceResult<String>) -> &'static str {
    match r {
        Ok(_) => "ok",
        Err(e) => e.code().as_str(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// Answers from a script, one per call, and records what was sent.
    struct Script {
        answers: Mutex<Vec<Result<Output, TransportError>>>,
        sent: Mutex<Vec<Vec<String>>>,
    }

    impl Script {
        fn new(answers: Vec<Result<Output, TransportError>>) -> Arc<Self> {
            Arc::new(Script {
                answers: Mutex::new(answers.into_iter().rev().collect()),
                sent: Mutex::new(Vec::new()),
            })
        }
        fn calls(&self) -> usize {
            self.sent.lock().unwrap().len()
        }
    }

    impl Transport for Script {
        fn run(&self, args: &[String], _timeout: Duration) -> Result<Output, TransportError> {
            self.sent.lock().unwrap().push(args.to_vec());
            self.answers.lock().unwrap().pop().expect("an answer left")
        }
        fn program(&self) -> String {
            "hdc".into()
        }
    }

    fn says(text: &str) -> Result<Output, TransportError> {
        Ok(Output {
            stdout: text.as_bytes().to_vec(),
            stderr: vec![],
            status: Some(0),
        })
    }

    const NOT_READY: &str = "[Fail][E000004]:The communication channel is being established.\r\nPlease wait for several seconds and try again.\r\n";

    fn runner(script: &Arc<Script>, retries: u32) -> Runner {
        Runner::new(
            script.clone(),
            CostCounter::default(),
            TransientRetry {
                retries,
                backoff: Duration::ZERO,
            },
        )
    }

    fn tap(r: &Runner) -> DeviceResult<String> {
        let cmd = ShellCommand::new("uitest")
            .word("uiInput")
            .word("click")
            .int(5)
            .int(5);
        r.shell(
            &HdcRoute::target("SER"),
            &cmd,
            Duration::from_secs(5),
            &Op::new(tapflow_core::codes::INPUT_FAILED, "tap"),
            Scan::Whole,
        )
    }

    #[test]
    fn an_undelivered_command_is_sent_again_and_counted() {
        let s = Script::new(vec![says(NOT_READY), says(NOT_READY), says("No Error\n")]);
        let r = runner(&s, 4);
        assert_eq!(tap(&r).unwrap(), "No Error\n");
        assert_eq!(s.calls(), 3);
        assert_eq!(r.cost().snapshot().round_trips, 3);
        let sent = s.sent.lock().unwrap();
        assert!(sent.iter().all(|a| a == &sent[0]), "{sent:?}");
    }

    #[test]
    fn the_budget_runs_out_as_an_infrastructure_error() {
        let s = Script::new(vec![says(NOT_READY); 3]);
        let e = tap(&runner(&s, 2)).unwrap_err();
        assert_eq!(s.calls(), 3);
        assert_eq!(e.code(), "HDC_CHANNEL_NOT_READY");
        assert!(matches!(
            e,
            DeviceError::ChannelNotReady { attempts: 3, .. }
        ));
        assert!(e.device_says().unwrap().contains("E000004"));
    }

    #[test]
    fn a_command_whose_fate_is_unknown_is_never_sent_twice() {
        for answer in [
            // The channel answer after other output: something may have run.
            says("No Error\n[Fail][E000004]:The communication channel is being established.\n"),
            Err(TransportError::Timeout(Duration::from_secs(5))),
            says("[Fail][E001003] USB communication abnormal\n"),
            says("Connect server failed\n"),
        ] {
            let s = Script::new(vec![answer, says("No Error\n")]);
            assert!(tap(&runner(&s, 4)).is_err());
            assert_eq!(s.calls(), 1);
        }
    }

    #[test]
    fn the_deadline_bounds_the_pauses() {
        let s = Script::new(vec![says(NOT_READY), says("No Error\n")]);
        let r = Runner::new(
            s.clone(),
            CostCounter::default(),
            TransientRetry {
                retries: 4,
                backoff: Duration::from_secs(3600),
            },
        );
        let started = Instant::now();
        let e = tap(&r).unwrap_err();
        assert!(started.elapsed() < Duration::from_secs(60), "hang guard");
        assert!(matches!(
            e,
            DeviceError::ChannelNotReady { attempts: 1, .. }
        ));
        assert_eq!(s.calls(), 1);
    }
}
