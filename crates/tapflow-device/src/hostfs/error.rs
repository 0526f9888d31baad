//! Why a host path was refused or could not be used. Callers map the kind onto their own
//! contract codes (a tool's `PATH_NOT_ALLOWED`, `FILE_NOT_FOUND`, …); the message is written for
//! the person or agent who gave the path and never quotes the file's content.

use std::path::PathBuf;

/// The reason class, for mapping onto error codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathErrorKind {
    /// Empty, contains NUL, has no file name where one is needed.
    Invalid,
    /// Outside every allowed root (lexically or once links are resolved).
    NotAllowed,
    /// The final component is a symbolic link (refused for writes and reads alike).
    Symlink,
    /// Nothing there.
    NotFound,
    /// There, but not what was expected (a directory for a file, a FIFO or device for a file, a
    /// file for a directory).
    WrongType,
    /// Larger than the caller's bound.
    TooLarge,
    /// The file exists and the caller asked never to replace one.
    Exists,
    /// A name a build tool, shell or editor would run or obey (`hvigorw`, `Makefile`, `*.sh`,
    /// hidden files; see `names.rs`), refused for files whose content a caller chooses.
    Runnable,
    /// A file to write that is, or lies in, trusted configuration: a project file
    /// (`tapflow.toml`), `.tapflow/`, or a file this process was configured with (see
    /// `trusted.rs`). People write configuration; tools never do.
    TrustedConfig,
    /// The operating system refused (permissions, disk full, …).
    Io,
}

impl PathErrorKind {
    /// A stable, upper-case name (used in details and by callers without a contract code).
    pub fn as_str(self) -> &'static str {
        self.code().as_str()
    }

    /// The code of callers without a contract code of their own.
    pub fn code(self) -> tapflow_core::codes::Code {
        match self {
            PathErrorKind::Invalid => tapflow_core::codes::INVALID_PATH,
            PathErrorKind::NotAllowed => tapflow_core::codes::PATH_NOT_ALLOWED,
            PathErrorKind::Symlink => tapflow_core::codes::PATH_IS_SYMLINK,
            PathErrorKind::NotFound => tapflow_core::codes::FILE_NOT_FOUND,
            PathErrorKind::WrongType => tapflow_core::codes::WRONG_FILE_TYPE,
            PathErrorKind::TooLarge => tapflow_core::codes::FILE_TOO_LARGE,
            PathErrorKind::Exists => tapflow_core::codes::FILE_EXISTS,
            PathErrorKind::Runnable => tapflow_core::codes::RUNNABLE_NAME,
            PathErrorKind::TrustedConfig => tapflow_core::codes::TRUSTED_CONFIG,
            PathErrorKind::Io => tapflow_core::codes::IO_ERROR,
        }
    }
}

/// A refused or failed host path.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct HostPathError {
    pub kind: PathErrorKind,
    /// The path as the caller gave it.
    pub given: String,
    /// The path it resolved to, when resolution got that far.
    pub resolved: Option<PathBuf>,
    /// One sentence: what is wrong and what to do.
    pub message: String,
    /// The roots of the refused access (for `NotAllowed`, so the caller can say where files may
    /// be read or written).
    pub roots: Vec<PathBuf>,
}

impl HostPathError {
    pub(crate) fn new(kind: PathErrorKind, given: &str, message: impl Into<String>) -> Self {
        HostPathError {
            kind,
            given: clip(given),
            resolved: None,
            message: message.into(),
            roots: Vec::new(),
        }
    }

    pub(crate) fn at(mut self, resolved: impl Into<PathBuf>) -> Self {
        self.resolved = Some(resolved.into());
        self
    }

    /// An existing file the caller must not replace.
    pub fn exists(given: &str, path: &std::path::Path) -> Self {
        HostPathError::new(
            PathErrorKind::Exists,
            given,
            format!(
                "{} already exists and tapflow does not replace files it did not create; \
                 choose a new name",
                path.display()
            ),
        )
        .at(path)
    }

    /// Details for an error envelope: the kind, the path, and the roots when relevant.
    pub fn details(&self) -> serde_json::Value {
        let mut d = serde_json::json!({
            "reason": self.kind.as_str(),
            "path": self.given,
        });
        if let Some(r) = &self.resolved {
            d["resolved"] = r.display().to_string().into();
        }
        if !self.roots.is_empty() {
            d["allowed_roots"] = self
                .roots
                .iter()
                .map(|r| r.display().to_string())
                .collect::<Vec<_>>()
                .into();
        }
        d
    }
}

/// Paths are echoed in messages; a 10 MB "path" is not.
pub(crate) fn clip(s: &str) -> String {
    const MAX: usize = 300;
    if s.len() <= MAX {
        return s.to_string();
    }
    let mut end = MAX;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes)", &s[..end], s.len())
}
