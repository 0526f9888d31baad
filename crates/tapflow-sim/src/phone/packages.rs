//! Package management: install/replace/uninstall haps, `bm dump -n` JSON, `bm clean`.

use super::error::{PhoneError, codes};
use super::hap;
use super::logs::sys;
use super::model::AbilityKind;
use super::{Phone, loader};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::time::{SystemTime, UNIX_EPOCH};

fn ms(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

impl Phone {
    /// `bm install -p x.hap [-r]`. An installed bundle is updated (NEXT's bm replaces without `-r`
    /// too; `replace` only matters for the log line); a lower version code fails with 9568263.
    pub fn install_hap(
        &mut self,
        hap_bytes: &[u8],
        replace: bool,
        now: SystemTime,
    ) -> Result<String, PhoneError> {
        self.tick(now);
        let parsed = hap::parse_hap(hap_bytes)?;
        let bundle = parsed.spec.bundle.clone();
        if let Some(old) = self.apps.get(&bundle) {
            if old.system {
                return Err(PhoneError::new(
                    codes::INSTALL_VERSION_DOWNGRADE,
                    "install version downgrade.",
                ));
            }
            if parsed.spec.version_code < old.spec.version_code {
                return Err(PhoneError::new(
                    codes::INSTALL_VERSION_DOWNGRADE,
                    "install version downgrade.",
                ));
            }
            // Updating a running app kills it, as the real installer does.
            self.kill_app(&bundle, now, "update");
        }
        let path = format!(
            "/data/app/el1/bundle/public/{bundle}/{}.hap",
            parsed.spec.module
        );
        self.fs.write(&path, hap_bytes.to_vec());
        self.logs.core(
            now,
            sys::FOUNDATION,
            'I',
            0x1120,
            "BMS",
            format!("install {bundle} success, replace:{replace}"),
        );
        self.add_app(parsed.spec, false, true, now, Some(parsed.module_json));
        Ok(bundle)
    }

    /// `bm uninstall -n bundle`.
    pub fn uninstall(&mut self, bundle: &str) -> Result<(), PhoneError> {
        let app = self.apps.get(bundle).ok_or_else(|| {
            PhoneError::new(
                codes::UNINSTALL_MISSING_INSTALLED_BUNDLE,
                "uninstall missing installed bundle.",
            )
        })?;
        if app.system {
            return Err(PhoneError::new(
                codes::UNINSTALL_SYSTEM_APP,
                "uninstall system app error.",
            ));
        }
        let now = self.clock;
        self.kill_app(bundle, now, "uninstall");
        self.apps.shift_remove(bundle);
        self.fs
            .remove(&format!("/data/app/el1/bundle/public/{bundle}"));
        self.fs.remove(&format!("/data/app/el2/100/base/{bundle}"));
        Ok(())
    }

    /// Installed bundles sorted by name, byte-wise (`bm dump -a` lists the bundle manager's
    /// ordered map: `com.huawei.hmos.AutoRegService` before `com.huawei.hmos.advisor`).
    pub fn bundles(&self) -> Vec<String> {
        let mut v: Vec<String> = self.apps.keys().cloned().collect();
        v.sort();
        v
    }

    /// `bm clean -n bundle -d|-c`: data clean also stops the app and resets its state.
    pub fn clean(&mut self, bundle: &str, data: bool) -> Result<(), PhoneError> {
        if !self.apps.contains_key(bundle) {
            return Err(PhoneError::new(
                codes::UNINSTALL_MISSING_INSTALLED_BUNDLE,
                "failed to clean bundle: bundle not exist.",
            ));
        }
        let base = format!("/data/app/el2/100/base/{bundle}");
        if data {
            // Clearing data stops the app (its state goes with the process) and removes its
            // files, databases and preferences.
            let now = self.clock;
            self.kill_app(bundle, now, "clean data");
            self.fs.remove(&base);
            self.fs.remove(&format!("/data/app/el2/database/{bundle}"));
        } else {
            self.fs.remove(&format!("{base}/cache"));
        }
        Ok(())
    }

    /// Real-shaped `bm dump -n bundle` JSON (what follows the `bundle:` line).
    pub fn bundle_dump(&self, bundle: &str) -> Option<Value> {
        let app = self.apps.get(bundle)?;
        let s = &app.spec;
        let id_hash = hex::encode(Sha256::digest(bundle.as_bytes()));
        let main = s
            .abilities
            .iter()
            .find(|a| a.launcher)
            .or(s.abilities.iter().find(|a| a.kind == AbilityKind::Page))
            .map(|a| a.name.clone())
            .unwrap_or_default();
        let skills_json = |a: &super::model::AbilitySpec| -> Value {
            super::want::skills_of(a)
                .iter()
                .map(|sk| {
                    let mut o = json!({"actions": sk.actions, "entities": sk.entities});
                    if !sk.uris.is_empty() {
                        o["uris"] = sk
                            .uris
                            .iter()
                            .map(|u| match u.split_once("://") {
                                Some((scheme, host)) => json!({"scheme": scheme, "host": host}),
                                None => json!({"scheme": u, "host": ""}),
                            })
                            .collect();
                    }
                    o
                })
                .collect()
        };
        let abilities: Vec<Value> = s
            .abilities
            .iter()
            .filter(|a| a.kind == AbilityKind::Page)
            .map(|a| {
                json!({
                    "name": a.name, "moduleName": s.module, "bundleName": bundle,
                    "label": s.label, "visible": a.exported, "isLauncherAbility": a.launcher,
                    "type": 1, "launchMode": 0, "orientation": 0,
                    "srcEntry": format!("./ets/{}/{}.ets", a.name.to_lowercase(), a.name),
                    "skills": skills_json(a),
                })
            })
            .collect();
        let extensions: Vec<Value> = s
            .abilities
            .iter()
            .filter(|a| a.kind == AbilityKind::Service)
            .map(|a| {
                json!({
                    "name": a.name, "moduleName": s.module, "bundleName": bundle,
                    "extensionTypeName": "service", "type": 3, "visible": a.exported,
                    "skills": skills_json(a),
                })
            })
            .collect();
        let perms: Vec<Value> = s
            .permissions
            .iter()
            .map(|p| Value::from(p.as_str()))
            .collect();
        let code_path = format!("/data/app/el1/bundle/public/{bundle}");
        let min_api = self.profile.api_level;
        // Installed haps report what their module.json declares.
        let declared = |k: &str| {
            app.module_json
                .as_ref()
                .and_then(|m| m["app"].get(k).cloned())
        };
        let vendor = declared("vendor")
            .unwrap_or_else(|| Value::from(if app.system { "huawei" } else { "example" }));
        let min_api = declared("minAPIVersion")
            .and_then(|v| v.as_u64())
            .map(|v| v as u32)
            .unwrap_or(min_api);
        let application_info = json!({
            "accessTokenId": 537_000_000u64 + app.uid as u64 % 1_000_000,
            "apiReleaseType": "Release",
            "applicationReservedFlag": 0,
            "arkNativeFileAbi": "",
            "arkNativeFilePath": "",
            "asanEnabled": false,
            "asanLogPath": "",
            "associatedWakeUp": false,
            "bundleName": bundle,
            "bundleType": 0,
            "cacheDir": "",
            "codePath": code_path,
            "compileSdkType": "HarmonyOS",
            "compileSdkVersion": "5.0.0.60",
            "cpuAbi": self.profile.cpu_abi,
            "crowdtestDeadline": -1,
            "dataBaseDir": format!("/data/app/el2/database/{bundle}"),
            "dataDir": "",
            "debug": !app.system,
            "description": "",
            "descriptionId": 0,
            "descriptionResource": {"bundleName": bundle, "id": 0, "moduleName": s.module},
            "deviceId": "PHONE-001",
            "distributedNotificationEnabled": true,
            "enabled": true,
            "entityType": "unspecified",
            "entryDir": "",
            "entryModuleName": s.module,
            "fingerprint": hex::encode_upper(Sha256::digest(format!("{bundle}/cert").as_bytes())),
            "isSystemApp": app.system,
            "label": s.label,
            "minCompatibleVersionCode": s.version_code,
            "moduleInfos": [{"moduleName": s.module, "moduleSourceDir": "", "preloads": []}],
            "name": bundle,
            "process": bundle,
            "removable": !app.system,
            "uid": app.uid,
            "userDataClearable": true,
            "vendor": vendor,
            "versionCode": s.version_code,
            "versionName": s.version_name,
        });
        Some(json!({
            "appId": format!("{bundle}_{}", &id_hash[..44]),
            "appIdentifier": (u64::from_str_radix(&id_hash[..15], 16).unwrap_or(0) % 10_000_000_000_000_000_000).to_string(),
            "appIndex": 0,
            "applicationInfo": application_info,
            "compatibleVersion": min_api,
            "cpuAbi": "",
            "defPermissions": [],
            "description": "",
            "entryInstallationFree": false,
            "entryModuleName": s.module,
            "gid": app.uid,
            "hapModuleInfos": [{
                "moduleName": s.module,
                "name": s.module,
                "moduleType": 1,
                "mainElementName": main,
                "mainAbility": main,
                "hapPath": format!("{code_path}/{}.hap", s.module),
                "abilityInfos": abilities,
                "extensionInfos": extensions,
            }],
            "hideDesktopIcon": !app.on_launcher,
            "installTime": ms(app.install_time),
            "isPreInstallApp": app.system,
            "mainEntry": s.module,
            "name": bundle,
            "reqPermissions": perms,
            "targetVersion": min_api,
            "uid": app.uid,
            "updateTime": ms(app.install_time),
            "vendor": vendor,
            "versionCode": s.version_code,
            "versionName": s.version_name,
        }))
    }

    /// Bundle of the system launcher (SceneBoard), for the engine.
    pub fn launcher_bundle(&self) -> &'static str {
        loader::SCENEBOARD
    }
}
