//! The one gate every log line passes on its way to stderr: the subscriber's writer
//! ([`LogGate`], a `tracing_subscriber` `MakeWriter`), whatever formatter made the line (text,
//! JSON), whatever backend or dependency logged it.
//!
//! `tracing_subscriber::fmt` formats each event whole into a buffer and writes it with one
//! `write_all` to a writer it makes for that event; the writer made here keeps what it is
//! given and, when the event is done (dropped), writes it:
//!
//! 1. **masked** with every secret the process's runs registered (`run::mask::gate`), in every
//!    form the masker knows: the whole record at once, so a secret a formatter split over
//!    fields, quoted, `{:?}`-escaped or JSON-escaped is found in the form it has there;
//! 2. **inert** for CI (`report::github::inert`): a line break inside the record (device text
//!    in a field) is shown as `\n`, so no device text starts a line; `##[` is escaped.

use std::io::{self, Write};

use tracing_subscriber::fmt::MakeWriter;

use crate::report::github::{inert, inert_json};
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
        GateWriter::new(io::stderr(), self.json)
    }
}

/// Collects one record; masks it, makes it inert and writes it when dropped.
pub struct GateWriter<W: Write> {
    inner: W,
    json: bool,
    record: Vec<u8>,
}

impl<W: Write> GateWriter<W> {
    pub fn new(inner: W, json: bool) -> Self {
        GateWriter {
            inner,
            json,
            record: Vec::new(),
        }
    }

    /// The record as it is written: masked, then inert, ending with its one line break.
    fn gated(&self) -> Vec<u8> {
        let masked = gate::masker();
        let masked = masked.bytes(&self.record);
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
            let mut w = GateWriter::new(&mut out, json);
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
}
