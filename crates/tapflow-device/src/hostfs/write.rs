//! Writing a host file under the policy: the bytes go into a new file created with
//! `O_CREAT | O_EXCL` (which never follows a link) beside the target, which is then renamed over
//! the target or, when an existing file must not be replaced, hard-linked to it (which fails if
//! anything, a link included, is there). A reader never sees half a file, and a link planted at
//! the target after the check is replaced or refused, never written through.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::error::{HostPathError, PathErrorKind};
use super::policy::{Access, PathPolicy, io};

/// What to do when the target already exists as a regular file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Overwrite {
    /// Replace it (screenshots, report files tapflow rewrites).
    Replace,
    /// Refuse with [`PathErrorKind::Exists`] (files a caller names that may belong to someone else).
    Never,
}

/// A checked file to write, from [`PathPolicy::prepare_write`].
#[derive(Clone, Debug)]
pub struct WriteTarget {
    given: String,
    path: PathBuf,
    existed: bool,
    policy: PathPolicy,
}

impl WriteTarget {
    pub(crate) fn new(given: &str, path: PathBuf, existed: bool, policy: PathPolicy) -> Self {
        WriteTarget {
            given: given.to_string(),
            path,
            existed,
            policy,
        }
    }

    /// The real path the file will have (real parent directory + file name).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether a regular file was there when the path was checked.
    pub fn existed(&self) -> bool {
        self.existed
    }

    /// Refuses a target whose name, or a directory of which below the root, is one a build tool,
    /// shell or editor would run or obey (see [`super::names`]), judged on the real path.
    /// [`PathPolicy::prepare_inert_write`] checks this (lexically first, so nothing is created
    /// for a refused path).
    pub fn refuse_runnable(&self) -> Result<(), HostPathError> {
        refuse_runnable(&self.policy, &self.given, &self.path)
    }

    /// Writes `bytes` and returns the final path. The file is created with mode 0644 (less the
    /// umask): tapflow never writes an executable file.
    pub fn write(&self, bytes: &[u8], overwrite: Overwrite) -> Result<PathBuf, HostPathError> {
        if overwrite == Overwrite::Never && self.existed {
            return Err(self.exists());
        }
        let dir = self.path.parent().unwrap_or(Path::new("/"));
        let name = self
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let prefix = format!(".{name}.");
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix).suffix(".tmp");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            builder.permissions(std::fs::Permissions::from_mode(0o644));
        }
        let mut tmp = builder
            .tempfile_in(dir)
            .map_err(|e| io(&self.given, dir, e))?;
        tmp.write_all(bytes)
            .and_then(|()| tmp.flush())
            .map_err(|e| io(&self.given, &self.path, e))?;
        match overwrite {
            Overwrite::Replace => tmp.persist(&self.path).map(drop).map_err(|e| e.error),
            Overwrite::Never => tmp
                .persist_noclobber(&self.path)
                .map(drop)
                .map_err(|e| e.error),
        }
        .map_err(|e| {
            if e.kind() == std::io::ErrorKind::AlreadyExists {
                self.exists()
            } else {
                io(&self.given, &self.path, e)
            }
        })?;
        // The directory may have been swapped for a link while we wrote: judge where the file
        // landed, and take it back if that is outside the roots.
        let landed = std::fs::canonicalize(dir).map_err(|e| io(&self.given, dir, e))?;
        if let Err(e) = self.policy.refuse_trusted(&self.given, &landed.join(&name)) {
            let _ = std::fs::remove_file(landed.join(&name));
            return Err(e);
        }
        if !self.policy.is_inside(&landed, Access::Write) {
            let _ = std::fs::remove_file(landed.join(&name));
            let mut e = HostPathError::new(
                PathErrorKind::NotAllowed,
                &self.given,
                format!(
                    "{} moved outside the allowed directories while it was written",
                    dir.display()
                ),
            )
            .at(&landed);
            e.roots = self.policy.write_roots().to_vec();
            return Err(e);
        }
        Ok(self.path.clone())
    }

    fn exists(&self) -> HostPathError {
        HostPathError::exists(&self.given, &self.path)
    }
}

