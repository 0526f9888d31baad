//! `aa start`: the whole option grammar of the ability assistant (`-d -a -b -m -p -s -u -U -A -e
//! -t`, the flags `-C -D -E -S -N -R -c -W`, the typed want parameters `--pi --pb --ps --psn` and
//! the window options `--wl --wt --wh --ww`), parsed with getopt_long as the real tool does,
//! including its quirks:
//!
//! - a missing value or an unknown option stops the parse (`error: option requires a value.`,
//!   `fail: unknown option.`) and prints the usage;
//! - `-W` is not in the short option string, so getopt reports it as unknown: the tool sets its
//!   wait flag and stops reading options there;
//! - `--pi/--pb/--ps` take a key (the option's value) and exactly one more word before the next
//!   option, `--psn` none (`invalid number of parameters for option --ps`); integers and
//!   booleans are checked (`invalid parameter x for integer option`);
//! - `-a` without `-b` → `error: -b <bundle-name> is expected`; no option at all →
//!   `error: you must specify an option at least.`
//!
//! The want then goes to the phone: explicit by element, or implicit by skills (`-U`, `-A`, `-e`).
//! Its parameters reach the started ability, whose actions read them as `${want.KEY}`.

use super::texts;
use crate::commands::getopt::{Getopt, HasArg, LongOpt, Opt};
use crate::latency::Cost;
use crate::phone::{Want, WantParam};
use crate::shell::CmdResult;
use crate::shell::DeviceCtx;

const SHORT: &str = "ch:d:a:b:e:t:p:s:m:u:A:U:CDESNR";

/// What the window options accept (`STRING_REGEX_ALL_NUMBERS`).
static NUMBER: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"^(-)?([0-9]|[1-9][0-9]+)(\.[0-9]+)?$").expect("valid regex")
});
/// Short options `IsStartOption` recognises when counting a parameter's words.
const SHORT_CHARS: &str = "chdabetpsmuAUCDESNR";

const PI: i32 = 257;
const PS: i32 = 258;
const PB: i32 = 259;
const PSN: i32 = 260;
const WL: i32 = 261;
const WT: i32 = 262;
const WH: i32 = 263;
const WW: i32 = 264;

const fn opt(name: &'static str, has_arg: HasArg, id: i32) -> LongOpt {
    LongOpt { name, has_arg, id }
}

const LONG: &[LongOpt] = &[
    opt("help", HasArg::No, 'h' as i32),
    opt("device", HasArg::Required, 'd' as i32),
    opt("ability", HasArg::Required, 'a' as i32),
    opt("bundle", HasArg::Required, 'b' as i32),
    opt("perf", HasArg::Required, 'p' as i32),
    opt("setting", HasArg::Required, 's' as i32),
    opt("module", HasArg::Required, 'm' as i32),
    opt("cold-start", HasArg::No, 'C' as i32),
    opt("debug", HasArg::No, 'D' as i32),
    opt("error-info-enhance", HasArg::No, 'E' as i32),
    opt("native-debug", HasArg::No, 'N' as i32),
    opt("mutil-thread", HasArg::No, 'R' as i32),
    opt("action", HasArg::Required, 'A' as i32),
    opt("URI", HasArg::Required, 'U' as i32),
    opt("wait", HasArg::No, 'W' as i32),
    opt("entity", HasArg::Required, 'e' as i32),
    opt("type", HasArg::Required, 't' as i32),
    opt("pi", HasArg::Required, PI),
    opt("ps", HasArg::Required, PS),
    opt("pb", HasArg::Required, PB),
    opt("psn", HasArg::Required, PSN),
    opt("wl", HasArg::Required, WL),
    opt("wt", HasArg::Required, WT),
    opt("wh", HasArg::Required, WH),
    opt("ww", HasArg::Required, WW),
];

/// What the options asked for.
#[derive(Debug, Default)]
struct Request {
    want: Want,
    wait: bool,
}

