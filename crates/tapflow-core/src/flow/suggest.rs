//! "Did you mean …?" for the flow parser: the crate's one suggestion rule ([`crate::suggest`],
//! a leaf that uses nothing else in the crate), re-exported where the parser has always found it.

pub use crate::suggest::{closest, did_you_mean};
