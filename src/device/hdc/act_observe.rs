//! A UI action and the dump that observes its effect, chained into ONE `hdc shell` round trip
//! (`echo m0; uitest uiInput …; echo m1; uitest dumpLayout -p P && cat P; rm -f P`).
//!
//! Tools that must see what an action did (input_text's verification, `verify: true`
//! evidence, waits after a tap) save a full round trip per observation this way. The action's
//! own answer and the dump are judged separately: a failed dump never hides that the action
//! was accepted, and a refused action never yields a tree.

use crate::device::error::{DeviceError, DeviceResult};
use crate::device::hdc::classify::{Op, Scan, command_failed, outcome};
use crate::device::hdc::device::HdcDevice;
use crate::device::hdc::quote::ShellCommand;
use crate::device::hdc::{commands, parse, sections, validate};
use crate::device::{ActObserved, DumpScope, UiAction};

impl HdcDevice {
    pub(super) fn act_and_dump(&self, action: &UiAction, scope: &DumpScope) -> ActObserved {
        let (op, cmd) = match action_command(action) {
            Ok(pair) => pair,
            Err(e) => return refused(e),
        };
        if let Some(b) = &scope.bundle
            && let Err(e) = validate::bundle_name(b)
        {
            return refused(e);
        }
        let dump_op = Op::new(crate::device::hdc::ui_dump::UI_TREE_FETCH_ERROR, "UI dump");
        let path = self.config().scratch_path("json");
        let chained = sections::chain(vec![cmd, commands::dump_layout(&path, scope)]);
        let deadline = self.config().command_timeout + self.config().dump_timeout;
        // Transport-level failures (timeout, device gone) leave it unknown whether the action
        // ran: it is reported as not accepted, never as dispatched.
        let text = match self.shell(&chained, deadline, &op, Scan::Edges) {
            Ok(text) => text,
            Err(e) => return refused(e),
        };
        self.cost_counter().ui_dump();
        let mut parts = sections::split(&text, 2).into_iter();
        let (action_part, dump_part) = (parts.next().flatten(), parts.next().flatten());
        let action = match action_part {
            Some(answer) => outcome(&op, parse::outcome::ui_input(&answer)),
            None => Err(command_failed(
                &op,
                "the device gave no answer for the action",
            )),
        };
        let tree = action.is_ok().then(|| match dump_part {
            Some(answer) => self.finish_dump(&answer, scope, &dump_op),
            None => Err(command_failed(
                &dump_op,
                "the device gave no answer for the dump",
            )),
        });
        ActObserved { action, tree }
    }
}

fn refused(e: DeviceError) -> ActObserved {
    ActObserved {
        action: Err(e),
        tree: None,
    }
}

fn action_command(action: &UiAction) -> DeviceResult<(Op, ShellCommand)> {
    Ok(match action {
        UiAction::Tap(at, kind) => (
            Op::new(crate::codes::INPUT_FAILED, "tap"),
            commands::tap(*at, *kind),
        ),
        UiAction::Gesture(g) => (
            Op::new(crate::codes::INPUT_FAILED, "gesture"),
            commands::gesture(g),
        ),
        UiAction::Text(target, text) => (
            Op::new(crate::codes::INPUT_FAILED, "text input"),
            commands::input_text(*target, text)?,
        ),
        UiAction::Key(key) => (
            Op::new(crate::codes::KEY_EVENT_FAILED, "key event"),
            commands::key_event(key)?,
        ),
    })
}
