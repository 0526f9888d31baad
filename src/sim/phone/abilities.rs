//! Starting and stopping abilities: processes, windows and missions, with the hilog records
//! the ability manager and appspawn write.

use super::logs::sys;
use super::state::AppProcess;
use super::{MissionRow, Phone, PhoneError, codes};
use indexmap::IndexMap;
use std::collections::HashMap;
use std::time::SystemTime;

impl Phone {
    /// `aa start -a ability -b bundle [-m module]`.
    pub fn start_ability(
        &mut self,
        bundle: &str,
        ability: &str,
        module: Option<&str>,
        now: SystemTime,
    ) -> Result<(), PhoneError> {
        self.tick(now);
        let not_exist = || {
            PhoneError::new(
                codes::ABILITY_NOT_EXIST,
                "The specified ability does not exist",
            )
        };
        let app = self.apps.get(bundle).ok_or_else(not_exist)?;
        if module.is_some_and(|m| m != app.spec.module) {
            return Err(not_exist());
        }
        let spec = app
            .spec
            .abilities
            .iter()
            .find(|a| a.name == ability)
            .ok_or_else(not_exist)?;
        if !spec.exported {
            return Err(PhoneError::new(
                codes::ABILITY_NOT_VISIBLE,
                "The ability is not visible to the caller",
            ));
        }
        let (start_page, uid) = (spec.page.clone(), app.uid);
        self.recorded = None;
        self.awake = true;
        self.logs.core(
            now,
            sys::FOUNDATION,
            'I',
            0x1300,
            "AbilityManagerService",
            format!("StartAbility, want: bundle:{bundle}, ability:{ability}"),
        );
        if self.procs.contains_key(bundle) {
            self.foreground = Some(bundle.to_string());
            self.bring_to_front(bundle);
            self.logs.core(
                now,
                sys::FOUNDATION,
                'I',
                0x1300,
                "AbilityManagerService",
                format!("MoveMissionToFront, bundle: {bundle}"),
            );
            return Ok(());
        }
        self.next_pid += 37;
        self.next_window_id += 1;
        self.next_mission_id += 1;
        let pid = self.next_pid;
        self.procs.insert(
            bundle.to_string(),
            AppProcess {
                bundle: bundle.to_string(),
                pid,
                uid,
                window_id: self.next_window_id,
                mission_id: self.next_mission_id,
                ability: ability.to_string(),
                started: now,
                stack: Vec::new(),
                vars: IndexMap::new(),
                fields: HashMap::new(),
                scroll: HashMap::new(),
                dialog: None,
                focus: None,
            },
        );
        self.foreground = Some(bundle.to_string());
        self.logs.push(
            now,
            pid,
            pid,
            'I',
            'C',
            0x2c11,
            "APPSPAWN",
            format!("AppSpawnChild id {} flags:0xc", self.next_mission_id),
        );
        self.logs.push(
            now,
            pid,
            pid,
            'I',
            'C',
            0x1317,
            "AppKit",
            format!("[MAINTHD] LaunchApplication {bundle}"),
        );
        self.logs.push(
            now,
            pid,
            pid,
            'I',
            'C',
            0x1301,
            "AbilityKit",
            format!("OnStart {ability}"),
        );
        self.logs.core(
            now,
            sys::SCENEBOARD,
            'I',
            0x3900,
            "SceneSessionManager",
            format!("PendingSessionActivation: {bundle} {ability}"),
        );
        if let Some(page) = start_page {
            self.show_page(bundle, &page, true, now);
        }
        Ok(())
    }

    /// Moves a running app to the end of the launch order (most recent).
    fn bring_to_front(&mut self, bundle: &str) {
        if let Some(i) = self.procs.get_index_of(bundle) {
            let last = self.procs.len() - 1;
            self.procs.move_index(i, last);
        }
    }

    /// `aa force-stop bundle`: kills the process (nothing to do when it is not running).
    pub fn force_stop(&mut self, bundle: &str, now: SystemTime) -> Result<(), PhoneError> {
        self.tick(now);
        if !self.apps.contains_key(bundle) {
            return Err(PhoneError::new(
                codes::FORCE_STOP_FAILED,
                "failed to force stop process",
            ));
        }
        self.kill_app(bundle, now, "force-stop");
        Ok(())
    }

    /// Ends a process: its window and mission disappear, pending actions are dropped.
    pub(super) fn kill_app(&mut self, bundle: &str, now: SystemTime, reason: &str) {
        let Some(p) = self.procs.shift_remove(bundle) else {
            return;
        };
        self.pending.retain(|x| x.bundle != bundle);
        if self.foreground.as_deref() == Some(bundle) {
            self.foreground = None;
        }
        self.logs.core(
            now,
            sys::FOUNDATION,
            'I',
            0x1300,
            "AppMgrService",
            format!(
                "KillProcess, bundle: {bundle}, pid: {}, reason: {reason}",
                p.pid
            ),
        );
    }

    /// `aa dump -l`: one mission per running app, most recent last.
    pub fn missions(&self) -> Vec<MissionRow> {
        self.procs
            .values()
            .map(|p| MissionRow {
                id: p.mission_id,
                bundle: p.bundle.clone(),
                module: self
                    .apps
                    .get(&p.bundle)
                    .map(|a| a.spec.module.clone())
                    .unwrap_or_default(),
                ability: p.ability.clone(),
                foreground: self.foreground.as_deref() == Some(p.bundle.as_str()),
            })
            .collect()
    }

    /// `pidof bundle`.
    pub fn pid_of(&self, bundle: &str) -> Option<u32> {
        if let Some(p) = self.procs.get(bundle) {
            return Some(p.pid);
        }
        system_processes()
            .iter()
            .find(|(_, n)| *n == bundle)
            .map(|(pid, _)| *pid)
    }

    /// `/proc/<pid>/cmdline` (without the trailing NUL).
    pub fn cmdline(&self, pid: u32) -> Option<String> {
        if let Some(p) = self.procs.values().find(|p| p.pid == pid) {
            return Some(p.bundle.clone());
        }
        system_processes()
            .iter()
            .find(|(p, _)| *p == pid)
            .map(|(_, n)| n.to_string())
    }
}

/// Always-running system processes: (pid, process name).
fn system_processes() -> [(u32, &'static str); 7] {
    [
        (1, "init"),
        (sys::FOUNDATION, "foundation"),
        (sys::HIVIEW, "hiview"),
        (sys::MMI, "multimodalinput"),
        (sys::RENDER_SERVICE, "render_service"),
        (sys::SCENEBOARD, super::loader::SCENEBOARD),
        (sys::IME, super::loader::IME_BUNDLE),
    ]
}
