//! The first hour of a QA author (issue 7), against the simulated device's demo app through the
//! real hdc backend: steps wait for their target, steps show as written, errors say what is on
//! screen (near misses, a crash as the cause), password fields work by `element_id`.

use std::sync::Arc;

use tapflow::cli::run_cmd::sim_provider;
use tapflow::flow::SourceFile;
use tapflow::plan::RegistryCatalog;
use tapflow::plan::{Compiled, Plan, PlanOptions, SourceLoader, compile};
use tapflow::run::{self, DeviceChoice, FlowResult, RunOptions, RunResult, Status};
use tapflow::sim::Latency;
use tapflow::tools::{Engine, ToolConfig, ToolContext};

struct Fs;

impl SourceLoader for Fs {
    fn load(&self, path: &str) -> Result<String, String> {
        std::fs::read_to_string(path).map_err(|e| e.to_string())
    }
}

fn compiled(name: &str, text: &str) -> Compiled {
    let catalog = RegistryCatalog::new(Arc::new(Engine::new()));
    let src = SourceFile::new(name.to_string(), text.to_string());
    compile(&[src], &[], &catalog, &Fs, &PlanOptions::default())
}

fn plan_of(text: &str) -> Plan {
    let c = compiled("authoring.yaml", text);
    assert!(
        !c.has_errors(),
        "{}",
        tapflow::flow::render_text(&c.diagnostics, &c.sources)
    );
    c.plan
}

fn run_on_sim(plan: &Plan, run_dir: Option<&std::path::Path>) -> RunResult {
    let cwd = std::env::temp_dir();
    let (provider, serials) = sim_provider(1, None, 7, Latency::None, &cwd).unwrap();
    let config = ToolConfig {
        screenshots_dir: cwd.clone(),
        ..ToolConfig::rooted_at(cwd)
    };
    let ctx = ToolContext::new(provider, config);
    let mut opts = RunOptions::new("authoring-test");
    opts.devices = DeviceChoice::Serials(serials);
    opts.run_dir = run_dir.map(std::path::Path::to_path_buf);
    run::run(plan, Arc::new(Engine::new()), ctx, &opts, &run::NoEvents)
}

fn flow(r: &RunResult) -> &FlowResult {
    &r.flows[0]
}

fn describe(f: &FlowResult) -> String {
    serde_json::to_string_pretty(&f.steps).unwrap()
}

const LOGIN_NO_WAITS: &str = "name: No explicit waits
app: com.tapflow.demo
clean_state: true
steps:
  - input_text: {element_id: username, text: bob}
  - click: Login
  - click: Items
  - assert_visible: Item 1
";

/// Seen 1: `click: Items` right after `click: Login` failed in ~300 ms with ELEMENT_NOT_FOUND
/// (the app navigates after 800 ms).
#[test]
fn a_step_waits_for_its_target() {
    let r = run_on_sim(&plan_of(LOGIN_NO_WAITS), None);
    let f = flow(&r);
    assert_eq!(f.status, Status::Passed, "{}", describe(f));
    // The click on Items looked more than once: it waited for the navigation.
    let items = &f.steps[2];
    assert_eq!(items.attempts.len(), 1, "an implicit wait is not a retry");
    assert!(items.duration_ms >= 300, "{}", items.duration_ms);
}

#[test]
fn a_step_that_is_told_not_to_wait_fails_at_once_and_a_missing_target_says_how_long_it_waited() {
    let no_wait = LOGIN_NO_WAITS.replace("  - click: Items\n", "  - click: Items\n    wait: 0\n");
    let r = run_on_sim(&plan_of(&no_wait), None);
    let f = flow(&r);
    assert_eq!(f.status, Status::Failed);
    assert_eq!(f.steps[2].error.as_ref().unwrap().code, "ELEMENT_NOT_FOUND");

    let short = "name: Waits then fails
app: com.tapflow.demo
clean_state: true
defaults: {wait: 700ms}
steps:
  - click: Nowhere to be seen
";
    let r = run_on_sim(&plan_of(short), None);
    let e = flow(&r).steps[0].error.clone().unwrap();
    assert_eq!(e.code, "ELEMENT_NOT_FOUND");
    let waited = e.details["waited_ms"].as_u64().unwrap();
    assert!((700..5_000).contains(&waited), "{waited}");
    assert!(e.message.contains("waited"), "{}", e.message);
}

#[test]
fn the_wait_option_is_in_the_plan_and_refused_where_nothing_is_waited_for() {
    let p = plan_of(LOGIN_NO_WAITS);
    let steps = &p.flows[0].steps;
    assert_eq!(steps[1].wait_ms, 5_000);
    // The assertion has its own timeout_ms; it does not get an implicit wait.
    assert_eq!(steps[3].wait_ms, 0);
    let c = compiled(
        "w.yaml",
        "steps:\n  - assert_visible: Hello\n    wait: 2s\n",
    );
    let text = tapflow::flow::render_text(&c.diagnostics, &c.sources);
    assert!(
        text.contains("`wait` applies to steps that act on an element"),
        "{text}"
    );
}

/// Seen 4: assertions printed as `wait_for_element`, and "visible" and "gone" looked alike.
#[test]
fn steps_show_as_written_in_results_plans_and_diagnostics() {
    let text = "name: As written
app: com.tapflow.demo
clean_state: true
env:
  USER: bob
steps:
  - input_text: {element_id: username, text: \"{{ USER }}\"}
  - click: Login
  - assert_visible: \"Hello, {{ USER }}!\"
  - click: Logout
  - assert_not_visible: {element_id: greeting}
";
    let plan = plan_of(text);
    let rendered = tapflow::plan::render::render_text(&plan);
    assert!(
        rendered.contains("assert_visible (wait_for_element)"),
        "{rendered}"
    );
    assert!(
        rendered.contains("assert_not_visible (wait_for_element)"),
        "{rendered}"
    );
    let r = run_on_sim(&plan, None);
    let f = flow(&r);
    assert_eq!(f.status, Status::Passed, "{}", describe(f));
    assert_eq!(
        f.steps[2].title.as_deref(),
        Some("assert_visible Hello, bob!")
    );
    assert_eq!(
        f.steps[4].title.as_deref(),
        Some("assert_not_visible greeting (gone)")
    );
    let json = serde_json::to_value(&r).unwrap();
    assert_eq!(
        json["flows"][0]["steps"][2]["title"],
        "assert_visible Hello, bob!"
    );

    let c = compiled(
        "d.yaml",
        "steps:\n  - assert_visible: {text: Hello, timeout: 5s}\n",
    );
    let d = tapflow::flow::render_text(&c.diagnostics, &c.sources);
    assert!(
        d.contains("`assert_visible` has no parameter `timeout`"),
        "{d}"
    );
    assert!(!d.contains("wait_for_element"), "{d}");
}
