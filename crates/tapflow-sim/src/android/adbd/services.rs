//! The services an OPEN names (`docs/reference/adb-protocol.md` §4): `shell:` (v1: raw bytes, stdout and
//! stderr merged, no exit status), `shell,v2,…:` (packets: stdout 1, stderr 2, exit 3),
//! `exec:` (raw bytes, no status; `cmd package install -S N` reads the streamed APK),
//! `abb_exec:` (NUL-separated `cmd` arguments), `sync:` ([`super::sync`]) and `reboot:`.
//! Anything else is refused with `CLSE(0, id)`. Shell streams are never refused (adb's
//! `uninstall` and `logcat` would retry them forever).
//!
//! Simulated device time is slept after the command ran (the phone is already released).

use std::time::Duration;

use super::shell_v2;
use super::stream::Stream;
use super::sync;
use crate::android::commands::pm::{InstallFlags, install_apk};
use crate::latency::Cost;
use crate::shell::parse;
use tapflow_device::hdc::quote::quote;

pub fn run(mut stream: Stream, name: &str) {
    if let Some(rest) = name.strip_prefix("shell,") {
        // `shell,v2,TERM=xterm,raw:CMD`: options before the first ':'.
        let (opts, cmd) = rest.split_once(':').unwrap_or((rest, ""));
        let v2 = opts.split(',').any(|o| o == "v2");
        let pty = opts.split(',').any(|o| o == "pty");
        stream.accept();
        if v2 {
            shell_v2::serve(stream, cmd, pty);
        } else {
            shell_v1(stream, cmd);
        }
    } else if let Some(cmd) = name.strip_prefix("shell:") {
        stream.accept();
        shell_v1(stream, cmd);
    } else if let Some(cmd) = name.strip_prefix("exec:") {
        stream.accept();
        exec(stream, cmd);
    } else if let Some(args) = name.strip_prefix("abb_exec:") {
        stream.accept();
        let args: Vec<String> = args.split('\0').map(str::to_string).collect();
        abb_exec(stream, &args);
    } else if name == "sync:" {
        stream.accept();
        sync::serve(&mut stream);
        stream.close();
    } else if name.starts_with("reboot:") {
        stream.accept();
        stream.close();
    } else {
        tracing::debug!(target: "tapflow::sim::adbd", service = name, "refused");
        stream.refuse();
    }
}

fn sleep(d: Duration) {
    if !d.is_zero() {
        std::thread::sleep(d);
    }
}

/// `shell:CMD`: the output as raw bytes, then CLSE; no exit status exists in v1.
fn shell_v1(mut stream: Stream, cmd: &str) {
    if cmd.trim().is_empty() {
        let _ = stream.write(b"the simulated device has no interactive shell: pass a command\n");
        stream.close();
        return;
    }
    let device = stream.device().clone();
    // A streaming `logcat` writes as it goes, until the host closes the stream.
    let mut sink = |b: &[u8]| {
        if b.is_empty() {
            stream.is_open()
        } else {
            stream.write(b).is_ok()
        }
    };
    let run = device.run_streaming(cmd, false, Some(&mut sink));
    sleep(run.spent + device.latency().cost(Cost::ShellRoundTrip));
    let _ = stream.write(&run.out);
    stream.close();
}

/// `exec:CMD`: raw bytes with stdout and stderr merged (a raw pty on a real device), or a
/// streamed install.
fn exec(stream: Stream, cmd: &str) {
    if let Some(words) = words_of(cmd)
        && let Some(install) = streamed_install(&words)
    {
        streamed(stream, install);
        return;
    }
    shell_v1(stream, cmd);
}

/// `abb_exec:SERVICE\0ARGS…`: `cmd SERVICE ARGS…`, or a streamed `package install -S N`.
fn abb_exec(stream: Stream, args: &[String]) {
    let args: Vec<String> = args.iter().filter(|a| !a.is_empty()).cloned().collect();
    let mut words = vec!["cmd".to_string()];
    words.extend(args);
    if let Some(install) = streamed_install(&words) {
        streamed(stream, install);
        return;
    }
    let line: Vec<String> = words.iter().map(|w| quote(w)).collect();
    shell_v1(stream, &line.join(" "));
}

/// The words of a command line, as the device shell would split them.
fn words_of(cmd: &str) -> Option<Vec<String>> {
    let script = parse::parse(cmd).ok()?;
    let [(_, c)] = script.commands.as_slice() else {
        return None;
    };
    Some(c.words.iter().map(|w| w.expand(0).0).collect())
}

/// A streamed install: `cmd package install [FLAGS] -S SIZE`.
struct Install {
    size: usize,
    flags: InstallFlags,
}

fn streamed_install(words: &[String]) -> Option<Install> {
    let w: Vec<&str> = words.iter().map(String::as_str).collect();
    if w.len() < 3 || w[0] != "cmd" || w[1] != "package" || w[2] != "install" {
        return None;
    }
    let i = w.iter().position(|x| *x == "-S")?;
    let size = w.get(i + 1)?.parse().ok()?;
    Some(Install {
        size,
        flags: InstallFlags::parse(&w[3..]),
    })
}

/// Reads exactly `size` bytes of APK (there is no end marker), installs, answers `Success` or
/// `Failure […]`, closes.
fn streamed(mut stream: Stream, install: Install) {
    let mut apk = Vec::with_capacity(install.size);
    while apk.len() < install.size {
        match stream.read() {
            Some(d) => apk.extend_from_slice(&d),
            None => return,
        }
    }
    apk.truncate(install.size);
    let device = stream.device().clone();
    let answer = {
        let mut phone = device.phone();
        match install_apk(&mut phone, &apk, install.flags) {
            Ok(_) => "Success\n".to_string(),
            Err(f) => format!("{f}\n"),
        }
    };
    let l = device.latency();
    sleep(l.cost(Cost::Install) + l.cost(Cost::Transfer(install.size as u64)));
    let _ = stream.write(answer.as_bytes());
    stream.close();
}
