//! The device's `hilog`: `-x` (print the buffer and exit) with `-L/-T/-D/-P/-e/-t/-a/-z` filters,
//! `-r` (clear), and the blocking read without `-x` that keeps printing new records until the
//! reader goes away.

use std::time::Duration;

use regex::Regex;

use crate::latency::Cost;
use crate::phone::LogRecord;
use crate::shell::CmdResult;
use crate::shell::DeviceCtx;

/// A list filter: `a,b,c` keeps those, `^a,b` drops them.
#[derive(Debug, Clone, Default)]
struct ListFilter<T> {
    items: Vec<T>,
    negate: bool,
}

impl<T: PartialEq> ListFilter<T> {
    fn parse(v: &str, one: impl Fn(&str) -> Result<T, String>) -> Result<Self, String> {
        let (negate, body) = match v.strip_prefix('^') {
            Some(b) => (true, b),
            None => (false, v),
        };
        let items = body
            .split(',')
            .filter(|s| !s.is_empty())
            .map(one)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self { items, negate })
    }

    fn allows(&self, v: &T) -> bool {
        self.items.is_empty() || (self.items.contains(v) != self.negate)
    }
}

/// Parsed hilog read options.
#[derive(Debug, Default)]
pub struct Query {
    exit: bool,
    clear: bool,
    head: Option<usize>,
    tail: Option<usize>,
    /// `-L`: the listed levels only (hilog's help: "Show specific level/levels logs").
    levels: Option<ListFilter<char>>,
    types: Option<ListFilter<char>>,
    domains: Option<ListFilter<u32>>,
    tags: Option<ListFilter<String>>,
    pids: Option<ListFilter<u32>>,
    regex: Option<Regex>,
}

fn parse_level(s: &str) -> Result<char, String> {
    Ok(match s.to_ascii_uppercase().as_str() {
        "D" | "DEBUG" => 'D',
        "I" | "INFO" => 'I',
        "W" | "WARN" => 'W',
        "E" | "ERROR" => 'E',
        "F" | "FATAL" => 'F',
        _ => {
            return Err(format!(
                "Invalid log level, the valid log levels include D/I/W/E/F or DEBUG/INFO/WARN/ERROR/FATAL: {s}"
            ));
        }
    })
}

fn parse_type(s: &str) -> Result<char, String> {
    Ok(match s {
        "app" => 'A',
        "core" => 'C',
        "init" => 'I',
        "kmsg" => 'K',
        "only_prerelease" => 'P',
        _ => {
            return Err(format!(
                "Invalid log type, the valid log types include app/core/init/kmsg/only_prerelease: {s}"
            ));
        }
    })
}

fn parse_domain(s: &str) -> Result<u32, String> {
    let t = s.trim_start_matches("0x").trim_start_matches("0X");
    u32::from_str_radix(t, 16)
        .map(|d| d & 0xFFFFF)
        .map_err(|_| format!("Invalid domain format: {s}"))
}

impl Query {
    /// Parses hilog's arguments (device argv after `hilog`).
    pub fn parse(args: &[String]) -> Result<Self, String> {
        let mut q = Query::default();
        let mut it = args.iter();
        while let Some(a) = it.next() {
            let mut value = |name: &str| {
                it.next()
                    .cloned()
                    .ok_or_else(|| format!("option requires an argument -- '{name}'"))
            };
            match a.as_str() {
                "-x" | "--exit" => q.exit = true,
                "-r" => q.clear = true,
                "-a" | "--head" => {
                    q.head = Some(
                        value("a")?
                            .parse()
                            .map_err(|_| "Invalid head number".to_string())?,
                    )
                }
                "-z" | "--tail" => {
                    q.tail = Some(
                        value("z")?
                            .parse()
                            .map_err(|_| "Invalid tail number".to_string())?,
                    )
                }
                "-L" | "--level" => q.levels = Some(ListFilter::parse(&value("L")?, parse_level)?),
                "-t" | "--type" => q.types = Some(ListFilter::parse(&value("t")?, parse_type)?),
                "-D" | "--domain" => {
                    let f = ListFilter::parse(&value("D")?, parse_domain)?;
                    if f.items.len() > 5 {
                        return Err("Max domain count is 5.".into());
                    }
                    q.domains = Some(f);
                }
                "-T" | "--tag" => {
                    let f = ListFilter::parse(&value("T")?, |s| Ok(s.to_string()))?;
                    if f.items.len() > 10 {
                        return Err("Max tag count is 10.".into());
                    }
                    q.tags = Some(f);
                }
                "-P" | "--pid" => {
                    let f = ListFilter::parse(&value("P")?, |s| {
                        s.parse::<u32>().map_err(|_| format!("Invalid pid: {s}"))
                    })?;
                    if f.items.len() > 5 {
                        return Err("Max pid count is 5.".into());
                    }
                    q.pids = Some(f);
                }
                "-e" | "--regex" => {
                    let v = value("e")?;
                    q.regex = Some(Regex::new(&v).map_err(|_| format!("Invalid regex: {v}"))?);
                }
                other => {
                    return Err(format!(
                        "Unsupported option for the simulated device: {other}"
                    ));
                }
            }
        }
        Ok(q)
    }

    fn matches(&self, r: &LogRecord) -> bool {
        let type_ok = match &self.types {
            Some(t) => t.allows(&r.log_type),
            // Default types: app, core, init.
            None => r.log_type != 'K',
        };
        type_ok
            && self.levels.as_ref().is_none_or(|f| f.allows(&r.level))
            && self
                .domains
                .as_ref()
                .is_none_or(|f| f.allows(&(r.domain & 0xFFFFF)))
            && self.tags.as_ref().is_none_or(|f| f.allows(&r.tag))
            && self.pids.as_ref().is_none_or(|f| f.allows(&r.pid))
            && self.regex.as_ref().is_none_or(|re| re.is_match(&r.message))
    }

