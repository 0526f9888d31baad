//! `logcat`: without `-d` it prints the buffer, then streams every new entry until the reader
//! goes away (a device's logcat runs until killed); `-d` dumps and exits, `-c` clears.
//! Options: `-v FORMAT` (`threadtime`, the default, `time`, `brief`, `tag`, `process`,
//! `thread`, `raw`: the prefixes of AOSP `logprint.cpp`), `-b BUFFER` (main, system, crash,
//! all, default), `-t N` / `-t 'TIME'` (dump the last N entries, or since a time) and `-T …`
//! (the same, then stream), `--pid=N` or `--pid N`, `-e REGEX`, `-s`, and filter specs
//! `TAG:L` / `*:L` (`V D I W E F S`). Each buffer's first line is preceded by
//! `--------- beginning of <buffer>`, as logcat prints it.

use std::time::Duration;

use chrono::{DateTime, Local};
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

/// The output formats of `-v` (AOSP `logprint.cpp`'s `android_log_formatFromString`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    ThreadTime,
    Time,
    Brief,
    Tag,
    Process,
    Thread,
    Raw,
}

impl Format {
    fn parse(s: &str) -> Option<Format> {
        Some(match s {
            "threadtime" => Format::ThreadTime,
            "time" => Format::Time,
            "brief" => Format::Brief,
            "tag" => Format::Tag,
            "process" => Format::Process,
            "thread" => Format::Thread,
            "raw" => Format::Raw,
            _ => return None,
        })
    }

