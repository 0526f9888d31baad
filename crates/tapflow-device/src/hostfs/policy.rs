//! The allowed roots and the checks every host path passes (see the module documentation).

use std::fs;
use std::path::{Component, Path, PathBuf};

use super::error::{HostPathError, PathErrorKind};
use super::write::WriteTarget;

impl Default for PathPolicy {
    fn default() -> Self {
        PathPolicy::deny_all()
    }
}

/// What an existing path must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    File,
    Dir,
    Any,
}

/// The directories tapflow may read and write under, and the directory relative paths are
/// resolved against. An empty root list allows nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathPolicy {
    base: PathBuf,
    roots: Vec<PathBuf>,
}

impl PathPolicy {
    /// `base` resolves relative paths (and relative roots); it need not be a root itself.
    pub fn new(base: impl Into<PathBuf>, roots: impl IntoIterator<Item = PathBuf>) -> Self {
        let base = base.into();
        let base = normalize_lexically(&base).unwrap_or(base);
        let mut out: Vec<PathBuf> = Vec::new();
        for r in roots {
            let abs = if r.is_absolute() { r } else { base.join(r) };
            if let Some(n) = normalize_lexically(&abs)
                && !n.as_os_str().is_empty()
                && !out.contains(&n)
            {
                out.push(n);
            }
        }
        PathPolicy { base, roots: out }
    }

    /// A policy that allows nothing (no roots): the default until the CLI passes the configured
    /// one, so a forgotten configuration fails closed.
    pub fn deny_all() -> Self {
        PathPolicy {
            base: PathBuf::from("/"),
            roots: Vec::new(),
        }
    }

    /// The directory relative paths resolve against.
    pub fn base(&self) -> &Path {
        &self.base
    }

    /// The allowed roots, absolute and normalised, as configured.
    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    /// The same policy with one more root (a run directory created for this run, say).
    pub fn with_root(&self, root: impl Into<PathBuf>) -> Self {
        PathPolicy::new(
            self.base.clone(),
            self.roots.iter().cloned().chain([root.into()]),
        )
    }

    /// The same policy resolving relative paths against another directory (a flow's own
    /// directory, for the files it names).
    pub fn with_base(&self, base: impl Into<PathBuf>) -> Self {
        PathPolicy::new(base, self.roots.iter().cloned())
    }

    /// Each root lexically and, when it exists, with its links resolved.
    fn root_forms(&self) -> Vec<PathBuf> {
        let mut forms = self.roots.clone();
        for r in &self.roots {
            if let Ok(c) = fs::canonicalize(r)
                && !forms.contains(&c)
            {
                forms.push(c);
            }
        }
        forms
    }

    /// Whether an absolute, normalised (or canonical) path lies under a root.
    pub fn is_inside(&self, path: &Path) -> bool {
        self.root_forms().iter().any(|r| path.starts_with(r))
    }

