//! The hdc client's command line: global options (`-t KEY`, `-s HOST:PORT`, `-l N`), the
//! sub-commands the simulator serves, and how `hdc shell` turns argv into the daemon's
//! `sh -c` string.
//!
//! Shell joining follows hdc: the client joins every argv element after `shell` with spaces,
//! wrapping an element that contains a space in `"…"` *without escaping*; the daemon trims
//! surrounding whitespace and strips one pair of outer double quotes. So a whole command passed
//! as one element arrives intact, and several tokens arrive joined.

/// A parsed hdc invocation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invocation {
    /// `-t KEY`
    pub target: Option<String>,
    /// `-s [HOST:]PORT`
    pub server: Option<String>,
    pub command: HdcCommand,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HdcCommand {
    ListTargets {
        verbose: bool,
    },
    Version,
    CheckServer,
    Help,
    /// `hdc shell <cmd…>`: the string the daemon runs with `sh -c`.
    Shell(String),
    /// `hdc shell` with no command (interactive).
    InteractiveShell,
    FileSend {
        local: String,
        remote: String,
    },
    FileRecv {
        remote: String,
        local: String,
    },
    Install {
        replace: bool,
        packages: Vec<String>,
    },
    Uninstall {
        keep_data: bool,
        bundle: String,
    },
    /// `hdc hilog` (options other than `-h` are ignored by the daemon).
    Hilog,
    /// `hdc wait`: returns once a device is connected.
    Wait,
    /// `hdc start` / `hdc kill`: server management.
    StartServer,
    KillServer,
    /// A command the client itself rejects; the text is what it prints.
    Rejected(String),
}

/// Joins `hdc shell` argv like the hdc client, then trims like the daemon (`ShellCmdTrim`).
pub fn shell_command_string(args: &[String]) -> String {
    let joined = args
        .iter()
        .map(|a| {
            if a.contains(' ') {
                format!("\"{a}\"")
            } else {
                a.clone()
            }
        })
        .collect::<Vec<_>>()
        .join(" ");
    daemon_trim(&joined)
}

/// The daemon trims whitespace and strips one pair of surrounding double quotes.
fn daemon_trim(s: &str) -> String {
    let t = s.trim();
    if t.len() >= 2 && t.starts_with('"') && t.ends_with('"') {
        t[1..t.len() - 1].to_string()
    } else {
        t.to_string()
    }
}

const UNKNOWN: &str = "[Fail]Unknown command...";

/// Parses the client argv (program name excluded).
pub fn parse(argv: &[String]) -> Invocation {
    let mut target = None;
    let mut server = None;
    let mut i = 0;
    let rejected = |t: &str, target, server| Invocation {
        target,
        server,
        command: HdcCommand::Rejected(t.to_string()),
    };
    // Global options come before the sub-command.
    while i < argv.len() {
        let a = argv[i].as_str();
        match a {
            "-t" | "-s" => {
                let Some(v) = argv.get(i + 1) else {
                    return rejected(
                        &format!("[Fail]{a} option requires a value"),
                        target,
                        server,
                    );
                };
                if a == "-t" {
                    target = Some(v.clone());
                } else {
                    server = Some(v.clone());
                }
                i += 2;
            }
            _ if a.starts_with("-t") && a.len() > 2 => {
                target = Some(a[2..].to_string());
                i += 1;
            }
            _ if a.starts_with("-l") && a[2..].chars().all(|c| c.is_ascii_digit()) => {
                i += if a.len() == 2 { 2 } else { 1 };
            }
            "-p" => i += 1,
            "-m" | "-e" => {
                return rejected(
                    &format!("[Fail]the simulated hdc does not support the server option {a}"),
                    target,
                    server,
                );
            }
            _ => break,
        }
    }
    let rest = &argv[i..];
    let words: Vec<&str> = rest.iter().map(String::as_str).collect();
    let command = match words.as_slice() {
        [] | ["-h"] | ["help"] | ["-h", ..] | ["help", ..] => HdcCommand::Help,
        ["-v"] | ["version"] => HdcCommand::Version,
        ["checkserver"] => HdcCommand::CheckServer,
        ["list", "targets"] => HdcCommand::ListTargets { verbose: false },
        ["list", "targets", "-v"] => HdcCommand::ListTargets { verbose: true },
        ["shell"] => HdcCommand::InteractiveShell,
        ["shell", ..] => HdcCommand::Shell(shell_command_string(&rest[1..])),
        ["file", dir @ ("send" | "recv"), ..] => parse_file(dir, &rest[2..]),
        ["install", ..] => parse_install(&rest[1..]),
        ["uninstall", ..] => parse_uninstall(&rest[1..]),
        ["hilog", ..] => HdcCommand::Hilog,
        ["wait"] | ["wait-for-device"] => HdcCommand::Wait,
        ["start"] | ["start", "-r"] => HdcCommand::StartServer,
        ["kill"] | ["kill", "-r"] => HdcCommand::KillServer,
        _ => HdcCommand::Rejected(UNKNOWN.to_string()),
    };
    Invocation {
        target,
        server,
        command,
    }
}

