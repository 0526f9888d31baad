//! Turning what one `adb` invocation returned into an [`Answer`] or a typed [`DeviceError`].
//!
//! The adb client's own failures are recognised by their words, never by the exit status alone
//! (`adb connect` fails with 0; `push`/`pull` print their failures on stdout; `exec-out` exits
//! 255 and `shell` 1 for the same missing device; under shell protocol v2 a non-zero status is
//! the *device* command's). Newer platform-tools prefix some messages with `adb: ` instead of
//! `error: `, so the tails are matched. What the device program said is judged by the caller.

use crate::error::DeviceError;
use crate::transport::{Output, TransportError};

/// What a call is, for its error code and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Op {
    /// The project's code when the device refuses (e.g. `INSTALL_FAILED`).
    pub code: tapflow_core::codes::Code,
    /// Human words for the operation.
    pub what: String,
}

impl Op {
    pub fn new(code: tapflow_core::codes::Code, what: impl Into<String>) -> Self {
        Self {
            code,
            what: what.into(),
        }
    }
}

/// Code of an adb client that cannot reach (or start) its server.
pub use tapflow_core::codes::ADB_SERVER_UNREACHABLE;

/// Where the adb client prints its own failures for this kind of call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Streams {
    /// stderr only: device programs own stdout (`shell`, `exec-out`).
    Stderr,
    /// stderr and stdout: `push`, `pull`, `install` print `adb: error: …` on stdout.
    Both,
}

/// One adb invocation's answer, after the client's own failures were ruled out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// stdout bytes exactly as received (binary payloads: PNG, pulled files).
    pub raw: Vec<u8>,
    /// stdout as text with every `\r` removed (pre-7 devices answer `shell` through a pty that
    /// turns `\n` into `\r\n`).
    pub stdout: String,
    /// stderr as text, `\r` removed. Under shell protocol v2 it is the device command's stderr.
    pub stderr: String,
    /// The exit status: the device command's under shell protocol v2, adb's own otherwise.
    pub status: Option<i32>,
}

impl Answer {
    pub fn from_output(out: Output) -> Self {
        let stdout = strip_cr(&String::from_utf8_lossy(&out.stdout));
        let stderr = strip_cr(&String::from_utf8_lossy(&out.stderr));
        Self {
            raw: out.stdout,
            stdout,
            stderr,
            status: out.status,
        }
    }

    /// stdout then stderr (what a terminal would show), for messages.
    pub fn text(&self) -> String {
        let mut s = self.stdout.clone();
        if !self.stderr.is_empty() {
            if !s.is_empty() && !s.ends_with('\n') {
                s.push('\n');
            }
            s.push_str(&self.stderr);
        }
        s
    }
}

fn strip_cr(s: &str) -> String {
    if s.contains('\r') {
        s.replace('\r', "")
    } else {
        s.to_string()
    }
}

/// A failure of the adb client or server itself (the device command never ran, or the link
/// to the device broke while it ran).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AdbFailure {
    /// `device 'X' not found`, `no devices/emulators found`, `- waiting for device -`.
    NoDevice(String),
    /// `more than one device/emulator`.
    Ambiguous(String),
    /// `device offline`: the transport exists but the device does not answer.
    Offline(String),
    /// `device unauthorized`, `device still authorizing`.
    Unauthorized(String),
    /// `error: closed`, `protocol fault`, `connection reset`: the device dropped the stream or
    /// the connection.
    Closed(String),
    /// The client cannot reach or start its server.
    Server(String),
}

/// Whether `line` is adb's answer to a stream the device refused to open (`CLSE` in answer to
/// `OPEN`, docs/reference/adb-protocol.md §5): `error: closed` (`shell`, `exec-out`) or `adb: error: connect
/// failed: closed` (`push`, `pull`). The service never started, so the command never ran. A
/// stream closed later (`device closed the connection`, `protocol fault`, `connection reset`)
/// is not one: the command may have run.
pub fn is_refused_open(line: &str) -> bool {
    let l = line.trim();
    let body = l
        .strip_prefix("adb: error: ")
        .or_else(|| l.strip_prefix("error: "));
    let body = body.map(|b| b.strip_prefix("connect failed: ").unwrap_or(b));
    body == Some("closed")
}

