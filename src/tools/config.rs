//! The tools' configuration, read once by the CLI from the environment and passed down (no
//! other module reads the environment). Tests build it directly and override per call.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::tools::build_app::SigningPasswords;

/// Settings every tool call may consult.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolConfig {
    /// `INPUT_FOCUS_TIMEOUT_MS` (default 5000): deadline for a text field to take focus.
    pub input_focus_timeout_ms: u64,
    /// `INPUT_VERIFY_TIMEOUT_MS` (default 15000): deadline for typed text to become visible.
    pub input_verify_timeout_ms: u64,
    /// `HARMONYOS_HDC_SERVER`: the hdc server used when a call names none.
    pub default_hdc_server: Option<String>,
    /// Where screenshots go when a call gives no `local_path`.
    pub screenshots_dir: PathBuf,
    /// Host directories tools may write into (screenshots). Empty = no restriction.
    pub allowed_roots: Vec<PathBuf>,
    /// Relative host paths are resolved against this directory.
    pub working_dir: PathBuf,
    /// Deadline for `run_app`'s window verification.
    pub launch_verify_timeout_ms: u64,
    /// Where run reports go (`TAPFLOW_REPORTS_DIR`, default `<cwd>/reports`); `logs_query` may
    /// read input files from and write `save_path` into it.
    pub reports_dir: PathBuf,
    /// The system temp directory; `logs_query` may read from and write into it.
    pub temp_dir: PathBuf,
    /// `build_app`'s tools, time budget and signing secrets.
    pub build: BuildSettings,
}

/// What `build_app` runs with (turned into a `build_app::BuildConfig` per call).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildSettings {
    /// `TAPFLOW_HVIGORW`: the hvigor wrapper; default the project's own `hvigorw`.
    pub hvigorw: Option<PathBuf>,
    /// `TAPFLOW_NODE`: node for a `hvigorw.js` wrapper; default `node` on `PATH`.
    pub node: Option<PathBuf>,
    /// `TAPFLOW_JAVA`: java for the SDK jars; default `java` on `PATH`.
    pub java: Option<PathBuf>,
    /// `DEVECO_SDK_HOME`: the SDK root (passed to hvigor, searched for the toolchain jars).
    pub sdk_home: Option<PathBuf>,
    /// `TAPFLOW_TOOLCHAINS_LIB`: a directory holding `app_packing_tool.jar` and `hap-sign-tool.jar`.
    pub toolchains_lib: Option<PathBuf>,
    /// `TAPFLOW_BUILD_TIMEOUT_MS` (default 600000): wall-clock budget of one `build_app` call.
    pub timeout_ms: u64,
    /// `HAP_SIGN_PASSWORD`, `HAP_KEY_PASSWORD`, `HAP_STORE_PASSWORD` (never printed).
    pub passwords: SigningPasswords,
    /// Extra environment for every build child process (embedders and tests; not read from
    /// the environment, which children inherit anyway).
    pub extra_env: Vec<(OsString, OsString)>,
}

impl Default for BuildSettings {
    fn default() -> Self {
        BuildSettings {
            hvigorw: None,
            node: None,
            java: None,
            sdk_home: None,
            toolchains_lib: None,
            timeout_ms: 600_000,
            passwords: SigningPasswords::default(),
            extra_env: Vec::new(),
        }
    }
}

impl Default for ToolConfig {
    fn default() -> Self {
        let working_dir = PathBuf::from(".");
        let screenshots_dir = working_dir.join("screenshots");
        ToolConfig {
            input_focus_timeout_ms: 5000,
            input_verify_timeout_ms: 15000,
            default_hdc_server: None,
            screenshots_dir: screenshots_dir.clone(),
            allowed_roots: Vec::new(),
            reports_dir: working_dir.join("reports"),
            working_dir,
            launch_verify_timeout_ms: 5000,
            temp_dir: std::env::temp_dir(),
            build: BuildSettings::default(),
        }
    }
}

