//! Starting and stopping abilities: processes, windows and missions, with the hilog records
//! the ability manager and appspawn write.

use super::logs::sys;
use super::model::{AbilityKind, AbilitySpec};
use super::state::AppProcess;
use super::want::{Want, skill_matches, skills_of};
use super::{MissionRow, Phone, PhoneError, codes};
use indexmap::IndexMap;
use std::collections::HashMap;
use std::time::SystemTime;

/// What a successful start did (for `aa start -W`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Started {
    pub bundle: String,
    pub ability: String,
    /// A new process was spawned (`StartMode: Cold`).
    pub cold: bool,
}

impl Phone {
    /// `aa start -a ability -b bundle [-m module]`.
    pub fn start_ability(
        &mut self,
        bundle: &str,
        ability: &str,
        module: Option<&str>,
        now: SystemTime,
    ) -> Result<(), PhoneError> {
        self.start_want(&Want::explicit(bundle, ability, module), now)
            .map(|_| ())
    }

    /// Resolves `want` (explicitly by element, or by the installed abilities' skills) and starts
    /// the ability it names: a page ability comes to the foreground with a window and a mission,
    /// a service ability runs in its process without either. Either way the ability's `on_start`
    /// actions run with the want readable as `${want.KEY}`.
    pub fn start_want(&mut self, want: &Want, now: SystemTime) -> Result<Started, PhoneError> {
        self.tick(now);
        let (bundle, ability) = self.resolve(want)?;
        let app = self.apps.get(&bundle).ok_or_else(not_exist)?;
        let spec = app
            .spec
            .abilities
            .iter()
            .find(|a| a.name == ability)
            .ok_or_else(not_exist)?
            .clone();
        if !spec.exported {
            return Err(PhoneError::new(
                codes::ABILITY_NOT_VISIBLE,
                "Failed to verify the visibility of the target ability.",
            ));
        }
        let uid = app.uid;
        self.logs.core(
            now,
            sys::FOUNDATION,
            'I',
            0x1300,
            "AbilityManagerService",
            format!("StartAbility, want: bundle:{bundle}, ability:{ability}"),
        );
        let cold = !self.procs.contains_key(&bundle);
        if cold {
            self.spawn(&bundle, &ability, uid, now);
        }
        let values = want.values();
        match spec.kind {
            AbilityKind::Page => self.start_page(&bundle, &spec, cold, now),
            AbilityKind::Service => {
                if let Some(p) = self.procs.get_mut(&bundle)
                    && !p.extensions.contains(&ability)
                {
                    p.extensions.push(ability.clone());
                }
            }
        }
        if let Some(p) = self.procs.get_mut(&bundle) {
            p.want = values;
        }
        if !spec.on_start.is_empty() {
            self.run_actions(&bundle, None, &spec.on_start, now);
        }
        Ok(Started {
            bundle,
            ability,
            cold,
        })
    }

    /// The `(bundle, ability)` a want names: explicitly, or the first exported ability whose
    /// skills match (a real device shows a chooser when several match; the simulator takes the
    /// first in install order).
    fn resolve(&self, want: &Want) -> Result<(String, String), PhoneError> {
        if want.is_explicit() {
            let app = self.apps.get(&want.bundle).ok_or_else(not_exist)?;
            if !want.module.is_empty() && want.module != app.spec.module {
                return Err(not_exist());
            }
            return Ok((want.bundle.clone(), want.ability.clone()));
        }
        self.apps
            .values()
            .filter(|a| want.bundle.is_empty() || a.spec.bundle == want.bundle)
            .filter(|a| want.module.is_empty() || a.spec.module == want.module)
            .flat_map(|a| a.spec.abilities.iter().map(move |ab| (a, ab)))
            .find(|(_, ab)| ab.exported && skills_of(ab).iter().any(|s| skill_matches(s, want)))
            .map(|(a, ab)| (a.spec.bundle.clone(), ab.name.clone()))
            .ok_or_else(|| {
                PhoneError::new(
                    codes::IMPLICIT_START_FAILED,
                    "Failed to find a matching application for implicit launch.",
                )
            })
    }

    /// appspawn forks a new app process (no window yet).
    fn spawn(&mut self, bundle: &str, ability: &str, uid: u32, now: SystemTime) {
        self.next_pid += 37;
        let pid = self.next_pid;
        self.procs.insert(
            bundle.to_string(),
            AppProcess {
                bundle: bundle.to_string(),
                pid,
                uid,
                window_id: 0,
                mission_id: 0,
                ability: ability.to_string(),
                started: now,
                stack: Vec::new(),
                vars: IndexMap::new(),
                fields: HashMap::new(),
                scroll: HashMap::new(),
                dialog: None,
                focus: None,
                ui: false,
                extensions: Vec::new(),
                want: IndexMap::new(),
            },
        );
        self.logs.push(
            now,
            pid,
            pid,
            'I',
            'C',
            0x2c11,
            "APPSPAWN",
            format!("AppSpawnChild id {pid} flags:0xc"),
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
    }

    /// A page ability comes to the foreground: a window and a mission on first start, the
    /// existing mission moved to the front otherwise.
    fn start_page(&mut self, bundle: &str, spec: &AbilitySpec, cold: bool, now: SystemTime) {
        self.recorded = None;
        self.awake = true;
        let has_ui = self.procs.get(bundle).is_some_and(|p| p.ui);
        if has_ui {
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
            return;
        }
        self.next_window_id += 1;
        self.next_mission_id += 1;
        let (window_id, mission_id) = (self.next_window_id, self.next_mission_id);
        let Some(p) = self.procs.get_mut(bundle) else {
            return;
        };
        p.ui = true;
        p.window_id = window_id;
        p.mission_id = mission_id;
        p.ability = spec.name.clone();
        if !cold {
            p.started = now;
        }
        let pid = p.pid;
        self.foreground = Some(bundle.to_string());
        self.bring_to_front(bundle);
        self.logs.push(
            now,
            pid,
            pid,
            'I',
            'C',
            0x1301,
            "AbilityKit",
            format!("OnStart {}", spec.name),
        );
        self.logs.core(
            now,
            sys::SCENEBOARD,
            'I',
            0x3900,
            "SceneSessionManager",
            format!("PendingSessionActivation: {bundle} {}", spec.name),
        );
        if let Some(page) = spec.page.clone() {
            self.show_page(bundle, &page, true, now);
        }
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
        self.abort_recording_of(bundle);
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

    /// `aa dump -l`: one mission per running app with a window, most recent last.
    pub fn missions(&self) -> Vec<MissionRow> {
        self.procs
            .values()
            .filter(|p| p.ui)
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
        super::procfs::system_processes()
            .iter()
            .find(|(_, n, _)| *n == bundle)
            .map(|(pid, _, _)| *pid)
    }

    /// True when `ability` of `bundle` is a service extension (no window).
    pub fn is_service_ability(&self, bundle: &str, ability: &str) -> bool {
        self.apps.get(bundle).is_some_and(|a| {
            a.spec
                .abilities
                .iter()
                .any(|x| x.name == ability && x.kind == AbilityKind::Service)
        })
    }
}

fn not_exist() -> PhoneError {
    PhoneError::new(
        codes::ABILITY_NOT_EXIST,
        "The specified ability does not exist",
    )
}
