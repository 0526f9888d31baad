//! The tools' configuration, read once by the CLI from the environment and passed down (no
//! other module reads the environment). Tests build it directly and override per call.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::build_app::SigningPasswords;
use tapflow_device::hostfs::{PathPolicy, normalize_lexically};

/// Settings every tool call may consult.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolConfig {
    /// `INPUT_FOCUS_TIMEOUT_MS` (default 5000): deadline for a text field to take focus.
    pub input_focus_timeout_ms: u64,
    /// `INPUT_VERIFY_TIMEOUT_MS` (default 15000): deadline for typed text to become visible.
    pub input_verify_timeout_ms: u64,
    /// `HARMONYOS_HDC_SERVER`: the hdc server used when a call names none.
    pub default_hdc_server: Option<String>,
    /// Where screenshots go when a call gives no `local_path` (an allowed root).
    pub screenshots_dir: PathBuf,
    /// Where run reports go (an allowed root).
    pub reports_dir: PathBuf,
    /// The project directory (the directory of `tapflow.toml`, else the working directory; an
    /// allowed root): the flow root of flows the MCP server reads.
    pub project_dir: PathBuf,
    /// The host-path policy every host file a tool reads or writes goes through (screenshot
    /// `local_path`, `logs_query` files, `install_app` `hap_path`, `build_app` `project_path`).
    /// Relative paths resolve against its base, the working directory. The runner and the MCP
    /// server use the same policy.
    pub paths: PathPolicy,
    /// Deadline for `run_app`'s window verification.
    pub launch_verify_timeout_ms: u64,
    /// `build_app`'s tools, time budget and signing secrets.
    pub build: BuildSettings,
}

/// Where the allowed roots come from besides the environment: the project file and command-line
/// flags, read once by the CLI (`tapflow.toml`, the MCP server's `--allow-root`, a run's
/// `--report-dir`). Paths are absolute or relative to the working directory.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RootSources {
    /// The project directory: the directory of `tapflow.toml`, else (`None`) the working
    /// directory. Always a root.
    pub project_dir: Option<PathBuf>,
    /// `[paths] allowed_roots` of `tapflow.toml`, resolved against its directory.
    pub project_roots: Vec<PathBuf>,
    /// `report_dir` of `tapflow.toml`, resolved against its directory: the reports directory
    /// when `TAPFLOW_REPORTS_DIR` is unset.
    pub project_reports_dir: Option<PathBuf>,
    /// Roots named on a command line (the MCP server's `--allow-root` flags).
    pub extra_roots: Vec<PathBuf>,
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
    /// Defaults for embedders and tests: the host-path policy allows nothing
    /// ([`PathPolicy::deny_all`]) until a caller sets one.
    fn default() -> Self {
        ToolConfig {
            input_focus_timeout_ms: 5000,
            input_verify_timeout_ms: 15000,
            default_hdc_server: None,
            screenshots_dir: PathBuf::from("screenshots"),
            reports_dir: PathBuf::from("reports"),
            project_dir: PathBuf::from("/"),
            paths: PathPolicy::deny_all(),
            launch_verify_timeout_ms: 5000,
            build: BuildSettings::default(),
        }
    }
}

impl ToolConfig {
    /// The configuration of a process whose project is the working directory and whose roots
    /// come from the environment only (see [`Self::configure`]).
    pub fn from_env_map(env: &HashMap<String, String>, cwd: &Path) -> Result<Self, String> {
        Self::configure(env, cwd, &RootSources::default())
    }

