//! `tapflow.toml`: the project file. It is found once (`--config PATH`, else `tapflow.toml` in the
//! working directory), read with a bound through the host-path policy, and parsed into a typed
//! [`ProjectConfig`]; its directory is the project directory ([`Project::dir`]), against which its
//! relative paths (`report_dir`, `[paths] allowed_roots`, `[paths] output_roots`) resolve.
//!
//! It is trusted configuration: people write it, tools never do (the host-path policy refuses
//! every write to a `tapflow.toml`, and to the file `--config` named, see
//! `tapflow_device::hostfs::trusted`), and it cannot make `/` or the home directory a root on its
//! own (`tapflow_tools::config`).
//!
//! ```toml
//! devices = ["3QC0124C11000711"]   # flows are spread over these, round robin
//! report_dir = "reports"           # where run directories go (relative to this file)
//! tags = ["smoke"]                 # default tag selection for `tapflow run`
//! timeout = "10m"                  # default flow timeout
//! step_timeout = "30s"             # default step deadline
//! wait = "5s"                      # how long element steps wait for their target
//!
//! [env]                            # variable defaults (below TAPFLOW_* and --env)
//! USER = "demo@example.com"
//!
//! [paths]
//! allowed_roots = ["assets"]       # more directories tools may read (relative to this file)
//! output_roots = ["out"]           # more directories tools may write (and read)
//!
//! [mcp]                            # `tapflow mcp` only (see `mcp_section`)
//! deny_tools = ["uninstall_app"]
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use tapflow_core::flow;
use tapflow_device::hostfs::{PathPolicy, normalize_lexically};

/// The largest `tapflow.toml` read (it is configuration, not data).
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// Project defaults from `tapflow.toml` (all optional).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct ProjectConfig {
    pub devices: Vec<String>,
    /// As written; [`Project::report_dir`] resolves it.
    pub report_dir: Option<String>,
    pub tags: Vec<String>,
    pub flow_timeout_ms: Option<u64>,
    pub step_timeout_ms: Option<u64>,
    /// The implicit wait of element steps (`wait`).
    pub wait_ms: Option<u64>,
    pub env: BTreeMap<String, String>,
    /// `[paths] allowed_roots` (read roots), as written; [`Project::allowed_roots`] resolves
    /// them.
    pub allowed_roots: Vec<String>,
    /// `[paths] output_roots` (write roots), as written; [`Project::output_roots`] resolves
    /// them.
    pub output_roots: Vec<String>,
    /// `[mcp]`: the operator's MCP policy (`tapflow mcp` only).
    pub mcp: super::mcp_section::McpSection,
}

const CONFIG_KEYS: &[&str] = &[
    "devices",
    "report_dir",
    "tags",
    "timeout",
    "step_timeout",
    "wait",
    "env",
    "paths",
    "mcp",
];

const PATHS_KEYS: &[&str] = &["allowed_roots", "output_roots"];