    fn not_allowed(&self, given: &str, resolved: &Path) -> HostPathError {
        let mut e = HostPathError::new(
            PathErrorKind::NotAllowed,
            given,
            format!(
                "{} is outside the directories tapflow may use ({}); use a path under one of \
                 them, or add a root (tapflow.toml [paths] allowed_roots, TAPFLOW_ALLOWED_ROOTS)",
                super::error::clip(given),
                self.roots
                    .iter()
                    .map(|r| r.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )
        .at(resolved);
        e.roots = self.roots.clone();
        e
    }

    /// The path made absolute and normalised, checked lexically against the roots. Nothing on
    /// the file system is touched, so a refused path reveals nothing about what exists.
    pub fn check_lexical(&self, given: &str) -> Result<PathBuf, HostPathError> {
        if given.trim().is_empty() {
            return Err(HostPathError::new(
                PathErrorKind::Invalid,
                given,
                "the path is empty",
            ));
        }
        if given.contains('\0') {
            return Err(HostPathError::new(
                PathErrorKind::Invalid,
                given,
                "the path contains a NUL character",
            ));
        }
        let raw = Path::new(given);
        let abs = if raw.is_absolute() {
            raw.to_path_buf()
        } else {
            self.base.join(raw)
        };
        let Some(norm) = normalize_lexically(&abs) else {
            return Err(self.not_allowed(given, &abs));
        };
        if !self.is_inside(&norm) {
            return Err(self.not_allowed(given, &norm));
        }
        Ok(norm)
    }

    /// An existing path under the roots, with its links resolved (the real path is checked
    /// against the roots too), of the expected type. Returns the real path.
    pub fn check_existing(&self, given: &str, expect: Expect) -> Result<PathBuf, HostPathError> {
        let norm = self.check_lexical(given)?;
        let real = fs::canonicalize(&norm).map_err(|e| {
            let kind = if e.kind() == std::io::ErrorKind::NotFound {
                PathErrorKind::NotFound
            } else {
                PathErrorKind::Io
            };
            HostPathError::new(
                kind,
                given,
                format!(
                    "{} does not exist or cannot be reached: {e}",
                    norm.display()
                ),
            )
            .at(&norm)
        })?;
        if !self.is_inside(&real) {
            return Err(self.not_allowed(given, &real));
        }
        let meta = fs::metadata(&real).map_err(|e| {
            HostPathError::new(
                PathErrorKind::Io,
                given,
                format!("cannot read {}: {e}", real.display()),
            )
            .at(&real)
        })?;
        let ok = match expect {
            Expect::File => meta.is_file(),
            Expect::Dir => meta.is_dir(),
            Expect::Any => meta.is_file() || meta.is_dir(),
        };
        if !ok {
            let want = match expect {
                Expect::File => "a regular file",
                Expect::Dir => "a directory",
                Expect::Any => "a regular file or a directory",
            };
            return Err(HostPathError::new(
                PathErrorKind::WrongType,
                given,
                format!("{} is not {want}", real.display()),
            )
            .at(&real));
        }
        Ok(real)
    }

    /// A file to write: the path under the roots, its missing parent directories created (only
    /// once the deepest existing one is known to be inside the roots), the real parent checked
    /// again, and the final component refused if it is a link or a directory.
    pub fn prepare_write(&self, given: &str) -> Result<WriteTarget, HostPathError> {
        let norm = self.check_lexical(given)?;
        let Some(name) = norm.file_name().map(|n| n.to_owned()) else {
            return Err(HostPathError::new(
                PathErrorKind::Invalid,
                given,
                "the path names no file",
            )
            .at(&norm));
        };
        let parent = norm.parent().unwrap_or(Path::new("/")).to_path_buf();
        let parent = self.make_dir(given, &parent)?;
        let target = parent.join(&name);
        let existed = match fs::symlink_metadata(&target) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(HostPathError::new(
                    PathErrorKind::Symlink,
                    given,
                    format!(
                        "{} is a symbolic link; tapflow does not write through links \
                         (remove it or choose another name)",
                        target.display()
                    ),
                )
                .at(&target));
            }
            Ok(m) if !m.is_file() => {
                return Err(HostPathError::new(
                    PathErrorKind::WrongType,
                    given,
                    format!("{} exists and is not a regular file", target.display()),
                )
                .at(&target));
            }
            Ok(_) => true,
            Err(_) => false,
        };
        Ok(WriteTarget::new(given, target, existed, self.clone()))
    }

    /// A directory to write into (a report directory), created if missing, under the roots.
    /// Returns its real path.
    pub fn ensure_dir(&self, given: &str) -> Result<PathBuf, HostPathError> {
        let norm = self.check_lexical(given)?;
        self.make_dir(given, &norm)
    }

