//! The tools' configuration, read once by the CLI from the environment and passed down (no
//! other module reads the environment). Tests build it directly and override per call.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::build_app::SigningPasswords;
use tapflow_device::hostfs::{PathPolicy, normalize_lexically};

mod roots;
pub use roots::RootSources;
use roots::{Root, judge};

/// Settings every tool call may consult.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolConfig {
    /// `INPUT_FOCUS_TIMEOUT_MS` (default 5000): deadline for a text field to take focus.
    pub input_focus_timeout_ms: u64,
    /// `INPUT_VERIFY_TIMEOUT_MS` (default 15000): deadline for typed text to become visible.
    pub input_verify_timeout_ms: u64,
    /// `HARMONYOS_HDC_SERVER`: the hdc server used when a call names none.
    pub default_hdc_server: Option<String>,
    /// Where screenshots go when a call gives no `local_path` (an output root).
    pub screenshots_dir: PathBuf,
    /// Where run reports go (an output root).
    pub reports_dir: PathBuf,
    /// Where log snapshots (`logs_query` `save_path`) belong by default (an output root).
    pub logs_dir: PathBuf,
    /// The project directory (the directory of `tapflow.toml`, else the working directory; a
    /// read root unless too wide): the flow root of flows the MCP server reads.
    pub project_dir: PathBuf,
    /// The host-path policy every host file a tool reads or writes goes through (screenshot
    /// `local_path`, `logs_query` files, `install_app` `hap_path`, `build_app` `project_path`):
    /// read roots, write (output) roots and the trusted files never written. Relative paths
    /// resolve against its base, the working directory. The runner and the MCP server use the
    /// same policy.
    pub paths: PathPolicy,
    /// What configuring left out and why (a project directory too wide to be a root), for the
    /// CLI to print.
    pub notes: Vec<String>,
    /// Deadline for `run_app`'s window verification.
    pub launch_verify_timeout_ms: u64,
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

