//! Reports: the `report` command, the HTML in a browser. One module per former test file
//! (the mixed run's snapshots are `tests/report_mixed/`).

#[path = "../common/mod.rs"]
mod common;

mod bidi;
mod ci_inert;
mod cli;
mod html_browser;
