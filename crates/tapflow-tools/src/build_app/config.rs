//! Where `build_app` finds its tools, and the secrets it may use. The caller (the CLI) fills this from
//! flags and the environment once; this module never reads environment variables itself.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::error::{BuildError, Flow, codes};
use super::process::Invocation;
use super::project::files_under;

/// Tool locations, time budget and signing secrets for `build_app`.
#[derive(Debug, Clone)]
pub struct BuildConfig {
    /// The hvigor wrapper: `hvigorw`, `hvigorw.bat`, or `hvigorw.js` (run with [`node`](Self::node)).
    /// `None`: the project's own `hvigorw` (`hvigorw.bat` on Windows).
    pub hvigorw: Option<PathBuf>,
    /// Node used for a `.js` wrapper. `None`: `node` on `PATH`.
    pub node: Option<PathBuf>,
    /// The SDK root (`DEVECO_SDK_HOME`); passed to hvigor and searched for the toolchain jars.
    pub sdk_home: Option<PathBuf>,
    /// A directory that directly holds `app_packing_tool.jar` and `hap-sign-tool.jar`; searched first.
    pub toolchains_lib: Option<PathBuf>,
    /// The `java` executable for the jars. `None`: `java` on `PATH`.
    pub java: Option<PathBuf>,
    /// Wall-clock budget for the whole call (every hvigor, packing and signing run shares it).
    pub timeout: Duration,
    /// Plaintext signing passwords for the HSP/HNP flows (DevEco stores only ciphertext).
    pub passwords: SigningPasswords,
    /// Extra environment for every child process (e.g. `JAVA_HOME`, `NODE_HOME`).
    pub extra_env: Vec<(OsString, OsString)>,
}

/// `HAP_SIGN_PASSWORD`, `HAP_KEY_PASSWORD`, `HAP_STORE_PASSWORD`, as the caller read them.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct SigningPasswords {
    pub sign: Option<String>,
    pub key: Option<String>,
    pub store: Option<String>,
}

impl std::fmt::Debug for SigningPasswords {
    // Secrets never reach logs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mask = |o: &Option<String>| if o.is_some() { "Some(***)" } else { "None" };
        f.debug_struct("SigningPasswords")
            .field("sign", &mask(&self.sign))
            .field("key", &mask(&self.key))
            .field("store", &mask(&self.store))
            .finish()
    }
}

impl Default for BuildConfig {
    fn default() -> Self {
        Self {
            hvigorw: None,
            node: None,
            sdk_home: None,
            toolchains_lib: None,
            java: None,
            timeout: Duration::from_secs(600),
            passwords: SigningPasswords::default(),
            extra_env: Vec::new(),
        }
    }
}

pub const PACKING_JAR: &str = "app_packing_tool.jar";
pub const SIGN_JAR: &str = "hap-sign-tool.jar";

/// What a packing or signing run needs: the tools, the config (env, passwords) and the shared deadline.
#[derive(Debug, Clone, Copy)]
pub struct ToolContext<'a> {
    pub toolchain: &'a Toolchain,
    pub cfg: &'a BuildConfig,
    /// Working directory of the runs (the project).
    pub cwd: &'a Path,
    pub deadline: std::time::Instant,
}

/// The two SDK jars the repack flows need.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Toolchain {
    pub java: PathBuf,
    pub packing_jar: PathBuf,
    pub sign_jar: PathBuf,
}

