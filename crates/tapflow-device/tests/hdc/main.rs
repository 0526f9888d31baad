//! The hdc backend over canned and scripted `hdc` executables (no simulator).
//! One module per former test file.

mod backend;
mod backend_process;