/// Recognises one line of adb's own failure output.
pub fn detect_line(line: &str) -> Option<AdbFailure> {
    let l = line.trim();
    if l.is_empty() {
        return None;
    }
    let owned = || l.to_string();
    // Only adb's own prefixes count: a device program may print anything after them.
    let body = l
        .strip_prefix("adb: error: ")
        .or_else(|| l.strip_prefix("error: "))
        .or_else(|| l.strip_prefix("adb: "))
        .or_else(|| l.strip_prefix("* "));
    if l == "- waiting for device -" {
        return Some(AdbFailure::NoDevice(owned()));
    }
    let body = body?;
    // `failed to get feature set: <reason>` wraps the real reason.
    let body = body
        .strip_prefix("failed to get feature set: ")
        .or_else(|| body.strip_prefix("connect failed: "))
        .unwrap_or(body);
    let is_device_not_found = body.starts_with("device '") && body.ends_with("' not found");
    if is_device_not_found || body == "no devices/emulators found" || body == "no devices found" {
        return Some(AdbFailure::NoDevice(owned()));
    }
    if body.starts_with("more than one device") {
        return Some(AdbFailure::Ambiguous(owned()));
    }
    if body == "device offline" {
        return Some(AdbFailure::Offline(owned()));
    }
    if body.starts_with("device unauthorized") || body.starts_with("device still authorizing") {
        return Some(AdbFailure::Unauthorized(owned()));
    }
    if body == "closed"
        || body.starts_with("protocol fault")
        || body.starts_with("connection reset")
        || body == "device closed the connection"
    {
        return Some(AdbFailure::Closed(owned()));
    }
    if body.starts_with("cannot connect to daemon")
        || body.starts_with("failed to start daemon")
        || body.starts_with("cannot start server on remote host")
        || body.starts_with("daemon not running") && body.contains("failed")
    {
        return Some(AdbFailure::Server(owned()));
    }
    None
}

/// The first adb failure in `text`, scanning every line.
pub fn detect(text: &str) -> Option<AdbFailure> {
    text.lines().find_map(detect_line)
}

/// Maps an adb-level failure to its typed error.
pub fn failure_error(failure: AdbFailure, serial: &str) -> DeviceError {
    match failure {
        AdbFailure::NoDevice(says) => DeviceError::NotFound {
            serial: serial.to_string(),
            device_says: says,
        },
        AdbFailure::Ambiguous(says) => DeviceError::Ambiguous {
            serials: format!("adb did not say which; it said: {says}"),
        },
        AdbFailure::Offline(says) | AdbFailure::Closed(says) => {
            DeviceError::Disconnected { device_says: says }
        }
        AdbFailure::Unauthorized(_) => DeviceError::Unauthorized {
            serial: serial.to_string(),
        },
        AdbFailure::Server(says) => DeviceError::Command {
            code: ADB_SERVER_UNREACHABLE,
            what: "reaching the adb server".into(),
            device_says: says,
        },
    }
}

/// Maps a transport failure. `command` renders the argv for the message.
pub fn transport_error(err: TransportError, command: &str) -> DeviceError {
    match err {
        TransportError::Spawn { program, detail } => DeviceError::AdbNotFound {
            path: program,
            detail,
        },
        TransportError::Timeout(after) => DeviceError::AdbTimeout {
            command: command.to_string(),
            after,
        },
        TransportError::Io(detail) => DeviceError::Io {
            what: format!("running `{command}`"),
            detail,
        },
        TransportError::Abandoned => DeviceError::Io {
            what: "cancelled".into(),
            detail: format!(
                "the call was cancelled while `{command}` ran: it was stopped, its answer discarded"
            ),
        },
    }
}

/// Classifies one round trip: the answer, or the typed error of adb's own failure.
pub fn classify(
    result: Result<Output, TransportError>,
    command: &str,
    serial: &str,
    streams: Streams,
) -> Result<Answer, DeviceError> {
    let answer = Answer::from_output(result.map_err(|e| transport_error(e, command))?);
    let found = detect(&answer.stderr).or_else(|| match streams {
        Streams::Both => detect(&answer.stdout),
        Streams::Stderr => None,
    });
    match found {
        Some(f) => Err(failure_error(f, serial)),
        None => Ok(answer),
    }
}

/// The device refused `op`, in its own words.
pub fn command_failed(op: &Op, device_says: impl Into<String>) -> DeviceError {
    DeviceError::Command {
        code: op.code,
        what: op.what.clone(),
        device_says: device_says.into(),
    }
}