/// Parse state: the tool's result code is only "ok or not", and a later typed parameter can
/// reset an earlier failure, exactly as `MakeWantFromCmd` assigns its `result`.
struct Parse {
    g: Getopt,
    out: String,
    ok: bool,
}

impl Parse {
    /// `IsStartOption`: a word that starts with a known long option or `-<short option char>`.
    fn is_option(w: &str) -> bool {
        if w.starts_with("--") && LONG.iter().any(|o| w.starts_with(&format!("--{}", o.name))) {
            return true;
        }
        let mut cs = w.chars();
        cs.next() == Some('-') && cs.next().is_some_and(|c| SHORT_CHARS.contains(c))
    }

    /// `CheckParameters`: exactly `extra` words follow the key before the next option.
    fn check_parameters(&self, extra: usize) -> bool {
        let argc = self.g.args.len();
        if self.g.optind + extra >= argc {
            return false;
        }
        let count = self.g.args[self.g.optind + 1..]
            .iter()
            .take_while(|w| !Self::is_option(w))
            .count();
        count == extra
    }

    /// `ParseParam`: takes the word after the key (and swaps it in front of the operand `optind`
    /// points at, so getopt does not see it again).
    fn take_value(&mut self) -> String {
        let i = self.g.optind;
        self.g.args.swap(i, i + 1);
        self.g.optind += 1;
        self.g.args[i].clone()
    }

    fn fail(&mut self, msg: &str) {
        self.out.push_str(msg);
        self.ok = false;
    }
}