impl ToolConfig {
    /// Builds the configuration from environment variables (given as a map, so only the CLI
    /// touches `std::env`) and the process's working directory.
    ///
    /// Variables: `INPUT_FOCUS_TIMEOUT_MS`, `INPUT_VERIFY_TIMEOUT_MS`, `HARMONYOS_HDC_SERVER`,
    /// `TAPFLOW_SCREENSHOT_DIR` (default `<HOME>/.tapflow/screenshots`, else
    /// `<cwd>/.tapflow/screenshots`), `TAPFLOW_ALLOWED_ROOTS` (list separated like `PATH`;
    /// default: the working directory, the screenshots directory and the system temp directory),
    /// `TAPFLOW_LAUNCH_VERIFY_TIMEOUT_MS` (default 5000), `TAPFLOW_REPORTS_DIR` (default
    /// `<cwd>/reports`), and for `build_app`: `TAPFLOW_HVIGORW`, `TAPFLOW_NODE`, `TAPFLOW_JAVA`,
    /// `DEVECO_SDK_HOME`, `TAPFLOW_TOOLCHAINS_LIB` (relative paths resolve against `cwd`),
    /// `TAPFLOW_BUILD_TIMEOUT_MS` (default 600000), `HAP_SIGN_PASSWORD`, `HAP_KEY_PASSWORD`,
    /// `HAP_STORE_PASSWORD`. Unparsable numbers are reported.
    pub fn from_env_map(env: &HashMap<String, String>, cwd: &Path) -> Result<Self, String> {
        let num = |key: &str, default: u64| -> Result<u64, String> {
            match env.get(key).map(|s| s.trim()).filter(|s| !s.is_empty()) {
                None => Ok(default),
                Some(v) => v.parse::<u64>().map_err(|_| {
                    format!("{key}={v:?} is not a non-negative integer (milliseconds)")
                }),
            }
        };
        let non_empty = |key: &str| {
            env.get(key)
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
        };
        let screenshots_dir = match non_empty("TAPFLOW_SCREENSHOT_DIR") {
            Some(d) => absolutize(cwd, Path::new(&d)),
            None => match non_empty("HOME").or_else(|| non_empty("USERPROFILE")) {
                Some(home) => PathBuf::from(home).join(".tapflow").join("screenshots"),
                None => cwd.join(".tapflow").join("screenshots"),
            },
        };
        let temp_dir = std::env::temp_dir();
        let path = |key: &str| non_empty(key).map(|p| absolutize(cwd, Path::new(&p)));
        // Secrets are taken verbatim (a password may start or end with a space).
        let secret = |key: &str| env.get(key).filter(|s| !s.is_empty()).cloned();
        let build = BuildSettings {
            hvigorw: path("TAPFLOW_HVIGORW"),
            node: path("TAPFLOW_NODE"),
            java: path("TAPFLOW_JAVA"),
            sdk_home: path("DEVECO_SDK_HOME"),
            toolchains_lib: path("TAPFLOW_TOOLCHAINS_LIB"),
            timeout_ms: num("TAPFLOW_BUILD_TIMEOUT_MS", 600_000)?,
            passwords: SigningPasswords {
                sign: secret("HAP_SIGN_PASSWORD"),
                key: secret("HAP_KEY_PASSWORD"),
                store: secret("HAP_STORE_PASSWORD"),
            },
            extra_env: Vec::new(),
        };
        let allowed_roots = match env.get("TAPFLOW_ALLOWED_ROOTS") {
            Some(list) => std::env::split_paths(list)
                .filter(|p| !p.as_os_str().is_empty())
                .map(|p| absolutize(cwd, &p))
                .collect(),
            None => vec![cwd.to_path_buf(), screenshots_dir.clone(), temp_dir.clone()],
        };
        Ok(ToolConfig {
            input_focus_timeout_ms: num("INPUT_FOCUS_TIMEOUT_MS", 5000)?,
            input_verify_timeout_ms: num("INPUT_VERIFY_TIMEOUT_MS", 15000)?,
            default_hdc_server: non_empty("HARMONYOS_HDC_SERVER"),
            screenshots_dir,
            allowed_roots,
            working_dir: cwd.to_path_buf(),
            launch_verify_timeout_ms: num("TAPFLOW_LAUNCH_VERIFY_TIMEOUT_MS", 5000)?,
            reports_dir: path("TAPFLOW_REPORTS_DIR").unwrap_or_else(|| cwd.join("reports")),
            temp_dir,
            build,
        })
    }

    /// Resolves a host path given by a caller (relative to the working directory).
    pub fn host_path(&self, given: &str) -> PathBuf {
        absolutize(&self.working_dir, Path::new(given))
    }

    /// Whether a tool may write `path` (lexically normalised; `..` cannot escape a root).
    pub fn may_write(&self, path: &Path) -> bool {
        if self.allowed_roots.is_empty() {
            return true;
        }
        let path = normalize(path);
        self.allowed_roots
            .iter()
            .any(|root| path.starts_with(normalize(root)))
    }
}

