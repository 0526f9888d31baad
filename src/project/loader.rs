//! Reading flow files: every flow and sub-flow file (`run_flow: file`) is read through the
//! host-path policy with the flow roots as its only roots, so a flow file must be a regular file
//! under a flow root (links resolved), at most [`MAX_FLOW_BYTES`], read with that bound, and UTF-8.
//!
//! What a refusal says never quotes the file: `run_flow: /proc/self/environ` or
//! `run_flow: ../../../../etc/passwd` is reported at the `run_flow` line of the calling flow
//! (outside the flow root), `run_flow: /dev/zero` or a FIFO as not a regular file (never opened
//! for a blocking read), a huge file by its size. A file that is not UTF-8 is reported at its first
//! invalid byte (line and column), with the text before it only.

use std::path::{Path, PathBuf};

use tapflow_core::flow::{Diagnostic, SourceFile, Span};
use tapflow_core::plan::SourceLoader;
use tapflow_device::hostfs::{HostPathError, PathErrorKind, PathPolicy};

/// The largest flow file tapflow reads: 1 MiB. Flows are hand-written YAML (the example flows
/// are under 2 KiB); anything larger is almost certainly not a flow, and is refused before it
/// is read whole.
pub const MAX_FLOW_BYTES: u64 = 1 << 20;

/// Why a flow file could not be read.
#[derive(Debug, Clone, PartialEq)]
pub enum ReadError {
    /// The host-path policy refused it or the system could not read it.
    Refused(HostPathError),
    /// Not UTF-8: the 1-based line and character column of the first invalid byte, and the
    /// text before it (for a diagnostic that shows nothing past the bad byte).
    NotUtf8 {
        line: usize,
        column: usize,
        valid_prefix: String,
    },
}

