//! Runs a parsed `sh -c` script against one simulated device, with the program table the
//! device's platform put in its [`DeviceCtx`].
//!
//! Output is what `hdc shell` shows: stdout and stderr merged (the daemon has no pty and merges
//! both), unless a redirection sends them elsewhere. Each simple command locks the phone only
//! while it runs, so a streaming `hilog` never blocks other clients of the same device.

use std::time::SystemTime;

use super::ctx::{CmdResult, DeviceCtx, absolute};
use super::parse::{self, Connector, Redirect, SimpleCommand};
use crate::latency::Cost;

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
    let programs = ctx.programs;
    // A streaming program (`hilog`) writes straight to the reader, so its fd 1 must be the
    // output.
    if programs.is_streaming(&argv) {
        if fds[0] != Target::Out {
            let name = argv[0].rsplit('/').next().unwrap_or(&argv[0]);
            ctx.out.extend_from_slice(
                format!(
                    "sh: redirecting a streaming {name} is not supported by the simulated device\n"
                )
                .as_bytes(),
            );
            return Flow::Continue(2);
        }
        let status = programs.stream(ctx, &argv);
        return Flow::Stop(status);
    }
    ctx.spend(Cost::Builtin);
    let CmdResult { out, err, status } = programs.run(ctx, &argv);
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
