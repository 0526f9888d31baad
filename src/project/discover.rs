//! Finding flow files from command-line arguments (files, directories searched recursively for
//! `*.yaml` / `*.yml`, globs such as `flows/**/login*.yaml`), each with its flow root: the
//! directory its sub-flow files must lie under.
//!
//! The flow root of an argument is the project directory when a `tapflow.toml` is in use and the
//! argument lies inside its directory; otherwise the argument's own directory (a file's parent, a
//! directory itself, a glob's longest directory prefix without glob characters).
//!
//! An argument that exists is taken literally (so a file named `a[1].yaml` is a file); one that
//! does not is a glob when it has glob characters, else an error. Files are sorted and
//! de-duplicated per argument, in argument order. Links are listed like files: reading them
//! ([`super::loader`]) decides whether they lead somewhere allowed.

use std::path::{Path, PathBuf};

use super::config::{Project, absolute};
use tapflow_core::flow;

/// One flow file found, with its flow root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlowPath {
    /// The path as found (relative to the working directory unless the argument was absolute);
    /// its display form names the file in diagnostics.
    pub path: PathBuf,
    /// Absolute, normalised directory the file's sub-flows must lie under.
    pub root: PathBuf,
}

impl FlowPath {
    /// The name diagnostics and results use: `/` separators, no leading `./`.
    pub fn display_name(&self) -> String {
        display_path(&self.path)
    }
}

/// `/` separators and no leading `./`.
pub fn display_path(p: &Path) -> String {
    let s = p.to_string_lossy().replace('\\', "/");
    s.strip_prefix("./").map(str::to_string).unwrap_or(s)
}

fn has_glob(s: &str) -> bool {
    s.contains(['*', '?', '[', '{'])
}

/// Expands the arguments (relative to `cwd`) into flow files with their flow roots. Arguments
/// are paths, not text: a file whose name is not UTF-8 is found like any other (reading it
/// then says what is wrong with it, [`super::FlowSources`]); only a glob must be UTF-8.
pub fn discover<A: AsRef<Path>>(
    args: &[A],
    cwd: &Path,
    project: &Project,
) -> Result<Vec<FlowPath>, String> {
    let mut out: Vec<FlowPath> = Vec::new();
    let root_for = |dir: &Path| -> PathBuf {
        let abs = absolute(cwd, dir);
        if project.file.is_some() && abs.starts_with(&project.dir) {
            project.dir.clone()
        } else {
            abs
        }
    };
    let push = |path: PathBuf, root: &Path, out: &mut Vec<FlowPath>| {
        if !out.iter().any(|f| f.path == path) {
            out.push(FlowPath {
                path,
                root: root.to_path_buf(),
            });
        }
    };
    for arg in args {
        let p = arg.as_ref();
        let shown = p.to_string_lossy();
        let full = cwd.join(p);
        let meta = std::fs::symlink_metadata(&full);
        if let (Err(_), Some(arg)) = (&meta, p.to_str().filter(|a| has_glob(a))) {
            let glob = globset::GlobBuilder::new(arg)
                .literal_separator(true)
                .build()
                .map_err(|e| format!("bad glob `{arg}`: {e}"))?
                .compile_matcher();
            let base: PathBuf = p
                .components()
                .take_while(|c| !has_glob(&c.as_os_str().to_string_lossy()))
                .collect();
            let base = if base.as_os_str().is_empty() {
                PathBuf::from(".")
            } else {
                base
            };
            let root = root_for(&base);
            let found: Vec<PathBuf> = walk(cwd, &base)
                .into_iter()
                .filter(|f| glob.is_match(display_path(f)) || glob.is_match(f))
                .collect();
            if found.is_empty() {
                return Err(format!("no file matches `{arg}`"));
            }
            found.into_iter().for_each(|f| push(f, &root, &mut out));
        } else if full.is_dir() {
            let root = root_for(p);
            walk(cwd, p)
                .into_iter()
                .filter(|f| flow::is_flow_path(&f.to_string_lossy()))
                .for_each(|f| push(f, &root, &mut out));
        } else if meta.is_ok() {
            let parent = p.parent().filter(|d| !d.as_os_str().is_empty());
            let root = root_for(parent.unwrap_or(Path::new(".")));
            push(p.to_path_buf(), &root, &mut out);
        } else if p.to_str().is_none() {
            return Err(format!(
                "no such file or directory: {shown} (its name is not valid UTF-8, shown with \
                 U+FFFD; tapflow needs UTF-8 paths)"
            ));
        } else {
            return Err(format!("no such file or directory: {shown}"));
        }
    }
    Ok(out)
}

