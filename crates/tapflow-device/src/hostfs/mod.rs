//! The host-path policy: the one place that decides whether tapflow may read or write a file on
//! the host, and that does the reading and writing without following links out of the allowed
//! roots. Every host file a tool, the flow loader or the runner touches on a caller's behalf goes
//! through a [`PathPolicy`] (screenshot `local_path`, `logs_query` files, `install_app`
//! `hap_path`, `build_app` `project_path`, flow and sub-flow files, the report directory,
//! evidence).
//!
//! A policy has two lists of roots: the **read roots** (files may be read under them) and the
//! **write roots**, the output directories (files may be written or created only under them).
//! The rules, in order:
//! 1. the path is made absolute against the policy's base directory and normalised lexically, and
//!    must lie under a root of its access (so `..` and foreign absolute paths are refused before
//!    their existence is revealed);
//! 2. the real path of what exists (the file to read, or the deepest existing parent of a file to
//!    write) must lie under a root too, so a symlink inside a root cannot point out of it;
//! 3. a file to write is never trusted configuration ([`trusted`]: `tapflow.toml` in any
//!    directory, anything under `.tapflow/`, the files this process was configured with), judged
//!    on the normalised path before anything is created and again on the real path;
//! 4. a file to write whose final component is a symlink is refused, and files are created with
//!    `O_NOFOLLOW | O_CREAT | O_EXCL` under a temporary name, then renamed (or hard-linked, when
//!    an existing file must not be replaced) into place: a link planted between the check and the
//!    write is replaced, never followed;
//! 5. files to read are opened with `O_NOFOLLOW | O_NONBLOCK`, must be regular files (a FIFO, a
//!    device such as `/dev/zero`, a directory are refused) and are read with a size bound;
//! 6. files tapflow writes are never executable, and a file whose content a caller chooses is
//!    never given a name a build tool or shell would run ([`names`]).
//!
//! A configured write root that does not exist yet is created on first use (it is
//! configuration, not a caller's path). The default policy ([`PathPolicy::deny_all`]) allows
//! nothing. Roots too wide to come from a file (`/`, the home directory) are recognised by
//! [`wide`]; the CLI decides what to do with them.
//!
//! Owns `src/hostfs/**`. Uses nothing else in the crate; reads no environment (the CLI builds the
//! roots from `tapflow.toml`, `TAPFLOW_*` variables or command-line flags and passes them down).

mod error;
pub mod names;
mod policy;
mod read;
pub mod trusted;
pub mod wide;
mod write;

#[cfg(test)]
mod tests;

pub use error::{HostPathError, PathErrorKind};
pub use policy::{Access, Expect, PathPolicy, normalize_lexically};
pub use write::{Overwrite, WriteTarget};
