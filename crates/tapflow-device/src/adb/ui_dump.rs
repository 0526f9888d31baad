//! `ui_tree`: `uiautomator dump /dev/tty` through `exec-out` (one round trip, no file left on
//! the device, no CRLF mangling), then the XML parser. And `act_then_tree`: the action and the
//! dump chained in ONE `exec-out` round trip (sections split by markers), so tools that must see
//! what an action did pay no extra round trip.
//!
//! Answers: XML → the tree (an empty hierarchy means the screen is off or locked); `ERROR:
//! could not get idle state.` → `UI_TREE_FETCH_ERROR` (transient: the UI is animating); `ERROR:
//! null root node returned by UiTestAutomationBridge.` → `ScreenLocked`; XML that does not
//! parse (truncated) → `INVALID_UI_TREE_PAYLOAD`. An answer with no XML at all (only the
//! `UI hierchary dumped to` confirmation, or nothing) and XML cut short are damaged: the dump
//! alone is sent again ([`crate::dump_resend`]), also after a chained action.

use std::time::{Duration, Instant};

use crate::adb::classify::{Op, command_failed, outcome};
use crate::adb::device::{AdbDevice, excerpt, key_command};
use crate::adb::input::merge_stderr;
use crate::adb::parse::outcome::{self as verdict, DumpFailure as Failed};
use crate::adb::parse::uiautomator;
use crate::adb::{commands, text, validate};
use crate::dump_resend::{DumpFailure, Resend};
use crate::error::{DeviceError, DeviceResult};
use crate::hdc::quote::ShellCommand;
use crate::hdc::sections;
use crate::model::{DumpScope, TextTarget, UiNode};
use crate::{ActObserved, UiAction};

pub const UI_TREE_FETCH_ERROR: tapflow_core::codes::Code = tapflow_core::codes::UI_TREE_FETCH_ERROR;
pub const INVALID_UI_TREE_PAYLOAD: tapflow_core::codes::Code =
    tapflow_core::codes::INVALID_UI_TREE_PAYLOAD;

impl AdbDevice {
    pub(super) fn dump_ui(&self, scope: &DumpScope) -> DeviceResult<UiNode> {
        if let Some(b) = &scope.bundle {
            validate::package_name(b)?;
        }
        let timeout = self.config().dump_timeout;
        let deadline = Instant::now() + timeout;
        let first = self.dump_once(scope, timeout);
        self.resending(first, scope, deadline)
    }

    /// One `uiautomator dump /dev/tty` round trip (one UI dump in the cost), judged.
    fn dump_once(&self, scope: &DumpScope, timeout: Duration) -> Result<UiNode, DumpFailure> {
        let answer = self.exec_out(&commands::ui_dump(), timeout)?;
        self.cost_counter().ui_dump();
        self.finish_dump(&answer.stdout, scope)
    }

    /// The tree of a dump whose first answer was judged `first`: a damaged answer is followed
    /// by dumps of their own, within the budget and before `deadline`.
    fn resending(
        &self,
        first: Result<UiNode, DumpFailure>,
        scope: &DumpScope,
        deadline: Instant,
    ) -> DeviceResult<UiNode> {
        Resend {
            retry: self.config().refused_retry,
            deadline,
            backend: "adb",
            serial: self.serial_str(),
        }
        .run(first, |left| self.dump_once(scope, left))
    }

    /// Turns a dump's answer into the (scoped) tree, telling the failures apart (damaged: no
    /// XML and no error from uiautomator, or XML that does not parse).
    pub(super) fn finish_dump(&self, text: &str, scope: &DumpScope) -> Result<UiNode, DumpFailure> {
        let op = Op::new(UI_TREE_FETCH_ERROR, "UI dump");
        let parts = uiautomator::split_answer(text);
        let Some(xml) = parts.xml else {
            return Err(match verdict::dump_failure(parts.before) {
                Failed::NoRoot(_) => DumpFailure::Other(DeviceError::ScreenLocked {
                    serial: self.serial_str().to_string(),
                }),
                Failed::NotIdle(says) => DumpFailure::Other(command_failed(&op, says)),
                Failed::Other(says) if is_empty_answer(parts.before) => {
                    DumpFailure::Damaged(command_failed(&op, says))
                }
                Failed::Other(says) => DumpFailure::Other(command_failed(&op, says)),
            });
        };
        let root = uiautomator::parse_dump(xml).map_err(|e| {
            DumpFailure::Damaged(DeviceError::Parse {
                code: INVALID_UI_TREE_PAYLOAD,
                what: "UI dump".into(),
                detail: e.to_string(),
            })
        })?;
        if uiautomator::is_empty_dump(&root) {
            return Err(DumpFailure::Other(DeviceError::ScreenLocked {
                serial: self.serial_str().to_string(),
            }));
        }
        Ok(scoped(root, scope, &op)?)
    }