impl BuildConfig {
    /// The start of an hvigor command line (program plus, for a `.js` wrapper, the script), run in the project.
    ///
    /// Only an executable wrapper runs: the configured one (`TAPFLOW_HVIGORW`; a `.js` one runs
    /// with node), else the project's own `hvigorw` (`hvigorw.bat` on Windows), which must be a
    /// regular file (not a link) with an exec bit. A wrapper without one is refused, never run
    /// through `sh`: a file without an exec bit may be one a tool wrote, not one the project
    /// ships (`HVIGOR_NOT_FOUND` with `details.reason`).
    pub fn hvigor_invocation(&self, project: &Path) -> Result<Invocation, BuildError> {
        let wrapper = match &self.hvigorw {
            Some(p) => {
                if !p.is_file() {
                    return Err(BuildError::new(
                        codes::HVIGOR_NOT_FOUND,
                        format!("configured hvigor wrapper does not exist: {}", p.display()),
                    ));
                }
                if !is_js(p) && !is_executable(p) {
                    return Err(not_executable(p, "configured hvigor wrapper"));
                }
                p.clone()
            }
            None => {
                let name = if cfg!(windows) {
                    "hvigorw.bat"
                } else {
                    "hvigorw"
                };
                let p = project.join(name);
                match std::fs::symlink_metadata(&p) {
                    Ok(m) if m.is_file() => {}
                    Ok(m) if m.file_type().is_symlink() => {
                        return Err(BuildError::with_details(
                            codes::HVIGOR_NOT_FOUND,
                            format!(
                                "{} is a symbolic link; build_app runs only a project's own \
                                 {name} file (or configure a wrapper with TAPFLOW_HVIGORW)",
                                p.display()
                            ),
                            serde_json::json!({"wrapper": p.display().to_string(), "reason": "symlink"}),
                        ));
                    }
                    _ => {
                        return Err(BuildError::new(
                            codes::HVIGOR_NOT_FOUND,
                            format!(
                                "no {name} in the project and no hvigor wrapper configured: {}",
                                p.display()
                            ),
                        ));
                    }
                }
                if !is_executable(&p) {
                    return Err(not_executable(&p, "the project's hvigor wrapper"));
                }
                p
            }
        };
        let mut inv = if is_js(&wrapper) {
            let node = self.node.clone().unwrap_or_else(|| PathBuf::from("node"));
            Invocation::new(node, project).arg(wrapper.into_os_string())
        } else {
            Invocation::new(wrapper, project)
        };
        inv.env = self.child_env();
        if let Some(sdk) = &self.sdk_home {
            inv.env
                .push(("DEVECO_SDK_HOME".into(), sdk.clone().into_os_string()));
        }
        Ok(inv)
    }

    /// Environment added to every child process.
    pub fn child_env(&self) -> Vec<(OsString, OsString)> {
        self.extra_env.clone()
    }

    /// Finds the jars and java for a repack flow; any missing jar → `<P>_TOOLCHAIN_NOT_FOUND` naming it.
    pub fn toolchain(&self, flow: Flow) -> Result<Toolchain, BuildError> {
        let packing = self.find_jar(PACKING_JAR);
        let sign = self.find_jar(SIGN_JAR);
        match (packing, sign) {
            (Some(packing_jar), Some(sign_jar)) => Ok(Toolchain {
                java: self.java.clone().unwrap_or_else(|| PathBuf::from("java")),
                packing_jar,
                sign_jar,
            }),
            (p, s) => {
                let missing: Vec<&str> = [(p.is_none(), PACKING_JAR), (s.is_none(), SIGN_JAR)]
                    .into_iter()
                    .filter(|(m, _)| *m)
                    .map(|(_, n)| n)
                    .collect();
                Err(BuildError::with_details(
                    flow.toolchain_not_found(),
                    format!(
                        "required SDK toolchain jars were not found: {}",
                        missing.join(", ")
                    ),
                    serde_json::json!({
                        "missing": missing,
                        "searched": self.jar_search_roots().iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
                    }),
                ))
            }
        }
    }

    fn jar_search_roots(&self) -> Vec<PathBuf> {
        self.toolchains_lib
            .iter()
            .chain(self.sdk_home.iter())
            .cloned()
            .collect()
    }

    /// Search order: `toolchains_lib/<jar>`, `<sdk>/default/openharmony/toolchains/lib/<jar>`,
    /// `<sdk>/openharmony/toolchains/lib/<jar>`, then anywhere under `<sdk>`.
    fn find_jar(&self, jar: &str) -> Option<PathBuf> {
        if let Some(dir) = &self.toolchains_lib {
            let p = dir.join(jar);
            if p.is_file() {
                return Some(p);
            }
        }
        let sdk = self.sdk_home.as_ref()?;
        for rel in [
            "default/openharmony/toolchains/lib",
            "openharmony/toolchains/lib",
        ] {
            let p = sdk.join(rel).join(jar);
            if p.is_file() {
                return Some(p);
            }
        }
        files_under(sdk, 8, &[]).find(|p| p.file_name().is_some_and(|n| n == jar))
    }
}

fn is_js(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("js"))
}

/// True when some exec bit is set (always on systems without them).
fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

