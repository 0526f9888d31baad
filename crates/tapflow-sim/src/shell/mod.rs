//! The simulated device's `sh -c`: a parser for the subset real hdc clients send ([`parse`]) and
//! an executor ([`exec`]) that runs the parsed list against one device, applying `;`/`&&`/`||`,
//! `$?`, redirections to phone files or `/dev/null`, and unquoted globs over the phone's files.

pub mod exec;
pub mod parse;

pub use exec::{DeviceCtx, Programs, Sink, run_script};
