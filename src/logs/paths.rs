//! Host paths a query may read (`input_file(s)`) or write (`save_path`): the allowlist check.
//!
//! A path is allowed when it lies inside one of the allowed roots (the tool layer passes the
//! project directory, the reports directory and the system temp directory). Relative paths are
//! resolved against a base directory. The check is done twice: lexically (so `..` cannot climb
//! out, and a path outside the roots is refused before its existence is revealed), then on the
//! canonical path (so a symlink inside a root that points outside is refused too).

use std::fs;
use std::io::Write;
use std::path::{Component, Path, PathBuf};

use super::error::{FILE_NOT_FOUND, FILE_TOO_LARGE, IO_ERROR, LogsError, PATH_NOT_ALLOWED};

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

fn absolute(base: &Path, raw: &str) -> PathBuf {
    let p = Path::new(raw);
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        base.join(p)
    }
}

/// Each root in its lexical and (when it exists) canonical form.
fn root_forms(roots: &[PathBuf]) -> Vec<PathBuf> {
    let mut forms = Vec::new();
    for r in roots {
        if let Some(n) = normalize_lexically(r) {
            forms.push(n);
        }
        if let Ok(c) = fs::canonicalize(r) {
            forms.push(c);
        }
    }
    forms
}

fn inside(path: &Path, roots: &[PathBuf]) -> bool {
    roots.iter().any(|r| path.starts_with(r))
}

fn not_allowed(param: &str, raw: &str, roots: &[PathBuf]) -> LogsError {
    LogsError::new(
        PATH_NOT_ALLOWED,
        format!("{param} {raw:?} is outside the allowed directories"),
    )
    .with_details(serde_json::json!({
        "param": param,
        "path": raw,
        "allowed_roots": roots.iter().map(|r| r.display().to_string()).collect::<Vec<_>>(),
    }))
}

/// Lexical checks common to reading and writing; returns the normalised absolute path.
fn lexical_check(
    param: &str,
    raw: &str,
    base: &Path,
    roots: &[PathBuf],
) -> Result<PathBuf, LogsError> {
    if raw.trim().is_empty() || raw.contains('\0') {
        return Err(LogsError::invalid_param(
            param,
            format!("{param} must be a non-empty path"),
        ));
    }
    let normalized =
        normalize_lexically(&absolute(base, raw)).ok_or_else(|| not_allowed(param, raw, roots))?;
    if !inside(&normalized, &root_forms(roots)) {
        return Err(not_allowed(param, raw, roots));
    }
    Ok(normalized)
}

/// Checks a file to read and returns its canonical path and size.
pub fn check_read(
    param: &str,
    raw: &str,
    base: &Path,
    roots: &[PathBuf],
    max_bytes: u64,
) -> Result<(PathBuf, u64), LogsError> {
    let normalized = lexical_check(param, raw, base, roots)?;
    let details = serde_json::json!({ "param": param, "path": raw });
    let canonical = fs::canonicalize(&normalized).map_err(|_| {
        LogsError::new(FILE_NOT_FOUND, format!("{param} {raw:?} does not exist"))
            .with_details(details.clone())
    })?;
    if !inside(&canonical, &root_forms(roots)) {
        return Err(not_allowed(param, raw, roots));
    }
    let meta = fs::metadata(&canonical).map_err(|e| {
        LogsError::new(IO_ERROR, format!("cannot read {raw:?}: {e}")).with_details(details.clone())
    })?;
    if !meta.is_file() {
        return Err(LogsError::new(
            FILE_NOT_FOUND,
            format!("{param} {raw:?} is not a regular file"),
        )
        .with_details(details));
    }
    if meta.len() > max_bytes {
        return Err(LogsError::new(
            FILE_TOO_LARGE,
            format!(
                "{param} {raw:?} is {} bytes; the limit is {max_bytes} bytes",
                meta.len()
            ),
        )
        .with_details(serde_json::json!({
            "param": param, "path": raw, "size_bytes": meta.len(), "max_bytes": max_bytes,
        })));
    }
    Ok((canonical, meta.len()))
}

