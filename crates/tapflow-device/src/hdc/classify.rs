//! Turning what a transport returned into text or a typed [`DeviceError`].
//!
//! hdc exits 0 on failure, so results are judged by their text: the output is normalised with
//! [`parse::clean_output`], then hdc-level failures (`[Fail]…`, `[Exxxxxx]…`, `[Empty]`) become
//! `NotFound` / `Ambiguous` / `Unauthorized` / `Disconnected` / `ChannelNotReady` /
//! `ServerUnreachable`, or a `Command` error with the operation's code. Transport failures map
//! to `HdcNotFound` (cannot spawn) and `Timeout`. Because real hdc exits 0 on every path, a
//! client that exits otherwise (or dies by a signal) without an hdc failure line is `HdcFailed`:
//! its output is not a device answer. Every error keeps the device's own words. Device-side tool
//! verdicts (`install bundle successfully`, uitest's parameter messages, …) are judged by the
//! caller through [`outcome`].

use crate::error::DeviceError;
use crate::hdc::parse::{self, failure::HdcFailure};
use crate::hdc::route::HdcRoute;
use crate::transport::{Output, TransportError};

/// What a call is, for its error code and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Op {
    /// The project's code when the device refuses (e.g. `INSTALL_FAILED`).
    pub code: tapflow_core::codes::Code,
    /// Human words for the operation (`install`, `UI dump`, …).
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

/// Where hdc-level failure lines are looked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scan {
    /// Every line: for status-like outputs that never legitimately contain such lines.
    Whole,
    /// Only the first and last non-empty lines: for payloads (logs, crash files, layouts) whose
    /// body is the device's data and must not be mistaken for an hdc failure. hdc prints its own
    /// failures instead of (first line) or after (last line, link lost mid-stream) the payload.
    Edges,
    /// No scan: the caller judges the text itself (e.g. `list targets`, where `[Empty]` is an
    /// answer, not a failure) and then calls [`check_text`].
    Skip,
}

