//! Text input on the device: the plan of commands for a text (see [`super::text`] for the
//! routes), run in ONE shell round trip (two when non-ASCII text first needs the active input
//! method), each command's answer judged on its own.

use crate::adb::classify::{Op, command_failed, outcome};
use crate::adb::device::AdbDevice;
use crate::adb::parse::props;
use crate::adb::text::{self, AnswerKind};
use crate::adb::ui_dump::aim;
use crate::error::DeviceResult;
use crate::hdc::quote::ShellCommand;
use crate::hdc::sections;
use crate::model::TextTarget;

/// The commands typing a text, and the kind of each one's answer.
pub(super) struct TextPlan {
    pub commands: Vec<ShellCommand>,
    pub kinds: Vec<AnswerKind>,
}

impl AdbDevice {
    /// Plans typing `t` at `target`. Non-ASCII text asks the device for its active input
    /// method first (one round trip), so it can be restored after ADBKeyBoard typed.
    pub(super) fn text_plan(&self, target: TextTarget, t: &str) -> DeviceResult<TextPlan> {
        crate::hdc::validate::no_nul("text", t)?;
        let mut commands = aim(target);
        let mut kinds = vec![AnswerKind::Input; commands.len()];
        if text::is_typeable(t) {
            let keys = text::key_commands(t)?;
            kinds.extend(std::iter::repeat_n(AnswerKind::Input, keys.len()));
            commands.extend(keys);
        } else {
            let answer = self.shell(&text::current_ime())?;
            let previous = props::parse_getprop(&answer.stdout);
            for cmd in text::adb_keyboard_commands(t, previous.as_deref()) {
                let line = cmd.as_str();
                kinds.push(if line.starts_with("ime ") {
                    AnswerKind::Ime
                } else {
                    AnswerKind::Broadcast
                });
                commands.push(cmd);
            }
        }
        Ok(TextPlan { commands, kinds })
    }

    /// Types `t` (see [`super::text`]). Every command runs in one shell call; the first
    /// refusal is the error, in the device's words.
    pub(super) fn type_text(&self, target: TextTarget, t: &str) -> DeviceResult<()> {
        let op = Op::new(tapflow_core::codes::INPUT_FAILED, "text input");
        let plan = self.text_plan(target, t)?;
        if plan.commands.is_empty() {
            return Ok(());
        }
        let n = plan.commands.len();
        // Typing takes one key event per character: allow for it beyond the command deadline.
        let timeout = self.config().command_timeout
            + std::time::Duration::from_millis(20 * t.chars().count() as u64);
        let merged = plan.commands.into_iter().map(merge_stderr).collect();
        let answer = self.shell_with(&sections::chain(merged), timeout)?;
        let parts = sections::split(&answer.stdout, n);
        for (part, kind) in parts.iter().zip(plan.kinds) {
            match part {
                Some(words) => outcome(&op, kind.verdict(words))?,
                None => {
                    return Err(command_failed(
                        &op,
                        format!(
                            "the device stopped before typing everything: {}",
                            answer.text().trim()
                        ),
                    ));
                }
            }
        }
        Ok(())
    }
}

/// `cmd 2>&1`: a chained command's complaints land in its own section (under shell protocol
/// v2 stderr travels apart from stdout and could not be told which command wrote it).
pub(super) fn merge_stderr(cmd: ShellCommand) -> ShellCommand {
    cmd.word("2>&1")
}
