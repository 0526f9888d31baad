//! The ability manager's records behind `aa dump -l`: missions, extension records (SceneBoard's
//! and the IME's services, the media library's data share, SceneBoard's engine UI extension in
//! state `#FOREGROUND`, plus every service extension an app runs), pending wants and one
//! app-running record per process. The system part mirrors the real capture
//! `aa_dump_l_mission_list.txt`; app parts follow the running apps.

use super::logs::sys;
use super::model::AbilityKind;
use super::procfs::system_processes;
use super::{MissionRow, Phone};

/// One `ExtensionRecords` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtensionRow {
    pub bundle: String,
    pub module: String,
    /// The last segment of `uri [/bundle/module/<name>]` (SceneBoard's engine appends an index).
    pub uri_name: String,
    pub ability: String,
    pub record_id: u32,
    /// `ACTIVE` for services, `FOREGROUND` for a shown UI extension.
    pub state: &'static str,
    pub start_time: u64,
    /// `SERVICE` or `UIEXTENSION`.
    pub kind: &'static str,
    pub app_state: &'static str,
    pub keep_alive: bool,
    /// `bundle/Ability` of each connection.
    pub connections: Vec<String>,
    /// A UI extension's host: (bundle, module, ability, pid).
    pub root_host: Option<(String, String, String, u32)>,
}

/// One `PendingWantRecords` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingWantRow {
    pub id: u32,
    pub kind: u32,
    pub bundle: String,
    pub flags: u32,
    pub uri: String,
}

/// One `AppRunningRecords` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessRow {
    pub record_id: u32,
    pub name: String,
    pub pid: u32,
    pub uid: u32,
    /// `FOREGROUND`, `BACKGROUND` or `READY`.
    pub state: &'static str,
    /// `("uiextension provider", pid)` / `("root caller", pid)`.
    pub related: Option<(&'static str, u32)>,
}

/// Everything `aa dump -l` prints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AbilityRecords {
    pub missions: Vec<MissionRow>,
    pub extensions: Vec<ExtensionRow>,
    pub pending: Vec<PendingWantRow>,
    pub processes: Vec<ProcessRow>,
}

/// A service extension record: `(record id, start time)`, `(keep alive, connected)`.
fn service(
    bundle: &str,
    module: &str,
    ability: &str,
    (record_id, start_time): (u32, u64),
    app_state: &'static str,
    (keep_alive, connected): (bool, bool),
) -> ExtensionRow {
    ExtensionRow {
        bundle: bundle.into(),
        module: module.into(),
        uri_name: ability.into(),
        ability: ability.into(),
        record_id,
        state: "ACTIVE",
        start_time,
        kind: "SERVICE",
        app_state,
        keep_alive,
        connections: if connected {
            vec![format!("{bundle}/{ability}")]
        } else {
            Vec::new()
        },
        root_host: None,
    }
}