    /// One entry's lines (no trailing newline): logprint's prefix repeated on each line.
    fn line(self, l: &Line) -> String {
        if self == Format::ThreadTime {
            return l.threadtime();
        }
        let t = l.time.format("%m-%d %H:%M:%S%.3f");
        let (lvl, tag, pid, tid) = (l.level, &l.tag, l.pid, l.tid);
        l.message
            .split('\n')
            .map(|m| match self {
                Format::Time => format!("{t} {lvl}/{tag:<8}({pid:>5}): {m}"),
                Format::Brief => format!("{lvl}/{tag:<8}({pid:>5}): {m}"),
                Format::Tag => format!("{lvl}/{tag:<8}: {m}"),
                Format::Process => format!("{lvl}({pid:>5}) {m}  ({tag})"),
                Format::Thread => format!("{lvl}({pid:>5}:{tid:>5}) {m}"),
                Format::Raw | Format::ThreadTime => m.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// One parsed `logcat` command line.
struct Query {
    dump: bool,
    clear: bool,
    format: Format,
    buffers: Vec<Buffer>,
    tail: Option<usize>,
    since: Option<DateTime<Local>>,
    pid: Option<u32>,
    regex: Option<Regex>,
    specs: Vec<(String, u8)>,
    silent: bool,
}

impl Query {
    fn parse(args: &[String]) -> Result<Query, CmdResult> {
        let mut q = Query {
            dump: false,
            clear: false,
            format: Format::ThreadTime,
            buffers: Vec::new(),
            tail: None,
            since: None,
            pid: None,
            regex: None,
            specs: Vec::new(),
            silent: false,
        };
        let mut it = args.iter();
        while let Some(a) = it.next() {
            let mut value = |name: &str| -> Result<String, CmdResult> {
                it.next()
                    .cloned()
                    .ok_or_else(|| usage(&format!("option requires an argument -- '{name}'")))
            };
            match a.as_str() {
                "-d" => q.dump = true,
                "-c" | "--clear" => q.clear = true,
                "-s" => q.silent = true,
                "-v" | "--format" => {
                    let f = value("v")?;
                    q.format = Format::parse(&f).ok_or_else(|| {
                        usage(&format!(
                            "Invalid parameter \"{f}\" to -v: the simulated device prints threadtime, time, brief, tag, process, thread and raw"
                        ))
                    })?;
                }
                "-b" | "--buffer" => {
                    for name in value("b")?.split(',') {
                        match name {
                            "main" => q.buffers.push(Buffer::Main),
                            "system" => q.buffers.push(Buffer::System),
                            "crash" => q.buffers.push(Buffer::Crash),
                            "all" | "default" => {
                                q.buffers
                                    .extend([Buffer::Main, Buffer::System, Buffer::Crash])
                            }
                            "events" | "radio" | "kernel" | "security" | "stats" => {}
                            other => return Err(usage(&format!("unknown buffer {other}"))),
                        }
                    }
                }
                "-t" | "-T" => {
                    let v = value("t")?;
                    if a == "-t" {
                        q.dump = true;
                    }
                    match v.parse::<usize>() {
                        Ok(n) => q.tail = Some(n),
                        Err(_) => match parse_since(&v, Local::now()) {
                            Some(t) => q.since = Some(t),
                            None => return Err(usage(&format!("invalid time or count {v:?}"))),
                        },
                    }
                }
                "-e" | "--regex" => {
                    let r = value("e")?;
                    q.regex =
                        Some(Regex::new(&r).map_err(|e| usage(&format!("invalid regex: {e}")))?);
                }
                // `--pid=N` and `--pid N` (getopt_long accepts both).
                "--pid" => q.pid = Some(pid_of(&value("pid")?)?),
                s if s.starts_with("--pid=") => q.pid = Some(pid_of(&s["--pid=".len()..])?),
                s if s.starts_with('-') => return Err(usage(&format!("invalid option -- {s}"))),
                spec => {
                    let (tag, lvl) = spec.rsplit_once(':').unwrap_or((spec, "V"));
                    let p = lvl.chars().next().map(prio).unwrap_or(0);
                    if p == 0 || lvl.len() != 1 {
                        return Err(usage(&format!("Invalid filter expression '{spec}'")));
                    }
                    q.specs.push((tag.to_string(), p));
                }
            }
        }
        if q.buffers.is_empty() {
            q.buffers = vec![Buffer::Main, Buffer::System, Buffer::Crash];
        }
        Ok(q)
    }

    fn keep(&self, l: &Line) -> bool {
        let default_prio = if self.silent {
            8
        } else {
            self.specs
                .iter()
                .find(|(t, _)| t == "*")
                .map(|(_, p)| *p)
                .unwrap_or(2)
        };
        let min = self
            .specs
            .iter()
            .find(|(t, _)| t == &l.tag)
            .map(|(_, p)| *p)
            .unwrap_or(default_prio);
        self.buffers.contains(&l.buffer)
            && prio(l.level) >= min
            && self.pid.is_none_or(|p| p == l.pid)
            && self.since.is_none_or(|t| l.time >= t)
            && self.regex.as_ref().is_none_or(|r| r.is_match(&l.message))
    }

    /// The text of `lines`, announcing each buffer the first time it appears in `seen`.
    fn print(&self, lines: &[Line], seen: &mut Vec<Buffer>) -> String {
        let mut out = String::new();
        for l in lines {
            if !seen.contains(&l.buffer) {
                seen.push(l.buffer);
                out.push_str(&format!("--------- beginning of {}\n", l.buffer.name()));
            }
            out.push_str(&self.format.line(l));
            out.push('\n');
        }
        out
    }
}

fn pid_of(s: &str) -> Result<u32, CmdResult> {
    s.parse()
        .map_err(|_| usage(&format!("pid \"{s}\" is not a number")))
}

/// True when this argv streams until the reader goes away (neither `-d`, `-c` nor `-t`).
pub fn is_streaming(argv: &[String]) -> bool {
    let name = argv[0].rsplit('/').next().unwrap_or(&argv[0]);
    name == "logcat" && Query::parse(&argv[1..]).is_ok_and(|q| !q.dump && !q.clear)
}

/// The entries of the phone's log that `q` keeps, in order.
fn matching(ctx: &DeviceCtx<'_>, q: &Query) -> Vec<Line> {
    let phone = ctx.phone();
    render(&phone).into_iter().filter(|l| q.keep(l)).collect()
}

/// `logcat -d …`, `logcat -c`, and (buffered callers) the snapshot a stream starts with.
pub fn run(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    let q = match Query::parse(args) {
        Ok(q) => q,
        Err(e) => return e,
    };
    ctx.spend(Cost::Hilog);
    if q.clear {
        ctx.phone().clear_hilog();
        return CmdResult::ok(Vec::new());
    }
    let lines = matching(ctx, &q);
    let start = q.tail.map(|n| lines.len().saturating_sub(n)).unwrap_or(0);
    CmdResult::ok(q.print(&lines[start..], &mut Vec::new()))
}

/// The streaming read: the buffer (or its tail), then every new entry, until the sink refuses
/// more. Without a sink (buffered callers) it prints the snapshot and returns, which is what a
/// client killing `adb logcat` right away would have seen.
pub fn stream(ctx: &mut DeviceCtx<'_>, argv: &[String]) -> i32 {
    let q = match Query::parse(&argv[1..]) {
        Ok(q) => q,
        Err(e) => {
            if ctx.split_stderr {
                ctx.err.extend_from_slice(&e.err);
            } else {
                ctx.out.extend_from_slice(&e.err);
            }
            return e.status;
        }
    };
    let mut seen = Vec::new();
    let lines = matching(ctx, &q);
    let start = q.tail.map(|n| lines.len().saturating_sub(n)).unwrap_or(0);
    let first = q.print(&lines[start..], &mut seen);
    ctx.out.extend_from_slice(first.as_bytes());
    let mut last = lines.last().cloned();
    let Some(sink) = ctx.sink.as_mut() else {
        return 0;
    };
    if !sink(&std::mem::take(&mut ctx.out)) {
        return 0;
    }
    loop {
        // Simulated device time between two reads of logd.
        std::thread::sleep(Duration::from_millis(100));
        let lines = matching(ctx, &q);
        // New entries follow the last one printed (a cleared log starts over).
        let from = last
            .as_ref()
            .and_then(|l| lines.iter().rposition(|x| x == l))
            .map(|i| i + 1)
            .unwrap_or(0);
        let chunk = q.print(&lines[from..], &mut seen);
        if let Some(l) = lines.last() {
            last = Some(l.clone());
        }
        let sink = ctx.sink.as_mut().expect("checked above");
        // An empty write still checks that the reader is alive.
        if !sink(chunk.as_bytes()) {
            return 0;
        }
    }
}