    /// Creates `dir` (absolute, normalised, lexically inside) and returns its real path, checking
    /// the deepest existing ancestor before creating anything and the result after.
    fn make_dir(&self, given: &str, dir: &Path) -> Result<PathBuf, HostPathError> {
        self.create_missing_root(given, dir)?;
        let existing = dir
            .ancestors()
            .find(|a| fs::symlink_metadata(a).is_ok())
            .unwrap_or(Path::new("/"));
        let real_existing = fs::canonicalize(existing).map_err(|e| {
            HostPathError::new(
                PathErrorKind::Io,
                given,
                format!("cannot resolve {}: {e}", existing.display()),
            )
            .at(existing)
        })?;
        if !self.is_inside(&real_existing) {
            return Err(self.not_allowed(given, &real_existing));
        }
        if !real_existing.is_dir() {
            return Err(HostPathError::new(
                PathErrorKind::WrongType,
                given,
                format!("{} is not a directory", existing.display()),
            )
            .at(existing));
        }
        // Create the missing part below the real existing ancestor, so that nothing is created
        // through a link.
        let rest = dir.strip_prefix(existing).unwrap_or(Path::new(""));
        let mut cur = real_existing;
        for part in rest.components() {
            cur.push(part.as_os_str());
            match fs::create_dir(&cur) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let m = fs::symlink_metadata(&cur).map_err(|e| io(given, &cur, e))?;
                    if !m.is_dir() {
                        return Err(HostPathError::new(
                            PathErrorKind::WrongType,
                            given,
                            format!("{} exists and is not a directory", cur.display()),
                        )
                        .at(&cur));
                    }
                }
                Err(e) => return Err(io(given, &cur, e)),
            }
        }
        let real = fs::canonicalize(dir).map_err(|e| io(given, dir, e))?;
        if !self.is_inside(&real) {
            return Err(self.not_allowed(given, &real));
        }
        Ok(real)
    }
}

impl PathPolicy {
    /// A configured root is configuration, not a caller's path: when `dir` lies under roots of
    /// which none exists yet (a first run's `~/.tapflow/screenshots`, a fresh `--report-dir`),
    /// the outermost of them is created as given. Everything below it is then created by
    /// [`Self::make_dir`]'s checked walk.
    fn create_missing_root(&self, given: &str, dir: &Path) -> Result<(), HostPathError> {
        let containing: Vec<&PathBuf> = self.roots.iter().filter(|r| dir.starts_with(r)).collect();
        if containing.is_empty() || containing.iter().any(|r| fs::symlink_metadata(r).is_ok()) {
            return Ok(());
        }
        let Some(outer) = containing
            .into_iter()
            .min_by_key(|r| r.components().count())
        else {
            return Ok(());
        };
        fs::create_dir_all(outer).map_err(|e| io(given, outer, e))
    }

    /// The part of a real path below the root it lies under (the longest matching root form).
    pub(crate) fn below_root<'p>(&self, real: &'p Path) -> Option<&'p Path> {
        self.root_forms()
            .iter()
            .filter_map(|r| real.strip_prefix(r).ok())
            .min_by_key(|rest| rest.components().count())
    }
}

pub(crate) fn io(given: &str, at: &Path, e: std::io::Error) -> HostPathError {
    HostPathError::new(PathErrorKind::Io, given, format!("{}: {e}", at.display())).at(at)
}