impl BuildSettings {
    /// The programs and directories configured here: trusted, so never written by a tool.
    fn configured_paths(&self) -> impl Iterator<Item = PathBuf> + '_ {
        [
            &self.hvigorw,
            &self.node,
            &self.java,
            &self.sdk_home,
            &self.toolchains_lib,
        ]
        .into_iter()
        .flatten()
        .cloned()
    }
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
            logs_dir: PathBuf::from("logs"),
            project_dir: PathBuf::from("/"),
            paths: PathPolicy::deny_all(),
            notes: Vec::new(),
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
    /// `TAPFLOW_SCREENSHOT_DIR` (default `<project>/screenshots`), `TAPFLOW_REPORTS_DIR`
    /// (default `report_dir` of `tapflow.toml`, else `<project>/reports`), `TAPFLOW_LOGS_DIR`
    /// (default `<project>/logs`), `TAPFLOW_ALLOWED_ROOTS` (more read roots, a list separated
    /// like `PATH`), `TAPFLOW_OUTPUT_ROOTS` (more output roots, likewise),
    /// `TAPFLOW_LAUNCH_VERIFY_TIMEOUT_MS` (default 5000), and for `build_app`:
    /// `TAPFLOW_HVIGORW`, `TAPFLOW_NODE`, `TAPFLOW_JAVA`, `DEVECO_SDK_HOME`,
    /// `TAPFLOW_TOOLCHAINS_LIB` (relative paths resolve against `cwd`),
    /// `TAPFLOW_BUILD_TIMEOUT_MS` (default 600000), `HAP_SIGN_PASSWORD`, `HAP_KEY_PASSWORD`,
    /// `HAP_STORE_PASSWORD`; `HOME` (or `USERPROFILE`) says which directory is too wide to be a
    /// root. Unparsable numbers are reported.
    ///
    /// The output (write) roots are the reports, screenshots and logs directories,
    /// `[paths] output_roots` of `tapflow.toml`, `TAPFLOW_OUTPUT_ROOTS` and the command line's
    /// output roots. The read roots are the project directory, every output root,
    /// `[paths] allowed_roots`, `TAPFLOW_ALLOWED_ROOTS` and the command line's roots. Every
    /// source adds; none removes a default. The system temp directory is not a root unless one
    /// of them names it (any local user can write there). `/`, the home directory or a
    /// directory containing it is refused unless the command line names it; see
    /// [`roots`](self::roots) and `docs/security.md`. The trusted files (the sources'
    /// `trusted_files` and the build tools configured here) are never written by a tool.
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
        let list = |key: &str| -> Vec<Root> {
            env.get(key)
                .map(|l| {
                    std::env::split_paths(l)
                        .filter(|p| !p.as_os_str().is_empty())
                        .map(|p| Root::new(absolutize(cwd, &p), key))
                        .collect()
                })
                .unwrap_or_default()
        };
        let from_file = |key: &str| format!("[paths] {key} of the project file");
        let all = |paths: &[PathBuf]| -> Vec<PathBuf> {
            paths.iter().map(|r| absolutize(cwd, r)).collect()
        };

        let reports = match path("TAPFLOW_REPORTS_DIR") {
            Some(d) => Root::new(d, "TAPFLOW_REPORTS_DIR"),
            None => match &sources.project_reports_dir {
                Some(d) => Root::new(absolutize(cwd, d), "report_dir of the project file"),
                None => Root::new(project_dir.join("reports"), "the default reports directory"),
            },
        };
        let screenshots = path("TAPFLOW_SCREENSHOT_DIR")
            .map(|d| Root::new(d, "TAPFLOW_SCREENSHOT_DIR"))
            .unwrap_or_else(|| {
                Root::new(
                    project_dir.join("screenshots"),
                    "the default screenshots directory",
                )
            });
        let logs = path("TAPFLOW_LOGS_DIR")
            .map(|d| Root::new(d, "TAPFLOW_LOGS_DIR"))
            .unwrap_or_else(|| Root::new(project_dir.join("logs"), "the default logs directory"));
        let (reports_dir, screenshots_dir, logs_dir) = (
            reports.path.clone(),
            screenshots.path.clone(),
            logs.path.clone(),
        );
        let mut write = vec![reports, screenshots, logs];
        write.extend(
            all(&sources.project_output_roots)
                .into_iter()
                .map(|r| Root::new(r, from_file("output_roots"))),
        );
        write.extend(list("TAPFLOW_OUTPUT_ROOTS"));
        let mut read: Vec<Root> = all(&sources.project_roots)
            .into_iter()
            .map(|r| Root::new(r, from_file("allowed_roots")))
            .collect();
        read.extend(list("TAPFLOW_ALLOWED_ROOTS"));
        // Named on the command line: explicit grants, read roots all of them (`judge`).
        let granted_write = all(&sources.extra_output_roots);
        let granted: Vec<PathBuf> = all(&sources.extra_roots)
            .into_iter()
            .chain(granted_write.iter().cloned())
            .collect();
        let protected: Vec<PathBuf> = all(&sources.trusted_files)
            .into_iter()
            .chain(build.configured_paths())
            .collect();
        let home = non_empty("HOME")
            .or_else(|| non_empty("USERPROFILE"))
            .map(PathBuf::from);
        let mut judged = judge(
            &project_dir,
            read,
            write,
            &granted,
            &protected,
            home.as_deref(),
        )?;
        judged.write.extend(granted_write);
        let paths = PathPolicy::split(absolutize(cwd, Path::new(".")), judged.read, judged.write)
            .protecting(protected);
        Ok(ToolConfig {
            input_focus_timeout_ms: num("INPUT_FOCUS_TIMEOUT_MS", 5000)?,
            input_verify_timeout_ms: num("INPUT_VERIFY_TIMEOUT_MS", 15000)?,
            default_hdc_server: non_empty("HARMONYOS_HDC_SERVER"),
            screenshots_dir,
            reports_dir,
            logs_dir,
            project_dir,
            paths,
            notes: judged.notes,
            launch_verify_timeout_ms: num("TAPFLOW_LAUNCH_VERIFY_TIMEOUT_MS", 5000)?,
            build,
        })
    }

    /// The same configuration with one more root to read and write (a run directory named with
    /// `--report-dir`).
    pub fn with_root(mut self, root: impl Into<PathBuf>) -> Self {
        self.paths = self.paths.with_root(root);
        self
    }

    /// A configuration whose only root (for reading and writing), and base for relative paths,
    /// is `dir`, with screenshots under `dir/screenshots`, reports under `dir/reports` and logs
    /// under `dir/logs` (tests and embedders).
    pub fn rooted_at(dir: impl Into<PathBuf>) -> Self {
        let dir = dir.into();
        ToolConfig {
            screenshots_dir: dir.join("screenshots"),
            reports_dir: dir.join("reports"),
            logs_dir: dir.join("logs"),
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
    use tapflow_device::hostfs::{Access, PathErrorKind};

    fn read(c: &ToolConfig) -> Vec<PathBuf> {
        c.paths.read_roots().to_vec()
    }

    fn write(c: &ToolConfig) -> Vec<PathBuf> {
        c.paths.write_roots().to_vec()
    }

    fn p(s: &str) -> PathBuf {
        PathBuf::from(s)
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
        assert_eq!(c.screenshots_dir, p("/work/p/screenshots"));
        assert_eq!(c.logs_dir, p("/work/p/logs"));
        // Written: the reports, screenshots and logs directories. Read: the project too.
        // Never the system temp directory.
        let outputs = [
            p("/work/p/reports"),
            p("/work/p/screenshots"),
            p("/work/p/logs"),
        ];
        assert_eq!(write(&c), outputs);
        assert_eq!(read(&c)[0], p("/work/p"));
        assert!(outputs.iter().all(|o| read(&c).contains(o)));
        assert_eq!(c.paths.base(), Path::new("/work/p"));
        assert!(c.paths.check_lexical("a.png").is_ok());
        assert!(c.paths.check_lexical("../q/a.png").is_err());
        assert!(c.paths.prepare_write("/work/p/a.png").is_err());
        assert!(
            c.paths
                .check_lexical(&std::env::temp_dir().join("x").display().to_string())
                .is_err()
        );
        assert!(c.notes.is_empty());

        env.insert("INPUT_FOCUS_TIMEOUT_MS".into(), "250".into());
        env.insert("HARMONYOS_HDC_SERVER".into(), "192.168.43.34:35215".into());
        env.insert("TAPFLOW_ALLOWED_ROOTS".into(), "/tmp/x:rel".into());
        env.insert("TAPFLOW_OUTPUT_ROOTS".into(), "/ci/out".into());
        env.insert("TAPFLOW_LOGS_DIR".into(), "hilogs".into());
        let c = ToolConfig::from_env_map(&env, cwd).unwrap();
        assert_eq!(c.input_focus_timeout_ms, 250);
        assert_eq!(c.default_hdc_server.as_deref(), Some("192.168.43.34:35215"));
        // The variables add roots (relative ones against the working directory).
        assert!(c.paths.check_lexical("/work/p/a.png").is_ok());
        assert!(c.paths.check_lexical("/tmp/x/y/a.png").is_ok());
        assert!(read(&c).contains(&p("/work/p/rel")));
        assert!(
            !write(&c).contains(&p("/tmp/x")),
            "read roots are not written"
        );
        assert!(write(&c).contains(&p("/ci/out")) && read(&c).contains(&p("/ci/out")));
        assert_eq!(c.logs_dir, p("/work/p/hilogs"));

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
            project_dir: Some(p("/work/p")),
            project_roots: vec![p("/work/shared-assets")],
            project_output_roots: vec![p("/work/p/out/extra")],
            project_reports_dir: Some(p("/work/p/out")),
            extra_roots: vec![p("../../mcp-sandbox")],
            extra_output_roots: vec![p("/ci/artifacts")],
            trusted_files: vec![p("/work/p/tapflow.toml")],
        };
        let c = ToolConfig::configure(&HashMap::new(), cwd, &sources).unwrap();
        assert_eq!(c.reports_dir, p("/work/p/out"));
        assert_eq!(c.project_dir, p("/work/p"));
        assert_eq!(
            write(&c),
            [
                p("/work/p/out"),
                p("/work/p/screenshots"),
                p("/work/p/logs"),
                p("/work/p/out/extra"),
                p("/ci/artifacts"),
            ]
        );
        for r in ["/work/p", "/work/shared-assets", "/work/mcp-sandbox"] {
            assert!(read(&c).contains(&p(r)), "{r}");
            assert!(!write(&c).contains(&p(r)), "{r}");
        }
        assert_eq!(c.paths.protected(), [p("/work/p/tapflow.toml")]);
        // Relative tool paths still resolve against the working directory.
        assert_eq!(c.paths.base(), cwd);
        let env: HashMap<String, String> =
            [("TAPFLOW_REPORTS_DIR".to_string(), "/ci/reports".to_string())].into();
        let c = ToolConfig::configure(&env, cwd, &sources).unwrap();
        assert_eq!(c.reports_dir, p("/ci/reports"));
        assert!(c.paths.check_lexical("/ci/reports/r1/x.log").is_ok());
        let c = c.with_root("/elsewhere/run-1");
        assert!(c.paths.check_lexical("/elsewhere/run-1/x").is_ok());
        assert!(c.paths.write_roots().contains(&p("/elsewhere/run-1")));
    }

    /// Issue 18, seen 1: `allowed_roots = ["/"]` in a `tapflow.toml` (which a tool could once
    /// write) made every file readable. A file or a variable cannot grant `/` or the home
    /// directory; the command line can.
    #[test]
    fn the_whole_disk_or_home_needs_the_command_line() {
        let cwd = Path::new("/work/p");
        let home: HashMap<String, String> = [("HOME".to_string(), "/home/u".to_string())].into();
        let from_file = RootSources {
            project_roots: vec![p("/")],
            ..RootSources::default()
        };
        let e = ToolConfig::configure(&home, cwd, &from_file).unwrap_err();
        assert!(
            e.starts_with(
                "[paths] allowed_roots of the project file names /, the whole file system"
            ),
            "{e}"
        );
        assert!(e.contains("tapflow mcp --allow-root /"), "{e}");
        let granted = RootSources {
            extra_roots: vec![p("/")],
            ..from_file.clone()
        };
        let c = ToolConfig::configure(&home, cwd, &granted).unwrap();
        assert!(c.paths.check_lexical("/etc/passwd").is_ok());
        assert!(
            c.paths.prepare_write("/etc/x").is_err(),
            "read, not written"
        );
        for (key, value) in [
            ("TAPFLOW_ALLOWED_ROOTS", "/home/u"),
            ("TAPFLOW_OUTPUT_ROOTS", "/"),
            ("TAPFLOW_SCREENSHOT_DIR", "/home/u"),
            ("TAPFLOW_REPORTS_DIR", "/home"),
        ] {
            let mut env = home.clone();
            env.insert(key.into(), value.into());
            let e = ToolConfig::from_env_map(&env, cwd).unwrap_err();
            assert!(e.starts_with(key), "{e}");
        }
        // Started in the home directory: the project is no root, and the CLI is told why.
        let c = ToolConfig::from_env_map(&home, Path::new("/home/u")).unwrap();
        assert!(!read(&c).contains(&p("/home/u")));
        assert!(c.paths.check_lexical("/home/u/.ssh/id_ed25519").is_err());
        assert!(c.notes[0].contains("not a root"), "{:?}", c.notes);
    }

    #[test]
    fn build_tools_and_trusted_files_are_protected() {
        let env: HashMap<String, String> = [
            ("TAPFLOW_HVIGORW", "/work/p/reports/hvigorw-wrapper"),
            ("DEVECO_SDK_HOME", "/work/p/logs/sdk"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let c = ToolConfig::from_env_map(&env, Path::new("/work/p")).unwrap();
        assert!(
            c.paths
                .check_lexical_for("reports/a.log", Access::Write)
                .is_ok()
        );
        for refused in ["reports/hvigorw-wrapper", "logs/sdk/toolchains/x.log"] {
            let e = c
                .paths
                .check_lexical_for(refused, Access::Write)
                .unwrap_err();
            assert_eq!(e.kind, PathErrorKind::TrustedConfig, "{refused}");
        }
        let mut bad = env.clone();
        bad.insert(
            "TAPFLOW_SCREENSHOT_DIR".into(),
            "/home/u/.tapflow/shots".into(),
        );
        let e = ToolConfig::from_env_map(&bad, Path::new("/work/p")).unwrap_err();
        assert!(e.starts_with("TAPFLOW_SCREENSHOT_DIR names"), "{e}");
    }

    #[test]
    fn the_default_allows_no_host_path() {
        let c = ToolConfig::default();
        assert!(c.paths.read_roots().is_empty() && c.paths.write_roots().is_empty());
        assert!(c.paths.check_lexical("/anything").is_err());
        let dir = Path::new("/w/t");
        let c = ToolConfig::rooted_at(dir);
        assert!(c.paths.check_lexical("x.png").is_ok());
        assert_eq!(c.paths.read_roots(), c.paths.write_roots());
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
