//! UI actions and the dump that observes their effect, chained into ONE `hdc shell` round trip
//! (`echo m0; uitest uiInput …; echo m1; uitest dumpLayout -p P && cat P; rm -f P`; several
//! actions each get their own section before the dump).
//!
//! Tools that must see what an action did (input_text's verification, `verify: true`
//! evidence, waits after a tap) save a full round trip per observation this way. Each action's
//! own answer and the dump are judged separately: a failed dump never hides that an action was
//! accepted, and a refused action never yields a tree. The shell runs every action of the
//! chain whatever the previous one answered (`;`): the first refusal is the one reported.

use std::time::Instant;

use crate::dump_resend::DumpFailure;
use crate::error::{DeviceError, DeviceResult};
use crate::hdc::classify::{Op, Scan, command_failed, outcome};
use crate::hdc::device::HdcDevice;
use crate::hdc::quote::ShellCommand;
use crate::hdc::{commands, parse, sections, validate};
use crate::{ActsObserved, DumpScope, UiAction};

impl HdcDevice {
    pub(super) fn act_and_dump(&self, actions: &[UiAction], scope: &DumpScope) -> ActsObserved {
        let mut ops = Vec::with_capacity(actions.len());
        let mut cmds = Vec::with_capacity(actions.len() + 1);
        for a in actions {
            match action_command(a) {
                Ok((op, cmd)) => {
                    ops.push(op);
                    cmds.push(cmd);
                }
                Err(e) => return refused(e),
            }
        }
        if let Some(b) = &scope.bundle
            && let Err(e) = validate::bundle_name(b)
        {
            return refused(e);
        }
        let dump_op = Op::new(crate::hdc::ui_dump::UI_TREE_FETCH_ERROR, "UI dump");
        let path = self.config().scratch_path("json");
        cmds.push(commands::dump_layout(&path, scope));
        let chained = sections::chain(cmds);
        let deadline = self.config().command_timeout + self.config().dump_timeout;
        let sent_at = Instant::now();
        let first_op = ops.first().cloned().unwrap_or_else(|| dump_op.clone());
        // Transport-level failures (timeout, device gone) leave it unknown whether the action
        // ran: it is reported as not accepted, never as dispatched.
        let text = match self.shell(&chained, deadline, &first_op, Scan::Edges) {
            Ok(text) => text,
            Err(e) => return refused(e),
        };
        self.cost_counter().ui_dump();
        let mut parts = sections::split(&text, ops.len() + 1);
        let dump_part = parts.pop().flatten();
        let verdicts: Vec<DeviceResult<()>> = ops
            .iter()
            .zip(parts)
            .map(|(op, part)| match part {
                Some(answer) => outcome(op, parse::outcome::ui_input(&answer)),
                None => Err(command_failed(
                    op,
                    "the device gave no answer for the action",
                )),
            })
            .collect();
        // A damaged dump is sent again on its own: the actions already ran.
        let tree = verdicts.iter().all(Result::is_ok).then(|| {
            let first = match dump_part {
                Some(answer) => self.finish_dump(&answer, scope, &dump_op),
                None => Err(DumpFailure::Damaged(command_failed(
                    &dump_op,
                    "the device gave no answer for the dump",
                ))),
            };
            self.resending(first, scope, sent_at + deadline)
        });
        ActsObserved {
            actions: verdicts,
            tree,
        }
    }
}

/// Nothing was sent (or it is unknown whether anything ran): one refusal stands for all.
fn refused(e: DeviceError) -> ActsObserved {
    ActsObserved {
        actions: vec![Err(e)],
        tree: None,
    }
}

fn action_command(action: &UiAction) -> DeviceResult<(Op, ShellCommand)> {
    Ok(match action {
        UiAction::Tap(at, kind) => (
            Op::new(tapflow_core::codes::INPUT_FAILED, "tap"),
            commands::tap(*at, *kind),
        ),
        UiAction::Gesture(g) => (
            Op::new(tapflow_core::codes::INPUT_FAILED, "gesture"),
            commands::gesture(g),
        ),
        UiAction::Text(target, text) => (
            Op::new(tapflow_core::codes::INPUT_FAILED, "text input"),
            commands::input_text(*target, text)?,
        ),
        UiAction::Key(key) => (
            Op::new(tapflow_core::codes::KEY_EVENT_FAILED, "key event"),
            commands::key_event(key)?,
        ),
    })
}