fn not_executable(path: &Path, what: &str) -> BuildError {
    BuildError::with_details(
        codes::HVIGOR_NOT_FOUND,
        format!(
            "{what} {} is not executable; build_app runs only an executable wrapper and never \
             runs a file through sh (if the project ships it, restore its mode: chmod +x)",
            path.display()
        ),
        serde_json::json!({"wrapper": path.display().to_string(), "reason": "not_executable"}),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jar_lookup_order_and_missing_list() {
        let sdk = tempfile::tempdir().unwrap();
        let cfg = BuildConfig {
            sdk_home: Some(sdk.path().to_path_buf()),
            ..Default::default()
        };
        let e = cfg.toolchain(Flow::Hsp).unwrap_err();
        assert_eq!(e.code, codes::HSP_TOOLCHAIN_NOT_FOUND);
        assert_eq!(
            e.message,
            "required SDK toolchain jars were not found: app_packing_tool.jar, hap-sign-tool.jar"
        );
        let lib = sdk.path().join("default/openharmony/toolchains/lib");
        std::fs::create_dir_all(&lib).unwrap();
        std::fs::write(lib.join(PACKING_JAR), b"jar").unwrap();
        let e = cfg.toolchain(Flow::Hnp).unwrap_err();
        assert_eq!(e.code, codes::HNP_TOOLCHAIN_NOT_FOUND);
        assert!(e.message.ends_with(": hap-sign-tool.jar"));
        let deep = sdk.path().join("x/y");
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::write(deep.join(SIGN_JAR), b"jar").unwrap();
        let t = cfg.toolchain(Flow::Hsp).unwrap();
        assert_eq!(t.packing_jar, lib.join(PACKING_JAR));
        assert_eq!(t.sign_jar, deep.join(SIGN_JAR));
        assert_eq!(t.java, PathBuf::from("java"));
    }

    #[test]
    fn hvigor_wrapper_resolution() {
        let project = tempfile::tempdir().unwrap();
        let cfg = BuildConfig::default();
        assert_eq!(
            cfg.hvigor_invocation(project.path()).unwrap_err().code,
            codes::HVIGOR_NOT_FOUND
        );
        let js = project.path().join("hvigorw.js");
        std::fs::write(&js, "").unwrap();
        let cfg = BuildConfig {
            hvigorw: Some(js.clone()),
            sdk_home: Some("/sdk".into()),
            ..Default::default()
        };
        let inv = cfg.hvigor_invocation(project.path()).unwrap();
        assert_eq!(
            inv.argv(),
            vec!["node".to_string(), js.display().to_string()]
        );
        assert!(inv.env.contains(&("DEVECO_SDK_HOME".into(), "/sdk".into())));
    }

    #[cfg(unix)]
    #[test]
    fn only_an_executable_regular_wrapper_runs() {
        use std::os::unix::fs::PermissionsExt;
        let project = tempfile::tempdir().unwrap();
        let w = project.path().join("hvigorw");
        std::fs::write(&w, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&w, std::fs::Permissions::from_mode(0o644)).unwrap();
        let e = BuildConfig::default()
            .hvigor_invocation(project.path())
            .unwrap_err();
        assert_eq!(e.code, codes::HVIGOR_NOT_FOUND);
        assert_eq!(e.details["reason"], "not_executable");
        assert!(e.message.contains("not executable"), "{}", e.message);
        std::fs::set_permissions(&w, std::fs::Permissions::from_mode(0o755)).unwrap();
        let inv = BuildConfig::default()
            .hvigor_invocation(project.path())
            .unwrap();
        assert_eq!(inv.argv(), vec![w.display().to_string()]);
        // A link named hvigorw is not the project's wrapper, whatever it points at.
        let elsewhere = tempfile::tempdir().unwrap();
        let target = elsewhere.path().join("tool");
        std::fs::write(&target, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::remove_file(&w).unwrap();
        std::os::unix::fs::symlink(&target, &w).unwrap();
        let e = BuildConfig::default()
            .hvigor_invocation(project.path())
            .unwrap_err();
        assert_eq!(e.details["reason"], "symlink");
        // A configured wrapper must be executable too (unless it is a node script).
        let cfg = BuildConfig {
            hvigorw: Some(elsewhere.path().join("plain")),
            ..Default::default()
        };
        std::fs::write(elsewhere.path().join("plain"), "x").unwrap();
        assert_eq!(
            cfg.hvigor_invocation(project.path()).unwrap_err().details["reason"],
            "not_executable"
        );
    }

    #[test]
    fn passwords_are_masked_in_debug() {
        let p = SigningPasswords {
            sign: Some("hunter2".into()),
            ..Default::default()
        };
        assert!(!format!("{p:?}").contains("hunter2"));
    }
}
