//! Runs a parsed `sh -c` script against one simulated device.
//!
//! Output is what `hdc shell` shows: stdout and stderr merged (the daemon has no pty and merges
//! both), unless a redirection sends them elsewhere. Each simple command locks the phone only
//! while it runs, so a streaming `hilog` never blocks other clients of the same device.

use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime};

use super::parse::{self, Connector, Redirect, SimpleCommand};
use crate::commands::{self, CmdResult};
use crate::faults::FaultState;
use crate::latency::{Cost, Latency};
use crate::phone::Phone;

/// Receives streamed output; returns false when the reader has gone (client killed).
pub type Sink<'s> = &'s mut dyn FnMut(&[u8]) -> bool;

/// Which device programs a shell runs: the HarmonyOS set (`uitest`, `aa`, `bm`, `hilog`, …,
/// [`commands::run`]) or the Android set (`input`, `uiautomator`, `am`, `pm`, `logcat`, …,
/// [`crate::android::commands::run`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Programs {
    #[default]
    HarmonyOs,
    Android,
}

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
    /// The device programs this shell runs.
    pub programs: Programs,
    /// Keep stderr apart in [`DeviceCtx::err`] (adb's shell protocol v2); otherwise it is merged
    /// into `out`, as `hdc shell` and adb's v1 `shell:` / `exec:` show it.
    pub split_stderr: bool,
    pub err: Vec<u8>,
    /// The Android device's own state (input methods, settings, properties) when the shell
    /// runs the Android programs.
    pub android: Option<&'a Mutex<crate::android::state::AndroidState>>,
}

