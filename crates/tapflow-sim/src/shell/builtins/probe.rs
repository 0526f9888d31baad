//! toybox's file probes: `stat -c FORMAT FILE…` (a client reads a recording's size with
//! `stat -c %s`) and `test` / `[` (`-e`, `-f`, `-d`, `-s`, `-n`, `-z`, `=`, `!=`), over the
//! phone's files. Their exit statuses are toybox's: `test` answers 0 or 1 (2 for a usage
//! error), `stat` 1 when a file is missing.

use crate::shell::{CmdResult, DeviceCtx, absolute};

/// `stat -c FORMAT FILE…` with `%s` (size), `%n` (name), `%F` (file type), `%%`. The default
/// multi-line layout is refused loudly: no client the simulator serves reads it.
pub fn stat(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    let (format, files) = match args {
        [c, f, rest @ ..] if c == "-c" => (f.as_str(), rest),
        [c, rest @ ..] if c.starts_with("--format=") || c.starts_with("-c") && c.len() > 2 => {
            let f = c.strip_prefix("--format=").unwrap_or(&c[2..]);
            (f, rest)
        }
        _ => {
            return CmdResult::fail_err(
                "stat: the simulated device supports `stat -c FORMAT FILE...` only\n",
                1,
            );
        }
    };
    if files.is_empty() {
        return CmdResult::fail_err("stat: Needs 1 argument (see \"stat --help\")\n", 1);
    }
    let phone = ctx.phone();
    let mut res = CmdResult::default();
    for f in files {
        let path = absolute(f);
        let (size, kind) = if let Some(n) = phone.fs.size(&path) {
            (
                n,
                if n == 0 {
                    "regular empty file"
                } else {
                    "regular file"
                },
            )
        } else if phone.fs.is_dir(&path) {
            (4096, "directory")
        } else {
            res.err
                .extend(format!("stat: '{f}': No such file or directory\n").bytes());
            res.status = 1;
            continue;
        };
        let mut line = String::new();
        let mut chars = format.chars();
        while let Some(c) = chars.next() {
            if c != '%' {
                line.push(c);
                continue;
            }
            match chars.next() {
                Some('s') => line.push_str(&size.to_string()),
                Some('n') => line.push_str(f),
                Some('F') => line.push_str(kind),
                Some('%') => line.push('%'),
                Some(o) => {
                    return CmdResult::fail_err(
                        format!(
                            "stat: the simulated device formats %s, %n, %F and %% (not %{o})\n"
                        ),
                        1,
                    );
                }
                None => line.push('%'),
            }
        }
        line.push('\n');
        res.out.extend(line.bytes());
    }
    res
}

/// `test EXPR` / `[ EXPR ]`: the file and string tests clients probe with.
pub fn test(ctx: &mut DeviceCtx<'_>, name: &str, args: &[String]) -> CmdResult {
    let mut args: Vec<&str> = args.iter().map(String::as_str).collect();
    if name == "[" {
        if args.last() != Some(&"]") {
            return CmdResult::fail_err("[: missing ]\n", 2);
        }
        args.pop();
    }
    let (negate, expr) = match args.split_first() {
        Some((&"!", rest)) => (true, rest.to_vec()),
        _ => (false, args),
    };
    let truth = match expr.as_slice() {
        [] => false,
        [s] => !s.is_empty(),
        [op, path] if op.len() == 2 && op.starts_with('-') => {
            let phone = ctx.phone();
            let p = absolute(path);
            match *op {
                "-e" => phone.fs.is_file(&p) || phone.fs.is_dir(&p),
                "-f" => phone.fs.is_file(&p),
                "-d" => phone.fs.is_dir(&p),
                "-s" => phone.fs.size(&p).is_some_and(|n| n > 0),
                "-r" | "-w" => phone.fs.is_file(&p) || phone.fs.is_dir(&p),
                "-n" => !path.is_empty(),
                "-z" => path.is_empty(),
                other => {
                    return CmdResult::fail_err(format!("{name}: unknown operator {other}\n"), 2);
                }
            }
        }
        [a, "=", b] | [a, "==", b] => a == b,
        [a, "!=", b] => a != b,
        _ => {
            return CmdResult::fail_err(
                format!("{name}: the simulated device tests -e -f -d -s -r -w -n -z = != only\n"),
                2,
            );
        }
    };
    if truth != negate {
        CmdResult::ok(Vec::new())
    } else {
        CmdResult::fail_out(Vec::new(), 1)
    }
}