/// Reads a checked file as text (invalid UTF-8 is replaced, never an error: logs get cut
/// mid-character).
pub fn read_text(
    param: &str,
    raw: &str,
    base: &Path,
    roots: &[PathBuf],
    max_bytes: u64,
) -> Result<String, LogsError> {
    let (canonical, _) = check_read(param, raw, base, roots, max_bytes)?;
    let bytes = fs::read(&canonical).map_err(|e| {
        LogsError::new(IO_ERROR, format!("cannot read {raw:?}: {e}"))
            .with_details(serde_json::json!({ "param": param, "path": raw }))
    })?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// Checks a file to write (creating missing parent directories inside the roots) and returns
/// the path to write: the canonical parent joined with the file name. An existing symlink or
/// directory at the target is refused.
pub fn check_write(
    param: &str,
    raw: &str,
    base: &Path,
    roots: &[PathBuf],
) -> Result<PathBuf, LogsError> {
    let normalized = lexical_check(param, raw, base, roots)?;
    let file_name = normalized
        .file_name()
        .ok_or_else(|| {
            LogsError::invalid_param(param, format!("{param} {raw:?} has no file name"))
        })?
        .to_owned();
    let parent = normalized
        .parent()
        .ok_or_else(|| not_allowed(param, raw, roots))?;
    // Check the deepest existing ancestor before creating anything, so that a symlinked
    // directory inside a root cannot make us create directories outside it.
    let existing = parent.ancestors().find(|a| a.exists()).unwrap_or(parent);
    let canonical_existing = fs::canonicalize(existing)
        .map_err(|e| LogsError::new(IO_ERROR, format!("{raw:?}: {e}")))?;
    if !inside(&canonical_existing, &root_forms(roots)) {
        return Err(not_allowed(param, raw, roots));
    }
    fs::create_dir_all(parent).map_err(|e| {
        LogsError::new(
            IO_ERROR,
            format!("cannot create the directory of {raw:?}: {e}"),
        )
    })?;
    let canonical_parent =
        fs::canonicalize(parent).map_err(|e| LogsError::new(IO_ERROR, format!("{raw:?}: {e}")))?;
    if !inside(&canonical_parent, &root_forms(roots)) {
        return Err(not_allowed(param, raw, roots));
    }
    let target = canonical_parent.join(file_name);
    if let Ok(meta) = fs::symlink_metadata(&target) {
        if meta.file_type().is_symlink() {
            return Err(not_allowed(param, raw, roots));
        }
        if meta.is_dir() {
            return Err(LogsError::invalid_param(
                param,
                format!("{param} {raw:?} is a directory"),
            ));
        }
    }
    Ok(target)
}

/// Writes `text` to a path returned by [`check_write`], through a temporary file in the same
/// directory renamed into place, so a reader never sees half a snapshot.
pub fn write_atomically(target: &Path, text: &str) -> Result<(), LogsError> {
    let dir = target.parent().unwrap_or(Path::new("."));
    let io = |e: std::io::Error| {
        LogsError::new(IO_ERROR, format!("cannot write {}: {e}", target.display()))
    };
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(io)?;
    tmp.write_all(text.as_bytes()).map_err(io)?;
    tmp.persist(target).map_err(|e| io(e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logs::error::INVALID_PARAM;

    #[test]
    fn lexical_normalisation() {
        assert_eq!(
            normalize_lexically(Path::new("/a/./b/../c")),
            Some(PathBuf::from("/a/c"))
        );
        assert_eq!(normalize_lexically(Path::new("/a/../../etc")), None);
        assert_eq!(normalize_lexically(Path::new("/..")), None);
    }

    #[test]
    fn read_checks() {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let roots = vec![root.path().to_path_buf()];
        fs::write(root.path().join("a.log"), "x\n").unwrap();
        fs::write(outside.path().join("secret.log"), "s\n").unwrap();
        assert!(check_read("input_file", "a.log", root.path(), &roots, 100).is_ok());
        let code = |raw: &str, max| {
            check_read("input_file", raw, root.path(), &roots, max)
                .unwrap_err()
                .code
        };
        assert_eq!(code("missing.log", 100), FILE_NOT_FOUND);
        assert_eq!(code("a.log", 1), FILE_TOO_LARGE);
        assert_eq!(code(".", 100), FILE_NOT_FOUND);
        let escaped = format!(
            "../{}/secret.log",
            outside.path().file_name().unwrap().to_string_lossy()
        );
        assert_eq!(code(&escaped, 100), PATH_NOT_ALLOWED);
        assert_eq!(
            code(outside.path().join("secret.log").to_str().unwrap(), 100),
            PATH_NOT_ALLOWED
        );
        // A missing file outside the roots is refused, not reported as missing.
        assert_eq!(code("/nonexistent-dir/x.log", 100), PATH_NOT_ALLOWED);
        assert_eq!(code("", 100), INVALID_PARAM);
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(
                outside.path().join("secret.log"),
                root.path().join("link.log"),
            )
            .unwrap();
            assert_eq!(code("link.log", 100), PATH_NOT_ALLOWED);
        }
    }

    #[test]
    fn write_checks() {
        let root = tempfile::tempdir().unwrap();
        let roots = vec![root.path().to_path_buf()];
        let target = check_write("save_path", "sub/dir/snap.log", root.path(), &roots).unwrap();
        write_atomically(&target, "hello\n").unwrap();
        assert_eq!(
            fs::read_to_string(root.path().join("sub/dir/snap.log")).unwrap(),
            "hello\n"
        );
        assert_eq!(
            check_write("save_path", "../x.log", root.path(), &roots)
                .unwrap_err()
                .code,
            PATH_NOT_ALLOWED
        );
        assert_eq!(
            check_write("save_path", "sub", root.path(), &roots)
                .unwrap_err()
                .code,
            INVALID_PARAM
        );
        #[cfg(unix)]
        {
            let outside = tempfile::tempdir().unwrap();
            std::os::unix::fs::symlink(outside.path(), root.path().join("out")).unwrap();
            assert_eq!(
                check_write("save_path", "out/x.log", root.path(), &roots)
                    .unwrap_err()
                    .code,
                PATH_NOT_ALLOWED
            );
            assert_eq!(
                check_write("save_path", "out/new/x.log", root.path(), &roots)
                    .unwrap_err()
                    .code,
                PATH_NOT_ALLOWED
            );
            assert!(
                !outside.path().join("new").exists(),
                "nothing created outside the roots"
            );
            std::os::unix::fs::symlink(outside.path().join("f"), root.path().join("f.log"))
                .unwrap();
            assert_eq!(
                check_write("save_path", "f.log", root.path(), &roots)
                    .unwrap_err()
                    .code,
                PATH_NOT_ALLOWED
            );
        }
    }
}
