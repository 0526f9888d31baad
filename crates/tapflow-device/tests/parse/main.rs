//! The device layer's parsers over captured fixtures (`tests/fixtures/` at the repository root).
//! One module per former test file.

mod android;
mod hdc;
mod logs;
mod logs_query;
