//! toybox-like `cat`, `ls [-l] [-a]` and `rm [-f] [-r]` over the phone's file system, plus
//! `/proc/<pid>/cmdline`, `status` and `stat` of running processes.

use crate::shell::{CmdResult, DeviceCtx, absolute};

/// Splits `-xyz` flags (until `--` or the first operand) from operands.
fn split_flags<'a>(
    cmd: &str,
    args: &'a [String],
    allowed: &str,
) -> Result<(Vec<char>, Vec<&'a str>), CmdResult> {
    let mut flags = Vec::new();
    let mut ops = Vec::new();
    let mut only_ops = false;
    for a in args {
        if !only_ops && a == "--" {
            only_ops = true;
        } else if !only_ops && a.len() > 1 && a.starts_with('-') {
            for c in a[1..].chars() {
                if !allowed.contains(c) {
                    return Err(CmdResult::fail_err(
                        format!("{cmd}: Unknown option '{c}' (see \"{cmd} --help\")\n"),
                        1,
                    ));
                }
                flags.push(c);
            }
        } else {
            ops.push(a.as_str());
        }
    }
    Ok((flags, ops))
}

pub fn cat(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    let (_, ops) = match split_flags("cat", args, "u") {
        Ok(v) => v,
        Err(e) => return e,
    };
    if ops.is_empty() {
        return CmdResult::fail_err(
            "cat: reading standard input is not supported by the simulated device\n",
            1,
        );
    }
    let mut res = CmdResult::default();
    let phone = ctx.phone();
    for op in ops {
        let path = absolute(op);
        if let Some(rest) = path.strip_prefix("/proc/") {
            // `/proc/<pid>/{cmdline,status,stat}` of running processes.
            let answer = rest.split_once('/').and_then(|(pid, file)| {
                let pid = pid.parse::<u32>().ok()?;
                match file {
                    "cmdline" => phone.cmdline(pid).map(|mut c| {
                        c.push('\0');
                        c
                    }),
                    "status" => phone.proc_status(pid),
                    "stat" => phone.proc_stat(pid),
                    _ => None,
                }
            });
            match answer {
                Some(text) => res.out.extend_from_slice(text.as_bytes()),
                None => {
                    res.err.extend_from_slice(
                        format!("cat: {op}: No such file or directory\n").as_bytes(),
                    );
                    res.status = 1;
                }
            }
            continue;
        }
        match phone.fs.read(&path) {
            Some(b) => res.out.extend_from_slice(b),
            None if phone.fs.is_dir(&path) => {
                res.err
                    .extend_from_slice(format!("cat: {op}: Is a directory\n").as_bytes());
                res.status = 1;
            }
            None => {
                res.err.extend_from_slice(
                    format!("cat: {op}: No such file or directory\n").as_bytes(),
                );
                res.status = 1;
            }
        }
    }
    res
}

pub fn ls(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    let (flags, mut ops) = match split_flags("ls", args, "laA1") {
        Ok(v) => v,
        Err(e) => return e,
    };
    let long = flags.contains(&'l');
    let all = flags.contains(&'a');
    // `-a` and `-A` show dotfiles; `-a` also `.` and `..`.
    let dotfiles = all || flags.contains(&'A');
    if ops.is_empty() {
        ops.push("/");
    }
    let phone = ctx.phone();
    let date = chrono::Local::now().format("%Y-%m-%d %H:%M").to_string();
    let line = |name: &str, dir: bool, size: u64| {
        if long {
            let mode = if dir { "drwxrwx--x" } else { "-rw-rw-rw-" };
            format!("{mode} 1 root root {size:>8} {date} {name}\n")
        } else {
            format!("{name}\n")
        }
    };
    let mut res = CmdResult::default();
    let mut files_out = String::new();
    let mut dirs: Vec<(&str, Vec<String>)> = Vec::new();
    for op in &ops {
        let path = absolute(op);
        if let Some(size) = phone.fs.size(&path) {
            files_out.push_str(&line(op, false, size));
        } else if let Some(names) = phone.fs.list(&path) {
            let mut entries = Vec::new();
            if all {
                entries.push(line(".", true, 4096));
                entries.push(line("..", true, 4096));
            }
            for n in names
                .into_iter()
                .filter(|n| dotfiles || !n.starts_with('.'))
            {
                let child = format!("{}/{n}", path.trim_end_matches('/'));
                let is_dir = phone.fs.is_dir(&child);
                let size = if is_dir {
                    4096
                } else {
                    phone.fs.size(&child).unwrap_or(0)
                };
                entries.push(line(&n, is_dir, size));
            }
            dirs.push((op, entries));
        } else {
            res.err
                .extend_from_slice(format!("ls: {op}: No such file or directory\n").as_bytes());
            res.status = 1;
        }
    }
    let mut out = files_out;
    let several = ops.len() > 1;
    for (i, (name, entries)) in dirs.iter().enumerate() {
        if several {
            if i > 0 || !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&format!("{name}:\n"));
        }
        if long {
            out.push_str(&format!("total {}\n", entries.len() * 8));
        }
        for e in entries {
            out.push_str(e);
        }
    }
    res.out = out.into_bytes();
    res
}

pub fn rm(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    let (flags, ops) = match split_flags("rm", args, "frRv") {
        Ok(v) => v,
        Err(e) => return e,
    };
    let force = flags.contains(&'f');
    let recursive = flags.iter().any(|c| *c == 'r' || *c == 'R');
    if ops.is_empty() && !force {
        return CmdResult::fail_err("rm: Needs 1 argument (see \"rm --help\")\n", 1);
    }
    let mut phone = ctx.phone();
    let mut res = CmdResult::default();
    for op in ops {
        let path = absolute(op);
        if phone.fs.is_dir(&path) && !phone.fs.is_file(&path) {
            if !recursive {
                res.err
                    .extend_from_slice(format!("rm: {op}: Is a directory\n").as_bytes());
                res.status = 1;
                continue;
            }
            phone.fs.remove(&path);
        } else if !phone.fs.remove(&path) && !force {
            res.err
                .extend_from_slice(format!("rm: {op}: No such file or directory\n").as_bytes());
            res.status = 1;
        }
    }
    res
}