/// Files (and links) under `dir` (relative to `cwd` unless absolute), sorted, as paths that
/// start with `dir` as given. Directories reached through links are not entered.
fn walk(cwd: &Path, dir: &Path) -> Vec<PathBuf> {
    let full = cwd.join(dir);
    let mut found: Vec<PathBuf> = walkdir::WalkDir::new(&full)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| !e.file_type().is_dir())
        .filter_map(|e| e.path().strip_prefix(&full).ok().map(|rest| dir.join(rest)))
        .collect();
    found.sort();
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn tree() -> tempfile::TempDir {
        let t = tempfile::tempdir().unwrap();
        for f in [
            "flows/a.yaml",
            "flows/b.yml",
            "flows/notes.txt",
            "flows/subflows/s.yaml",
            "flows/deep/login_x.yaml",
            "other/c.yaml",
        ] {
            let p = t.path().join(f);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, "steps: []\n").unwrap();
        }
        t
    }

    fn names(found: &[FlowPath]) -> Vec<String> {
        found.iter().map(FlowPath::display_name).collect()
    }

    #[test]
    fn files_directories_and_globs_with_their_roots() {
        let t = tree();
        let cwd = t.path();
        let project = Project::without_file(cwd);
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let found = discover(&args(&["flows"]), cwd, &project).unwrap();
        assert_eq!(
            names(&found),
            [
                "flows/a.yaml",
                "flows/b.yml",
                "flows/deep/login_x.yaml",
                "flows/subflows/s.yaml"
            ]
        );
        assert!(found.iter().all(|f| f.root == cwd.join("flows")));
        let found = discover(
            &args(&["other/c.yaml", "flows/a.yaml", "other/c.yaml"]),
            cwd,
            &project,
        )
        .unwrap();
        assert_eq!(names(&found), ["other/c.yaml", "flows/a.yaml"]);
        assert_eq!(found[0].root, cwd.join("other"));
        assert_eq!(found[1].root, cwd.join("flows"));
        let found = discover(&args(&["flows/**/login*.yaml"]), cwd, &project).unwrap();
        assert_eq!(names(&found), ["flows/deep/login_x.yaml"]);
        assert_eq!(found[0].root, cwd.join("flows"));
        assert_eq!(
            discover(&args(&["flows/*.json"]), cwd, &project).unwrap_err(),
            "no file matches `flows/*.json`"
        );
        assert_eq!(
            discover(&args(&["nope"]), cwd, &project).unwrap_err(),
            "no such file or directory: nope"
        );
    }

    #[test]
    fn with_a_project_file_its_directory_is_the_root() {
        let t = tree();
        fs::write(t.path().join("tapflow.toml"), "").unwrap();
        let project = Project::load(None, t.path()).unwrap();
        let found = discover(&["flows/a.yaml".to_string()], t.path(), &project).unwrap();
        assert_eq!(found[0].root, t.path());
        // A flow outside the project keeps its own directory.
        let elsewhere = tempfile::tempdir().unwrap();
        fs::write(elsewhere.path().join("x.yaml"), "steps: []\n").unwrap();
        let arg = elsewhere.path().join("x.yaml").display().to_string();
        let found = discover(&[arg], t.path(), &project).unwrap();
        assert_eq!(found[0].root, elsewhere.path());
    }

    #[test]
    fn an_existing_name_with_glob_characters_is_literal() {
        let t = tempfile::tempdir().unwrap();
        fs::write(t.path().join("a[1].yaml"), "steps: []\n").unwrap();
        fs::write(t.path().join("a1.yaml"), "steps: []\n").unwrap();
        let project = Project::without_file(t.path());
        let found = discover(&["a[1].yaml".to_string()], t.path(), &project).unwrap();
        assert_eq!(names(&found), ["a[1].yaml"]);
    }
}
