//! The roots, the protected paths and the checks every host path passes (see the module
//! documentation).

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

/// Whether a path is to be read or written: each has its own roots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
}

/// The directories tapflow may read under, those it may write under (its output roots), the
/// trusted files it must never write ([`super::trusted`]), and the directory relative paths are
/// resolved against. Empty root lists allow nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathPolicy {
    base: PathBuf,
    read: Vec<PathBuf>,
    write: Vec<PathBuf>,
    protected: Vec<PathBuf>,
}

/// Absolute (against `base`), normalised, non-empty and without duplicates.
fn resolve_all(base: &Path, paths: impl IntoIterator<Item = PathBuf>) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for r in paths {
        let abs = if r.is_absolute() { r } else { base.join(r) };
        if let Some(n) = normalize_lexically(&abs)
            && !n.as_os_str().is_empty()
            && !out.contains(&n)
        {
            out.push(n);
        }
    }
    out
}

impl PathPolicy {
    /// One list of roots for reading and writing alike (a run directory, a test's temporary
    /// directory). `base` resolves relative paths (and relative roots); it need not be a root.
    pub fn new(base: impl Into<PathBuf>, roots: impl IntoIterator<Item = PathBuf>) -> Self {
        let roots: Vec<PathBuf> = roots.into_iter().collect();
        PathPolicy::split(base, roots.clone(), roots)
    }

    /// Separate roots for reading and for writing (the tools' policy: the project is read, only
    /// the output directories are written).
    pub fn split(
        base: impl Into<PathBuf>,
        read: impl IntoIterator<Item = PathBuf>,
        write: impl IntoIterator<Item = PathBuf>,
    ) -> Self {
        let base = base.into();
        let base = normalize_lexically(&base).unwrap_or(base);
        PathPolicy {
            read: resolve_all(&base, read),
            write: resolve_all(&base, write),
            protected: Vec::new(),
            base,
        }
    }

    /// A policy that allows nothing (no roots): the default until the CLI passes the configured
    /// one, so a forgotten configuration fails closed.
    pub fn deny_all() -> Self {
        PathPolicy::split("/", [], [])
    }

    /// The same policy, never writing `paths` or anything under them: the configuration files
    /// and directories this process read ([`super::trusted`]).
    pub fn protecting(mut self, paths: impl IntoIterator<Item = PathBuf>) -> Self {
        let more = resolve_all(&self.base, paths);
        for p in more {
            if !self.protected.contains(&p) {
                self.protected.push(p);
            }
        }
        self
    }

    /// The directory relative paths resolve against.
    pub fn base(&self) -> &Path {
        &self.base
    }

    /// The roots files may be read under, absolute and normalised, as configured.
    pub fn read_roots(&self) -> &[PathBuf] {
        &self.read
    }

    /// The roots files may be written under (the output roots), absolute and normalised.
    pub fn write_roots(&self) -> &[PathBuf] {
        &self.write
    }

    /// The roots of one kind of access.
    pub fn roots(&self, access: Access) -> &[PathBuf] {
        match access {
            Access::Read => &self.read,
            Access::Write => &self.write,
        }
    }

    /// The trusted files and directories never written (besides the names every policy
    /// refuses, see [`super::trusted`]).
    pub fn protected(&self) -> &[PathBuf] {
        &self.protected
    }

    /// The same policy with one more root for reading and writing (a run directory created for
    /// this run, say).
    pub fn with_root(&self, root: impl Into<PathBuf>) -> Self {
        let root = root.into();
        self.with_roots([root.clone()], [root])
    }

    /// The same policy with more roots.
    pub fn with_roots(
        &self,
        read: impl IntoIterator<Item = PathBuf>,
        write: impl IntoIterator<Item = PathBuf>,
    ) -> Self {
        PathPolicy {
            protected: self.protected.clone(),
            ..PathPolicy::split(
                self.base.clone(),
                self.read.iter().cloned().chain(read),
                self.write.iter().cloned().chain(write),
            )
        }
    }

    /// The same policy resolving relative paths against another directory (a flow's own
    /// directory, for the files it names).
    pub fn with_base(&self, base: impl Into<PathBuf>) -> Self {
        let base = base.into();
        PathPolicy {
            base: normalize_lexically(&base).unwrap_or(base),
            ..self.clone()
        }
    }

    /// Each root of `access` lexically and, when it exists, with its links resolved.
    fn root_forms(&self, access: Access) -> Vec<PathBuf> {
        let roots = self.roots(access);
        let mut forms = roots.to_vec();
        for r in roots {
            if let Ok(c) = fs::canonicalize(r)
                && !forms.contains(&c)
            {
                forms.push(c);
            }
        }
        forms
    }

    /// Whether an absolute, normalised (or canonical) path lies under a root of `access`.
    pub fn is_inside(&self, path: &Path, access: Access) -> bool {
        self.root_forms(access).iter().any(|r| path.starts_with(r))
    }

