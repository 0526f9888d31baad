//! Test harness for `build_app`: temp HarmonyOS projects wired to the fake SDK tools in this directory
//! (`hvigorw`, `java`). Used by `tests/tools/build_app*.rs` as `crate::common::harness`.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use tapflow_tools::build_app::{BuildAppParams, BuildConfig};

/// DevEco-style ciphertext (≥ 32 hex characters): the fake keystore never accepts it.
pub const ENCRYPTED_KEY_PWD: &str = "0000001A7C3F5B2D9E8A6C4B1D0F2E3A5B7C9D1E3F5A7B9C";
pub const ENCRYPTED_STORE_PWD: &str = "0000001B8D4E6C3E0F9B7D5C2E1A3F4B6C8D0E2F4A6B8C0D";

pub fn fake_sdk_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fake-sdk")
}

pub fn fixture_path(name: &str) -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("tests/fixtures/harmonyos")
        .join(name)
}

/// A temp project `DemoApp` (`build-profile.json5`, `hvigorfile.ts`) with an `entry` module, signing
/// files and a fake SDK `toolchains/lib`.
pub struct Fixture {
    _dir: tempfile::TempDir,
    pub root: PathBuf,
    pub sdk_lib: PathBuf,
    pub hvigor_log: PathBuf,
    pub java_log: PathBuf,
    modules: Vec<(String, String)>,
    pub env: Vec<(String, String)>,
}