    pub(super) fn act_and_dump(&self, action: &UiAction, scope: &DumpScope) -> ActObserved {
        let (op, cmds) = match self.action_commands(action) {
            Ok(pair) => pair,
            Err(e) => return refused(e),
        };
        if let Some(b) = &scope.bundle
            && let Err(e) = validate::package_name(b)
        {
            return refused(e);
        }
        let n = cmds.len();
        let mut all: Vec<ShellCommand> = cmds.into_iter().map(merge_stderr).collect();
        all.push(commands::ui_dump());
        let chained = sections::chain(all);
        let deadline = self.config().command_timeout + self.config().dump_timeout;
        let sent_at = Instant::now();
        // A transport failure (timeout, device gone) leaves it unknown whether the action ran:
        // it is reported as not accepted, never as dispatched.
        let answer = match self.exec_out(&chained, deadline) {
            Ok(a) => a,
            Err(e) => return refused(e),
        };
        self.cost_counter().ui_dump();
        let parts = sections::split(&answer.stdout, n + 1);
        let mut action_result = Ok(());
        for (i, part) in parts[..n].iter().enumerate() {
            let judged = match part {
                Some(words) => op.judge(i, words),
                None => Err(command_failed(
                    &op.op,
                    "the device gave no answer for the action",
                )),
            };
            if let Err(e) = judged {
                action_result = Err(e);
                break;
            }
        }
        // A damaged dump is sent again on its own: the action already ran.
        let tree = action_result.is_ok().then(|| {
            let first = match &parts[n] {
                Some(text) => self.finish_dump(text, scope),
                None => Err(DumpFailure::Damaged(command_failed(
                    &Op::new(UI_TREE_FETCH_ERROR, "UI dump"),
                    format!(
                        "the device gave no answer for the dump: {}",
                        excerpt(&answer.stdout)
                    ),
                ))),
            };
            self.resending(first, scope, sent_at + deadline)
        });
        ActObserved {
            action: action_result,
            tree,
        }
    }

    /// The commands of a UI action, with how to judge each one's answer.
    fn action_commands(&self, action: &UiAction) -> DeviceResult<(Judge, Vec<ShellCommand>)> {
        Ok(match action {
            UiAction::Tap(at, kind) => (
                Judge::input(tapflow_core::codes::INPUT_FAILED, "tap"),
                vec![commands::tap(*at, *kind)],
            ),
            UiAction::Gesture(g) => {
                let screen = match g {
                    crate::model::Gesture::DirectionalFling { .. } => self
                        .screen_size()?
                        .map(|s| (s.width as i32, s.height as i32)),
                    _ => None,
                };
                (
                    Judge::input(tapflow_core::codes::INPUT_FAILED, "gesture"),
                    vec![commands::gesture(g, screen)?],
                )
            }
            UiAction::Key(k) => (
                Judge::input(tapflow_core::codes::KEY_EVENT_FAILED, "key event"),
                vec![key_command(k)?],
            ),
            UiAction::Text(target, t) => {
                let plan = self.text_plan(*target, t)?;
                (Judge::text(plan.kinds), plan.commands)
            }
        })
    }
}

/// How the answers of an action's commands are judged.
pub(super) struct Judge {
    op: Op,
    /// Per command: what kind of answer it gives (all `Input` for plain actions).
    kinds: Vec<text::AnswerKind>,
}

impl Judge {
    fn input(code: tapflow_core::codes::Code, what: &str) -> Self {
        Self {
            op: Op::new(code, what),
            kinds: Vec::new(),
        }
    }

    fn text(kinds: Vec<text::AnswerKind>) -> Self {
        Self {
            op: Op::new(tapflow_core::codes::INPUT_FAILED, "text input"),
            kinds,
        }
    }

    fn judge(&self, i: usize, words: &str) -> DeviceResult<()> {
        let kind = self
            .kinds
            .get(i)
            .copied()
            .unwrap_or(text::AnswerKind::Input);
        outcome(&self.op, kind.verdict(words))
    }
}

fn refused(e: DeviceError) -> ActObserved {
    ActObserved {
        action: Err(e),
        tree: None,
    }
}

/// Keeps the windows `scope` selects (by package / window number); none left is a fetch error.
fn scoped(root: UiNode, scope: &DumpScope, op: &Op) -> DeviceResult<UiNode> {
    if scope.bundle.is_none() && scope.window_id.is_none() {
        return Ok(root);
    }
    let UiNode {
        attributes,
        children,
    } = root;
    let kept: Vec<UiNode> = children
        .into_iter()
        .filter(|w| {
            scope
                .bundle
                .as_deref()
                .is_none_or(|b| w.attr("bundleName") == b)
        })
        .filter(|w| scope.window_id.is_none_or(|id| w.window_id() == Some(id)))
        .collect();
    if kept.is_empty() {
        let what = match (&scope.bundle, scope.window_id) {
            (Some(b), _) => format!("package {b}"),
            (None, Some(w)) => format!("window {w}"),
            (None, None) => unreachable!("checked above"),
        };
        return Err(command_failed(
            op,
            format!("the dump has no window of {what} (not in front, or the screen is locked)"),
        ));
    }
    Ok(UiNode {
        attributes,
        children: kept,
    })
}

/// No XML and no words of uiautomator's own: nothing at all, or only its `UI hierchary dumped
/// to` confirmation (the dump file came back empty).
fn is_empty_answer(before: &str) -> bool {
    before.lines().map(str::trim).all(|l| {
        l.is_empty()
            || l.starts_with("UI hierchary dumped to")
            || l.starts_with("UI hierarchy dumped to")
    })
}

/// Where typed text is aimed, as the commands before the text.
pub(super) fn aim(target: TextTarget) -> Vec<ShellCommand> {
    match target {
        TextTarget::At(p) => vec![commands::tap(p, crate::model::TapKind::Single)],
        TextTarget::Focused => Vec::new(),
    }
}
