//! Trusted configuration is written by people, not tools. tapflow reads its project file
//! (`tapflow.toml`, or the file `--config` names), the MCP server's token file and the build
//! tools it was configured with as the operator's word; `.tapflow/` holds tapflow's own state.
//! A tool that could write one of them could widen its own policy for the next process: a
//! `logs_query` `save_path: tapflow.toml` holding `allowed_roots = ["/"]` made `/etc/passwd`
//! readable to the next `tapflow mcp` started there (issue 18).
//!
//! So every write through the host-path policy (a tool's output file, a report, a directory it
//! creates) is refused, with [`super::PathErrorKind::TrustedConfig`], when the path:
//! - has a component named like a project file ([`CONFIG_FILE_NAMES`]), in any directory (another
//!   project's file is trusted by whoever starts tapflow there);
//! - has a component named [`STATE_DIR_NAME`] (`.tapflow/`, anywhere);
//! - is, or lies under, a file or directory this process was configured with (the policy's
//!   protected paths: the project file read, the token file, the build tools).
//!
//! Names are compared case-insensitively (a case-insensitive file system opens `TAPFLOW.TOML`
//! as `tapflow.toml`), ignoring trailing dots and spaces and an NTFS stream suffix (`:x`),
//! which Windows drops when it opens a file. The policy checks the path as given (normalised,
//! so `./` and `..` are gone) before anything is created, and again once links are resolved,
//! so a link to such a place is refused too.

use std::path::{Component, Path, PathBuf};

/// Names tapflow reads as a project file wherever it starts.
pub const CONFIG_FILE_NAMES: &[&str] = &["tapflow.toml"];

/// tapflow's state directory (its token file by convention, `~/.tapflow/`).
pub const STATE_DIR_NAME: &str = ".tapflow";

/// The name as a case-insensitive file system or Windows would open it, for comparison.
fn folded(name: &str) -> String {
    let name = name.split(':').next().unwrap_or(name);
    name.trim_end_matches(['.', ' ']).to_ascii_lowercase()
}

fn same_name(a: &std::ffi::OsStr, b: &std::ffi::OsStr) -> bool {
    folded(&a.to_string_lossy()) == folded(&b.to_string_lossy())
}

/// Whether `path` equals `protected` or lies under it, component by component, names compared
/// as [`folded`].
fn within(path: &Path, protected: &Path) -> bool {
    let mut p = path.components();
    for want in protected.components() {
        match (p.next(), want) {
            (Some(Component::Normal(a)), Component::Normal(b)) if same_name(a, b) => {}
            (Some(a), b) if a == b => {}
            _ => return false,
        }
    }
    true
}

/// Why writing at `path` (absolute: as given and normalised, or real) would create or change
/// trusted configuration; `None` when it would not. `protected` are the files and directories
/// this process was configured with (as given; their real forms are compared too).
pub fn trusted_config(path: &Path, protected: &[PathBuf]) -> Option<String> {
    for c in path.components() {
        let Component::Normal(name) = c else { continue };
        let name = folded(&name.to_string_lossy());
        if CONFIG_FILE_NAMES.contains(&name.as_str()) {
            return Some(format!(
                "names a tapflow project file ({name}), which tapflow reads as trusted \
                 configuration"
            ));
        }
        if name == STATE_DIR_NAME {
            return Some(format!(
                "lies inside {STATE_DIR_NAME}/, where tapflow keeps its own configuration and state"
            ));
        }
    }
    for p in protected {
        let real = std::fs::canonicalize(p).ok();
        if within(path, p) || real.as_deref().is_some_and(|r| within(path, r)) {
            return Some(format!(
                "is {} (or lies under it), which this tapflow process reads as trusted \
                 configuration",
                p.display()
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn why(p: &str) -> Option<String> {
        trusted_config(Path::new(p), &[])
    }

    #[test]
    fn project_files_and_the_state_directory_anywhere() {
        for p in [
            "/w/p/tapflow.toml",
            "/w/p/TAPFLOW.TOML",
            "/w/p/TapFlow.Toml",
            "/w/other/tapflow.toml",
            "/w/p/tapflow.toml.",
            "/w/p/tapflow.toml ",
            "/w/p/tapflow.toml::$DATA",
            "/w/p/tapflow.toml/x.log",
            "/home/u/.tapflow/mcp-token",
            "/home/u/.TAPFLOW/x.log",
            "/w/p/logs/.tapflow/deep/x.log",
        ] {
            assert!(why(p).is_some(), "{p}");
        }
        for p in [
            "/w/p/tapflow.toml.log",
            "/w/p/my-tapflow.toml",
            "/w/p/tapflow.yaml",
            "/w/p/.tapflowrc",
            "/w/p/logs/snap.log",
        ] {
            assert_eq!(why(p), None, "{p}");
        }
    }

    #[test]
    fn protected_paths_and_what_lies_under_them() {
        let protected = [PathBuf::from("/ci/project.toml"), PathBuf::from("/opt/sdk")];
        let hit = |p: &str| trusted_config(Path::new(p), &protected).is_some();
        assert!(hit("/ci/project.toml"));
        assert!(hit("/ci/PROJECT.TOML"));
        assert!(hit("/opt/sdk/toolchains/x.jar"));
        assert!(!hit("/ci/project.toml.bak"));
        assert!(!hit("/ci/other.toml"));
        assert!(!hit("/opt/sdk2/x"));
    }

    #[cfg(unix)]
    #[test]
    fn a_protected_file_is_recognised_through_links() {
        let t = tempfile::tempdir().unwrap();
        let real = t.path().join("real");
        std::fs::create_dir(&real).unwrap();
        std::fs::write(real.join("ci.toml"), "").unwrap();
        std::os::unix::fs::symlink(&real, t.path().join("link")).unwrap();
        // Configured through the link; written at its real place.
        let protected = [t.path().join("link/ci.toml")];
        let target = std::fs::canonicalize(&real).unwrap().join("ci.toml");
        assert!(trusted_config(&target, &protected).is_some());
    }
}
