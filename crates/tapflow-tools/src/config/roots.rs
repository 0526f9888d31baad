//! Where the tools may read and write on the host: the read roots and the write (output) roots
//! of the host-path policy, assembled from their sources, with the two refusals the sources
//! alone cannot overrule:
//!
//! - **Too wide.** A root that is `/`, the home directory or a directory containing it
//!   (`hostfs::wide`) is accepted only when the command line itself names it (or a directory
//!   containing it): `tapflow mcp --allow-root /`. From `tapflow.toml` or a variable it is an
//!   error saying so; the project directory (which comes from where tapflow was started, not
//!   from anyone's choice) is then left out of the roots, with a note the CLI prints.
//! - **Trusted configuration.** An output root inside `.tapflow/`, named like a project file,
//!   or inside a path this process was configured with (`hostfs::trusted`) is an error: tools
//!   could write nothing there anyway. (A root that merely holds such a file is fine: the file
//!   itself stays refused.)
//!
//! Defaults (documented in `docs/security.md`): read roots are the project directory, every
//! output root, `[paths] allowed_roots`, `TAPFLOW_ALLOWED_ROOTS` and `--allow-root`; output
//! roots are the reports, screenshots and logs directories, `[paths] output_roots`,
//! `TAPFLOW_OUTPUT_ROOTS` and `--output-root`.

use std::path::{Path, PathBuf};

use tapflow_device::hostfs::{trusted, wide};

/// Where the roots come from besides the environment: the project file and command-line flags,
/// read once by the CLI (`tapflow.toml`, the MCP server's `--allow-root` / `--output-root`).
/// Paths are absolute or relative to the working directory.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RootSources {
    /// The project directory: the directory of `tapflow.toml`, else (`None`) the working
    /// directory. A read root unless it is too wide.
    pub project_dir: Option<PathBuf>,
    /// `[paths] allowed_roots` of `tapflow.toml` (read roots), resolved against its directory.
    pub project_roots: Vec<PathBuf>,
    /// `[paths] output_roots` of `tapflow.toml` (write roots), resolved against its directory.
    pub project_output_roots: Vec<PathBuf>,
    /// `report_dir` of `tapflow.toml`, resolved against its directory: the reports directory
    /// when `TAPFLOW_REPORTS_DIR` is unset.
    pub project_reports_dir: Option<PathBuf>,
    /// Read roots named on the command line (`--allow-root`): explicit grants.
    pub extra_roots: Vec<PathBuf>,
    /// Output roots named on the command line (`--output-root`): explicit grants.
    pub extra_output_roots: Vec<PathBuf>,
    /// Files this process read as configuration (the project file, the MCP token file): never
    /// written by a tool.
    pub trusted_files: Vec<PathBuf>,
}

/// One root and where it came from (for messages).
#[derive(Debug, Clone)]
pub(crate) struct Root {
    pub path: PathBuf,
    pub source: String,
}

impl Root {
    pub fn new(path: PathBuf, source: impl Into<String>) -> Self {
        Root {
            path,
            source: source.into(),
        }
    }
}

/// The roots once judged.
#[derive(Debug, Default)]
pub(crate) struct Judged {
    pub read: Vec<PathBuf>,
    pub write: Vec<PathBuf>,
    /// What was left out and why (printed by the CLI).
    pub notes: Vec<String>,
}

