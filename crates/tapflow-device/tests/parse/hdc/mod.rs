//! The hdc parsers over every real fixture in `tests/fixtures/harmonyos/` (one test per fixture,
//! named after it). Edge cases live beside each parser as unit tests.
//!
//! One module per group of parsers; the fixture readers they share live here.

use std::fs;
use std::path::PathBuf;

use tapflow_device::hdc::parse::clean_output;

mod bundles;
mod failures;
mod faultlog;
mod layouts;
mod missions;
mod outcomes;
mod params;
mod robustness;
mod screen_power;
mod targets;
mod windows;

fn fixture(name: &str) -> String {
    let path: PathBuf = [
        concat!(env!("CARGO_MANIFEST_DIR"), "/../.."),
        "tests",
        "fixtures",
        "harmonyos",
        name,
    ]
    .iter()
    .collect();
    fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Fixture text as the backend hands it to parsers.
fn cleaned(name: &str) -> String {
    clean_output(&fixture(name))
}