impl Phone {
    /// The records as the ability manager holds them now.
    pub fn ability_records(&self) -> AbilityRecords {
        let scb = super::loader::SCENEBOARD;
        let scb_main = "com.ohos.sceneboard.MainAbility";
        let mut extensions = vec![
            service(
                super::loader::IME_BUNDLE,
                "default",
                "InputService",
                (17, 216_720_436),
                "BEGIN",
                (false, true),
            ),
            service(
                "com.ohos.medialibrary.medialibrarydata",
                "entry",
                "DataShareExtAbility",
                (12, 216_719_751),
                "BEGIN",
                (false, true),
            ),
            ExtensionRow {
                bundle: scb.into(),
                module: "engineservice".into(),
                uri_name: "EngineServiceAbility1".into(),
                ability: "EngineServiceAbility".into(),
                record_id: 18,
                state: "FOREGROUND",
                start_time: 216_722_029,
                kind: "UIEXTENSION",
                app_state: "BACKGROUND",
                keep_alive: true,
                connections: Vec::new(),
                root_host: Some((
                    scb.into(),
                    "phone_sceneboard".into(),
                    scb_main.into(),
                    sys::SCB_ENGINE,
                )),
            },
            service(
                scb,
                "phone_sceneboard",
                scb_main,
                (7, 216_719_372),
                "BACKGROUND",
                (true, true),
            ),
            service(
                scb,
                "themeservice_core",
                "ThemeServiceAbility",
                (15, 216_720_075),
                "BACKGROUND",
                (true, false),
            ),
        ];
        let mut next_record = 200;
        for p in self.procs.values() {
            let module = self
                .apps
                .get(&p.bundle)
                .map(|a| a.spec.module.clone())
                .unwrap_or_default();
            for ext in &p.extensions {
                next_record += 1;
                let is_service = self.apps.get(&p.bundle).is_some_and(|a| {
                    a.spec
                        .abilities
                        .iter()
                        .any(|x| &x.name == ext && x.kind == AbilityKind::Service)
                });
                if !is_service {
                    continue;
                }
                let started = p
                    .started
                    .duration_since(self.boot_time)
                    .unwrap_or_default()
                    .as_millis() as u64;
                extensions.push(service(
                    &p.bundle,
                    &module,
                    ext,
                    (next_record, started),
                    if self.foreground.as_deref() == Some(p.bundle.as_str()) {
                        "FOREGROUND"
                    } else {
                        "BACKGROUND"
                    },
                    (false, false),
                ));
            }
        }
        let pending = vec![
            PendingWantRow {
                id: 15,
                kind: 4,
                bundle: String::new(),
                flags: 268_435_456,
                uri: "///".into(),
            },
            PendingWantRow {
                id: 3,
                kind: 3,
                bundle: "com.huawei.hmos.betaclub".into(),
                flags: 268_435_456,
                uri: "//com.huawei.hmos.betaclub/NotificationAbility".into(),
            },
            PendingWantRow {
                id: 14,
                kind: 4,
                bundle: "com.ohos.locationdialog".into(),
                flags: 67_108_864,
                uri: "///".into(),
            },
        ];
        let uid_of = |pid: u32| {
            system_processes()
                .iter()
                .find(|(p, _, _)| *p == pid)
                .map_or(0, |(_, _, u)| *u)
        };
        let mut processes = vec![
            ProcessRow {
                record_id: 0,
                name: scb.into(),
                pid: sys::SCENEBOARD,
                uid: uid_of(sys::SCENEBOARD),
                state: "BACKGROUND",
                related: Some(("uiextension provider", sys::SCB_ENGINE)),
            },
            ProcessRow {
                record_id: 1,
                name: "com.ohos.medialibrary.medialibrarydata".into(),
                pid: sys::MEDIALIBRARY,
                uid: uid_of(sys::MEDIALIBRARY),
                state: "READY",
                related: None,
            },
            ProcessRow {
                record_id: 2,
                name: format!("{}:inputMethod", super::loader::IME_BUNDLE),
                pid: sys::IME,
                uid: uid_of(sys::IME),
                state: "READY",
                related: None,
            },
            ProcessRow {
                record_id: 3,
                name: "com.ohos.sceneboard:EngineServiceAbility:1".into(),
                pid: sys::SCB_ENGINE,
                uid: uid_of(sys::SCB_ENGINE),
                state: "FOREGROUND",
                related: Some(("root caller", sys::SCENEBOARD)),
            },
        ];
        for (i, p) in self.procs.values().enumerate() {
            let fg = self.awake && self.foreground.as_deref() == Some(p.bundle.as_str());
            processes.push(ProcessRow {
                record_id: 4 + i as u32,
                name: p.bundle.clone(),
                pid: p.pid,
                uid: p.uid,
                state: if fg { "FOREGROUND" } else { "BACKGROUND" },
                related: None,
            });
        }
        AbilityRecords {
            missions: self.missions(),
            extensions,
            pending,
            processes,
        }
    }
}
