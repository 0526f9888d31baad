//! How a backend reaches its command-line tool: argv in, output bytes out, under a deadline.
//!
//! The hdc backend builds the exact argv real `hdc` receives (`-t KEY -s HOST:PORT shell "<cmd>"`)
//! and hands it to a [`Transport`]. [`ProcessTransport`] spawns the executable (no host shell
//! involved); the simulated device implements the same trait in-process, so quoting is exercised
//! identically either way. Transports count round trips so tools can report their cost.

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use wait_timeout::ChildExt;

use crate::abort::Abort;

/// The raw result of one invocation. hdc exits 0 on failure, so callers classify the text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Output {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub status: Option<i32>,
}

impl Output {
    /// stdout then stderr as text, lossily decoded.
    pub fn text(&self) -> String {
        let mut s = String::from_utf8_lossy(&self.stdout).into_owned();
        if !self.stderr.is_empty() {
            s.push_str(&String::from_utf8_lossy(&self.stderr));
        }
        s
    }
}

#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum TransportError {
    #[error("cannot run {program}: {detail}")]
    Spawn { program: String, detail: String },
    #[error("timed out after {}ms", .0.as_millis())]
    Timeout(Duration),
    #[error("i/o error: {0}")]
    Io(String),
    /// The caller cancelled while the round trip was in flight (or before it started): the
    /// child was killed / the answer discarded ([`crate::abort`]).
    #[error("abandoned: the caller cancelled the call")]
    Abandoned,
}

/// One round trip to a device tool. Implementations must be thread-safe.
pub trait Transport: Send + Sync {
    /// Runs the tool with `args` (the program itself excluded) and returns its output,
    /// or `Timeout` once `timeout` has passed (the process is then killed).
    fn run(&self, args: &[String], timeout: Duration) -> Result<Output, TransportError>;

    /// A human-readable name of the program, for messages (`/usr/bin/hdc`, `sim:hdc`).
    fn program(&self) -> String;
}

/// Counts round trips and UI dumps across clones (shared by a backend and the tools using it).
#[derive(Debug, Clone, Default)]
pub struct CostCounter {
    inner: Arc<CostInner>,
}

#[derive(Debug, Default)]
struct CostInner {
    round_trips: AtomicU64,
    ui_dumps: AtomicU64,
}

/// A snapshot of a [`CostCounter`]; subtract two to get the cost of what ran in between.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Cost {
    pub round_trips: u64,
    pub ui_dumps: u64,
}

impl std::ops::Sub for Cost {
    type Output = Cost;
    fn sub(self, rhs: Cost) -> Cost {
        Cost {
            round_trips: self.round_trips.saturating_sub(rhs.round_trips),
            ui_dumps: self.ui_dumps.saturating_sub(rhs.ui_dumps),
        }
    }
}

impl CostCounter {
    pub fn round_trip(&self) {
        self.inner.round_trips.fetch_add(1, Ordering::Relaxed);
    }
    pub fn ui_dump(&self) {
        self.inner.ui_dumps.fetch_add(1, Ordering::Relaxed);
    }
    pub fn snapshot(&self) -> Cost {
        Cost {
            round_trips: self.inner.round_trips.load(Ordering::Relaxed),
            ui_dumps: self.inner.ui_dumps.load(Ordering::Relaxed),
        }
    }
}

/// Spawns a real executable (e.g. `hdc`) per call, without any host shell.
#[derive(Debug, Clone)]
pub struct ProcessTransport {
    program: PathBuf,
}

impl ProcessTransport {
    pub fn new(program: impl Into<PathBuf>) -> Self {
        Self {
            program: program.into(),
        }
    }
}

impl Transport for ProcessTransport {
    fn run(&self, args: &[String], timeout: Duration) -> Result<Output, TransportError> {
        let abort = crate::abort::current();
        if abort.as_ref().is_some_and(Abort::is_raised) {
            return Err(TransportError::Abandoned);
        }
        let started = Instant::now();
        let mut child = Command::new(&self.program)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| TransportError::Spawn {
                program: self.program(),
                detail: e.to_string(),
            })?;
        // Drain both pipes on threads so a chatty child cannot block on a full pipe.
        let mut out = child.stdout.take().expect("piped stdout");
        let mut err = child.stderr.take().expect("piped stderr");
        let out_t = std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = out.read_to_end(&mut v);
            v
        });
        let err_t = std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = err.read_to_end(&mut v);
            v
        });
        let status = match wait(&mut child, started + timeout, abort.as_ref())? {
            Waited::Exited(s) => s,
            ended => {
                // Killed, not left running: a dump or a stream must not hold the device (or,
                // for a cancelled call, answer late). The reader threads end with the pipes.
                let _ = child.kill();
                let _ = child.wait();
                return Err(match ended {
                    Waited::Aborted => TransportError::Abandoned,
                    _ => TransportError::Timeout(started.elapsed()),
                });
            }
        };
        let stdout = out_t.join().unwrap_or_default();
        let stderr = err_t.join().unwrap_or_default();
        Ok(Output {
            stdout,
            stderr,
            status: status.code(),
        })
    }

    fn program(&self) -> String {
        self.program.display().to_string()
    }
}

enum Waited {
    Exited(std::process::ExitStatus),
    TimedOut,
    Aborted,
}

/// Waits for `child` until `deadline`; with an abort flag, in [`crate::abort::SLICE`]s so that
/// a raised flag is seen within one slice.
fn wait(
    child: &mut std::process::Child,
    deadline: Instant,
    abort: Option<&Abort>,
) -> Result<Waited, TransportError> {
    let io = |e: std::io::Error| TransportError::Io(e.to_string());
    let Some(abort) = abort else {
        let left = deadline.saturating_duration_since(Instant::now());
        return Ok(match child.wait_timeout(left).map_err(io)? {
            Some(s) => Waited::Exited(s),
            None => Waited::TimedOut,
        });
    };
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if let Some(s) = child
            .wait_timeout(left.min(crate::abort::SLICE))
            .map_err(io)?
        {
            return Ok(Waited::Exited(s));
        }
        if abort.is_raised() {
            return Ok(Waited::Aborted);
        }
        if Instant::now() >= deadline {
            return Ok(Waited::TimedOut);
        }
    }
}
