//! The one gate every log line passes on its way to stderr: the subscriber's writer
//! ([`LogGate`], a `tracing_subscriber` `MakeWriter`), whatever formatter made the line (text,
//! JSON), whatever backend or dependency logged it.
//!
//! `tracing_subscriber::fmt` formats each event whole into a buffer and writes it with one
//! `write_all` to a writer it makes for that event; the writer made here keeps what it is
//! given and, when the event is done (dropped), writes it:
//!
//! 1. **masked** with every secret the process's runs registered (`run::mask::gate`), in every
//!    form the masker knows: the whole record at once, so a secret a formatter quoted or
//!    `{:?}`-escaped is found in the form it has there; a JSON record as JSON values (decoded,
//!    masked, written again), so its syntax survives any secret;
//! 2. **inert** for CI (`report::github::inert`): a line break inside the record (device text
//!    in a field) is shown as `\n`, so no device text starts a line; `##[` is escaped.

use std::io::{self, Write};

use tracing_subscriber::fmt::MakeWriter;

use crate::report::github::{inert, inert_json};
use crate::run::Masker;
use crate::run::mask::gate;

/// Makes one [`GateWriter`] per event, writing to stderr.
#[derive(Clone, Copy)]
pub struct LogGate {
    /// Records are JSON objects (`--log-format json`).
    pub json: bool,
}

impl<'a> MakeWriter<'a> for LogGate {
    type Writer = GateWriter<io::Stderr>;

    fn make_writer(&'a self) -> Self::Writer {
        GateWriter::new(io::stderr(), self.json, gate::masker())
    }
}

/// Collects one record; masks it, makes it inert and writes it when dropped.
pub struct GateWriter<W: Write> {
    inner: W,
    json: bool,
    masker: Masker,
    record: Vec<u8>,
}

impl<W: Write> GateWriter<W> {
    /// `masker`: every secret registered when the event was logged ([`gate::masker`]).
    pub fn new(inner: W, json: bool, masker: Masker) -> Self {
        GateWriter {
            inner,
            json,
            masker,
            record: Vec::new(),
        }
    }

    /// The record as it is written: masked, then inert, ending with its one line break. A JSON
    /// record is masked as JSON values (its decoded strings and keys, as `result.json` is), so
    /// masking never breaks its syntax, whatever a secret holds (`"`, `\`, `:`).
    fn gated(&self) -> Vec<u8> {
        if self.json
            && let Ok(mut v) = serde_json::from_slice::<serde_json::Value>(&self.record)
        {
            self.masker.mask_value(&mut v);
            let mut out = inert_json(&v.to_string()).into_owned().into_bytes();
            out.push(b'\n');
            return out;
        }
        let masked = self.masker.bytes(&self.record);
        let text = String::from_utf8_lossy(&masked);
        let body = text.strip_suffix('\n').unwrap_or(&text);
        let body = if self.json {
            inert_json(body)
        } else {
            inert(body)
        };
        let mut out = body.into_owned().into_bytes();
        out.push(b'\n');
        out
    }
}

