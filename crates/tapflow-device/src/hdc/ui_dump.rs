//! `ui_tree`: `uitest dumpLayout` to a unique device file, `cat` it and delete it, all in one
//! `hdc shell` round trip (one UI dump in the cost), then the layout parser.
//!
//! The answer is uitest's status line (`DumpLayout saved to:<path>` or `DumpLayout failed:…`)
//! followed by the file's JSON. A dump that did not happen is `UI_TREE_FETCH_ERROR` in uitest's
//! words; JSON that does not parse is `INVALID_UI_TREE_PAYLOAD`; the empty root uitest writes
//! with the screen locked is `ScreenLocked` (for a scoped dump it means the scope matched no
//! window, which is reported as a fetch error instead). A file that came back empty or cut
//! short is damaged: the dump alone is sent again ([`crate::dump_resend`]), also when it was
//! chained behind an action or a launch.

use std::time::{Duration, Instant};

use crate::dump_resend::{DumpFailure, Resend};
use crate::error::{DeviceError, DeviceResult};
use crate::hdc::classify::{Op, Scan, command_failed};
use crate::hdc::commands;
use crate::hdc::device::{HdcDevice, excerpt};
use crate::hdc::parse;
use crate::model::{DumpScope, UiNode};

pub use tapflow_core::codes::INVALID_UI_TREE_PAYLOAD;
pub use tapflow_core::codes::UI_TREE_FETCH_ERROR;

impl HdcDevice {
    pub(super) fn dump_ui(&self, scope: &DumpScope) -> DeviceResult<UiNode> {
        if let Some(b) = &scope.bundle {
            crate::hdc::validate::bundle_name(b)?;
        }
        let op = Op::new(UI_TREE_FETCH_ERROR, "UI dump");
        let timeout = self.config().dump_timeout;
        let deadline = Instant::now() + timeout;
        let first = self.dump_once(scope, &op, timeout);
        self.resending(first, scope, deadline)
    }

    /// One `dumpLayout … && cat` round trip (one UI dump in the cost), judged.
    fn dump_once(
        &self,
        scope: &DumpScope,
        op: &Op,
        timeout: Duration,
    ) -> Result<UiNode, DumpFailure> {
        let path = self.config().scratch_path("json");
        let cmd = commands::dump_layout(&path, scope);
        let text = self.shell(&cmd, timeout, op, Scan::Edges)?;
        self.cost_counter().ui_dump();
        self.finish_dump(&text, scope, op)
    }

    /// The tree of a dump whose first answer was judged `first`: a damaged answer is followed
    /// by dumps of their own, within the budget and before `deadline`.
    pub(super) fn resending(
        &self,
        first: Result<UiNode, DumpFailure>,
        scope: &DumpScope,
        deadline: Instant,
    ) -> DeviceResult<UiNode> {
        let op = Op::new(UI_TREE_FETCH_ERROR, "UI dump");
        Resend {
            retry: self.config().transient_retry,
            deadline,
            backend: "hdc",
            serial: self.serial_str(),
        }
        .run(first, |left| self.dump_once(scope, &op, left))
    }

    /// Turns the answer of a `dumpLayout … && cat` into a tree: an empty or truncated file
    /// (damaged), other failures, the locked screen, and a scope that matched no window are
    /// told apart.
    pub(super) fn finish_dump(
        &self,
        text: &str,
        scope: &DumpScope,
        op: &Op,
    ) -> Result<UiNode, DumpFailure> {
        let root = tree_from_answer(text, op)?;
        let scoped = scope.bundle.is_some() || scope.window_id.is_some();
        if parse::layout::is_locked_screen_root(&root) {
            if scoped {
                return Err(DumpFailure::Other(command_failed(
                    op,
                    format!(
                        "the dump has no window for {} (not shown, or the screen is locked)",
                        describe(scope)
                    ),
                )));
            }
            return Err(DumpFailure::Other(DeviceError::ScreenLocked {
                serial: self.serial_str().to_string(),
            }));
        }
        Ok(root)
    }
}

fn describe(scope: &DumpScope) -> String {
    match (&scope.bundle, scope.window_id) {
        (Some(b), Some(w)) => format!("bundle {b}, window {w}"),
        (Some(b), None) => format!("bundle {b}"),
        (None, Some(w)) => format!("window {w}"),
        (None, None) => "the screen".to_string(),
    }
}

/// Splits uitest's status text from the JSON that `cat` printed after it.
fn split_answer(text: &str) -> (&str, Option<&str>) {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        if t.starts_with('{') || t.starts_with("[{") || t.trim_end() == "[]" {
            let payload = text[offset..].trim();
            return (&text[..offset], Some(payload));
        }
        offset += line.len();
    }
    (text, None)
}

/// The tree in a dump's answer. Damaged: uitest said it saved the file but `cat` gave no JSON
/// (an empty file), or the JSON does not parse (cut short).
pub(super) fn tree_from_answer(text: &str, op: &Op) -> Result<UiNode, DumpFailure> {
    let (status, payload) = split_answer(text);
    let Some(json) = payload else {
        return Err(match parse::outcome::dump_layout(status) {
            Ok(path) => DumpFailure::Damaged(command_failed(
                op,
                format!(
                    "uitest saved the layout to {path} but reading it back gave no JSON: {}",
                    excerpt(text)
                ),
            )),
            Err(says) => DumpFailure::Other(command_failed(op, says)),
        });
    };
    let dump = parse::layout::parse_layout(json).map_err(|e| {
        DumpFailure::Damaged(DeviceError::Parse {
            code: INVALID_UI_TREE_PAYLOAD,
            what: "UI dump".into(),
            detail: e.to_string(),
        })
    })?;
    // `-i` (per-window arrays) is never sent; should a device answer that way anyway, the
    // windows are put under a root the way uitest merges them.
    Ok(dump.into_merged())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_and_payload_are_told_apart() {
        let (s, p) =
            split_answer("DumpLayout saved to:/data/local/tmp/a.json\n{\"attributes\":{}}");
        assert_eq!(s, "DumpLayout saved to:/data/local/tmp/a.json\n");
        assert_eq!(p, Some("{\"attributes\":{}}"));
        let (s, p) = split_answer("DumpLayout failed:no window\n");
        assert_eq!(s, "DumpLayout failed:no window\n");
        assert_eq!(p, None);
        let (_, p) = split_answer("[{\"attributes\":{},\"children\":[]}]");
        assert!(p.is_some());
    }
}
