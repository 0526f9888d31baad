//! Roots too wide to come from a file: the file system root, the home directory, and any
//! directory that contains the home directory (`/home`, `/Users`). A root is a place every tool
//! may read (or write) anything in; `/` or `$HOME` as a root makes `/etc/passwd` or
//! `~/.ssh/id_ed25519` readable to whoever drives the tools. The CLI accepts such a root only
//! when its own command line names it (`tapflow mcp --allow-root /`), never from `tapflow.toml`
//! or the environment alone (see `tapflow_tools::config`).
//!
//! Both the path as written and its real path (when it exists) are judged, so a link to `/`
//! is as wide as `/`.

use std::path::{Path, PathBuf};

use super::policy::normalize_lexically;

/// The forms a path is judged in: normalised, and real when it exists.
fn forms(p: &Path) -> Vec<PathBuf> {
    let mut out = vec![normalize_lexically(p).unwrap_or_else(|| p.to_path_buf())];
    if let Ok(real) = std::fs::canonicalize(p)
        && !out.contains(&real)
    {
        out.push(real);
    }
    out
}

/// Why `root` (absolute) is too wide to be granted by a file or a variable: it is the file
/// system root, the home directory `home`, or contains it. `None` when it is narrower.
pub fn too_wide(root: &Path, home: Option<&Path>) -> Option<&'static str> {
    let roots = forms(root);
    if roots.iter().any(|r| r.parent().is_none()) {
        return Some("the whole file system");
    }
    let homes = home
        .filter(|h| h.is_absolute() && h.parent().is_some())
        .map(forms)
        .unwrap_or_default();
    for r in &roots {
        for h in &homes {
            if r == h {
                return Some("the whole home directory");
            }
            if h.starts_with(r) {
                return Some("a directory that contains the home directory");
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_system_root_and_the_home_directory_are_too_wide() {
        let home = Some(Path::new("/home/u"));
        assert!(too_wide(Path::new("/"), home).is_some());
        assert!(too_wide(Path::new("/home/u/.."), home).is_some());
        assert!(too_wide(Path::new("/home/u"), home).is_some());
        assert!(too_wide(Path::new("/home/u/"), home).is_some());
        assert!(too_wide(Path::new("/home"), home).is_some());
        assert!(too_wide(Path::new("/home/u/project"), home).is_none());
        assert!(too_wide(Path::new("/opt/haps"), home).is_none());
        assert!(too_wide(Path::new("/"), None).is_some());
        assert!(too_wide(Path::new("/home"), None).is_none());
    }

    #[cfg(unix)]
    #[test]
    fn a_link_to_a_wide_directory_is_as_wide() {
        let t = tempfile::tempdir().unwrap();
        let home = t.path().join("home");
        std::fs::create_dir(&home).unwrap();
        std::os::unix::fs::symlink("/", t.path().join("slash")).unwrap();
        std::os::unix::fs::symlink(&home, t.path().join("myhome")).unwrap();
        assert!(too_wide(&t.path().join("slash"), None).is_some());
        assert!(too_wide(&t.path().join("myhome"), Some(&home)).is_some());
        assert!(too_wide(&home.join("project"), Some(&home)).is_none());
    }
}