impl<'a> DeviceCtx<'a> {
    pub fn new(
        phone: &'a Mutex<Phone>,
        faults: &'a Mutex<FaultState>,
        latency: Latency,
        boot: Instant,
    ) -> Self {
        Self {
            phone,
            faults,
            latency,
            boot,
            spent: Duration::ZERO,
            sink: None,
            out: Vec::new(),
            programs: Programs::HarmonyOs,
            split_stderr: false,
            err: Vec::new(),
            android: None,
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

/// Where one file descriptor of a command goes.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Target {
    Out,
    /// The shell's stderr: `err` when kept apart, else merged into `out`.
    Err,
    Null,
    File(String),
}

/// Parses and runs `script`; output is appended to `ctx.out`. Returns the last status.
pub fn run_script(ctx: &mut DeviceCtx<'_>, script: &str) -> i32 {
    let parsed = match parse::parse(script) {
        Ok(p) => p,
        Err(e) => {
            let msg = format!("sh: {e}\n");
            write_to(ctx, &Target::Err, msg.into_bytes());
            return 2;
        }
    };
    let mut status = 0;
    for (conn, cmd) in &parsed.commands {
        let run = match conn {
            Connector::Always => true,
            Connector::And => status == 0,
            Connector::Or => status != 0,
        };
        if !run {
            continue;
        }
        match run_simple(ctx, cmd, status) {
            Flow::Continue(s) => status = s,
            Flow::Stop(s) => return s,
        }
    }
    status
}

enum Flow {
    Continue(i32),
    /// A streaming command ended (reader gone): nothing after it runs.
    Stop(i32),
}

fn run_simple(ctx: &mut DeviceCtx<'_>, cmd: &SimpleCommand, last: i32) -> Flow {
    let mut argv = Vec::new();
    for w in &cmd.words {
        let (text, glob) = w.expand(last);
        if glob {
            argv.extend(expand_glob(ctx, &text));
        } else {
            argv.push(text);
        }
    }
    // fd 1 and fd 2 go to the shell's stdout and stderr unless redirected.
    let mut fds = [Target::Out, Target::Err];
    for r in &cmd.redirects {
        match r {
            Redirect::File { fd, target, append } => {
                let (path, _) = target.expand(last);
                let t = if path == "/dev/null" {
                    Target::Null
                } else {
                    let abs = absolute(&path);
                    let mut phone = ctx.phone();
                    if phone.fs.is_dir(&abs) {
                        drop(phone);
                        let msg = format!("sh: {path}: Is a directory\n");
                        write_to(ctx, &Target::Err, msg.into_bytes());
                        return Flow::Continue(1);
                    }
                    // `>` truncates when the file is opened, before the command runs.
                    if !*append || phone.fs.read(&abs).is_none() {
                        phone.fs.write(&abs, Vec::new());
                    }
                    Target::File(abs)
                };
                fds[(*fd as usize).clamp(1, 2) - 1] = t;
            }
            Redirect::Dup { fd, to } => {
                let src = fds[(*to as usize).clamp(1, 2) - 1].clone();
                fds[(*fd as usize).clamp(1, 2) - 1] = src;
            }
            Redirect::Input { source } => {
                // No simulated program reads stdin: the file only has to exist.
                let (path, _) = source.expand(last);
                if path != "/dev/null" && !ctx.phone().fs.is_file(&absolute(&path)) {
                    let msg = format!("sh: {path}: No such file or directory\n");
                    write_to(ctx, &Target::Err, msg.into_bytes());
                    return Flow::Continue(1);
                }
            }
        }
    }
    if argv.is_empty() {
        return Flow::Continue(0);
    }
    // Streaming `hilog` writes straight to the reader, so its fd 1 must be the output.
    if ctx.programs == Programs::HarmonyOs && commands::hilog::is_streaming(&argv) {
        if fds[0] != Target::Out {
            ctx.out.extend_from_slice(
                b"sh: redirecting a streaming hilog is not supported by the simulated device\n",
            );
            return Flow::Continue(2);
        }
        let status = commands::hilog::stream(ctx, &argv);
        return Flow::Stop(status);
    }
    ctx.spend(Cost::Builtin);
    let CmdResult { out, err, status } = match ctx.programs {
        Programs::HarmonyOs => commands::run(ctx, &argv),
        Programs::Android => crate::android::commands::run(ctx, &argv),
    };
    write_to(ctx, &fds[0], out);
    write_to(ctx, &fds[1], err);
    // A running screen recording sees what the command changed on screen.
    ctx.phone().capture_frame(SystemTime::now());
    Flow::Continue(status)
}

fn write_to(ctx: &mut DeviceCtx<'_>, target: &Target, bytes: Vec<u8>) {
    if bytes.is_empty() {
        return;
    }
    match target {
        Target::Out => ctx.out.extend_from_slice(&bytes),
        Target::Err if ctx.split_stderr => ctx.err.extend_from_slice(&bytes),
        Target::Err => ctx.out.extend_from_slice(&bytes),
        Target::Null => {}
        Target::File(path) => {
            let mut phone = ctx.phone();
            let mut cur = phone.fs.read(path).map(<[u8]>::to_vec).unwrap_or_default();
            cur.extend_from_slice(&bytes);
            phone.fs.write(path, cur);
        }
    }
}

/// Device paths are relative to `/` (the hdc shell's working directory).
pub fn absolute(path: &str) -> String {
    if path.starts_with('/') {
        path.to_string()
    } else {
        format!("/{path}")
    }
}

/// Expands an unquoted glob in the last path component against the phone's files; a pattern
/// that matches nothing stays literal, as in POSIX sh.
fn expand_glob(ctx: &DeviceCtx<'_>, pattern: &str) -> Vec<String> {
    let (dir, name) = match pattern.rfind('/') {
        Some(i) => (&pattern[..=i], &pattern[i + 1..]),
        None => ("", pattern),
    };
    if dir.contains(['*', '?']) {
        return vec![pattern.to_string()];
    }
    let Ok(glob) = globset::GlobBuilder::new(name)
        .literal_separator(true)
        .build()
        .map(|g| g.compile_matcher())
    else {
        return vec![pattern.to_string()];
    };
    let list_dir = if dir.is_empty() { "/" } else { dir };
    let names = ctx.phone().fs.list(&absolute(list_dir)).unwrap_or_default();
    let mut hits: Vec<String> = names
        .into_iter()
        .filter(|n| (!n.starts_with('.') || name.starts_with('.')) && glob.is_match(n))
        .map(|n| format!("{dir}{n}"))
        .collect();
    if hits.is_empty() {
        return vec![pattern.to_string()];
    }
    hits.sort();
    hits
}
