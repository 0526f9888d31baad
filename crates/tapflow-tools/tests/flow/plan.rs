//! Planner behaviour: ids, defaults, variables and their precedence, secrets, sub-flows,
//! devices, and the 200-flow corpus (timed, as the benchmark's smoke test).

use std::time::Instant;

use tapflow_core::flow::SourceFile;
use tapflow_core::plan::model::{Action, MASK};
use tapflow_core::plan::{Compiled, MapLoader, PlanOptions, compile, corpus, render};
use tapflow_tools::RegistryCatalog;

fn plan_of(files: &[(&str, &str)], loader: MapLoader, opts: &PlanOptions) -> Compiled {
    let srcs: Vec<SourceFile> = files.iter().map(|(n, t)| SourceFile::new(*n, *t)).collect();
    compile(&srcs, &[], &RegistryCatalog::builtin(), &loader, opts)
}

fn assert_valid(c: &Compiled) {
    let text = tapflow_core::flow::render_text(&c.diagnostics, &c.sources);
    assert!(!c.has_errors(), "{text}");
}

#[test]
fn step_ids_are_deterministic_and_nested() {
    let flow = "steps:\n  - click: A\n  - repeat:\n      times: 2\n      steps:\n        - click: B\n        - retry:\n            steps:\n              - click: C\nfinally:\n  - press_key: Home\n";
    let c = plan_of(
        &[("flows/login.yaml", flow)],
        MapLoader::new(),
        &PlanOptions::default(),
    );
    assert_valid(&c);
    let f = &c.plan.flows[0];
    assert_eq!(f.steps[0].id, "login.1");
    let Action::Repeat { steps, .. } = &f.steps[1].action else {
        panic!()
    };
    assert_eq!(steps[1].id, "login.2.2");
    let Action::Retry {
        steps: inner,
        times,
        ..
    } = &steps[1].action
    else {
        panic!()
    };
    assert_eq!((inner[0].id.as_str(), *times), ("login.2.2.1", 1));
    assert_eq!(f.finally[0].id, "login.finally.1");
    let again = plan_of(
        &[("flows/login.yaml", flow)],
        MapLoader::new(),
        &PlanOptions::default(),
    );
    assert_eq!(
        serde_json::to_string(&c.plan).unwrap(),
        serde_json::to_string(&again.plan).unwrap()
    );
}

#[test]
fn defaults_are_explicit_and_shorthands_expand() {
    let c = plan_of(
        &[(
            "f.yaml",
            "steps:\n  - wait_for_element: Home\n  - click: OK\n",
        )],
        MapLoader::new(),
        &PlanOptions::default(),
    );
    assert_valid(&c);
    let Action::Tool { tool, args } = &c.plan.flows[0].steps[0].action else {
        panic!()
    };
    assert_eq!(tool, "wait_for_element");
    assert_eq!(
        args,
        // interval_ms 0: a flow's own default (docs/flow-format.md, "Flow-level behaviours");
        // a bare call's is 300.
        &serde_json::json!({"text": "Home", "state": "found", "timeout_ms": 5000, "interval_ms": 0})
    );
    assert_eq!(c.plan.flows[0].steps[0].deadline_ms, Some(30_000));
}

#[test]
fn variables_follow_their_precedence() {
    let flow =
        "env:\n  A: flow\n  B: flow\n  C: flow\nsteps:\n  - click: \"{{ A }}-{{ B }}-{{ C }}\"\n";
    let mut opts = PlanOptions::default();
    opts.environment
        .insert("TAPFLOW_B".into(), "environment".into());
    opts.environment
        .insert("TAPFLOW_C".into(), "environment".into());
    opts.env.insert("C".into(), "cli".into());
    let c = plan_of(&[("f.yaml", flow)], MapLoader::new(), &opts);
    assert_valid(&c);
    let Action::Tool { args, .. } = &c.plan.flows[0].steps[0].action else {
        panic!()
    };
    assert_eq!(args["text"], "flow-environment-cli");
}