/// Judges a device program's verdict: `Err(words)` becomes `op`'s error.
pub fn outcome<T>(op: &Op, verdict: Result<T, String>) -> Result<T, DeviceError> {
    verdict.map_err(|says| command_failed(op, says))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn out(stdout: &str, stderr: &str, status: i32) -> Result<Output, TransportError> {
        Ok(Output {
            stdout: stdout.as_bytes().to_vec(),
            stderr: stderr.as_bytes().to_vec(),
            status: Some(status),
        })
    }

    fn code(r: Result<Answer, DeviceError>) -> tapflow_core::codes::Code {
        r.unwrap_err().code()
    }

    /// Every no-device text measured with adb 29.0.6 (docs/reference/adb.md §2).
    #[test]
    fn measured_client_failures_are_typed() {
        let cases = [
            ("", "error: device 'x' not found\n", 1, "DEVICE_NOT_FOUND"),
            (
                "",
                "error: no devices/emulators found\n",
                255,
                "DEVICE_NOT_FOUND",
            ),
            ("", "adb: device 'x' not found\n", 1, "DEVICE_NOT_FOUND"),
            (
                "",
                "error: more than one device/emulator\n",
                1,
                "MULTIPLE_DEVICES",
            ),
            ("", "error: device offline\n", 1, "DEVICE_DISCONNECTED"),
            ("", "error: closed\n", 255, "DEVICE_DISCONNECTED"),
            (
                "",
                "error: device unauthorized.\nThis adb server's $ADB_VENDOR_KEYS is not set\n",
                1,
                "DEVICE_UNAUTHORIZED",
            ),
            (
                "",
                "* cannot start server on remote host\nerror: cannot connect to daemon at tcp:127.0.0.1:5038: Connection refused\n",
                1,
                "ADB_SERVER_UNREACHABLE",
            ),
            (
                "",
                "error: no devices/emulators found\n- waiting for device -\n",
                1,
                "DEVICE_NOT_FOUND",
            ),
        ];
        for (o, e, s, want) in cases {
            assert_eq!(
                code(classify(out(o, e, s), "adb x", "S", Streams::Stderr)),
                want,
                "{e}"
            );
        }
    }

    #[test]
    fn transfer_failures_on_stdout_are_seen_only_for_transfers() {
        let text = "adb: error: failed to get feature set: no devices/emulators found\n";
        assert_eq!(
            code(classify(out(text, "", 1), "adb pull", "S", Streams::Both)),
            "DEVICE_NOT_FOUND"
        );
        let text = "adb: error: connect failed: closed\n";
        assert_eq!(
            code(classify(out(text, "", 1), "adb push", "S", Streams::Both)),
            "DEVICE_DISCONNECTED"
        );
        // A device program printing the same words on stdout is data, not adb's failure.
        let a = classify(out(text, "", 0), "adb shell cat f", "S", Streams::Stderr).unwrap();
        assert_eq!(a.stdout, text);
    }

    #[test]
    fn device_program_output_is_not_mistaken_and_cr_is_stripped() {
        let a = classify(
            out("hi\r\nthere\r\n", "sh: x: not found\r\n", 127),
            "adb shell",
            "S",
            Streams::Stderr,
        )
        .unwrap();
        assert_eq!(a.stdout, "hi\nthere\n");
        assert_eq!(a.stderr, "sh: x: not found\n");
        assert_eq!(a.status, Some(127));
        assert_eq!(a.raw, b"hi\r\nthere\r\n");
        // "error:" from a device program without one of adb's known tails is not adb's.
        assert!(
            classify(
                out("", "error: bad option\n", 1),
                "adb",
                "S",
                Streams::Stderr
            )
            .is_ok()
        );
    }

    #[test]
    fn transport_failures() {
        let e = classify(
            Err(TransportError::Spawn {
                program: "/nope/adb".into(),
                detail: "No such file or directory (os error 2)".into(),
            }),
            "adb devices -l",
            "",
            Streams::Stderr,
        )
        .unwrap_err();
        assert_eq!(e.code(), "ADB_NOT_FOUND");
        assert!(e.to_string().contains("/nope/adb"));
        let e = classify(
            Err(TransportError::Timeout(Duration::from_millis(1500))),
            "adb -s S shell 'logcat -d'",
            "S",
            Streams::Stderr,
        )
        .unwrap_err();
        assert_eq!(e.code(), "ADB_TIMEOUT");
        assert!(e.is_transient());
    }

    #[test]
    fn only_a_refused_open_is_a_refusal() {
        assert!(is_refused_open("error: closed"));
        assert!(is_refused_open("adb: error: connect failed: closed\n"));
        assert!(!is_refused_open("error: device closed the connection"));
        assert!(!is_refused_open(
            "error: protocol fault (couldn't read status): Success"
        ));
        assert!(!is_refused_open("closed"));
        assert!(!is_refused_open(
            "adb: failed to run abb_exec. Error: closed"
        ));
    }
}
