//! The host files of a query — `input_file(s)` to read, the `save_path` snapshot to write — go
//! through the host-path policy ([`crate::hostfs`]); this module only maps its refusals onto the
//! `logs_query` contract's codes and applies the snapshot's own rules.
//!
//! Codes: outside the roots (the read roots for input files, the output roots for `save_path`),
//! a symbolic link, a name a build tool would run, trusted configuration (`tapflow.toml`,
//! `.tapflow/`), or an existing file → `PATH_NOT_ALLOWED` (`details.reason` says which:
//! `PATH_NOT_ALLOWED`, `PATH_IS_SYMLINK`, `RUNNABLE_NAME`, `TRUSTED_CONFIG`, `FILE_EXISTS`);
//! missing or not a regular file → `FILE_NOT_FOUND`; over the bound → `FILE_TOO_LARGE`; an
//! empty or unusable path → `INVALID_PARAM`; anything the operating system refused →
//! `IO_ERROR`.
//!
//! The snapshot's content is the caller's (inline `logs` are written verbatim), so the snapshot
//! never replaces an existing file (tapflow cannot tell a file it wrote earlier from one it did
//! not), never gets a name a build tool, shell or editor would run (`hvigorw`, `Makefile`,
//! `*.sh`, hidden files; see `hostfs::names`), and is never executable.

use std::path::PathBuf;

use crate::hostfs::{HostPathError, Overwrite, PathErrorKind, PathPolicy, WriteTarget};

use super::error::PATH_NOT_ALLOWED;
use super::error::{FILE_NOT_FOUND, FILE_TOO_LARGE, INVALID_PARAM, IO_ERROR, LogsError};

/// A refused or failed host path as a contract error for `param`.
pub fn path_error(param: &str, write: bool, e: HostPathError) -> LogsError {
    let code = match e.kind {
        PathErrorKind::NotAllowed
        | PathErrorKind::Symlink
        | PathErrorKind::Runnable
        | PathErrorKind::TrustedConfig
        | PathErrorKind::Exists => PATH_NOT_ALLOWED,
        PathErrorKind::NotFound => FILE_NOT_FOUND,
        // A directory where a snapshot should go is a bad argument; a FIFO or a device where
        // a log file should be is not a log file.
        PathErrorKind::WrongType if write => INVALID_PARAM,
        PathErrorKind::WrongType => FILE_NOT_FOUND,
        PathErrorKind::TooLarge => FILE_TOO_LARGE,
        PathErrorKind::Invalid => INVALID_PARAM,
        PathErrorKind::Io => IO_ERROR,
    };
    let mut details = e.details();
    details["param"] = param.into();
    LogsError::new(code, format!("{param}: {}", e.message)).with_details(details)
}

/// Reads an input file under the policy, at most `max_bytes`, as text (invalid UTF-8 is
/// replaced, never an error: logs get cut mid-character).
pub fn read_text(
    paths: &PathPolicy,
    param: &str,
    given: &str,
    max_bytes: u64,
) -> Result<String, LogsError> {
    let (_, bytes) = paths.read_file(given, max_bytes).map_err(|e| {
        let too_large = e.kind == PathErrorKind::TooLarge;
        let mut err = path_error(param, false, e);
        if too_large {
            err.details["max_bytes"] = max_bytes.into();
        }
        err
    })?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// Checks a snapshot path before any work: under the roots, not a link, not a runnable name,
/// not an existing file. Missing parent directories are created (inside the roots only).
pub fn prepare_snapshot(paths: &PathPolicy, given: &str) -> Result<WriteTarget, LogsError> {
    let param = "save_path";
    let target = paths
        .prepare_inert_write(given)
        .map_err(|e| path_error(param, true, e))?;
    if target.existed() {
        return Err(path_error(
            param,
            true,
            HostPathError::exists(given, target.path()),
        ));
    }
    Ok(target)
}

/// Writes the snapshot (never over a file that appeared meanwhile) and returns its path.
pub fn write_snapshot(target: &WriteTarget, text: &str) -> Result<PathBuf, LogsError> {
    target
        .write(text.as_bytes(), Overwrite::Never)
        .map_err(|e| path_error("save_path", true, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn policy(root: &std::path::Path) -> PathPolicy {
        PathPolicy::new(root, [root.to_path_buf()])
    }

    #[test]
    fn read_codes() {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        fs::write(root.path().join("a.log"), "x\n").unwrap();
        fs::write(outside.path().join("secret.log"), "s\n").unwrap();
        let p = policy(root.path());
        assert_eq!(read_text(&p, "input_file", "a.log", 100).unwrap(), "x\n");
        let code = |given: &str, max| read_text(&p, "input_file", given, max).unwrap_err();
        assert_eq!(code("missing.log", 100).code, FILE_NOT_FOUND);
        let big = code("a.log", 1);
        assert_eq!(big.code, FILE_TOO_LARGE);
        assert_eq!(big.details["max_bytes"], 1);
        assert_eq!(code(".", 100).code, FILE_NOT_FOUND);
        let escaped = format!(
            "../{}/secret.log",
            outside.path().file_name().unwrap().to_string_lossy()
        );
        assert_eq!(code(&escaped, 100).code, PATH_NOT_ALLOWED);
        // A missing file outside the roots is refused, not reported as missing.
        assert_eq!(code("/nonexistent-dir/x.log", 100).code, PATH_NOT_ALLOWED);
        assert_eq!(code("", 100).code, INVALID_PARAM);
        assert_eq!(code("a.log", 1).details["param"], "input_file");
    }

    #[test]
    fn snapshot_rules() {
        let root = tempfile::tempdir().unwrap();
        let p = policy(root.path());
        let t = prepare_snapshot(&p, "sub/dir/snap.log").unwrap();
        write_snapshot(&t, "hello\n").unwrap();
        assert_eq!(
            fs::read_to_string(root.path().join("sub/dir/snap.log")).unwrap(),
            "hello\n"
        );
        let reason = |given: &str| {
            let e = prepare_snapshot(&p, given).unwrap_err();
            (
                e.code,
                e.details["reason"].as_str().unwrap_or("").to_string(),
            )
        };
        assert_eq!(
            reason("sub/dir/snap.log"),
            (PATH_NOT_ALLOWED, "FILE_EXISTS".into())
        );
        assert_eq!(
            reason("hvigorw"),
            (PATH_NOT_ALLOWED, "RUNNABLE_NAME".into())
        );
        assert_eq!(
            reason("tapflow.toml"),
            (PATH_NOT_ALLOWED, "TRUSTED_CONFIG".into())
        );
        assert!(!root.path().join("tapflow.toml").exists());
        assert_eq!(reason("sub"), (INVALID_PARAM, "WRONG_FILE_TYPE".into()));
        assert_eq!(
            reason("../x.log"),
            (PATH_NOT_ALLOWED, "PATH_NOT_ALLOWED".into())
        );
        // A file that appears between the check and the write is not replaced.
        let t = prepare_snapshot(&p, "late.log").unwrap();
        fs::write(root.path().join("late.log"), "theirs").unwrap();
        assert_eq!(
            write_snapshot(&t, "ours").unwrap_err().code,
            PATH_NOT_ALLOWED
        );
        assert_eq!(
            fs::read_to_string(root.path().join("late.log")).unwrap(),
            "theirs"
        );
    }
}