impl Fixture {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("DemoApp");
        let sdk_lib = dir.path().join("sdk/default/openharmony/toolchains/lib");
        std::fs::create_dir_all(&sdk_lib).unwrap();
        std::fs::write(sdk_lib.join("app_packing_tool.jar"), b"PK fake jar").unwrap();
        std::fs::write(sdk_lib.join("hap-sign-tool.jar"), b"PK fake jar").unwrap();
        let mut f = Self {
            hvigor_log: dir.path().join("hvigor-calls.jsonl"),
            java_log: dir.path().join("java-calls.jsonl"),
            _dir: dir,
            root,
            sdk_lib,
            modules: Vec::new(),
            env: Vec::new(),
        };
        // The project's own hvigorfile (build_app refuses a directory without one).
        f.write(
            "hvigorfile.ts",
            "import { appTasks } from '@ohos/hvigor-ohos-plugin';\n\nexport default {\n  system: appTasks,\n  plugins: []\n}\n",
        );
        f.write("AppScope/app.json5", "{\n  app: {\n    bundleName: 'com.example.demo', // the app\n    versionCode: 1000000,\n    versionName: '1.0.0',\n  },\n}\n");
        f.write(
            "signing/default.cer",
            "-----BEGIN CERTIFICATE-----\nfake\n-----END CERTIFICATE-----\n",
        );
        f.write("signing/default.p7b", "fake profile");
        f.set_keystore("123456", "123456");
        f.add_module("entry", "entry");
        f
    }

    pub fn write(&self, rel: &str, text: &str) {
        let p = self.root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.root.join(rel)).unwrap()
    }

    /// The fake keystore: the passwords `hap-sign-tool` accepts.
    pub fn set_keystore(&self, store: &str, key: &str) {
        self.write(
            "signing/default.p12",
            &serde_json::json!({"storePassword": store, "keyPassword": key, "keyAlias": "debugKey"}).to_string(),
        );
    }

    /// Adds a module (`entry`, `feature`, `shared`, `har`) and rewrites `build-profile.json5`.
    pub fn add_module(&mut self, name: &str, kind: &str) {
        self.modules.push((name.to_string(), kind.to_string()));
        self.write(
            &format!("{name}/src/main/module.json5"),
            &format!("{{\n  module: {{\n    name: '{name}',\n    type: '{kind}',\n    deviceTypes: ['phone'], // trailing comma next\n  }},\n}}\n"),
        );
        self.write(
            &format!("{name}/src/main/ets/Index.ets"),
            "@Entry @Component struct Index { build() {} }\n",
        );
        self.write_profile();
    }

    fn write_profile(&self) {
        let modules: Vec<String> = self
            .modules
            .iter()
            .map(|(n, _)| format!("    {{ name: '{n}', srcPath: './{n}', targets: [{{ name: 'default', applyToProducts: ['default', 'nosign'] }}] }},"))
            .collect();
        let text = format!(
            r#"{{
  app: {{
    signingConfigs: [
      {{
        name: 'default',
        type: 'HarmonyOS',
        material: {{
          certpath: './signing/default.cer',
          storePassword: '{ENCRYPTED_STORE_PWD}',
          keyAlias: 'debugKey',
          keyPassword: '{ENCRYPTED_KEY_PWD}',
          profile: './signing/default.p7b',
          signAlg: 'SHA256withECDSA',
          storeFile: './signing/default.p12',
        }},
      }},
    ],
    products: [
      {{ name: 'default', signingConfig: 'default', compatibleSdkVersion: '5.0.0(12)', runtimeOS: 'HarmonyOS' }},
      /* a product without signing: hvigor skips signing */
      {{ name: 'nosign', compatibleSdkVersion: '5.0.0(12)', runtimeOS: 'HarmonyOS' }},
    ],
    buildModeSet: [{{ name: 'debug' }}, {{ name: 'release' }}],
  }},
  modules: [
{}
  ],
}}
"#,
            modules.join("\n")
        );
        self.write("build-profile.json5", &text);
    }

    /// Rewrites `build-profile.json5` with a text replacement (asserting it applied).
    pub fn edit_profile(&self, from: &str, to: &str) {
        let text = self.read("build-profile.json5");
        assert!(text.contains(from), "profile has no {from:?}");
        self.write("build-profile.json5", &text.replacen(from, to, 1));
    }

    pub fn env(mut self, k: &str, v: &str) -> Self {
        self.env.push((k.to_string(), v.to_string()));
        self
    }

    pub fn set_env(&mut self, k: &str, v: &str) {
        self.env.push((k.to_string(), v.to_string()));
    }

    pub fn config(&self) -> BuildConfig {
        let mut extra_env: Vec<(std::ffi::OsString, std::ffi::OsString)> = vec![
            ("FAKE_HVIGOR_LOG".into(), self.hvigor_log.clone().into()),
            ("FAKE_JAVA_LOG".into(), self.java_log.clone().into()),
        ];
        extra_env.extend(self.env.iter().map(|(k, v)| (k.into(), v.into())));
        BuildConfig {
            hvigorw: Some(fake_sdk_dir().join("hvigorw")),
            java: Some(fake_sdk_dir().join("java")),
            sdk_home: Some(
                self.sdk_lib
                    .parent()
                    .unwrap()
                    .parent()
                    .unwrap()
                    .parent()
                    .unwrap()
                    .parent()
                    .unwrap()
                    .to_path_buf(),
            ),
            timeout: Duration::from_secs(60),
            extra_env,
            ..Default::default()
        }
    }

    pub fn params(&self) -> BuildAppParams {
        BuildAppParams::new(self.root.to_string_lossy())
    }

    fn calls(path: &Path) -> Vec<Vec<String>> {
        let Ok(text) = std::fs::read_to_string(path) else {
            return Vec::new();
        };
        text.lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                v["argv"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|a| a.as_str().unwrap().to_string())
                    .collect()
            })
            .collect()
    }

    /// Each hvigor call's arguments, joined by spaces.
    pub fn hvigor_calls(&self) -> Vec<String> {
        Self::calls(&self.hvigor_log)
            .into_iter()
            .map(|a| a.join(" "))
            .collect()
    }

    /// Each java call's argv.
    pub fn java_calls(&self) -> Vec<Vec<String>> {
        Self::calls(&self.java_log)
    }

    pub fn p(&self, rel: &str) -> String {
        self.root.join(rel).display().to_string()
    }
}

/// Entry names of a zip file.
pub fn zip_entries(path: &Path) -> Vec<String> {
    let zip = zip::ZipArchive::new(std::fs::File::open(path).unwrap()).unwrap();
    let mut names: Vec<String> = zip.file_names().map(str::to_string).collect();
    names.sort();
    names
}

/// Reads one entry of a zip file as text.
pub fn zip_text(path: &Path, entry: &str) -> String {
    use std::io::Read;
    let mut zip = zip::ZipArchive::new(std::fs::File::open(path).unwrap()).unwrap();
    let mut s = String::new();
    zip.by_name(entry).unwrap().read_to_string(&mut s).unwrap();
    s
}

/// A `java` that runs once (the repack) and then disappears, so the sign-app run cannot be started.
#[cfg(unix)]
pub fn java_that_vanishes_after_one_run(f: &Fixture) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let p = f.root.join("one-shot-java");
    let script = format!(
        "#!/bin/sh\n'{}' \"$@\"\nrc=$?\nrm -f \"$0\"\nexit $rc\n",
        fake_sdk_dir().join("java").display()
    );
    std::fs::write(&p, script).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    p
}