    /// Builds the configuration from environment variables (given as a map, so only the CLI
    /// touches `std::env`), the working directory and the other [`RootSources`].
    ///
    /// Variables: `INPUT_FOCUS_TIMEOUT_MS`, `INPUT_VERIFY_TIMEOUT_MS`, `HARMONYOS_HDC_SERVER`,
    /// `TAPFLOW_SCREENSHOT_DIR` (default `<HOME>/.tapflow/screenshots`, else
    /// `<cwd>/.tapflow/screenshots`), `TAPFLOW_REPORTS_DIR` (default `report_dir` of
    /// `tapflow.toml`, else `<project>/reports`), `TAPFLOW_ALLOWED_ROOTS` (more roots, a list
    /// separated like `PATH`), `TAPFLOW_LAUNCH_VERIFY_TIMEOUT_MS` (default 5000), and for
    /// `build_app`: `TAPFLOW_HVIGORW`, `TAPFLOW_NODE`, `TAPFLOW_JAVA`, `DEVECO_SDK_HOME`,
    /// `TAPFLOW_TOOLCHAINS_LIB` (relative paths resolve against `cwd`),
    /// `TAPFLOW_BUILD_TIMEOUT_MS` (default 600000), `HAP_SIGN_PASSWORD`, `HAP_KEY_PASSWORD`,
    /// `HAP_STORE_PASSWORD`. Unparsable numbers are reported.
    ///
    /// The allowed roots are the union of: the project directory, the reports directory, the
    /// screenshots directory (tapflow's own outputs), `[paths] allowed_roots` of `tapflow.toml`,
    /// `TAPFLOW_ALLOWED_ROOTS` and the command line's roots. Every source adds; none removes a
    /// default. The system temp directory is not a root unless one of them names it (any local
    /// user can write there). See `docs/security.md`.
    pub fn configure(
        env: &HashMap<String, String>,
        cwd: &Path,
        sources: &RootSources,
    ) -> Result<Self, String> {
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
        let project_dir = sources
            .project_dir
            .as_deref()
            .map(|d| absolutize(cwd, d))
            .unwrap_or_else(|| absolutize(cwd, Path::new(".")));
        let reports_dir = path("TAPFLOW_REPORTS_DIR")
            .or_else(|| {
                sources
                    .project_reports_dir
                    .as_deref()
                    .map(|d| absolutize(cwd, d))
            })
            .unwrap_or_else(|| project_dir.join("reports"));
        let mut roots = vec![
            project_dir.clone(),
            reports_dir.clone(),
            screenshots_dir.clone(),
        ];
        roots.extend(sources.project_roots.iter().map(|r| absolutize(cwd, r)));
        if let Some(list) = env.get("TAPFLOW_ALLOWED_ROOTS") {
            roots.extend(
                std::env::split_paths(list)
                    .filter(|p| !p.as_os_str().is_empty())
                    .map(|p| absolutize(cwd, &p)),
            );
        }
        roots.extend(sources.extra_roots.iter().map(|r| absolutize(cwd, r)));
        Ok(ToolConfig {
            input_focus_timeout_ms: num("INPUT_FOCUS_TIMEOUT_MS", 5000)?,
            input_verify_timeout_ms: num("INPUT_VERIFY_TIMEOUT_MS", 15000)?,
            default_hdc_server: non_empty("HARMONYOS_HDC_SERVER"),
            screenshots_dir,
            reports_dir,
            project_dir,
            paths: PathPolicy::new(absolutize(cwd, Path::new(".")), roots),
            launch_verify_timeout_ms: num("TAPFLOW_LAUNCH_VERIFY_TIMEOUT_MS", 5000)?,
            build,
        })
    }

    /// The same configuration with one more allowed root (a run directory named with
    /// `--report-dir`).
    pub fn with_root(mut self, root: impl Into<PathBuf>) -> Self {
        self.paths = self.paths.with_root(root);
        self
    }

    /// A configuration whose only root, and base for relative paths, is `dir`, with screenshots
    /// under `dir/screenshots` and reports under `dir/reports` (tests and embedders).
    pub fn rooted_at(dir: impl Into<PathBuf>) -> Self {
        let dir = dir.into();
        ToolConfig {
            screenshots_dir: dir.join("screenshots"),
            reports_dir: dir.join("reports"),
            project_dir: dir.clone(),
            paths: PathPolicy::new(dir.clone(), [dir]),
            ..ToolConfig::default()
        }
    }
}

