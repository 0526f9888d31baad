//! `logcat`: `-d` dumps the buffer and exits (`-c` clears it). Options: `-v threadtime` (the
//! default format; others are refused), `-b BUFFER` (main, system, crash, all, default),
//! `-t N` / `-t 'TIME'` / `-T …` (last N entries, or since a time), `--pid=N`, `-e REGEX`,
//! `-s`, and filter specs `TAG:L` / `*:L` (`V D I W E F S`). Each buffer's first line is
//! preceded by `--------- beginning of <buffer>`, as logcat prints it. Streaming (no `-d`) is
//! refused: the simulated device cannot keep a stream open from a shell command.

use chrono::Local;
use regex::Regex;

use crate::android::logcat::{Buffer, Line, parse_since, render};
use crate::latency::Cost;
use crate::shell::CmdResult;
use crate::shell::DeviceCtx;

fn prio(c: char) -> u8 {
    match c.to_ascii_uppercase() {
        'V' => 2,
        'D' => 3,
        'I' => 4,
        'W' => 5,
        'E' => 6,
        'F' => 7,
        'S' => 8,
        _ => 0,
    }
}

fn usage(msg: &str) -> CmdResult {
    CmdResult::fail_err(format!("logcat: {msg}\n"), 1)
}

pub fn run(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    let mut dump = false;
    let mut clear = false;
    let mut buffers: Vec<Buffer> = Vec::new();
    let mut tail: Option<usize> = None;
    let mut since = None;
    let mut pid: Option<u32> = None;
    let mut regex: Option<Regex> = None;
    let mut specs: Vec<(String, u8)> = Vec::new();
    let mut silent = false;
    let mut it = args.iter().peekable();
    while let Some(a) = it.next() {
        let mut value = |name: &str| -> Result<String, CmdResult> {
            it.next()
                .cloned()
                .ok_or_else(|| usage(&format!("option requires an argument -- '{name}'")))
        };
        match a.as_str() {
            "-d" => dump = true,
            "-c" => clear = true,
            "-s" => silent = true,
            "-v" => match value("v") {
                Ok(f) if f == "threadtime" => {}
                Ok(f) => {
                    return usage(&format!(
                        "format {f:?} is not supported by the simulated device (threadtime only)"
                    ));
                }
                Err(e) => return e,
            },
            "-b" => match value("b") {
                Ok(b) => {
                    for name in b.split(',') {
                        match name {
                            "main" => buffers.push(Buffer::Main),
                            "system" => buffers.push(Buffer::System),
                            "crash" => buffers.push(Buffer::Crash),
                            "all" | "default" => {
                                buffers.extend([Buffer::Main, Buffer::System, Buffer::Crash])
                            }
                            "events" | "radio" | "kernel" | "security" | "stats" => {}
                            other => return usage(&format!("unknown buffer {other}")),
                        }
                    }
                }
                Err(e) => return e,
            },
            "-t" | "-T" => match value("t") {
                Ok(v) => {
                    if a == "-t" {
                        dump = true;
                    }
                    match v.parse::<usize>() {
                        Ok(n) => tail = Some(n),
                        Err(_) => match parse_since(&v, Local::now()) {
                            Some(t) => since = Some(t),
                            None => {
                                return usage(&format!("invalid time or count {v:?}"));
                            }
                        },
                    }
                }
                Err(e) => return e,
            },
            "-e" | "--regex" => match value("e").map(|r| Regex::new(&r)) {
                Ok(Ok(r)) => regex = Some(r),
                Ok(Err(e)) => return usage(&format!("invalid regex: {e}")),
                Err(e) => return e,
            },
            s if s.starts_with("--pid=") => match s["--pid=".len()..].parse() {
                Ok(p) => pid = Some(p),
                Err(_) => return usage(&format!("invalid pid in {s}")),
            },
            s if s.starts_with('-') => return usage(&format!("invalid option -- {s}")),
            spec => {
                let (tag, lvl) = spec.rsplit_once(':').unwrap_or((spec, "V"));
                let p = lvl.chars().next().map(prio).unwrap_or(0);
                if p == 0 || lvl.len() != 1 {
                    return usage(&format!("Invalid filter expression '{spec}'"));
                }
                specs.push((tag.to_string(), p));
            }
        }
    }
    ctx.spend(Cost::Hilog);
    if clear {
        ctx.phone().clear_hilog();
        return CmdResult::ok(Vec::new());
    }
    if !dump {
        return usage(
            "streaming is not supported by the simulated device: dump the buffer with -d",
        );
    }
    if buffers.is_empty() {
        buffers = vec![Buffer::Main, Buffer::System, Buffer::Crash];
    }
    let default_prio = if silent {
        8
    } else {
        specs
            .iter()
            .find(|(t, _)| t == "*")
            .map(|(_, p)| *p)
            .unwrap_or(2)
    };
    let keep = |l: &Line| {
        let min = specs
            .iter()
            .find(|(t, _)| t == &l.tag)
            .map(|(_, p)| *p)
            .unwrap_or(default_prio);
        buffers.contains(&l.buffer)
            && prio(l.level) >= min
            && pid.is_none_or(|p| p == l.pid)
            && since.is_none_or(|t| l.time >= t)
            && regex.as_ref().is_none_or(|r| r.is_match(&l.message))
    };
    let lines: Vec<Line> = {
        let phone = ctx.phone();
        render(&phone).into_iter().filter(keep).collect()
    };
    let start = tail.map(|n| lines.len().saturating_sub(n)).unwrap_or(0);
    let mut seen: Vec<Buffer> = Vec::new();
    let mut out = String::new();
    for l in &lines[start..] {
        if !seen.contains(&l.buffer) {
            seen.push(l.buffer);
            out.push_str(&format!("--------- beginning of {}\n", l.buffer.name()));
        }
        out.push_str(&l.threadtime());
        out.push('\n');
    }
    CmdResult::ok(out)
}