/// Parses `tapflow.toml`; errors name the key and say what is expected.
pub fn parse_project_config(text: &str) -> Result<ProjectConfig, String> {
    let doc: toml_edit::DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| format!("invalid TOML: {}", e.message()))?;
    let mut cfg = ProjectConfig::default();
    let strings = |key: &str, item: &toml_edit::Item| -> Result<Vec<String>, String> {
        item.as_array()
            .and_then(|a| {
                a.iter()
                    .map(|v| v.as_str().map(str::to_string))
                    .collect::<Option<Vec<_>>>()
            })
            .ok_or_else(|| format!("`{key}` must be a list of strings"))
    };
    let duration = |key: &str, item: &toml_edit::Item| -> Result<u64, String> {
        if let Some(i) = item.as_integer() {
            return u64::try_from(i).map_err(|_| format!("`{key}` must not be negative"));
        }
        let s = item
            .as_str()
            .ok_or_else(|| format!("`{key}` must be milliseconds or a duration such as \"30s\""))?;
        flow::duration::parse_ms(s).map_err(|e| format!("`{key}`: {e}"))
    };
    let unknown = |prefix: &str, key: &str, known: &[&str]| {
        let hint = flow::suggest::did_you_mean(key, known.iter().copied())
            .unwrap_or_else(|| format!("known keys: {}", known.join(", ")));
        format!("unknown key `{prefix}{key}`; {hint}")
    };
    for (key, item) in doc.iter() {
        match key {
            "devices" => cfg.devices = strings(key, item)?,
            "tags" => cfg.tags = strings(key, item)?,
            "report_dir" => {
                cfg.report_dir = Some(
                    item.as_str()
                        .ok_or("`report_dir` must be a string")?
                        .to_string(),
                );
            }
            "timeout" => cfg.flow_timeout_ms = Some(duration(key, item)?),
            "step_timeout" => cfg.step_timeout_ms = Some(duration(key, item)?),
            "wait" => cfg.wait_ms = Some(duration(key, item)?),
            "env" => {
                let table = item.as_table_like().ok_or("`env` must be a table")?;
                for (name, v) in table.iter() {
                    if !flow::parse::is_var_name(name) {
                        return Err(format!("`env.{name}` is not a valid variable name"));
                    }
                    let value = match v.as_value() {
                        Some(toml_edit::Value::String(s)) => s.value().clone(),
                        Some(toml_edit::Value::Integer(i)) => i.value().to_string(),
                        Some(toml_edit::Value::Float(f)) => f.value().to_string(),
                        Some(toml_edit::Value::Boolean(b)) => b.value().to_string(),
                        _ => {
                            return Err(format!(
                                "`env.{name}` must be a string, number or boolean"
                            ));
                        }
                    };
                    cfg.env.insert(name.to_string(), value);
                }
            }
            "paths" => {
                let table = item.as_table_like().ok_or("`paths` must be a table")?;
                for (name, v) in table.iter() {
                    match name {
                        "allowed_roots" | "output_roots" => {
                            let key = format!("paths.{name}");
                            let roots = strings(&key, v)?;
                            if roots.iter().any(|r| r.trim().is_empty()) {
                                return Err(format!("`{key}` must not contain an empty path"));
                            }
                            if name == "allowed_roots" {
                                cfg.allowed_roots = roots;
                            } else {
                                cfg.output_roots = roots;
                            }
                        }
                        other => return Err(unknown("paths.", other, PATHS_KEYS)),
                    }
                }
            }
            "mcp" => cfg.mcp = super::mcp_section::parse(item)?,
            other => return Err(unknown("", other, CONFIG_KEYS)),
        }
    }
    Ok(cfg)
}

/// The project: its directory, its file (when there is one) and the parsed configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct Project {
    /// Absolute, normalised: the directory of `tapflow.toml`, else the working directory.
    pub dir: PathBuf,
    /// The project file read, absolute; `None` without one.
    pub file: Option<PathBuf>,
    pub config: ProjectConfig,
}

impl Project {
    /// The project of a working directory without a project file.
    pub fn without_file(cwd: &Path) -> Self {
        Project {
            dir: absolute(cwd, Path::new(".")),
            file: None,
            config: ProjectConfig::default(),
        }
    }

    /// Reads the project file: `explicit` (`--config PATH`, relative to `cwd`), else
    /// `tapflow.toml` in `cwd` if there is one. Errors say which file and what is wrong.
    pub fn load(explicit: Option<&Path>, cwd: &Path) -> Result<Project, String> {
        let (shown, path) = match explicit {
            Some(p) => (p.display().to_string(), absolute(cwd, p)),
            None => {
                let p = cwd.join("tapflow.toml");
                if std::fs::symlink_metadata(&p).is_err() {
                    return Ok(Project::without_file(cwd));
                }
                ("tapflow.toml".to_string(), absolute(cwd, &p))
            }
        };
        let dir = path.parent().unwrap_or(Path::new("/")).to_path_buf();
        // Bounded, regular files only (a FIFO named tapflow.toml must not hang the CLI), and
        // not through a link that leads out of its directory.
        let policy = PathPolicy::new(dir.clone(), [dir.clone()]);
        let (_, bytes) = policy
            .read_file(&path.display().to_string(), MAX_CONFIG_BYTES)
            .map_err(|e| format!("error: cannot read {shown}: {}", e.message))?;
        let text = String::from_utf8(bytes).map_err(|e| {
            format!(
                "error: {shown}: not UTF-8 text (byte {})",
                e.utf8_error().valid_up_to()
            )
        })?;
        let config = parse_project_config(&text).map_err(|e| format!("error: {shown}: {e}"))?;
        Ok(Project {
            dir,
            file: Some(path),
            config,
        })
    }

    /// `[paths] allowed_roots`, resolved against the project directory.
    pub fn allowed_roots(&self) -> Vec<PathBuf> {
        self.config
            .allowed_roots
            .iter()
            .map(|r| absolute(&self.dir, Path::new(r)))
            .collect()
    }

    /// `[paths] output_roots`, resolved against the project directory.
    pub fn output_roots(&self) -> Vec<PathBuf> {
        self.config
            .output_roots
            .iter()
            .map(|r| absolute(&self.dir, Path::new(r)))
            .collect()
    }

