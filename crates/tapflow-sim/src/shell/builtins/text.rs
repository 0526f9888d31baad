//! The text builtins every platform has (toybox's): `echo`, `printf`, `sleep`.

use crate::latency::Cost;
use crate::shell::{CmdResult, DeviceCtx};

/// `echo [-n] [-e] args…` (toybox: escapes only with `-e`).
pub fn echo(args: &[String]) -> CmdResult {
    let mut newline = true;
    let mut escapes = false;
    let mut rest = args;
    while let Some(flag) = rest.first().filter(|a| {
        a.len() > 1 && a.starts_with('-') && a[1..].chars().all(|c| matches!(c, 'n' | 'e' | 'E'))
    }) {
        for c in flag[1..].chars() {
            match c {
                'n' => newline = false,
                'e' => escapes = true,
                _ => escapes = false,
            }
        }
        rest = &rest[1..];
    }
    let mut s = rest.join(" ");
    if escapes {
        s = unescape(&s);
    }
    if newline {
        s.push('\n');
    }
    CmdResult::ok(s)
}

/// Backslash escapes of `echo -e` and `printf` formats: `\n \t \\`; others stay as written.
fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('\\') => out.push('\\'),
            Some(o) => {
                out.push('\\');
                out.push(o);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// `printf FORMAT [args…]`: `%s`, `%d`, `%%`, `\n`, `\t`, `\\`; the format is reused while
/// arguments remain, as POSIX requires.
pub fn printf(args: &[String]) -> CmdResult {
    let Some(fmt) = args.first() else {
        return CmdResult::fail_err("printf: Needs 1 argument\n", 1);
    };
    let mut rest = args[1..].iter();
    let mut out = String::new();
    loop {
        let mut consumed = false;
        let mut chars = fmt.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\\' => match chars.next() {
                    Some('n') => out.push('\n'),
                    Some('t') => out.push('\t'),
                    Some('\\') => out.push('\\'),
                    Some(o) => {
                        out.push('\\');
                        out.push(o);
                    }
                    None => out.push('\\'),
                },
                '%' => match chars.next() {
                    Some('%') => out.push('%'),
                    Some('s') => {
                        consumed = true;
                        out.push_str(rest.next().map(String::as_str).unwrap_or(""));
                    }
                    Some('d') | Some('i') => {
                        consumed = true;
                        let v = rest.next().map(String::as_str).unwrap_or("0");
                        match v.trim().parse::<i64>() {
                            Ok(n) => out.push_str(&n.to_string()),
                            Err(_) => {
                                return CmdResult {
                                    out: out.into_bytes(),
                                    err: format!("printf: invalid number '{v}'\n").into_bytes(),
                                    status: 1,
                                };
                            }
                        }
                    }
                    Some(o) => {
                        return CmdResult {
                            out: out.into_bytes(),
                            err: format!(
                                "printf: %{o}: unsupported format by the simulated device\n"
                            )
                            .into_bytes(),
                            status: 1,
                        };
                    }
                    None => out.push('%'),
                },
                c => out.push(c),
            }
        }
        if !consumed || rest.len() == 0 {
            break;
        }
    }
    CmdResult::ok(out)
}

/// `sleep N`: spends device time (the simulator sleeps after releasing the device).
pub fn sleep(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    let secs = args.first().and_then(|a| a.parse::<f64>().ok());
    match secs {
        Some(s) if s >= 0.0 && s.is_finite() && args.len() == 1 => {
            ctx.spend(Cost::Wait(std::time::Duration::from_secs_f64(s)));
            CmdResult::ok(Vec::new())
        }
        _ => CmdResult::fail_err("sleep: Needs 1 argument\n", 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn echo_and_printf() {
        assert_eq!(echo(&s(&["a", "b"])).out, b"a b\n");
        assert_eq!(echo(&s(&["-n", "a"])).out, b"a");
        assert_eq!(echo(&s(&["-e", "a\\nb"])).out, b"a\nb\n");
        assert_eq!(echo(&s(&["-ne", "x\\ty"])).out, b"x\ty");
        assert_eq!(echo(&s(&["a\\nb"])).out, b"a\\nb\n");
        assert_eq!(echo(&s(&["-x"])).out, b"-x\n");
        assert_eq!(
            printf(&s(&["%s=%d\\n", "a", "1", "b", "2"])).out,
            b"a=1\nb=2\n"
        );
        assert_eq!(printf(&s(&["100%%"])).out, b"100%");
        assert_eq!(printf(&s(&["%x"])).status, 1);
    }
}