fn parse_file(dir: &str, args: &[String]) -> HdcCommand {
    let mut paths = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-a" | "-sync" | "-z" | "-m" => {}
            "-cwd" => {
                it.next();
            }
            "-b" => {
                return HdcCommand::Rejected(
                    "[Fail]the simulated device has no debuggable app sandboxes (-b)".into(),
                );
            }
            _ => paths.push(a.clone()),
        }
    }
    let [a, b] = paths.as_slice() else {
        return HdcCommand::Rejected("[Fail]There is no local and remote path".into());
    };
    if dir == "send" {
        HdcCommand::FileSend {
            local: a.clone(),
            remote: b.clone(),
        }
    } else {
        HdcCommand::FileRecv {
            remote: a.clone(),
            local: b.clone(),
        }
    }
}

fn parse_install(args: &[String]) -> HdcCommand {
    let mut replace = false;
    let mut packages = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-r" => replace = true,
            "-s" | "-g" | "-d" => {}
            "-cwd" | "-w" | "-u" | "-p" => {
                it.next();
            }
            // Options with their value quoted together (`"-w 180"`).
            s if s.starts_with('-') && s.contains(' ') => {}
            s if s.starts_with('-') => {
                return HdcCommand::Rejected(format!("[Fail]Unknown install option {s}"));
            }
            _ => packages.push(a.clone()),
        }
    }
    if packages.is_empty() {
        return HdcCommand::Rejected("[Fail]Not any installation package was found".into());
    }
    HdcCommand::Install { replace, packages }
}

fn parse_uninstall(args: &[String]) -> HdcCommand {
    let mut keep_data = false;
    let mut bundles = Vec::new();
    for a in args {
        match a.as_str() {
            "-k" => keep_data = true,
            "-s" => {}
            _ => bundles.push(a.clone()),
        }
    }
    match bundles.as_slice() {
        [b] => HdcCommand::Uninstall {
            keep_data,
            bundle: b.clone(),
        },
        _ => HdcCommand::Rejected("[Fail]Incorrect command, please check the command".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn shell_join_one_string_vs_tokens() {
        // One element with spaces: wrapped by the client, unwrapped by the daemon.
        assert_eq!(
            shell_command_string(&v(&["echo 'a b' && ls"])),
            "echo 'a b' && ls"
        );
        // Several tokens: joined; elements with spaces get quotes without escaping.
        assert_eq!(shell_command_string(&v(&["echo", "a b"])), "echo \"a b\"");
        assert_eq!(shell_command_string(&v(&["echo", "x", "y"])), "echo x y");
        // First and last quoted: the daemon strips only the outer pair.
        assert_eq!(shell_command_string(&v(&["a b", "c d"])), "a b\" \"c d");
        // An element holding a double quote is not escaped: the raw text reaches sh.
        assert_eq!(
            shell_command_string(&v(&["echo", "say \"hi\""])),
            "echo \"say \"hi\"\""
        );
    }

    #[test]
    fn globals_and_commands() {
        let i = parse(&v(&["-t", "KEY", "-s", "127.0.0.1:8710", "shell", "ls"]));
        assert_eq!(i.target.as_deref(), Some("KEY"));
        assert_eq!(i.server.as_deref(), Some("127.0.0.1:8710"));
        assert_eq!(i.command, HdcCommand::Shell("ls".into()));
        assert_eq!(
            parse(&v(&["list", "targets", "-v"])).command,
            HdcCommand::ListTargets { verbose: true }
        );
        assert_eq!(parse(&v(&["-v"])).command, HdcCommand::Version);
        assert_eq!(
            parse(&v(&["install", "-r", "a.hap"])).command,
            HdcCommand::Install {
                replace: true,
                packages: vec!["a.hap".into()]
            }
        );
        assert_eq!(
            parse(&v(&["file", "recv", "/r", "l"])).command,
            HdcCommand::FileRecv {
                remote: "/r".into(),
                local: "l".into()
            }
        );
        assert!(matches!(
            parse(&v(&["frobnicate"])).command,
            HdcCommand::Rejected(_)
        ));
        assert!(matches!(
            parse(&v(&["-t"])).command,
            HdcCommand::Rejected(_)
        ));
        assert_eq!(parse(&v(&["shell"])).command, HdcCommand::InteractiveShell);
    }
}
