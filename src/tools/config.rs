//! The tools' configuration, read once by the CLI from the environment and passed down (no
//! other module reads the environment). Tests build it directly and override per call.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

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
            working_dir,
            launch_verify_timeout_ms: 5000,
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
    /// `TAPFLOW_LAUNCH_VERIFY_TIMEOUT_MS` (default 5000). Unparsable numbers are reported.
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
        let allowed_roots = match env.get("TAPFLOW_ALLOWED_ROOTS") {
            Some(list) => std::env::split_paths(list)
                .filter(|p| !p.as_os_str().is_empty())
                .map(|p| absolutize(cwd, &p))
                .collect(),
            None => vec![
                cwd.to_path_buf(),
                screenshots_dir.clone(),
                std::env::temp_dir(),
            ],
        };
        Ok(ToolConfig {
            input_focus_timeout_ms: num("INPUT_FOCUS_TIMEOUT_MS", 5000)?,
            input_verify_timeout_ms: num("INPUT_VERIFY_TIMEOUT_MS", 15000)?,
            default_hdc_server: non_empty("HARMONYOS_HDC_SERVER"),
            screenshots_dir,
            allowed_roots,
            working_dir: cwd.to_path_buf(),
            launch_verify_timeout_ms: num("TAPFLOW_LAUNCH_VERIFY_TIMEOUT_MS", 5000)?,
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
}