    fn not_allowed(&self, given: &str, resolved: &Path, access: Access) -> HostPathError {
        let roots = self.roots(access);
        let list = roots
            .iter()
            .map(|r| r.display().to_string())
            .collect::<Vec<_>>()
            .join(", ");
        let message = match access {
            Access::Read => format!(
                "{} is outside the directories tapflow may read ({list}); use a path under one \
                 of them, or add a root (tapflow.toml [paths] allowed_roots, \
                 TAPFLOW_ALLOWED_ROOTS, tapflow mcp --allow-root)",
                super::error::clip(given),
            ),
            Access::Write => format!(
                "{} is outside the directories tapflow may write, its output roots ({list}); \
                 write under one of them, or add an output root (tapflow.toml [paths] \
                 output_roots, TAPFLOW_OUTPUT_ROOTS, tapflow mcp --output-root)",
                super::error::clip(given),
            ),
        };
        let mut e = HostPathError::new(PathErrorKind::NotAllowed, given, message).at(resolved);
        e.roots = roots.to_vec();
        e
    }

    /// Refuses a path to write that is, or lies in, trusted configuration.
    pub(crate) fn refuse_trusted(&self, given: &str, path: &Path) -> Result<(), HostPathError> {
        match super::trusted::trusted_config(path, &self.protected) {
            None => Ok(()),
            Some(why) => Err(HostPathError::new(
                PathErrorKind::TrustedConfig,
                given,
                format!(
                    "{} {why}; tools never create or change configuration (people write it): \
                     choose another name or directory",
                    path.display()
                ),
            )
            .at(path)),
        }
    }

    /// The path made absolute and normalised, checked lexically against the read roots.
    /// Nothing on the file system is touched, so a refused path reveals nothing about what
    /// exists.
    pub fn check_lexical(&self, given: &str) -> Result<PathBuf, HostPathError> {
        self.check_lexical_for(given, Access::Read)
    }

    /// [`Self::check_lexical`] against the roots of `access`; a path to write must not be
    /// trusted configuration either.
    pub fn check_lexical_for(&self, given: &str, access: Access) -> Result<PathBuf, HostPathError> {
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
            return Err(self.not_allowed(given, &abs, access));
        };
        if !self.is_inside(&norm, access) {
            return Err(self.not_allowed(given, &norm, access));
        }
        if access == Access::Write {
            self.refuse_trusted(given, &norm)?;
        }
        Ok(norm)
    }

    /// An existing path under the read roots, with its links resolved (the real path is checked
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
        if !self.is_inside(&real, Access::Read) {
            return Err(self.not_allowed(given, &real, Access::Read));
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

    /// A file to write: the path under the write roots and not trusted configuration, its
    /// missing parent directories created (only once the deepest existing one is known to be
    /// inside the roots), the real path checked again, and the final component refused if it is
    /// a link or a directory.
    pub fn prepare_write(&self, given: &str) -> Result<WriteTarget, HostPathError> {
        let norm = self.check_lexical_for(given, Access::Write)?;
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
        self.refuse_trusted(given, &target)?;
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

    /// A directory to write into (a report directory), created if missing, under the write
    /// roots. Returns its real path.
    pub fn ensure_dir(&self, given: &str) -> Result<PathBuf, HostPathError> {
        let norm = self.check_lexical_for(given, Access::Write)?;
        self.make_dir(given, &norm)
    }

    /// Creates `dir` (absolute, normalised, lexically inside the write roots) and returns its
    /// real path, checking the deepest existing ancestor (and where the directory will really
    /// be) before creating anything and the result after.
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
        // Above a root that does not exist yet, a file in the way is named as such (roots are
        // configuration: saying what is on their path reveals nothing a caller chose).
        let file_above_root =
            !real_existing.is_dir() && self.write.iter().any(|r| r.starts_with(existing));
        if !self.is_inside(&real_existing, Access::Write) && !file_above_root {
            return Err(self.not_allowed(given, &real_existing, Access::Write));
        }
        let rest = dir.strip_prefix(existing).unwrap_or(Path::new(""));
        // A link may lead into trusted configuration: judge where the directory really goes.
        self.refuse_trusted(given, &real_existing.join(rest))?;
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
        if !self.is_inside(&real, Access::Write) {
            return Err(self.not_allowed(given, &real, Access::Write));
        }
        self.refuse_trusted(given, &real)?;
        Ok(real)
    }
}

impl PathPolicy {
    /// A configured root is configuration, not a caller's path: when `dir` lies under roots of
    /// which none exists yet (a first run's `<project>/screenshots`, a fresh `--report-dir`),
    /// the outermost of them is created as given. Everything below it is then created by
    /// [`Self::make_dir`]'s checked walk.
    fn create_missing_root(&self, given: &str, dir: &Path) -> Result<(), HostPathError> {
        let containing: Vec<&PathBuf> = self.write.iter().filter(|r| dir.starts_with(r)).collect();
        if containing.is_empty() || containing.iter().any(|r| fs::symlink_metadata(r).is_ok()) {
            return Ok(());
        }
        let Some(outer) = containing
            .into_iter()
            .min_by_key(|r| r.components().count())
        else {
            return Ok(());
        };
        // Through a file, nothing can be created: `make_dir` then says so by name.
        let blocked = outer
            .ancestors()
            .find(|a| fs::symlink_metadata(a).is_ok())
            .is_some_and(|a| !a.is_dir());
        if blocked {
            return Ok(());
        }
        fs::create_dir_all(outer).map_err(|e| io(given, outer, e))
    }

    /// The part of a real path below the write root it lies under (the longest matching root
    /// form).
    pub(crate) fn below_root<'p>(&self, real: &'p Path) -> Option<&'p Path> {
        self.root_forms(Access::Write)
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