    /// `report_dir`, resolved against the project directory.
    pub fn report_dir(&self) -> Option<PathBuf> {
        self.config
            .report_dir
            .as_deref()
            .map(|d| absolute(&self.dir, Path::new(d)))
    }
}

/// `p` against `base` (unless absolute), normalised lexically.
pub(crate) fn absolute(base: &Path, p: &Path) -> PathBuf {
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

    #[test]
    fn parses_a_project_file() {
        let cfg = parse_project_config(
            "devices = [\"a\", \"b\"]\nreport_dir = \"out\"\ntimeout = \"2m\"\nstep_timeout = 5000\n[env]\nUSER = \"demo\"\nN = 3\n[paths]\nallowed_roots = [\"../assets\", \"/opt/haps\"]\noutput_roots = [\"shots\"]\n",
        )
        .unwrap();
        assert_eq!(cfg.devices, ["a", "b"]);
        assert_eq!(cfg.report_dir.as_deref(), Some("out"));
        assert_eq!(
            (cfg.flow_timeout_ms, cfg.step_timeout_ms),
            (Some(120_000), Some(5000))
        );
        assert_eq!(cfg.env["N"], "3");
        assert_eq!(cfg.allowed_roots, ["../assets", "/opt/haps"]);
        assert_eq!(cfg.output_roots, ["shots"]);
    }

    #[test]
    fn project_file_errors_say_what_is_wrong() {
        assert_eq!(
            parse_project_config("device = []").unwrap_err(),
            "unknown key `device`; did you mean `devices`?"
        );
        assert_eq!(
            parse_project_config("[paths]\nallowed_root = []").unwrap_err(),
            "unknown key `paths.allowed_root`; did you mean `allowed_roots`?"
        );
        assert!(
            parse_project_config("[paths]\nallowed_roots = \"/x\"")
                .unwrap_err()
                .contains("list of strings")
        );
        assert!(parse_project_config("[paths]\nallowed_roots = [\"\"]").is_err());
        assert_eq!(
            parse_project_config("[paths]\noutput_roots = [\" \"]").unwrap_err(),
            "`paths.output_roots` must not contain an empty path"
        );
        assert!(
            parse_project_config("timeout = \"soon\"")
                .unwrap_err()
                .contains("timeout")
        );
        assert!(
            parse_project_config("devices = [1]")
                .unwrap_err()
                .contains("list of strings")
        );
        assert!(parse_project_config("[env]\n2X = \"a\"").is_err());
        assert!(
            parse_project_config("a = [")
                .unwrap_err()
                .starts_with("invalid TOML")
        );
    }

    #[test]
    fn paths_resolve_against_the_file_directory() {
        let tmp = tempfile::tempdir().unwrap();
        let proj = tmp.path().join("proj");
        std::fs::create_dir_all(proj.join("sub")).unwrap();
        std::fs::write(
            proj.join("tapflow.toml"),
            "report_dir = \"out/reports\"\n[paths]\nallowed_roots = [\"../assets\"]\noutput_roots = [\"out\"]\n",
        )
        .unwrap();
        // Found in the working directory.
        let p = Project::load(None, &proj).unwrap();
        assert_eq!(p.dir, proj);
        assert_eq!(p.file, Some(proj.join("tapflow.toml")));
        assert_eq!(p.allowed_roots(), [tmp.path().join("assets")]);
        assert_eq!(p.output_roots(), [proj.join("out")]);
        assert_eq!(p.report_dir(), Some(proj.join("out/reports")));
        // Named from elsewhere: still relative to the file.
        let p = Project::load(Some(Path::new("../tapflow.toml")), &proj.join("sub")).unwrap();
        assert_eq!(p.dir, proj);
        assert_eq!(p.allowed_roots(), [tmp.path().join("assets")]);
        // None at all: the working directory, no file.
        let p = Project::load(None, &proj.join("sub")).unwrap();
        assert_eq!((p.dir, p.file), (proj.join("sub"), None));
        let e = Project::load(Some(Path::new("missing.toml")), &proj).unwrap_err();
        assert!(e.contains("cannot read missing.toml"), "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_or_a_huge_project_file_is_refused_not_read() {
        let tmp = tempfile::tempdir().unwrap();
        let fifo = tmp.path().join("tapflow.toml");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = Project::load(None, tmp.path()).unwrap_err();
        assert!(e.contains("not a regular file"), "{e}");
        std::fs::remove_file(&fifo).unwrap();
        let f = std::fs::File::create(&fifo).unwrap();
        f.set_len(MAX_CONFIG_BYTES + 1).unwrap();
        let e = Project::load(None, tmp.path()).unwrap_err();
        assert!(e.contains("limit"), "{e}");
    }
}
