//! hdc-level failures, recognised from text (hdc exits 0 on failure).
//!
//! Only lines hdc itself writes count: `[Fail]…`, `[Exxxxxx]…` (newer builds put an error code
//! first), a bare `[Empty]`, and the client's `Connect server failed` (printed without a prefix
//! when the client cannot reach its server). Device tool output (`error: …` from bm/aa) is not an
//! hdc failure; [`super::outcome`] classifies that per command.
//!
//! Two answers prove that the command never reached the device, because the hdc server (or the
//! client) gives them before forwarding anything (hdc `src/host/server_for_client.cpp`
//! `FindAliveSessionFromDaemonMap`, `src/host/client.cpp` `CommandWorker`):
//! `[Fail][E000004]:The communication channel is being established.` + `Please wait for several
//! seconds and try again.` (the session's handshake is not done yet), and `Connect server failed`.
//! [`never_delivered`] recognises an output that consists of the first one only, the one answer
//! the backend may safely send again.

/// What went wrong at the hdc level, before any device tool ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HdcFailure {
    /// `[Fail]No any connected target`, `[Fail][E001005] Device not found or connected`, `[Empty]`.
    NoDevice(String),
    /// `[Fail]ExecuteCommand need connect-key? …`: several devices, none chosen.
    NeedConnectKey(String),
    /// `[E000002]:The device unauthorized.` / `Unauthorized`.
    Unauthorized(String),
    /// USB/TCP link broke (`[Fail][E001003] USB communication abnormal…`, connection reset/closed).
    Disconnected(String),
    /// `[Fail][E000004]:The communication channel is being established.`: the hdc server's
    /// session with the device has not finished its handshake; nothing was forwarded.
    ChannelNotReady(String),
    /// `Connect server failed`: the hdc client could not reach its server; nothing was sent.
    ServerUnreachable(String),
    /// Any other `[Fail]…` / `[Exxxxxx]…` line.
    Other(String),
}

impl HdcFailure {
    /// hdc's own words (the failing line, trimmed).
    pub fn message(&self) -> &str {
        match self {
            HdcFailure::NoDevice(m)
            | HdcFailure::NeedConnectKey(m)
            | HdcFailure::Unauthorized(m)
            | HdcFailure::Disconnected(m)
            | HdcFailure::ChannelNotReady(m)
            | HdcFailure::ServerUnreachable(m)
            | HdcFailure::Other(m) => m,
        }
    }
}

/// Looks at cleaned output (see [`super::clean_output`]) for an hdc-level failure.
///
/// The first failing line decides; its text (trimmed) is carried verbatim.
pub fn detect_hdc_failure(text: &str) -> Option<HdcFailure> {
    super::lines(text).find_map(classify_line)
}

/// hdc's follow-up line to `[E000004]`.
const PLEASE_WAIT: &str = "Please wait for several seconds and try again.";

/// True when cleaned output is hdc's "channel is being established" answer and nothing else
/// (blank lines and hdc's `Please wait…` line aside): the server refused before forwarding the
/// command, so sending it again cannot run it twice. Any other text, before or after, means
/// something may have run, and the answer is not retried.
pub fn never_delivered(text: &str) -> bool {
    let mut lines = super::lines(text);
    matches!(
        lines.next().and_then(classify_line),
        Some(HdcFailure::ChannelNotReady(_))
    ) && lines.all(|l| l == PLEASE_WAIT)
}

fn classify_line(line: &str) -> Option<HdcFailure> {
    if line == "[Empty]" {
        return Some(HdcFailure::NoDevice(line.to_string()));
    }
    // The client writes this one to stderr without any prefix (the simulator adds `[Fail]`).
    if line == "Connect server failed" {
        return Some(HdcFailure::ServerUnreachable(line.to_string()));
    }
    if !(line.starts_with("[Fail]") || starts_with_error_code(line)) {
        return None;
    }
    let lower = line.to_ascii_lowercase();
    let has = |needle: &str| lower.contains(needle);
    let owned = line.to_string();
    Some(
        if has("e000004") || has("communication channel is being established") {
            HdcFailure::ChannelNotReady(owned)
        } else if has("connect server failed") {
            HdcFailure::ServerUnreachable(owned)
        } else if has("no any connected target")
            // `device not found` also matches older builds' `Device not founded or connected`;
            // `Not match target founded` is what `-t <unknown key>` gets.
            || has("e001005")
            || has("device not found")
            || has("not match target")
        {
            HdcFailure::NoDevice(owned)
        } else if has("need connect-key") {
            HdcFailure::NeedConnectKey(owned)
        } else if has("e000002") || has("unauthorized") {
            HdcFailure::Unauthorized(owned)
        } else if has("e001003")
            || has("communication abnormal")
            || has("connection reset")
            || has("connection closed")
            || has("connection lost")
            || has("disconnected")
            || has("failed to communicate with daemon")
        {
            HdcFailure::Disconnected(owned)
        } else {
            HdcFailure::Other(owned)
        },
    )
}

