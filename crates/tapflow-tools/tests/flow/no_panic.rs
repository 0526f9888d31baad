//! No input makes validation panic: arbitrary text, YAML-ish token soup, and valid flows with
//! random byte-level mutations all come back as diagnostics (or a plan), never a panic.

use proptest::prelude::*;
use tapflow_core::flow::{SourceFile, render_text};
use tapflow_core::plan::{MapLoader, PlanOptions, compile};
use tapflow_tools::RegistryCatalog;

const VALID: &str = include_str!("../../../../tests/golden/flow/valid/login.yaml");

fn check(text: &str) {
    let loader = MapLoader::new()
        .with("subflows/accept.yaml", "- click: \"{{ BUTTON }}\"\n")
        .with("loop.yaml", "- run_flow: loop.yaml\n");
    let src = SourceFile::new("fuzz.yaml", text);
    let sub = SourceFile::new("subflows/x.subflow.yaml", text);
    let c = compile(
        &[src],
        &[sub],
        &RegistryCatalog::builtin(),
        &loader,
        &PlanOptions::default(),
    );
    // Rendering must not panic either, whatever the spans.
    let _ = render_text(&c.diagnostics, &c.sources);
    let _ = serde_json::to_string(&c.plan).unwrap();
    for d in &c.diagnostics {
        assert!(d.line >= 1 && d.column >= 1);
    }
}

fn token() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("steps:".to_string()),
        Just("\n".to_string()),
        Just("  ".to_string()),
        Just("- ".to_string()),
        Just("click: ".to_string()),
        Just("run_flow: loop.yaml".to_string()),
        Just("repeat: {times: 2, steps: [".to_string()),
        Just("]".to_string()),
        Just("{{ X }}".to_string()),
        Just("{{".to_string()),
        Just("&a ".to_string()),
        Just("*a".to_string()),
        Just("\"登录\"".to_string()),
        Just("when: {visible: ".to_string()),
        Just("}".to_string()),
        Just("\t".to_string()),
        Just("env: {X: 1}".to_string()),
        Just("keep: k".to_string()),
        "[a-z_]{1,8}".prop_map(|s| s),
        "[0-9]{1,3}".prop_map(|s| s),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,200}") {
        check(&text);
    }

    #[test]
    fn token_soup_never_panics(tokens in prop::collection::vec(token(), 0..60)) {
        check(&tokens.concat());
    }

    #[test]
    fn mutated_valid_flows_never_panic(cuts in prop::collection::vec((0usize..2000, any::<char>()), 1..6)) {
        let mut chars: Vec<char> = VALID.chars().collect();
        for (pos, c) in cuts {
            let i = pos % (chars.len() + 1);
            if i < chars.len() && c.is_ascii_digit() {
                chars.remove(i);
            } else {
                chars.insert(i, c);
            }
        }
        check(&chars.into_iter().collect::<String>());
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let mut text = String::from("steps:\n");
    let mut indent = String::from("  ");
    for _ in 0..60 {
        text.push_str(&format!(
            "{indent}- repeat:\n{indent}    times: 1\n{indent}    steps:\n"
        ));
        indent.push_str("      ");
    }
    text.push_str(&format!("{indent}- click: OK\n"));
    check(&text);
    let brackets = "[".repeat(5000);
    check(&brackets);
}

#[test]
fn nesting_just_under_the_limit_compiles_on_a_small_stack() {
    let mut text = String::from("steps:\n");
    let mut indent = String::from("  ");
    for _ in 0..12 {
        text.push_str(&format!(
            "{indent}- repeat:\n{indent}    times: 1\n{indent}    steps:\n"
        ));
        indent.push_str("      ");
    }
    text.push_str(&format!("{indent}- click: OK\n"));
    // 2 MiB, as test threads and tokio workers have.
    let handle = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            let src = SourceFile::new("deep.yaml", text);
            let c = compile(
                &[src],
                &[],
                &RegistryCatalog::builtin(),
                &MapLoader::new(),
                &PlanOptions::default(),
            );
            render_text(&c.diagnostics, &c.sources)
        })
        .unwrap();
    let diags = handle.join().unwrap();
    assert!(diags.is_empty(), "{diags}");
}