#[test]
fn text_is_substituted_byte_exact() {
    let flow = "env:\n  T: \"<a href='x'>&amp; 登录 \\\\n\"\nsteps:\n  - input_text: {element_id: f, text: \"[{{ T }}]\"}\n";
    let c = plan_of(
        &[("f.yaml", flow)],
        MapLoader::new(),
        &PlanOptions::default(),
    );
    assert_valid(&c);
    let Action::Tool { args, .. } = &c.plan.flows[0].steps[0].action else {
        panic!()
    };
    assert_eq!(args["text"], "[<a href='x'>&amp; 登录 \\n]");
}

#[test]
fn secrets_are_never_serialised_or_printed() {
    let flow = "env:\n  PASSWORD: {default: hunter2-secret, secret: true}\nsteps:\n  - input_text: {element_id: p, text: \"{{ PASSWORD }}\"}\n  - run_flow: {file: sub.yaml, env: {P: \"x{{ PASSWORD }}\"}}\n";
    let loader = MapLoader::new().with(
        "sub.yaml",
        "- input_text: {element_id: q, text: \"{{ P }}\"}\n",
    );
    let c = plan_of(&[("f.yaml", flow)], loader, &PlanOptions::default());
    assert_valid(&c);
    let json = serde_json::to_string(&c.plan).unwrap();
    let text = render::render_text(&c.plan);
    for out in [&json, &text] {
        assert!(!out.contains("hunter2"), "{out}");
        assert!(out.contains(MASK) || out.contains("{{ PASSWORD }}"));
    }
    let f = &c.plan.flows[0];
    assert_eq!(f.secret("PASSWORD"), Some("hunter2-secret"));
    assert_eq!(f.secret("P"), Some("xhunter2-secret"));
}

#[test]
fn sub_flows_are_inlined_with_bound_variables_and_caller_overrides() {
    let loader = MapLoader::new().with(
        "flows/sub/accept.yaml",
        "env:\n  BUTTON: OK\nsteps:\n  - click: \"{{ BUTTON }}\"\n",
    );
    let flow = "steps:\n  - run_flow: sub/accept.yaml\n  - run_flow: {file: ./sub/accept.yaml, env: {BUTTON: Allow}}\n";
    let c = plan_of(
        &[("flows/main.yaml", flow)],
        loader,
        &PlanOptions::default(),
    );
    assert_valid(&c);
    let texts: Vec<String> = c.plan.flows[0]
        .steps
        .iter()
        .map(|s| match &s.action {
            Action::SubFlow { file, steps, .. } => {
                assert_eq!(file.as_deref(), Some("flows/sub/accept.yaml"));
                match &steps[0].action {
                    Action::Tool { args, .. } => args["text"].as_str().unwrap().to_string(),
                    _ => panic!(),
                }
            }
            _ => panic!(),
        })
        .collect();
    assert_eq!(texts, ["OK", "Allow"]);
    assert_eq!(c.plan.flows[0].steps[1].id, "main.2");
}

#[test]
fn unreferenced_sub_flow_files_are_checked_without_requiring_variables() {
    let sub = SourceFile::new(
        "subflows/needs.yaml",
        "env:\n  USER:\nsteps:\n  - input_text: {element_id: u, text: \"{{ USER }}\"}\n  - clik: x\n",
    );
    let c = compile(
        &[],
        &[sub],
        &RegistryCatalog::builtin(),
        &MapLoader::new(),
        &PlanOptions::default(),
    );
    let codes: Vec<&str> = c.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(codes, ["unknown-step"]);
    assert!(c.plan.flows.is_empty());
}