impl PathPolicy {
    /// A file whose content a caller chooses (`logs_query` `save_path`): as
    /// [`Self::prepare_write`], and refused with [`PathErrorKind::Runnable`] when its name or a
    /// directory below its root is one a build tool, shell or editor would run or obey. The name
    /// is judged before anything is created, and again on the real path.
    pub fn prepare_inert_write(&self, given: &str) -> Result<WriteTarget, HostPathError> {
        let lexical = self.check_lexical_for(given, Access::Write)?;
        refuse_runnable(self, given, &lexical)?;
        let target = self.prepare_write(given)?;
        target.refuse_runnable()?;
        Ok(target)
    }
}

fn refuse_runnable(policy: &PathPolicy, given: &str, path: &Path) -> Result<(), HostPathError> {
    let below = policy
        .below_root(path)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| path.file_name().map(PathBuf::from).unwrap_or_default());
    match super::names::runnable_path(&below) {
        None => Ok(()),
        Some(why) => Err(HostPathError::new(
            PathErrorKind::Runnable,
            given,
            format!(
                "{} is {why}; tapflow never writes a file a build tool or shell would run \
                 (choose a name such as snapshot.log)",
                path.display()
            ),
        )
        .at(path)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn writes_replaces_or_refuses() {
        let root = tempfile::tempdir().unwrap();
        let p = PathPolicy::new(root.path(), [root.path().to_path_buf()]);
        let t = p.prepare_write("out/a.log").unwrap();
        let path = t.write(b"one", Overwrite::Never).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"one");
        let t = p.prepare_write("out/a.log").unwrap();
        assert!(t.existed());
        assert_eq!(
            t.write(b"two", Overwrite::Never).unwrap_err().kind,
            PathErrorKind::Exists
        );
        t.write(b"three", Overwrite::Replace).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"three");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o111, 0, "never executable: {mode:o}");
        }
        let leftovers: Vec<_> = fs::read_dir(root.path().join("out"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(leftovers.len(), 1, "no temp file left: {leftovers:?}");
    }

    #[test]
    fn runnable_names_are_refused_below_the_root() {
        let root = tempfile::tempdir().unwrap();
        let p = PathPolicy::new(root.path(), [root.path().to_path_buf()]);
        for bad in [
            "hvigorw",
            "sub/Makefile",
            "x.sh",
            ".git/x.log",
            "a/.hvigor/b.log",
        ] {
            assert_eq!(
                p.prepare_inert_write(bad).unwrap_err().kind,
                PathErrorKind::Runnable,
                "{bad}"
            );
        }
        assert_eq!(
            fs::read_dir(root.path()).unwrap().count(),
            0,
            "nothing created for a refused name"
        );
        // A link to a directory is judged by where it really leads.
        #[cfg(unix)]
        {
            fs::create_dir(root.path().join("proj")).unwrap();
            std::os::unix::fs::symlink(root.path().join(".hidden"), root.path().join("p")).unwrap();
            fs::create_dir(root.path().join(".hidden")).unwrap();
            assert_eq!(
                p.prepare_inert_write("p/x.log").unwrap_err().kind,
                PathErrorKind::Runnable
            );
        }
        assert!(p.prepare_inert_write("logs/snap.log").is_ok());
        // A hidden directory above the root is the root's business, not the caller's.
        let hidden = root.path().join(".cache");
        let p = PathPolicy::new(&hidden, [hidden.clone()]);
        assert!(p.prepare_inert_write("snap.log").is_ok());
    }

    #[cfg(unix)]
    #[test]
    fn a_link_planted_after_the_check_is_replaced_not_followed() {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let victim = outside.path().join("victim.txt");
        fs::write(&victim, "keep").unwrap();
        let p = PathPolicy::new(root.path(), [root.path().to_path_buf()]);
        let t = p.prepare_write("shot.png").unwrap();
        std::os::unix::fs::symlink(&victim, root.path().join("shot.png")).unwrap();
        assert_eq!(
            t.write(b"png", Overwrite::Never).unwrap_err().kind,
            PathErrorKind::Exists
        );
        t.write(b"png", Overwrite::Replace).unwrap();
        assert_eq!(fs::read_to_string(&victim).unwrap(), "keep");
        let m = fs::symlink_metadata(root.path().join("shot.png")).unwrap();
        assert!(m.is_file());
    }
}
