//! Reading a host file under the policy: a regular file only (never a FIFO, a device, a
//! directory), opened without following a final link and without blocking, read with a bound.

use std::fs::{File, OpenOptions};
use std::io::Read;
use std::path::PathBuf;

use super::error::{HostPathError, PathErrorKind};
use super::policy::{Expect, PathPolicy, io};

impl PathPolicy {
    /// Reads a regular file under the roots, at most `max_bytes` bytes (a larger file is
    /// refused, whatever its metadata claimed). Returns its real path and its bytes.
    pub fn read_file(
        &self,
        given: &str,
        max_bytes: u64,
    ) -> Result<(PathBuf, Vec<u8>), HostPathError> {
        // `check_existing` refuses directories, and (through `metadata`) FIFOs and devices.
        let real = self.check_existing(given, Expect::File)?;
        let file = open_no_follow(&real).map_err(|e| io(given, &real, e))?;
        // The path may have been swapped between the check and the open: judge the open file.
        let meta = file.metadata().map_err(|e| io(given, &real, e))?;
        if !meta.is_file() {
            return Err(HostPathError::new(
                PathErrorKind::WrongType,
                given,
                format!("{} is not a regular file", real.display()),
            )
            .at(&real));
        }
        let too_large = |size: u64| {
            HostPathError::new(
                PathErrorKind::TooLarge,
                given,
                format!(
                    "{} is {size} bytes; the limit is {max_bytes} bytes",
                    real.display()
                ),
            )
            .at(&real)
        };
        if meta.len() > max_bytes {
            return Err(too_large(meta.len()));
        }
        let mut bytes = Vec::with_capacity(meta.len().min(max_bytes) as usize);
        file.take(max_bytes.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|e| io(given, &real, e))?;
        if bytes.len() as u64 > max_bytes {
            return Err(too_large(bytes.len() as u64));
        }
        Ok((real, bytes))
    }
}

#[cfg(unix)]
fn open_no_follow(path: &std::path::Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
}

#[cfg(not(unix))]
fn open_no_follow(path: &std::path::Path) -> std::io::Result<File> {
    OpenOptions::new().read(true).open(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn reads_regular_files_with_a_bound() {
        let root = tempfile::tempdir().unwrap();
        let p = PathPolicy::new(root.path(), [root.path().to_path_buf()]);
        fs::write(root.path().join("a.yaml"), "steps: []\n").unwrap();
        let (_, bytes) = p.read_file("a.yaml", 100).unwrap();
        assert_eq!(bytes, b"steps: []\n");
        assert_eq!(
            p.read_file("a.yaml", 4).unwrap_err().kind,
            PathErrorKind::TooLarge
        );
    }

    #[cfg(unix)]
    #[test]
    fn refuses_fifos_devices_and_outside_files() {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        let fifo = r.join("pipe.yaml");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        std::os::unix::fs::symlink("/dev/zero", r.join("zero.yaml")).unwrap();
        let p = PathPolicy::new(r, [r.to_path_buf(), PathBuf::from("/dev")]);
        assert_eq!(
            p.read_file("pipe.yaml", 1 << 20).unwrap_err().kind,
            PathErrorKind::WrongType
        );
        assert_eq!(
            p.read_file("zero.yaml", 1 << 20).unwrap_err().kind,
            PathErrorKind::WrongType
        );
        let p = PathPolicy::new(r, [r.to_path_buf()]);
        for outside in ["/proc/self/environ", "../../../../etc/passwd", "/dev/zero"] {
            assert_eq!(
                p.read_file(outside, 1 << 20).unwrap_err().kind,
                PathErrorKind::NotAllowed,
                "{outside}"
            );
        }
    }
}