/// Maps a transport failure. `command` renders the argv for the message.
pub fn transport_error(err: TransportError, command: &str) -> DeviceError {
    match err {
        TransportError::Spawn { program, detail } => DeviceError::HdcNotFound {
            path: program,
            detail,
        },
        TransportError::Timeout(after) => DeviceError::Timeout {
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

/// Maps an hdc-level failure to its typed error.
pub fn hdc_failure(failure: HdcFailure, route: &HdcRoute, op: &Op) -> DeviceError {
    match failure {
        HdcFailure::NoDevice(says) => DeviceError::NotFound {
            serial: route.label(),
            device_says: says,
        },
        HdcFailure::NeedConnectKey(says) => DeviceError::Ambiguous {
            serials: format!("hdc did not list them; it said: {says}"),
        },
        HdcFailure::Unauthorized(_) => DeviceError::Unauthorized {
            serial: route.label(),
        },
        HdcFailure::Disconnected(says) => DeviceError::Disconnected { device_says: says },
        HdcFailure::ChannelNotReady(says) => DeviceError::ChannelNotReady {
            device_says: says,
            attempts: 1,
        },
        HdcFailure::ServerUnreachable(says) => DeviceError::ServerUnreachable { device_says: says },
        HdcFailure::Other(says) => command_failed(op, says),
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

/// Judges a device tool's verdict (from `parse::outcome`): `Err(words)` becomes `op`'s error.
pub fn outcome<T>(op: &Op, verdict: Result<T, String>) -> Result<T, DeviceError> {
    verdict.map_err(|says| command_failed(op, says))
}

/// Classifies one round trip: cleaned text on success, else the typed error.
pub fn classify(
    result: Result<Output, TransportError>,
    command: &str,
    route: &HdcRoute,
    op: &Op,
    scan: Scan,
) -> Result<String, DeviceError> {
    let output = result.map_err(|e| transport_error(e, command))?;
    let text = parse::clean_output(&output.text());
    if output.status != Some(0) {
        // The client failed: an hdc failure line explains why (wherever it is); otherwise the
        // text is whatever the dying client printed, not the device's answer.
        check_text(&text, route, op, Scan::Whole)?;
        return Err(DeviceError::HdcFailed {
            command: command.to_string(),
            status: output.status,
            output: clip(&text),
        });
    }
    check_text(&text, route, op, scan)?;
    Ok(text)
}

/// At most [`CLIP`] characters of a failed client's output, its end (where the reason is).
fn clip(text: &str) -> String {
    const CLIP: usize = 1000;
    let text = text.trim();
    let n = text.chars().count();
    if n <= CLIP {
        return text.to_string();
    }
    let tail: String = text.chars().skip(n - CLIP).collect();
    format!("…{tail}")
}

/// Looks for an hdc-level failure in already cleaned text.
pub fn check_text(text: &str, route: &HdcRoute, op: &Op, scan: Scan) -> Result<(), DeviceError> {
    match find_failure(text, scan) {
        Some(failure) => Err(hdc_failure(failure, route, op)),
        None => Ok(()),
    }
}

fn find_failure(text: &str, scan: Scan) -> Option<HdcFailure> {
    match scan {
        Scan::Whole => parse::failure::detect_hdc_failure(text),
        Scan::Edges => {
            let mut lines = text.lines().filter(|l| !l.trim().is_empty());
            let first = lines.next()?;
            let last = lines.next_back();
            parse::failure::detect_hdc_failure(first)
                .or_else(|| last.and_then(parse::failure::detect_hdc_failure))
        }
        Scan::Skip => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn out(s: &str) -> Result<Output, TransportError> {
        Ok(Output {
            stdout: s.as_bytes().to_vec(),
            stderr: vec![],
            status: Some(0),
        })
    }

    fn op() -> Op {
        Op::new(tapflow_core::codes::INSTALL_FAILED, "install")
    }

    fn run(s: &str, scan: Scan) -> Result<String, DeviceError> {
        classify(out(s), "hdc x", &HdcRoute::target("SER"), &op(), scan)
    }

    #[test]
    fn spawn_failure_is_hdc_not_found() {
        let e = classify(
            Err(TransportError::Spawn {
                program: "/nope/hdc".into(),
                detail: "No such file or directory (os error 2)".into(),
            }),
            "hdc list targets",
            &HdcRoute::default(),
            &op(),
            Scan::Whole,
        )
        .unwrap_err();
        assert_eq!(e.code(), "HDC_NOT_FOUND");
        assert!(e.to_string().contains("/nope/hdc"));
    }

    #[test]
    fn timeout_keeps_the_command() {
        let e = classify(
            Err(TransportError::Timeout(Duration::from_millis(1500))),
            "hdc -t SER shell 'aa dump -l'",
            &HdcRoute::default(),
            &op(),
            Scan::Whole,
        )
        .unwrap_err();
        assert_eq!(e.code(), "HDC_TIMEOUT");
        assert_eq!(
            e,
            DeviceError::Timeout {
                command: "hdc -t SER shell 'aa dump -l'".into(),
                after: Duration::from_millis(1500)
            }
        );
    }

    #[test]
    fn io_failure_is_host_io() {
        let e = classify(
            Err(TransportError::Io("broken pipe".into())),
            "hdc",
            &HdcRoute::default(),
            &op(),
            Scan::Whole,
        )
        .unwrap_err();
        assert_eq!(e.code(), "HOST_IO_ERROR");
    }

    #[test]
    fn hdc_failures_become_typed_errors() {
        let cases = [
            ("[Fail]No any connected target\n", "DEVICE_NOT_FOUND"),
            (
                "[Fail]ExecuteCommand need connect-key? please confirm a device by help info\n",
                "MULTIPLE_DEVICES",
            ),
            (
                "[E000002]:The device unauthorized.\n",
                "DEVICE_UNAUTHORIZED",
            ),
            (
                "[Fail][E001003] USB communication abnormal, please check the USB communication link.\n",
                "DEVICE_DISCONNECTED",
            ),
            (
                "[Fail]Error opening file: no such file or directory, path:/x.hap\n",
                "INSTALL_FAILED",
            ),
        ];
        for (text, code) in cases {
            let e = run(text, Scan::Whole).unwrap_err();
            assert_eq!(e.code(), code, "{text}");
        }
    }

    #[test]
    fn not_found_carries_the_device_words_and_target() {
        let e = run(
            "[Fail][E001005] Device not found or connected\r\n",
            Scan::Whole,
        )
        .unwrap_err();
        match e {
            DeviceError::NotFound {
                serial,
                device_says,
            } => {
                assert_eq!(serial, "SER");
                assert!(device_says.contains("Device not found or connected"));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn clean_text_passes_with_cr_and_hdc_log_lines_removed() {
        let t = run(
            "[I][2024-05-28 20:15:45] HdcFile::TransferSummary success\r\nFileTransfer finish, Size:1\r\n",
            Scan::Whole,
        )
        .unwrap();
        assert!(!t.contains('\r'));
        assert!(!t.contains("TransferSummary"));
        assert!(t.contains("FileTransfer finish"));
    }

    #[test]
    fn payload_bodies_are_not_mistaken_for_failures() {
        let body = "01-01 00:00:00.000  1  1 I A00000/t: x\n[Fail]quoted in the middle\n01-01 00:00:00.001  1  1 I A00000/t: y\n";
        assert_eq!(run(body, Scan::Edges).unwrap(), body);
        let lost =
            "01-01 00:00:00.000  1  1 I A00000/t: x\n[Fail][E001003] USB communication abnormal\n";
        assert_eq!(
            run(lost, Scan::Edges).unwrap_err().code(),
            "DEVICE_DISCONNECTED"
        );
        assert_eq!(run("", Scan::Edges).unwrap(), "");
    }

    #[test]
    fn transport_answers_are_infrastructure_errors() {
        let e = run(
            "[Fail][E000004]:The communication channel is being established.\r\nPlease wait for several seconds and try again.\r\n",
            Scan::Edges,
        )
        .unwrap_err();
        assert_eq!(e.code(), "HDC_CHANNEL_NOT_READY");
        assert!(!e.is_transient(), "the backend already retried it");
        assert!(e.device_says().unwrap().contains("E000004"));
        let e = run("Connect server failed\n", Scan::Whole).unwrap_err();
        assert_eq!(e.code(), "HDC_SERVER_UNREACHABLE");
        assert!(!e.is_transient());
    }

    #[test]
    fn a_client_that_does_not_exit_0_did_not_answer() {
        let failed = |status, stderr: &str| {
            classify(
                Ok(Output {
                    stdout: vec![],
                    stderr: stderr.as_bytes().to_vec(),
                    status,
                }),
                "hdc -t SER shell 'uitest uiInput click 1 1'",
                &HdcRoute::target("SER"),
                &op(),
                Scan::Skip,
            )
            .unwrap_err()
        };
        let e = failed(
            Some(4),
            "tapflow sim: the simulator daemon sent a malformed answer: connection closed early\n",
        );
        assert_eq!(e.code(), "HDC_FAILED");
        assert!(e.to_string().contains("exit status 4"), "{e}");
        assert!(e.device_says().unwrap().contains("connection closed early"));
        assert!(failed(None, "").to_string().contains("killed by a signal"));
        // hdc's own words still decide when it printed any, whatever its status.
        let e = failed(Some(4), "Connect server failed\nno simulator is running\n");
        assert_eq!(e.code(), "HDC_SERVER_UNREACHABLE");
        let long = "x".repeat(5000);
        assert!(
            failed(Some(1), &long)
                .device_says()
                .unwrap()
                .chars()
                .count()
                <= 1001
        );
    }

    #[test]
    fn outcome_maps_refusals_to_the_op_code() {
        let e =
            outcome::<()>(&op(), Err("code:9568320 error: no signature file.".into())).unwrap_err();
        assert_eq!(e.code(), "INSTALL_FAILED");
        assert_eq!(
            e.device_says(),
            Some("code:9568320 error: no signature file.")
        );
        assert_eq!(outcome(&op(), Ok(3)).unwrap(), 3);
    }
}