/// `[E` + six digits + `]` at the start of the line (`[E000002]:…`, `[E003001] …`).
fn starts_with_error_code(line: &str) -> bool {
    let b = line.as_bytes();
    b.len() >= 9 && b.starts_with(b"[E") && b[2..8].iter().all(u8::is_ascii_digit) && b[8] == b']'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_device_forms() {
        for text in [
            "[Fail]No any connected target\n",
            "[Fail][E001005] Device not found or connected",
            "[Fail]Device not founded or connected",
            "[Fail]Not match target founded, check connect-key please",
            "[Empty]\n",
        ] {
            assert_eq!(
                detect_hdc_failure(text),
                Some(HdcFailure::NoDevice(text.trim().to_string())),
                "{text}"
            );
        }
    }

    #[test]
    fn need_connect_key() {
        let t = "[Fail]ExecuteCommand need connect-key? please confirm a device by help info";
        assert_eq!(
            detect_hdc_failure(t),
            Some(HdcFailure::NeedConnectKey(t.into()))
        );
    }

    #[test]
    fn unauthorized() {
        let t = "[E000002]:The device unauthorized.\n";
        assert_eq!(
            detect_hdc_failure(t),
            Some(HdcFailure::Unauthorized(
                "[E000002]:The device unauthorized.".into()
            ))
        );
    }

    #[test]
    fn disconnected_forms() {
        for t in [
            "[Fail][E001003] USB communication abnormal, please check the USB communication link.",
            "[Fail]Connection reset by peer",
            "[Fail]connection closed",
            "[Fail]Failed to communicate with daemon",
        ] {
            assert_eq!(
                detect_hdc_failure(t),
                Some(HdcFailure::Disconnected(t.into())),
                "{t}"
            );
        }
    }

    #[test]
    fn other_fail_and_code_lines() {
        let t = "[Fail]Error opening file: no such file or directory, path:/data/x";
        assert_eq!(detect_hdc_failure(t), Some(HdcFailure::Other(t.into())));
        let t = "[E003001] Invalid bundle name: a b";
        assert_eq!(detect_hdc_failure(t), Some(HdcFailure::Other(t.into())));
        assert_eq!(
            detect_hdc_failure("[Fail]Connect failed")
                .unwrap()
                .message(),
            "[Fail]Connect failed"
        );
    }

    /// hdc's real words (`src/host/server_for_client.cpp`, `src/host/client.cpp`), as cleaned
    /// output (no `\r`) and as the simulator prints them.
    #[test]
    fn transport_answers_that_prove_nothing_was_sent() {
        let channel = "[Fail][E000004]:The communication channel is being established.\nPlease wait for several seconds and try again.\n";
        assert_eq!(
            detect_hdc_failure(channel),
            Some(HdcFailure::ChannelNotReady(
                "[Fail][E000004]:The communication channel is being established.".into()
            ))
        );
        assert!(never_delivered(channel));
        assert!(never_delivered(
            "[Fail][E000004]:The communication channel is being established.\n"
        ));
        for t in ["Connect server failed\n", "[Fail]Connect server failed\n"] {
            assert_eq!(
                detect_hdc_failure(t),
                Some(HdcFailure::ServerUnreachable(t.trim().into())),
                "{t}"
            );
        }
    }

    #[test]
    fn a_channel_answer_mixed_with_other_output_may_have_run() {
        for t in [
            // Something ran before hdc printed it, or after it: the fate is unknown.
            "No Error\n[Fail][E000004]:The communication channel is being established.\n",
            "[Fail][E000004]:The communication channel is being established.\nNo Error\n",
            "[Fail]Connect server failed\n",
            "[Fail][E001003] USB communication abnormal\n",
            "",
        ] {
            assert!(!never_delivered(t), "{t}");
        }
    }

    #[test]
    fn first_failure_after_normal_lines_is_found() {
        let t = "some output\n[Fail]No any connected target\n[Fail]other\n";
        assert!(matches!(
            detect_hdc_failure(t),
            Some(HdcFailure::NoDevice(_))
        ));
    }

    #[test]
    fn normal_output_is_not_a_failure() {
        for t in [
            "",
            "start ability successfully.\n",
            "[Info]App install path:/x.hap, queuesize:0, msg:error: failed to install bundle. code:9568320 error: no signature file.\nAppMod finish\n",
            "error: failed to get information and the parameters may be wrong.",
            "[E12]short",
            "[Empty] but more",
            "127.0.0.1:5555\nFMR0223C13000649\n",
        ] {
            assert_eq!(detect_hdc_failure(t), None, "{t}");
        }
    }
}
