//! The crates' dependencies, as cargo resolves them: the language core pulls in no runtime,
//! server, image or template library, and no layer reaches the one beside or above it. The
//! compiler enforces what a crate may import; this pins what each may depend on.

use std::collections::BTreeSet;
use std::process::Command;

/// The packages `crate` depends on at run time (normal edges, every depth).
fn normal_deps(krate: &str) -> BTreeSet<String> {
    let out = Command::new(env!("CARGO"))
        .args([
            "tree",
            "--locked",
            "--offline",
            "-e",
            "normal",
            "--prefix",
            "none",
            "-p",
        ])
        .arg(krate)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo tree -p {krate}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_string)
        .filter(|n| n != krate)
        .collect()
}

fn assert_none_of(krate: &str, forbidden: &[&str]) {
    let deps = normal_deps(krate);
    assert!(
        deps.len() > 3,
        "{krate}: implausibly few dependencies: {deps:?}"
    );
    let found: Vec<&&str> = forbidden.iter().filter(|f| deps.contains(**f)).collect();
    assert!(found.is_empty(), "{krate} depends on {found:?}");
}

#[test]
fn the_core_needs_no_runtime_server_image_or_templates() {
    // The check sees what it looks for: the application crate does depend on these.
    let app = normal_deps("tapflow");
    assert!(
        ["tokio", "rmcp", "axum", "image", "handlebars"]
            .iter()
            .all(|d| app.contains(*d))
    );
    assert_none_of(
        "tapflow-core",
        &[
            "tokio",
            "rmcp",
            "axum",
            "image",
            "handlebars",
            "clap",
            "tapflow-device",
        ],
    );
}

/// What each layer must not depend on: no runtime, server, templates or argument parser below
/// the application, and nothing beside or above itself.
const BELOW_THE_APP: &[(&str, &[&str])] = &[
    ("tapflow-device", &["tapflow-tools", "tapflow-sim"]),
    ("tapflow-tools", &["tapflow-sim", "tapflow"]),
    ("tapflow-sim", &["tapflow-tools", "tapflow"]),
];

#[test]
fn each_layer_depends_only_on_those_below_it() {
    for (krate, beside) in BELOW_THE_APP {
        let mut forbidden = vec!["tokio", "rmcp", "axum", "handlebars", "clap"];
        forbidden.extend_from_slice(beside);
        assert_none_of(krate, &forbidden);
    }
}