    fn format_all<'r>(&self, records: impl Iterator<Item = &'r LogRecord>) -> String {
        let mut s = String::new();
        for r in records.filter(|r| self.matches(r)) {
            s.push_str(&r.format());
            s.push('\n');
        }
        s
    }
}

/// True when this argv would block and stream (`hilog` without `-x`, `-r` or a bad option).
pub fn is_streaming(argv: &[String]) -> bool {
    let name = argv[0].rsplit('/').next().unwrap_or(&argv[0]);
    name == "hilog" && Query::parse(&argv[1..]).is_ok_and(|q| !q.exit && !q.clear)
}

/// `hilog -x …`, `hilog -r`, and (buffered mode) a snapshot for the blocking read.
pub fn run(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    let q = match Query::parse(args) {
        Ok(q) => q,
        Err(e) => return CmdResult::fail_out(format!("{e}\n"), 1),
    };
    ctx.spend(Cost::Hilog);
    if q.clear {
        ctx.phone().clear_hilog();
        return CmdResult::ok("Log type core,app buffer clear successfully\n");
    }
    let phone = ctx.phone();
    let matching: Vec<&LogRecord> = phone.hilog().iter().filter(|r| q.matches(r)).collect();
    let slice: &[&LogRecord] = match (q.head, q.tail) {
        (Some(n), _) => &matching[..n.min(matching.len())],
        (None, Some(n)) => &matching[matching.len().saturating_sub(n)..],
        (None, None) => &matching,
    };
    CmdResult::ok(q.format_all(slice.iter().copied()))
}

/// The blocking read: prints the buffer, then every new record, until the sink refuses more.
/// Without a sink (buffered callers) it prints the current buffer and returns, which is what a
/// client that kills `hdc` right away would have seen.
pub fn stream(ctx: &mut DeviceCtx<'_>, argv: &[String]) -> i32 {
    let q = match Query::parse(&argv[1..]) {
        Ok(q) => q,
        Err(e) => {
            ctx.out.extend_from_slice(format!("{e}\n").as_bytes());
            return 1;
        }
    };
    let (first, mut last) = {
        let phone = ctx.phone();
        let recs = phone.hilog();
        let start = match q.tail {
            Some(n) => recs.len().saturating_sub(n),
            None => 0,
        };
        (q.format_all(recs[start..].iter()), recs.last().cloned())
    };
    ctx.out.extend_from_slice(first.as_bytes());
    let Some(sink) = ctx.sink.as_mut() else {
        return 0;
    };
    if !sink(&std::mem::take(&mut ctx.out)) {
        return 0;
    }
    loop {
        // Simulated device time between two reads of the log daemon.
        std::thread::sleep(Duration::from_millis(100));
        let chunk = {
            let phone = ctx.phone();
            let recs = phone.hilog();
            let start = match &last {
                None => 0,
                Some(l) => recs
                    .iter()
                    .rposition(|r| r == l)
                    .map(|i| i + 1)
                    .unwrap_or(0),
            };
            let text = q.format_all(recs[start..].iter());
            if let Some(r) = recs.last() {
                last = Some(r.clone());
            }
            text
        };
        let sink = ctx.sink.as_mut().expect("checked above");
        // An empty write still checks that the reader is alive.
        if !sink(chunk.as_bytes()) {
            return 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(args: &[&str]) -> Query {
        Query::parse(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap()
    }

    fn rec(level: char, ty: char, domain: u32, tag: &str, pid: u32, msg: &str) -> LogRecord {
        LogRecord {
            time: chrono::Local::now(),
            pid,
            tid: pid,
            level,
            log_type: ty,
            domain,
            tag: tag.into(),
            message: msg.into(),
        }
    }

    #[test]
    fn filters() {
        let r = rec('W', 'A', 0xd0d0, "DemoApp", 42, "LOGIN_SUCCESS user=a");
        assert!(q(&["-x"]).matches(&r));
        assert!(q(&["-x", "-L", "W"]).matches(&r));
        assert!(
            !q(&["-x", "-L", "I"]).matches(&r),
            "-L selects exact levels"
        );
        assert!(q(&["-x", "-L", "W,E,F"]).matches(&r));
        assert!(q(&["-x", "-L", "WARN"]).matches(&r));
        assert!(!q(&["-x", "-L", "^W"]).matches(&r));
        assert!(q(&["-x", "-L", "D,W"]).matches(&r));
        assert!(q(&["-x", "-D", "0xd0d0"]).matches(&r));
        assert!(!q(&["-x", "-D", "0xD003900"]).matches(&r));
        assert!(q(&["-x", "-T", "DemoApp"]).matches(&r));
        assert!(!q(&["-x", "-T", "^DemoApp"]).matches(&r));
        assert!(q(&["-x", "-P", "42"]).matches(&r));
        assert!(q(&["-x", "-e", "LOGIN_\\w+"]).matches(&r));
        assert!(!q(&["-x", "-t", "core"]).matches(&r));
        assert!(!q(&["-x"]).matches(&rec('I', 'K', 0, "k", 0, "kmsg")));
        assert!(Query::parse(&["-L".into(), "X".into()]).is_err());
        assert!(Query::parse(&["-Q".into()]).is_err());
    }

    #[test]
    fn streaming_detection() {
        let v = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(is_streaming(&v(&["hilog"])));
        assert!(is_streaming(&v(&["hilog", "-T", "DemoApp"])));
        assert!(!is_streaming(&v(&["hilog", "-x"])));
        assert!(!is_streaming(&v(&["hilog", "-r"])));
        assert!(!is_streaming(&v(&["echo"])));
    }
}