fn parse(args: &[String]) -> (Request, Parse) {
    let mut argv = vec!["aa".to_string(), "start".to_string()];
    argv.extend(args.iter().cloned());
    let mut p = Parse {
        g: Getopt::new(argv),
        out: String::new(),
        ok: true,
    };
    let mut want = Want::default();
    let mut wait = false;
    let w = &mut want;
    let mut first = true;
    loop {
        let next = p.g.next(SHORT, LONG);
        let counter_one = std::mem::replace(&mut first, false);
        let Some(o) = next else {
            if counter_one && p.g.args.get(p.g.optind).is_some_and(|a| a == "start") {
                p.fail(texts::NO_OPTION);
            }
            break;
        };
        match o {
            Opt::Missing(c) => {
                if c != 'h' as i32 {
                    p.fail(texts::REQUIRES_VALUE);
                } else {
                    p.ok = false;
                }
                break;
            }
            // `-W` is not in the short option string: getopt calls it unknown, the tool takes it
            // as the wait flag and stops reading options.
            Opt::Unknown(c) if c == 'W' as i32 => {
                wait = true;
                break;
            }
            Opt::Unknown(_) => {
                p.fail(texts::UNKNOWN_OPTION);
                break;
            }
            Opt::Found(id, v) => {
                let v = v.unwrap_or_default();
                match id {
                    PI | PS | PB => {
                        let name = match id {
                            PI => "pi",
                            PS => "ps",
                            _ => "pb",
                        };
                        if !p.check_parameters(1) {
                            p.fail(&format!(
                                "invalid number of parameters for option --{name}\n"
                            ));
                            continue;
                        }
                        let raw = p.take_value();
                        let value = match id {
                            PI => match raw.parse::<i32>() {
                                Ok(i) => Some(WantParam::Int(i)),
                                Err(_) => {
                                    p.out.push_str(&format!(
                                        "invalid parameter {raw} for integer option\n"
                                    ));
                                    None
                                }
                            },
                            PB => match raw.to_ascii_lowercase().as_str() {
                                "true" | "t" => Some(WantParam::Bool(true)),
                                "false" | "f" => Some(WantParam::Bool(false)),
                                lower => {
                                    p.out.push_str(&format!(
                                        "invalid parameter {lower} for bool option\n"
                                    ));
                                    None
                                }
                            },
                            _ => Some(WantParam::Str(raw)),
                        };
                        p.ok = value.is_some();
                        if let Some(value) = value {
                            w.params.insert(v, value);
                        }
                    }
                    PSN => {
                        if !p.check_parameters(0) {
                            p.fail("invalid number of parameters for option --psn\n");
                            continue;
                        }
                        w.params.insert(v, WantParam::Str(String::new()));
                        p.ok = true;
                    }
                    WL | WT | WH | WW => {
                        let name = match id {
                            WL => "wl",
                            WT => "wt",
                            WH => "wh",
                            _ => "ww",
                        };
                        let number = NUMBER.is_match(&v);
                        if !number {
                            p.fail(&format!("invalid argument for option --{name}\n"));
                            continue;
                        }
                        let key = match id {
                            WL => "ohos.ability.params.windowLeft",
                            WT => "ohos.ability.params.windowTop",
                            WH => "ohos.ability.params.windowHeight",
                            _ => "ohos.ability.params.windowWidth",
                        };
                        let n = v.parse::<f64>().unwrap_or(0.0) as i32;
                        w.params.insert(key.into(), WantParam::Int(n));
                    }
                    c => match char::from_u32(c as u32).unwrap_or('\0') {
                        'h' => p.ok = false,
                        'd' => w.device = v,
                        'a' => w.ability = v,
                        'b' => w.bundle = v,
                        'e' => w.entities.push(v),
                        't' => w.mime_type = v,
                        's' => {
                            w.params
                                .insert("ohos.aafwk.param.windowMode".into(), WantParam::Str(v));
                        }
                        'm' => w.module = v,
                        'p' => {
                            if perf_cmd_valid(&v) {
                                w.params.insert("perfCmd".into(), WantParam::Str(v));
                            } else {
                                p.ok = false;
                            }
                        }
                        'U' => w.uri = v,
                        'A' => w.action = v,
                        'u' => match v.parse::<i32>() {
                            Ok(u) if u >= 0 => {}
                            _ => {
                                p.fail(&format!("error: invalid user id: {v}\n"));
                                return (Request { want, wait }, p);
                            }
                        },
                        flag => {
                            let key = match flag {
                                'C' => "coldStart",
                                'D' => "debugApp",
                                'E' => "errorInfoEnhance",
                                'S' => "sandboxApp",
                                'N' => "nativeDebug",
                                'R' => "multiThread",
                                _ => continue,
                            };
                            w.params.insert(key.into(), WantParam::Bool(true));
                        }
                    },
                }
            }
        }
    }
    if p.ok && !want.ability.is_empty() && want.bundle.is_empty() {
        p.fail(texts::NO_BUNDLE);
    }
    (Request { want, wait }, p)
}

/// `-p <perf-cmd>`: `dumpheap`, `sleep [N]`, `baseLineProfile …` or `profile nativeperf|jsperf …`.
fn perf_cmd_valid(cmd: &str) -> bool {
    let ok = |re: &str| regex::Regex::new(re).is_ok_and(|r| r.is_match(cmd));
    cmd.len() < 1024
        && (ok(r"^\s*(dumpheap)\s*$")
            || ok(r"^\s*(sleep)((\s+\d*)|)\s*$")
            || ok(r"^\s*(baseLineProfile)(\s+.*|$)")
            || ok(r"^\s*(profile)\s+(nativeperf|jsperf)(\s+.*|$)"))
}

