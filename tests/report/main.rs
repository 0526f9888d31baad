//! Reports: the `report` command, mixed runs' snapshots, the HTML in a browser.
//! One module per former test file.

#[path = "../common/mod.rs"]
mod common;

mod cli;
mod html_browser;
mod mixed;