fn absolutize(base: &Path, p: &Path) -> PathBuf {
    let joined = if p.is_absolute() {
        p.to_path_buf()
    } else {
        base.join(p)
    };
    normalize_lexically(&joined).unwrap_or(joined)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roots(c: &ToolConfig) -> Vec<PathBuf> {
        c.paths.roots().to_vec()
    }

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
        // The project, its reports and the screenshots: never the system temp directory.
        assert_eq!(
            roots(&c),
            [
                PathBuf::from("/work/p"),
                PathBuf::from("/work/p/reports"),
                PathBuf::from("/home/u/.tapflow/screenshots"),
            ]
        );
        assert_eq!(c.paths.base(), Path::new("/work/p"));
        assert!(c.paths.check_lexical("a.png").is_ok());
        assert!(c.paths.check_lexical("../q/a.png").is_err());
        assert!(
            c.paths
                .check_lexical(&std::env::temp_dir().join("x").display().to_string())
                .is_err()
        );

        env.insert("INPUT_FOCUS_TIMEOUT_MS".into(), "250".into());
        env.insert("HARMONYOS_HDC_SERVER".into(), "192.168.43.34:35215".into());
        env.insert("TAPFLOW_ALLOWED_ROOTS".into(), "/tmp/x:rel".into());
        let c = ToolConfig::from_env_map(&env, cwd).unwrap();
        assert_eq!(c.input_focus_timeout_ms, 250);
        assert_eq!(c.default_hdc_server.as_deref(), Some("192.168.43.34:35215"));
        // The variable adds roots (relative ones against the working directory).
        assert!(c.paths.check_lexical("/work/p/a.png").is_ok());
        assert!(c.paths.check_lexical("/tmp/x/y/a.png").is_ok());
        assert!(roots(&c).contains(&PathBuf::from("/work/p/rel")));

        env.insert("INPUT_VERIFY_TIMEOUT_MS".into(), "soon".into());
        assert!(
            ToolConfig::from_env_map(&env, cwd)
                .unwrap_err()
                .contains("INPUT_VERIFY_TIMEOUT_MS")
        );
    }

    #[test]
    fn roots_come_from_the_project_file_and_the_command_line() {
        let cwd = Path::new("/work/p/sub");
        let sources = RootSources {
            project_dir: Some(PathBuf::from("/work/p")),
            project_roots: vec![PathBuf::from("/work/shared-assets")],
            project_reports_dir: Some(PathBuf::from("/work/p/out")),
            extra_roots: vec![PathBuf::from("../../mcp-sandbox")],
        };
        let c = ToolConfig::configure(&HashMap::new(), cwd, &sources).unwrap();
        assert_eq!(c.reports_dir, PathBuf::from("/work/p/out"));
        assert_eq!(c.project_dir, PathBuf::from("/work/p"));
        assert_eq!(
            roots(&c),
            [
                PathBuf::from("/work/p"),
                PathBuf::from("/work/p/out"),
                PathBuf::from("/work/p/sub/.tapflow/screenshots"),
                PathBuf::from("/work/shared-assets"),
                PathBuf::from("/work/mcp-sandbox"),
            ]
        );
        // Relative tool paths still resolve against the working directory.
        assert_eq!(c.paths.base(), cwd);
        let env: HashMap<String, String> =
            [("TAPFLOW_REPORTS_DIR".to_string(), "/ci/reports".to_string())].into();
        let c = ToolConfig::configure(&env, cwd, &sources).unwrap();
        assert_eq!(c.reports_dir, PathBuf::from("/ci/reports"));
        assert!(c.paths.check_lexical("/ci/reports/r1/x.log").is_ok());
        let c = c.with_root("/elsewhere/run-1");
        assert!(c.paths.check_lexical("/elsewhere/run-1/x").is_ok());
    }

    #[test]
    fn the_default_allows_no_host_path() {
        let c = ToolConfig::default();
        assert!(c.paths.roots().is_empty());
        assert!(c.paths.check_lexical("/anything").is_err());
        let dir = Path::new("/w/t");
        let c = ToolConfig::rooted_at(dir);
        assert!(c.paths.check_lexical("x.png").is_ok());
        assert_eq!(c.screenshots_dir, dir.join("screenshots"));
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
