//! The contract between the shell core and a platform's device programs: what a program runs
//! against ([`DeviceCtx`]: one device's phone and faults, the latency model, the device time
//! spent, where output goes), what it answers ([`CmdResult`]), and the table of programs a
//! platform hands the shell ([`Programs`]; the two refer to each other, hence one module).
//!
//! The shell runs whatever table it is given and names no platform: the HarmonyOS set lives in
//! [`crate::commands`], the Android set in [`crate::android::commands`]; both fall back on the
//! programs every platform has ([`super::builtins`]).

use std::any::Any;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime};

use crate::faults::FaultState;
use crate::latency::{Cost, Latency};
use crate::phone::Phone;

/// Receives streamed output; returns false when the reader has gone (client killed).
pub type Sink<'s> = &'s mut dyn FnMut(&[u8]) -> bool;

/// Everything a device command needs: the device, its faults, the latency model, the time spent.
pub struct DeviceCtx<'a> {
    pub phone: &'a Mutex<Phone>,
    pub faults: &'a Mutex<FaultState>,
    pub latency: Latency,
    /// When the device booted (uitest's default file names count microseconds from it).
    pub boot: Instant,
    /// Device time accumulated by the commands run so far (slept by the caller at the end).
    pub spent: Duration,
    /// Where streamed output goes (`hilog` without `-x`); `None` in buffered mode.
    pub sink: Option<Sink<'a>>,
    /// Output already produced (flushed to the sink before streaming starts).
    pub out: Vec<u8>,
    /// The device programs this shell runs (the platform's table).
    pub programs: &'a dyn Programs,
    /// Keep stderr apart in [`DeviceCtx::err`] (adb's shell protocol v2); otherwise it is merged
    /// into `out`, as `hdc shell` and adb's v1 `shell:` / `exec:` show it.
    pub split_stderr: bool,
    pub err: Vec<u8>,
    /// State the platform keeps beside the phone, for its own programs (Android: input methods,
    /// settings, properties); the platform's programs downcast it, the shell never looks.
    pub platform: Option<&'a (dyn Any + Send + Sync)>,
}

impl<'a> DeviceCtx<'a> {
    pub fn new(
        phone: &'a Mutex<Phone>,
        faults: &'a Mutex<FaultState>,
        latency: Latency,
        boot: Instant,
        programs: &'a dyn Programs,
    ) -> Self {
        Self {
            phone,
            faults,
            latency,
            boot,
            spent: Duration::ZERO,
            sink: None,
            out: Vec::new(),
            programs,
            split_stderr: false,
            err: Vec::new(),
            platform: None,
        }
    }

    /// Locks the phone and applies every transition due by now.
    pub fn phone(&self) -> MutexGuard<'a, Phone> {
        let mut p = self.phone.lock().unwrap_or_else(|e| e.into_inner());
        p.tick(SystemTime::now());
        p
    }

    pub fn faults(&self) -> MutexGuard<'a, FaultState> {
        self.faults.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn spend(&mut self, cost: Cost) {
        self.spent += self.latency.cost(cost);
    }

    /// Microseconds since boot, for uitest's default file names.
    pub fn micros(&self) -> u128 {
        self.boot.elapsed().as_micros()
    }
}

/// What one device program printed and its exit status.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CmdResult {
    pub out: Vec<u8>,
    pub err: Vec<u8>,
    pub status: i32,
}

impl CmdResult {
    /// Success with this stdout.
    pub fn ok(out: impl Into<Vec<u8>>) -> Self {
        Self {
            out: out.into(),
            err: Vec::new(),
            status: 0,
        }
    }

    /// Failure printed on stdout (most HarmonyOS tools print errors there).
    pub fn fail_out(out: impl Into<Vec<u8>>, status: i32) -> Self {
        Self {
            out: out.into(),
            err: Vec::new(),
            status,
        }
    }

    /// Failure printed on stderr (toybox-style).
    pub fn fail_err(err: impl Into<Vec<u8>>, status: i32) -> Self {
        Self {
            out: Vec::new(),
            err: err.into(),
            status,
        }
    }
}

/// One platform's device programs, as the shell runs them.
pub trait Programs: Sync {
    /// Runs one expanded argv (`argv[0]` may be a full path such as `/system/bin/input`); an
    /// unknown program answers the platform's own "not found" with status 127.
    fn run(&self, ctx: &mut DeviceCtx<'_>, argv: &[String]) -> CmdResult;

    /// Whether `argv` streams its output straight to the reader until the reader goes away
    /// (HarmonyOS `hilog` without `-x`). The shell then calls [`Programs::stream`] instead of
    /// [`Programs::run`], and nothing after it in the script runs.
    fn is_streaming(&self, argv: &[String]) -> bool {
        let _ = argv;
        false
    }

    /// Runs a streaming program (one [`Programs::is_streaming`] accepted); returns its status.
    fn stream(&self, ctx: &mut DeviceCtx<'_>, argv: &[String]) -> i32 {
        self.run(ctx, argv).status
    }
}

/// Device paths are relative to `/` (the device shell's working directory).
pub fn absolute(path: &str) -> String {
    if path.starts_with('/') {
        path.to_string()
    } else {
        format!("/{path}")
    }
}