pub fn run(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    let (req, p) = parse(args);
    let mut out = p.out;
    if !p.ok {
        out.push_str(texts::HELP_START);
        return CmdResult::fail_out(out, 1);
    }
    ctx.spend(Cost::AbilityStart);
    let now = std::time::SystemTime::now();
    let res = ctx.phone().start_want(&req.want, now);
    match res {
        Ok(started) => {
            if req.wait {
                let service = ctx
                    .phone()
                    .is_service_ability(&started.bundle, &started.ability);
                if !req.want.is_explicit() {
                    out.push_str(texts::IMPLICIT_WITH_WAIT);
                } else if service {
                    out.push_str(texts::NON_UI_WITH_WAIT);
                } else {
                    let total = ctx.latency.cost(Cost::AbilityStart).as_millis();
                    out.push_str(&format!(
                        "StartMode: {}\nBundleName: {}\nAbilityName: {}\n",
                        if started.cold { "Cold" } else { "Hot" },
                        started.bundle,
                        started.ability
                    ));
                    if !req.want.module.is_empty() {
                        out.push_str(&format!("ModuleName: {}\n", req.want.module));
                    }
                    out.push_str(&format!("TotalTime: {total}\nWaitTime: {}\n", total + 3));
                }
            }
            out.push_str(texts::START_OK);
            CmdResult::ok(out)
        }
        Err(e) => {
            // The tool replaces everything printed so far with the failure and its report.
            let mut s = texts::START_NG.to_string();
            s.push_str(&texts::error_report(e.code));
            CmdResult::fail_out(s, 1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn typed_parameters_and_element() {
        let (r, p) = parse(&argv(&[
            "-b",
            "B",
            "-a",
            "A",
            "--ps",
            "CustomizedFileName",
            "x.mp4",
            "--pi",
            "n",
            "-5",
            "--pb",
            "f",
            "T",
            "--psn",
            "empty",
            "-U",
            "http://x",
            "-e",
            "e1",
        ]));
        assert!(p.ok, "{}", p.out);
        assert_eq!(
            (r.want.bundle.as_str(), r.want.ability.as_str()),
            ("B", "A")
        );
        assert_eq!(
            r.want.params["CustomizedFileName"],
            WantParam::Str("x.mp4".into())
        );
        assert_eq!(r.want.params["n"], WantParam::Int(-5));
        assert_eq!(r.want.params["f"], WantParam::Bool(true));
        assert_eq!(r.want.params["empty"], WantParam::Str(String::new()));
        assert_eq!(r.want.uri, "http://x");
        assert_eq!(r.want.entities, vec!["e1".to_string()]);
    }

    #[test]
    fn errors_as_the_tool_prints_them() {
        let out = |v: &[&str]| {
            let (_, p) = parse(&argv(v));
            (p.ok, p.out)
        };
        assert_eq!(out(&[]), (false, texts::NO_OPTION.to_string()));
        assert_eq!(out(&["-a", "A"]), (false, texts::NO_BUNDLE.to_string()));
        assert_eq!(out(&["-b"]), (false, texts::REQUIRES_VALUE.to_string()));
        assert_eq!(out(&["-x"]), (false, texts::UNKNOWN_OPTION.to_string()));
        assert_eq!(out(&["--nope"]), (false, texts::UNKNOWN_OPTION.to_string()));
        assert_eq!(
            out(&["--ps", "k"]),
            (
                false,
                "invalid number of parameters for option --ps\n".to_string()
            )
        );
        assert_eq!(
            out(&["--ps", "k", "v1", "v2"]),
            (
                false,
                "invalid number of parameters for option --ps\n".to_string()
            )
        );
        assert_eq!(
            out(&["-b", "B", "--pi", "k", "x"]),
            (
                false,
                "invalid parameter x for integer option\n".to_string()
            )
        );
        assert_eq!(
            out(&["-b", "B", "--pb", "k", "Yes"]),
            (false, "invalid parameter yes for bool option\n".to_string())
        );
        assert!(!out(&["-b", "B", "-p", "rm -rf"]).0);
        assert!(out(&["-b", "B", "-p", "profile jsperf"]).0);
        assert_eq!(
            out(&["-b", "B", "-u", "x"]),
            (false, "error: invalid user id: x\n".to_string())
        );
        // `-W` stops the option scan: what follows is never read.
        let (r, p) = parse(&argv(&["-b", "B", "-a", "A", "-W", "-x"]));
        assert!(p.ok && r.wait);
    }
}