#[test]
fn flows_are_spread_over_devices_round_robin() {
    let opts = PlanOptions {
        devices: vec!["a".into(), "b".into()],
        ..PlanOptions::default()
    };
    let c = plan_of(
        &[
            ("1.yaml", "- screenshot\n"),
            ("2.yaml", "- screenshot\n"),
            ("3.yaml", "- screenshot\n"),
        ],
        MapLoader::new(),
        &opts,
    );
    let devices: Vec<&str> = c.plan.flows.iter().map(|f| f.device.as_str()).collect();
    assert_eq!(devices, ["a", "b", "a"]);
    let auto = plan_of(
        &[("1.yaml", "- screenshot\n")],
        MapLoader::new(),
        &PlanOptions::default(),
    );
    assert_eq!(auto.plan.flows[0].device, "auto");
}

#[test]
fn a_short_explicit_deadline_is_a_warning_not_an_error() {
    let c = plan_of(
        &[(
            "f.yaml",
            "steps:\n  - wait_for_element: {text: A, timeout_ms: 9000}\n    deadline: 2s\n",
        )],
        MapLoader::new(),
        &PlanOptions::default(),
    );
    assert!(!c.has_errors());
    assert_eq!(c.diagnostics[0].code, "deadline-too-short");
    assert_eq!(c.plan.flows[0].steps[0].deadline_ms, Some(2000));
}

#[test]
fn validates_and_plans_200_flows() {
    let (flows, loader) = corpus::sample(200);
    let catalog = RegistryCatalog::builtin();
    let started = Instant::now();
    let c = compile(&flows, &[], &catalog, &loader, &PlanOptions::default());
    let elapsed = started.elapsed();
    assert_valid(&c);
    assert_eq!(c.plan.flows.len(), 200);
    let json = serde_json::to_string(&c.plan).unwrap();
    assert!(!json.contains("pw-1"), "secrets leaked");
    eprintln!(
        "validate + plan of 200 flows: {elapsed:?} ({} bytes of plan JSON)",
        json.len()
    );
}

#[test]
fn project_env_is_the_lowest_default() {
    let flow = "env:\n  A: flow\nsteps:\n  - click: \"{{ A }}-{{ B }}\"\n";
    let mut opts = PlanOptions::default();
    opts.project_env.insert("A".into(), "project".into());
    opts.project_env.insert("B".into(), "project".into());
    let c = plan_of(&[("f.yaml", flow)], MapLoader::new(), &opts);
    assert_valid(&c);
    let Action::Tool { args, .. } = &c.plan.flows[0].steps[0].action else {
        panic!()
    };
    assert_eq!(args["text"], "flow-project");
}

#[test]
fn repeat_times_from_a_variable_must_be_a_count() {
    let flow = "env:\n  N: \"3\"\n  BAD: lots\nsteps:\n  - repeat: {times: \"{{ N }}\", steps: [{swipe: up}]}\n  - repeat: {times: \"{{ BAD }}\", steps: [{swipe: up}]}\n";
    let c = plan_of(
        &[("f.yaml", flow)],
        MapLoader::new(),
        &PlanOptions::default(),
    );
    let codes: Vec<&str> = c.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(codes, ["wrong-type"]);
    assert_eq!(c.diagnostics[0].line, 6);
    let Action::Repeat { times, .. } = &c.plan.flows[0].steps[0].action else {
        panic!()
    };
    assert_eq!(times, &Some(serde_json::json!(3)));
}

#[test]
fn sub_flow_results_are_visible_to_the_caller_and_its_hooks_are_flagged() {
    let loader = MapLoader::new().with(
        "sub.yaml",
        "steps:\n  - input_text: {element_id: u, text: x}\n    keep: typed\nfinally:\n  - press_key: Home\n",
    );
    let flow =
        "steps:\n  - run_flow: sub.yaml\n  - click: \"{{ steps.typed.result.actual_text }}\"\n";
    let c = plan_of(&[("f.yaml", flow)], loader, &PlanOptions::default());
    assert!(!c.has_errors(), "{:?}", c.diagnostics);
    let codes: Vec<(&str, &str)> = c
        .diagnostics
        .iter()
        .map(|d| (d.code.as_str(), d.file.as_str()))
        .collect();
    assert_eq!(codes, [("ignored-in-sub-flow", "sub.yaml")]);
}