impl<W: Write> Write for GateWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.record.extend_from_slice(buf);
        Ok(buf.len())
    }

    /// The record is written whole when the event is done, never in parts.
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl<W: Write> Drop for GateWriter<W> {
    fn drop(&mut self) {
        if self.record.is_empty() {
            return;
        }
        let out = self.gated();
        // Nowhere to report a failed write to stderr.
        let _ = self.inner.write_all(&out).and_then(|()| self.inner.flush());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn through_gate(record: &str, json: bool) -> String {
        let mut out = Vec::new();
        {
            let mut w = GateWriter::new(&mut out, json, gate::masker());
            // In pieces, as a formatter may write: masked as one record all the same.
            let (a, b) = record.split_at(record.len() / 2);
            w.write_all(a.as_bytes()).unwrap();
            w.write_all(b.as_bytes()).unwrap();
        }
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn a_record_is_masked_whole_and_made_inert() {
        gate::register(["gate-writer-S3cret"]);
        let line = "DEBUG tapflow::adb: argv=[\"input text 'gate-writer-S3cret'\"] said=x\n::warning::forged\n";
        assert_eq!(
            through_gate(line, false),
            "DEBUG tapflow::adb: argv=[\"input text '******'\"] said=x\\n::warning::forged\n"
        );
        let json = "{\"fields\":{\"m\":\"gate-writer-S3cret ##[stop-commands]\"}}\n";
        assert_eq!(
            through_gate(json, true),
            "{\"fields\":{\"m\":\"****** ##\\u005bstop-commands]\"}}\n"
        );
    }

    /// A one-character secret masks that character everywhere; in a JSON record only inside
    /// its strings, so the record stays JSON. Masked stretches that touch are one mask.
    #[test]
    fn a_json_record_stays_json_whatever_the_secret() {
        let mut out = Vec::new();
        {
            let m = Masker::new(["\"", "gate-json-pw"]);
            let mut w = GateWriter::new(&mut out, true, m);
            w.write_all(b"{\"fields\":{\"message\":\"said \\\"gate-json-pw\\\"\"}}\n")
                .unwrap();
        }
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["fields"]["message"], "said ******");
    }
}

/// Generated secrets typed on Android, logged by the real formatters (text and JSON) through
/// the gate, as the backends and error paths log commands.
#[cfg(test)]
mod props {
    use super::*;
    use crate::run::mask::tests::{typed_secret, visible_pieces};
    use base64::Engine;
    use proptest::prelude::*;
    use std::sync::{Arc, Mutex};
    use tapflow_device::adb::text::{adb_keyboard_commands, is_typeable, key_commands};
    use tapflow_device::hdc::quote::{ShellCommand, command_line, display_argv};
    use tapflow_device::hdc::sections;

    /// A writer into a shared buffer (the subscriber makes one per event).
    #[derive(Clone, Default)]
    struct Buf(Arc<Mutex<Vec<u8>>>);

    impl Write for Buf {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// What the logs show while `typed` is typed: the adb argv (`?` field), the command in an
    /// error (`%` field, quoted for a shell), the hdc command line unredacted (as a `%` field),
    /// and the text in a message.
    fn log_typing(typed: &str) {
        let commands = if is_typeable(typed) {
            key_commands(typed).unwrap()
        } else {
            adb_keyboard_commands(typed, None)
        };
        let line = sections::chain(commands).into_string();
        let argv = vec![
            "-s".to_string(),
            "emulator-5554".into(),
            "exec-out".into(),
            line,
        ];
        tracing::debug!(target: "tapflow::adb", argv = ?argv, attempt = 1, "adb round trip");
        let shown = display_argv("adb", &argv);
        tracing::warn!(target: "tapflow::adb", error = %shown, "adb failed");
        let hdc = command_line("uitest", &["uiInput", "inputText", typed]);
        let hdc = display_argv("hdc", &["shell".to_string(), hdc]);
        tracing::debug!(target: "tapflow::hdc", argv = %hdc, "hdc call");
        tracing::info!("typed {typed} into {:?}", ShellCommand::new("x").arg(typed));
    }

    fn capture(json: bool, masker: &Masker, f: impl FnOnce()) -> Vec<u8> {
        let buf = Buf::default();
        let (b, m) = (buf.clone(), masker.clone());
        let make = move || GateWriter::new(b.clone(), json, m.clone());
        let builder = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::TRACE)
            .with_ansi(false);
        if json {
            tracing::subscriber::with_default(builder.json().with_writer(make).finish(), f);
        } else {
            tracing::subscriber::with_default(builder.with_writer(make).finish(), f);
        }
        buf.0.lock().unwrap().clone()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(150))]
        #[test]
        fn no_generated_secret_survives_either_log_format(
            secret in typed_secret(),
            pre in "[-:,.= ]{0,130}",
        ) {
            let masker = Masker::new([secret.as_str()]);
            let b64 = base64::engine::general_purpose::STANDARD.encode(secret.as_bytes());
            for json in [false, true] {
                let out = capture(json, &masker, || {
                    log_typing(&secret);
                    log_typing(&format!("{pre}{secret}"));
                });
                let text = String::from_utf8_lossy(&out);
                prop_assert!(text.lines().count() >= 8, "{text}");
                for piece in visible_pieces(&secret) {
                    if piece.chars().all(|c| c.is_ascii_alphanumeric()) {
                        prop_assert!(!text.contains(&piece), "{piece:?} in {text}");
                    }
                }
                prop_assert!(!text.contains(&b64), "{text}");
                if json {
                    for l in text.lines() {
                        prop_assert!(serde_json::from_str::<serde_json::Value>(l).is_ok(), "{l}");
                    }
                } else {
                    // One record, one line: typed newlines never start a line.
                    prop_assert_eq!(text.lines().count(), 8, "{}", text);
                }
            }
        }
    }
}
