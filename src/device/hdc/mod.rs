//! The hdc backend: argv builders (routing, quoting), output classification and the
//! [`crate::device::Device`] implementation for HarmonyOS devices. (Backend being written.)

pub mod parse;