/// Removes `.` and resolves `..` without touching the file system; `None` if `..` would climb
/// above the root.
pub fn normalize_lexically(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::Prefix(_) | Component::RootDir => out.push(c.as_os_str()),
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() || out.as_os_str().is_empty() {
                    return None;
                }
            }
            Component::Normal(part) => out.push(part),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(root: &Path) -> PathPolicy {
        PathPolicy::new(root, [root.to_path_buf()])
    }

    #[test]
    fn lexical_rules() {
        let p = PathPolicy::new("/w/p", [PathBuf::from("/w/p"), PathBuf::from("out")]);
        assert_eq!(
            p.roots(),
            &[PathBuf::from("/w/p"), PathBuf::from("/w/p/out")]
        );
        assert!(p.check_lexical("a/b.png").is_ok());
        assert_eq!(
            p.check_lexical("../x").unwrap_err().kind,
            PathErrorKind::NotAllowed
        );
        assert_eq!(
            p.check_lexical("/etc/passwd").unwrap_err().kind,
            PathErrorKind::NotAllowed
        );
        assert_eq!(
            p.check_lexical("/w/p/../../../..").unwrap_err().kind,
            PathErrorKind::NotAllowed
        );
        assert_eq!(
            p.check_lexical("").unwrap_err().kind,
            PathErrorKind::Invalid
        );
        assert_eq!(
            p.check_lexical("a\0b").unwrap_err().kind,
            PathErrorKind::Invalid
        );
        // A sibling whose name starts like the root is not inside it.
        assert!(p.check_lexical("/w/pp/x").is_err());
        assert!(PathPolicy::new("/w", []).check_lexical("/w/x").is_err());
    }

    #[test]
    fn a_huge_path_is_not_echoed_whole() {
        let p = PathPolicy::new("/w", [PathBuf::from("/w")]);
        let big = format!("/etc/{}", "a".repeat(1_000_000));
        let e = p.check_lexical(&big).unwrap_err();
        assert!(e.message.len() < 2_000, "{}", e.message.len());
        assert!(e.given.len() < 400);
    }

    #[cfg(unix)]
    #[test]
    fn existing_paths_resolve_links_and_check_types() {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let r = root.path();
        fs::write(r.join("f.txt"), "x").unwrap();
        fs::create_dir(r.join("d")).unwrap();
        fs::write(outside.path().join("secret"), "s").unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret"), r.join("out")).unwrap();
        std::os::unix::fs::symlink(r.join("f.txt"), r.join("in")).unwrap();
        let p = policy(r);
        assert!(p.check_existing("f.txt", Expect::File).is_ok());
        assert!(
            p.check_existing("in", Expect::File).is_ok(),
            "a link inside is fine"
        );
        assert_eq!(
            p.check_existing("out", Expect::File).unwrap_err().kind,
            PathErrorKind::NotAllowed
        );
        assert_eq!(
            p.check_existing("d", Expect::File).unwrap_err().kind,
            PathErrorKind::WrongType
        );
        assert!(p.check_existing("d", Expect::Dir).is_ok());
        assert_eq!(
            p.check_existing("nope", Expect::Any).unwrap_err().kind,
            PathErrorKind::NotFound
        );
    }

    #[cfg(unix)]
    #[test]
    fn writes_refuse_final_links_and_linked_directories() {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let r = root.path();
        let victim = outside.path().join("victim.txt");
        fs::write(&victim, "keep").unwrap();
        std::os::unix::fs::symlink(&victim, r.join("shot.png")).unwrap();
        std::os::unix::fs::symlink(outside.path(), r.join("linkdir")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("none.png"), r.join("dangling.png"))
            .unwrap();
        let p = policy(r);
        assert_eq!(
            p.prepare_write("shot.png").unwrap_err().kind,
            PathErrorKind::Symlink
        );
        assert_eq!(
            p.prepare_write("dangling.png").unwrap_err().kind,
            PathErrorKind::Symlink
        );
        assert_eq!(
            p.prepare_write("linkdir/x.png").unwrap_err().kind,
            PathErrorKind::NotAllowed
        );
        assert_eq!(
            p.prepare_write("linkdir/new/deeper/x.png")
                .unwrap_err()
                .kind,
            PathErrorKind::NotAllowed
        );
        assert!(
            !outside.path().join("new").exists(),
            "nothing created outside"
        );
        assert_eq!(fs::read_to_string(&victim).unwrap(), "keep");
        assert!(!outside.path().join("none.png").exists());
        let t = p.prepare_write("a/b/c.png").unwrap();
        assert!(r.join("a/b").is_dir());
        assert!(!t.existed());
    }

    #[test]
    fn a_missing_root_is_created_on_first_use() {
        let tmp = tempfile::tempdir().unwrap();
        let shots = tmp.path().join("home/.tapflow/screenshots");
        let p = PathPolicy::new(tmp.path().join("cwd"), [shots.clone()]);
        let t = p
            .prepare_write(shots.join("a.png").to_str().unwrap())
            .unwrap();
        assert!(shots.is_dir());
        assert_eq!(t.path(), fs::canonicalize(&shots).unwrap().join("a.png"));
        // Only roots are created that way: a sibling stays refused and absent.
        let sibling = tmp.path().join("home/other/x.png");
        assert_eq!(
            p.prepare_write(sibling.to_str().unwrap()).unwrap_err().kind,
            PathErrorKind::NotAllowed
        );
        assert!(!tmp.path().join("home/other").exists());
        assert!(PathPolicy::deny_all().ensure_dir("/tmp").is_err());
    }

    #[test]
    fn ensure_dir_creates_inside_only() {
        let root = tempfile::tempdir().unwrap();
        let p = policy(root.path());
        let d = p.ensure_dir("reports/run-1").unwrap();
        assert!(d.is_dir());
        assert!(p.ensure_dir("../elsewhere").is_err());
        fs::write(root.path().join("file"), "x").unwrap();
        assert_eq!(
            p.ensure_dir("file/sub").unwrap_err().kind,
            PathErrorKind::WrongType
        );
    }
}
