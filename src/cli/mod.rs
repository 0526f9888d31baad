//! The command line: clap commands, exit codes, terminal output. Reads the environment and
//! config files once, at start-up, into a typed configuration passed down; nothing else in the
//! crate calls `std::env`.

/// Entry point of the `tapflow` binary; returns the process exit code.
pub fn main() -> i32 {
    0
}