/// Judges the roots. `project` is the implicit project directory (left out, with a note, when
/// too wide); `read` and `write` the other roots from files and variables; `granted` the
/// roots the command line names; `protected` the trusted files and directories.
pub(crate) fn judge(
    project: &Path,
    read: Vec<Root>,
    write: Vec<Root>,
    granted: &[PathBuf],
    protected: &[PathBuf],
    home: Option<&Path>,
) -> Result<Judged, String> {
    let is_granted = |p: &Path| granted.iter().any(|g| p.starts_with(g));
    let mut out = Judged::default();
    for r in &write {
        if let Some(why) = trusted::trusted_config(&r.path, protected) {
            return Err(format!(
                "{} names {}, which {why}: tools write nothing there. Choose another output \
                 directory.",
                r.source,
                r.path.display()
            ));
        }
    }
    for (r, access) in write
        .iter()
        .map(|r| (r, "--output-root"))
        .chain(read.iter().map(|r| (r, "--allow-root")))
    {
        if let Some(why) = wide::too_wide(&r.path, home)
            && !is_granted(&r.path)
        {
            return Err(format!(
                "{} names {}, {why}: every file there would be open to the tools. A file or a \
                 variable cannot grant that; name a narrower directory, or grant it on the \
                 command line: tapflow mcp {access} {}",
                r.source,
                r.path.display(),
                r.path.display()
            ));
        }
    }
    out.write = write.into_iter().map(|r| r.path).collect();
    match wide::too_wide(project, home) {
        Some(why) if !is_granted(project) => out.notes.push(format!(
            "the project directory {} is {why}, so it is not a root: tools read only under the \
             other roots and write only under the output roots. Start tapflow in a project \
             directory, or grant it on the command line: tapflow mcp --allow-root {}",
            project.display(),
            project.display()
        )),
        _ => out.read.push(project.to_path_buf()),
    }
    out.read.extend(read.into_iter().map(|r| r.path));
    out.read.extend(out.write.iter().cloned());
    out.read.extend(granted.iter().cloned());
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(p: &str, source: &str) -> Root {
        Root::new(PathBuf::from(p), source)
    }

    const HOME_DIR: &str = "/home/u";

    fn home() -> Option<&'static Path> {
        Some(Path::new(HOME_DIR))
    }

    #[test]
    fn a_file_or_a_variable_cannot_grant_the_whole_disk_or_home() {
        for (read, write) in [
            (
                vec![r("/", "[paths] allowed_roots of tapflow.toml")],
                vec![],
            ),
            (vec![r("/home/u", "TAPFLOW_ALLOWED_ROOTS")], vec![]),
            (vec![r("/home", "TAPFLOW_ALLOWED_ROOTS")], vec![]),
            (vec![], vec![r("/", "[paths] output_roots of tapflow.toml")]),
            (vec![], vec![r("/home/u", "TAPFLOW_SCREENSHOT_DIR")]),
        ] {
            let source = read.iter().chain(&write).next().unwrap().source.clone();
            let e = judge(Path::new("/w/p"), read, write, &[], &[], home()).unwrap_err();
            assert!(e.starts_with(&source), "{e}");
            assert!(
                e.contains("grant it on the command line: tapflow mcp --"),
                "{e}"
            );
        }
    }

    #[test]
    fn the_command_line_grants_it() {
        let j = judge(
            Path::new("/w/p"),
            vec![r("/", "[paths] allowed_roots of tapflow.toml")],
            vec![r("/w/p/reports", "default")],
            &[PathBuf::from("/")],
            &[],
            home(),
        )
        .unwrap();
        assert!(j.read.contains(&PathBuf::from("/")));
        assert_eq!(j.write, [PathBuf::from("/w/p/reports")]);
        assert!(j.notes.is_empty());
    }

    #[test]
    fn a_project_directory_too_wide_is_left_out_with_a_note() {
        let j = judge(
            Path::new("/home/u"),
            vec![],
            vec![r("/home/u/reports", "default")],
            &[],
            &[],
            home(),
        )
        .unwrap();
        assert_eq!(j.read, [PathBuf::from("/home/u/reports")]);
        assert!(
            j.notes[0].contains("/home/u is the whole home directory"),
            "{:?}",
            j.notes
        );
        let j = judge(Path::new("/"), vec![], vec![], &[], &[], home()).unwrap();
        assert!(j.read.is_empty());
        let j = judge(
            Path::new("/home/u"),
            vec![],
            vec![],
            &[PathBuf::from("/home/u")],
            &[],
            home(),
        )
        .unwrap();
        assert!(j.read.contains(&PathBuf::from("/home/u")) && j.notes.is_empty());
    }

    #[test]
    fn an_output_root_in_trusted_configuration_is_an_error() {
        for (root, protected) in [
            ("/home/u/.tapflow/screenshots", vec![]),
            ("/ci/conf", vec![PathBuf::from("/ci/conf/project.toml")]),
        ] {
            let e = judge(
                Path::new("/w/p"),
                vec![],
                vec![r(root, "TAPFLOW_SCREENSHOT_DIR")],
                &[],
                &protected,
                home(),
            );
            // An output root holding a protected file is fine (the file itself stays refused);
            // one inside .tapflow/ is not.
            if protected.is_empty() {
                let e = e.unwrap_err();
                assert!(
                    e.contains(".tapflow/") && e.contains("Choose another"),
                    "{e}"
                );
            } else {
                assert!(e.is_ok());
            }
        }
    }
}