fn absolutize(base: &Path, p: &Path) -> PathBuf {
    if p.is_absolute() {
        normalize(p)
    } else {
        normalize(&base.join(p))
    }
}

/// Removes `.` and resolves `..` lexically (no file system access: the file may not exist yet).
pub fn normalize(p: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_map_gives_defaults_and_overrides() {
        let cwd = Path::new("/work/p");
        let mut env = HashMap::new();
        env.insert("HOME".to_string(), "/home/u".to_string());
        let c = ToolConfig::from_env_map(&env, cwd).unwrap();
        assert_eq!(c.input_focus_timeout_ms, 5000);
        assert_eq!(c.input_verify_timeout_ms, 15000);
        assert_eq!(c.default_hdc_server, None);
        assert_eq!(
            c.screenshots_dir,
            PathBuf::from("/home/u/.tapflow/screenshots")
        );
        assert!(c.may_write(Path::new("/work/p/a.png")));
        assert!(!c.may_write(Path::new("/work/p/../q/a.png")));

        env.insert("INPUT_FOCUS_TIMEOUT_MS".into(), "250".into());
        env.insert("HARMONYOS_HDC_SERVER".into(), "192.168.43.34:35215".into());
        env.insert("TAPFLOW_ALLOWED_ROOTS".into(), "/tmp/x".into());
        let c = ToolConfig::from_env_map(&env, cwd).unwrap();
        assert_eq!(c.input_focus_timeout_ms, 250);
        assert_eq!(c.default_hdc_server.as_deref(), Some("192.168.43.34:35215"));
        assert!(!c.may_write(Path::new("/work/p/a.png")));
        assert!(c.may_write(Path::new("/tmp/x/y/a.png")));

        env.insert("INPUT_VERIFY_TIMEOUT_MS".into(), "soon".into());
        assert!(
            ToolConfig::from_env_map(&env, cwd)
                .unwrap_err()
                .contains("INPUT_VERIFY_TIMEOUT_MS")
        );
    }

    #[test]
    fn build_settings_and_reports_dir_come_from_the_env_map() {
        let cwd = Path::new("/work/p");
        let c = ToolConfig::from_env_map(&HashMap::new(), cwd).unwrap();
        assert_eq!(c.reports_dir, PathBuf::from("/work/p/reports"));
        assert_eq!(c.build, BuildSettings::default());
        assert_eq!(c.build.timeout_ms, 600_000);

        let env: HashMap<String, String> = [
            ("TAPFLOW_REPORTS_DIR", "out/reports"),
            ("TAPFLOW_HVIGORW", "tools/hvigorw"),
            ("TAPFLOW_JAVA", "/usr/bin/java"),
            ("DEVECO_SDK_HOME", "/opt/sdk"),
            ("TAPFLOW_TOOLCHAINS_LIB", "/opt/lib"),
            ("TAPFLOW_BUILD_TIMEOUT_MS", "120000"),
            ("HAP_SIGN_PASSWORD", " s3cret "),
            ("HAP_KEY_PASSWORD", ""),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let c = ToolConfig::from_env_map(&env, cwd).unwrap();
        assert_eq!(c.reports_dir, PathBuf::from("/work/p/out/reports"));
        assert_eq!(
            c.build.hvigorw,
            Some(PathBuf::from("/work/p/tools/hvigorw"))
        );
        assert_eq!(c.build.java, Some(PathBuf::from("/usr/bin/java")));
        assert_eq!(c.build.sdk_home, Some(PathBuf::from("/opt/sdk")));
        assert_eq!(c.build.toolchains_lib, Some(PathBuf::from("/opt/lib")));
        assert_eq!(c.build.node, None);
        assert_eq!(c.build.timeout_ms, 120_000);
        assert_eq!(c.build.passwords.sign.as_deref(), Some(" s3cret "));
        assert_eq!(c.build.passwords.key, None);
        assert!(
            !format!("{c:?}").contains("s3cret"),
            "secrets never reach Debug"
        );

        let mut bad = env.clone();
        bad.insert("TAPFLOW_BUILD_TIMEOUT_MS".into(), "2m".into());
        assert!(
            ToolConfig::from_env_map(&bad, cwd)
                .unwrap_err()
                .contains("TAPFLOW_BUILD_TIMEOUT_MS")
        );
    }
}
