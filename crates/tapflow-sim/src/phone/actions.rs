//! Executes an app's actions (navigate, toggle, set/clear, dialogs, logs, crash, submit with
//! validation, delays) against its running process.

use super::Phone;
use super::model::{Action, expand};
use super::state::Pending;
use std::time::{Duration, SystemTime};

impl Phone {
    /// Runs `actions` for the running app `bundle`. `self_key` is the tapped element's state key
    /// (what a bare `toggle` flips). Stops early when the app dies (crash, exit).
    pub(super) fn run_actions(
        &mut self,
        bundle: &str,
        self_key: Option<&str>,
        actions: &[Action],
        now: SystemTime,
    ) {
        let Some(pid) = self.procs.get(bundle).map(|p| p.pid) else {
            return;
        };
        for a in actions {
            if self.procs.get(bundle).is_none_or(|p| p.pid != pid) {
                return;
            }
            self.run_action(bundle, self_key, a, now);
        }
    }

    fn expand_in(&self, bundle: &str, t: &str) -> String {
        match self.procs.get(bundle) {
            Some(p) => expand(t, &|k| p.lookup(k)),
            None => t.to_string(),
        }
    }

    /// Shows `page` on top of (or instead of) the stack and runs its `on_show`.
    pub(super) fn show_page(&mut self, bundle: &str, page: &str, replace: bool, now: SystemTime) {
        let Some(p) = self.procs.get_mut(bundle) else {
            return;
        };
        p.leave_page();
        if replace {
            p.stack.clear();
        }
        p.stack.push(page.to_string());
        let on_show = self
            .apps
            .get(bundle)
            .and_then(|a| a.spec.pages.get(page))
            .map(|pg| pg.on_show.clone())
            .unwrap_or_default();
        let pid = p.pid;
        self.logs.core(
            now,
            pid,
            'I',
            0x3900,
            "ArkUI",
            format!("[Router] push page {page}"),
        );
        self.run_actions(bundle, None, &on_show, now);
    }

    /// Back inside an app: IME first, then the dialog, then the page stack; from the first page the
    /// app goes to the background (the desktop shows).
    pub(super) fn app_back(&mut self, bundle: &str, now: SystemTime) {
        let Some(p) = self.procs.get_mut(bundle) else {
            return;
        };
        if p.focus.is_some() {
            p.focus = None;
        } else if p.dialog.is_some() {
            p.dialog = None;
        } else if p.stack.len() > 1 {
            p.stack.pop();
        } else {
            self.foreground = None;
            self.logs.core(
                now,
                super::logs::sys::FOUNDATION,
                'I',
                0x1300,
                "AbilityManagerService",
                format!("MoveAbilityToBackground, bundle: {bundle}"),
            );
        }
    }

    fn run_action(&mut self, bundle: &str, self_key: Option<&str>, a: &Action, now: SystemTime) {
        match a {
            Action::Navigate(page) => self.show_page(bundle, page, false, now),
            Action::Reset(page) => self.show_page(bundle, page, true, now),
            Action::Back => self.app_back(bundle, now),
            Action::Toggle(target) => {
                let key = target.as_deref().or(self_key).map(str::to_string);
                if let (Some(k), Some(p)) = (key, self.procs.get_mut(bundle)) {
                    let on = p.vars.get(&k).is_some_and(|v| v == "true");
                    p.vars.insert(k, (!on).to_string());
                }
            }
            Action::Set { var, value } => {
                let v = self.expand_in(bundle, value);
                if let Some(p) = self.procs.get_mut(bundle) {
                    p.vars.insert(var.clone(), v);
                }
            }
            Action::Clear(vars) => {
                if let Some(p) = self.procs.get_mut(bundle) {
                    for v in vars {
                        p.vars.shift_remove(v);
                        p.fields.remove(v);
                    }
                }
            }
            Action::ShowDialog(d) => {
                if let Some(p) = self.procs.get_mut(bundle) {
                    p.focus = None;
                    p.dialog = Some(d.clone());
                }
            }
            Action::CloseDialog => {
                if let Some(p) = self.procs.get_mut(bundle) {
                    p.dialog = None;
                }
            }
            Action::Log { message, level } => {
                let msg = self.expand_in(bundle, message);
                self.app_log(bundle, level.unwrap_or('I'), &msg, now);
            }
            Action::Crash {
                error_name,
                message,
                stack,
            } => {
                let msg = self.expand_in(bundle, message);
                self.crash_app(bundle, error_name, &msg, stack, now);
            }
            Action::Submit { require, then } => {
                for r in require {
                    let empty = self
                        .procs
                        .get(bundle)
                        .and_then(|p| p.lookup(&r.field))
                        .is_none_or(|v| v.trim().is_empty());
                    if empty {
                        if let Some(p) = self.procs.get_mut(bundle) {
                            p.vars.insert(r.error_var.clone(), r.message.clone());
                        }
                        let msg = format!("validation failed: {}", r.message);
                        self.app_log(bundle, 'W', &msg, now);
                        return;
                    }
                }
                self.run_actions(bundle, self_key, then, now);
            }
            Action::Delay { ms, then } => {
                if let Some(p) = self.procs.get(bundle) {
                    self.pending_seq += 1;
                    self.pending.push(Pending {
                        due: now + Duration::from_millis(*ms),
                        bundle: bundle.to_string(),
                        pid: p.pid,
                        actions: then.clone(),
                        seq: self.pending_seq,
                    });
                }
            }
            Action::Exit => self.kill_app(bundle, now, "exit"),
            Action::ToggleScreenRecording { file_name } => {
                let name = self.expand_in(bundle, file_name);
                self.toggle_screen_recording(bundle, &name, now);
            }
        }
    }

    /// An app-type hilog record with the app's domain and tag.
    pub(super) fn app_log(&mut self, bundle: &str, level: char, msg: &str, now: SystemTime) {
        let (Some(p), Some(app)) = (self.procs.get(bundle), self.apps.get(bundle)) else {
            return;
        };
        let (pid, domain, tag) = (p.pid, app.spec.log_domain, app.spec.log_tag.clone());
        self.logs.push(now, pid, pid, level, 'A', domain, &tag, msg);
    }
}