impl ReadError {
    /// One sentence about the file, for a diagnostic: never its content.
    pub fn describe(&self, roots: &[PathBuf]) -> String {
        match self {
            ReadError::NotUtf8 { line, column, .. } => {
                format!("it is not UTF-8 text (first invalid byte at line {line}, column {column})")
            }
            ReadError::Refused(e) => match e.kind {
                PathErrorKind::NotAllowed => format!(
                    "it is outside the flow root ({}); flow files and the files they call must \
                     lie under the project directory (the directory of tapflow.toml) or the \
                     directory of the flow given on the command line",
                    roots
                        .iter()
                        .map(|r| r.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                PathErrorKind::NotFound => "no such file".to_string(),
                PathErrorKind::WrongType => {
                    "it is not a regular file (a directory, a FIFO or a device)".to_string()
                }
                PathErrorKind::TooLarge => format!(
                    "it is larger than {} KiB, the limit for a flow file",
                    MAX_FLOW_BYTES / 1024
                ),
                PathErrorKind::Invalid => "the path is empty or contains a NUL".to_string(),
                _ => e.message.clone(),
            },
        }
    }
}

/// Reads flow files under the flow roots; the planner's [`SourceLoader`] for `run_flow` files.
#[derive(Debug, Clone)]
pub struct FlowLoader {
    policy: PathPolicy,
}

impl FlowLoader {
    /// `cwd` resolves relative names (flow names are relative to the working directory);
    /// `roots` are the flow roots.
    pub fn new(cwd: &Path, roots: impl IntoIterator<Item = PathBuf>) -> Self {
        FlowLoader {
            policy: PathPolicy::new(cwd, roots),
        }
    }

    /// The flow roots.
    pub fn roots(&self) -> &[PathBuf] {
        self.policy.read_roots()
    }

    /// Reads one flow file (bounded, regular, under a root, UTF-8).
    pub fn read(&self, path: &str) -> Result<String, ReadError> {
        let (_, bytes) = self
            .policy
            .read_file(path, MAX_FLOW_BYTES)
            .map_err(ReadError::Refused)?;
        String::from_utf8(bytes).map_err(|e| {
            let valid = e.utf8_error().valid_up_to();
            let bytes = e.into_bytes();
            let valid_prefix = String::from_utf8_lossy(&bytes[..valid]).into_owned();
            let at = SourceFile::new("", valid_prefix.clone()).line_col(valid);
            ReadError::NotUtf8 {
                line: at.line,
                column: at.column,
                valid_prefix,
            }
        })
    }

    /// A top-level flow file as a source, or the one diagnostic that says why it is not one: at
    /// its first invalid byte when it is not UTF-8, else at its start. The diagnostic's source
    /// holds at most the text before the bad byte.
    pub fn read_source(
        &self,
        path: &str,
        name: &str,
    ) -> Result<SourceFile, Box<(SourceFile, Diagnostic)>> {
        match self.read(path) {
            Ok(text) => Ok(SourceFile::new(name, text)),
            Err(ReadError::NotUtf8 {
                valid_prefix,
                line,
                column,
            }) => {
                let at = valid_prefix.len();
                // U+FFFD stands for the bad byte, so the caret has something to point at.
                let src = SourceFile::new(name, format!("{valid_prefix}\u{FFFD}"));
                let d = Diagnostic::error(
                    &src,
                    Span::new(at, at + '\u{FFFD}'.len_utf8()),
                    "invalid-utf8",
                    format!(
                        "{name} is not UTF-8 text: the first invalid byte is at line {line}, column {column}"
                    ),
                    "not UTF-8",
                )
                .with_help("save the file as UTF-8");
                Err(Box::new((src, d)))
            }
            Err(e) => {
                let src = SourceFile::new(name, "");
                let d = Diagnostic::error(
                    &src,
                    Span::new(0, 0),
                    "flow-unreadable",
                    format!("cannot read {name}: {}", e.describe(self.roots())),
                    "cannot be read",
                );
                Err(Box::new((src, d)))
            }
        }
    }
}

/// The one diagnostic of a flow file whose name is not UTF-8: it exists, but tapflow names
/// files in flows, diagnostics and reports as text, so it is not read (and not reported as
/// missing). `name` is the name with U+FFFD for the bad bytes.
pub fn name_not_utf8(name: &str) -> Box<(SourceFile, Diagnostic)> {
    let src = SourceFile::new(name, "");
    let d = Diagnostic::error(
        &src,
        Span::new(0, 0),
        "flow-unreadable",
        format!("flow file name is not valid UTF-8: {name} (tapflow needs UTF-8 paths)"),
        "cannot be read",
    )
    .with_help("rename the file to a UTF-8 name (U+FFFD marks the bytes that are not)");
    Box::new((src, d))
}

impl SourceLoader for FlowLoader {
    fn load(&self, path: &str) -> Result<String, String> {
        self.read(path).map_err(|e| e.describe(self.roots()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn reads_flows_under_the_root_only() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("flows");
        fs::create_dir_all(root.join("sub")).unwrap();
        fs::write(root.join("sub/s.yaml"), "steps: []\n").unwrap();
        fs::write(t.path().join("secret.yaml"), "TOKEN: x\n").unwrap();
        let l = FlowLoader::new(t.path(), [root.clone()]);
        assert_eq!(l.read("flows/sub/s.yaml").unwrap(), "steps: []\n");
        for outside in [
            "secret.yaml",
            "flows/../secret.yaml",
            "/etc/passwd",
            "/proc/self/environ",
        ] {
            let why = l.load(outside).unwrap_err();
            assert!(why.contains("outside the flow root"), "{outside}: {why}");
            assert!(!why.contains("TOKEN"));
        }
        assert_eq!(l.load("flows/none.yaml").unwrap_err(), "no such file");
    }

    #[cfg(unix)]
    #[test]
    fn devices_fifos_and_huge_files_are_not_read() {
        let t = tempfile::tempdir().unwrap();
        let r = t.path();
        std::os::unix::fs::symlink("/dev/zero", r.join("zero.yaml")).unwrap();
        let fifo = r.join("pipe.yaml");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let big = fs::File::create(r.join("big.yaml")).unwrap();
        big.set_len(MAX_FLOW_BYTES + 1).unwrap();
        // /dev as a root too: /dev/zero must still be refused as a device.
        let l = FlowLoader::new(r, [r.to_path_buf(), PathBuf::from("/dev")]);
        assert!(
            l.load("zero.yaml")
                .unwrap_err()
                .contains("not a regular file")
        );
        assert!(
            l.load("/dev/zero")
                .unwrap_err()
                .contains("not a regular file")
        );
        assert!(
            l.load("pipe.yaml")
                .unwrap_err()
                .contains("not a regular file")
        );
        assert!(l.load("big.yaml").unwrap_err().contains("1024 KiB"));
    }

    #[test]
    fn not_utf8_is_located_at_the_first_bad_byte() {
        let t = tempfile::tempdir().unwrap();
        fs::write(
            t.path().join("bad.yaml"),
            b"name: ok\nsteps:\n  - click: \"Gr\xfc\xdfe\"\n  - x\n",
        )
        .unwrap();
        let l = FlowLoader::new(t.path(), [t.path().to_path_buf()]);
        assert_eq!(
            l.load("bad.yaml").unwrap_err(),
            "it is not UTF-8 text (first invalid byte at line 3, column 15)"
        );
        let (src, d) = *l.read_source("bad.yaml", "bad.yaml").unwrap_err();
        assert_eq!((d.line, d.column, d.code.as_str()), (3, 15, "invalid-utf8"));
        assert_eq!(d.file, "bad.yaml");
        assert!(!src.text().contains("- x"), "nothing past the bad byte");
    }
}
