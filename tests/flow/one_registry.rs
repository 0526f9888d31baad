//! One registry, one truth (issue 11, acceptance):
//!
//! - Adding a tool is one file (its `Tool` implementation) and one registry line: a dummy tool
//!   registered here is picked up by validate (its parameters, shorthand, rules, other runners'
//!   names, time budget), by the flow schema (checked with a third-party validator) and by
//!   `tapflow tools --json` / the Markdown reference, with nothing else to edit.
//! - Outside a tool's own file and its registry line, no source file names tools or their
//!   parameters (generated files, docs and tests aside); the few places that use a tool by name
//!   for a flow feature are listed below with their reason, so a new mention fails this test.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tapflow_core::flow::SourceFile;
use tapflow_core::plan::flow_schema::flow_schema;
use tapflow_core::plan::{MapLoader, PlanOptions, compile};
use tapflow_tools::RegistryCatalog;
use tapflow_tools::{
    Call, Engine, FlowHooks, Hints, Policy, Tool, ToolConfig, ToolDef, ToolError,
    registry::ROUTING_PARAMS,
};

// ---- the dummy tool: everything it is, in one place --------------------------------------

struct Beep;

#[derive(Debug, Deserialize, JsonSchema)]
struct BeepParams {
    /// `high` or `low`.
    tone: Option<String>,
    /// How many beeps (1 to 3).
    #[serde(default = "one")]
    #[schemars(default = "one", range(min = 1, max = 3))]
    times: u8,
}

fn one() -> u8 {
    1
}

#[derive(Debug, Serialize, JsonSchema)]
struct BeepOutput {
    /// The tone played.
    tone: String,
    beeps: u8,
}

impl Tool for Beep {
    const NAME: &'static str = "beep";
    const TITLE: &'static str = "Beep";
    const DESCRIPTION: &'static str = "Play a tone on the device a few times.";
    const POLICY: Policy = Policy::UI_ACTION;
    const HINTS: Hints = Hints::ACTION;
    const FLOW: FlowHooks<BeepParams> = FlowHooks {
        shorthand: Some("tone"),
        known_as: &[("playSound", "")],
        ..FlowHooks::NONE
    };
    type Params = BeepParams;
    type Output = BeepOutput;

    fn check(p: &BeepParams) -> Result<(), ToolError> {
        match p.tone.as_deref() {
            Some("high" | "low") => Ok(()),
            // A tool's code comes from the one list (`tapflow_core::codes`): a new code is a
            // line there, and a misspelt one does not compile.
            _ => Err(ToolError::invalid_param("tone", "tone must be high or low")),
        }
    }

    fn budget_ms(p: &BeepParams, _config: &ToolConfig) -> Option<u64> {
        Some(40_000 * u64::from(p.times))
    }

    fn run(p: BeepParams, call: &mut Call<'_>) -> Result<BeepOutput, ToolError> {
        call.device()?;
        Ok(BeepOutput {
            tone: p.tone.unwrap_or_default(),
            beeps: p.times,
        })
    }
}

/// The built-in tools plus the dummy one: the "one registry line".
fn engine() -> Arc<Engine> {
    let mut e = Engine::new();
    e.register(ToolDef::of::<Beep>());
    Arc::new(e)
}

fn compiled(catalog: &RegistryCatalog, yaml: &str) -> tapflow_core::plan::Compiled {
    compile(
        &[SourceFile::new("beep.yaml", yaml)],
        &[],
        catalog,
        &MapLoader::new(),
        &PlanOptions::default(),
    )
}

#[test]
fn a_new_tool_is_picked_up_by_validate_the_schema_and_the_listing() {
    let engine = engine();
    let catalog = RegistryCatalog::new(engine.clone());

    // validate: shorthand, defaults, budget-based deadline.
    let c = compiled(
        &catalog,
        "steps:\n  - beep: high\n  - beep: {tone: low, times: 3}\n",
    );
    assert!(!c.has_errors(), "{:?}", c.diagnostics);
    let steps = &c.plan.flows[0].steps;
    let tapflow_core::plan::Action::Tool { tool, args } = &steps[0].action else {
        panic!("{steps:?}")
    };
    assert_eq!(
        (tool.as_str(), args),
        ("beep", &json!({"tone": "high", "times": 1}))
    );
    assert_eq!(steps[1].deadline_ms, Some(120_000 + 5_000));
    // ... its rules, with its own code, at the parameter ...
    let c = compiled(&catalog, "steps:\n  - beep: loud\n");
    let d = &c.diagnostics[0];
    assert_eq!(
        (d.code.as_str(), d.line, d.column),
        ("invalid-param", 2, 11)
    );
    assert!(d.label.ends_with("(INVALID_PARAM)"), "{}", d.label);
    // ... its schema (range, unknown parameters) and other runners' names.
    let c = compiled(
        &catalog,
        "steps:\n  - beep: {tone: high, times: 4}\n  - beep: {tune: high}\n  - playSound: high\n",
    );
    let codes: Vec<&str> = c.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(codes, ["out-of-range", "unknown-param", "unknown-step"]);
    assert_eq!(
        c.diagnostics[1].help.as_deref(),
        Some("did you mean `tone`?")
    );
    assert_eq!(
        c.diagnostics[2].help.as_deref(),
        Some("tapflow calls this `beep`")
    );

    // The engine: the same rules, before any device.
    let ctx = tapflow_tools::ToolContext::new(
        Arc::new(tapflow_tools::NoBackend("test".into())),
        ToolConfig::default(),
    );
    let env = engine.call("beep", json!({"tone": "loud"}), &ctx);
    assert_eq!(env.error_code(), Some("INVALID_PARAM"));
    let env = engine.call("beep", json!({"tone": "low"}), &ctx);
    assert_eq!(
        env.error_code(),
        Some("UNSUPPORTED"),
        "valid: goes on to the device"
    );

    // The flow schema: a step, its parameters, its description; a third-party validator.
    let schema = flow_schema(&catalog);
    let def = &schema["$defs"]["tool.beep"];
    assert!(
        def["properties"]["times"]
            .to_string()
            .contains("How many beeps")
    );
    let validator = jsonschema::validator_for(&schema).unwrap();
    assert!(
        validator
            .is_valid(&json!({"steps": [{"beep": "high"}, {"beep": {"times": 2, "tone": "low"}}]}))
    );
    assert!(!validator.is_valid(&json!({"steps": [{"beep": {"tune": "high"}}]})));
    assert!(!validator.is_valid(&json!({"steps": [{"beep": {"tone": "low", "times": 9}}]})));
    let without = flow_schema(&RegistryCatalog::builtin());
    assert!(
        !jsonschema::validator_for(&without)
            .unwrap()
            .is_valid(&json!({"steps": [{"beep": "high"}]}))
    );

    // `tapflow tools --json` and the Markdown reference.
    let listing: Value =
        serde_json::from_str(&tapflow::cli::tools_cmd::tools_json(&engine)).unwrap();
    let entry = listing
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "beep")
        .expect("beep is listed");
    assert_eq!(entry["description"], Beep::DESCRIPTION);
    assert_eq!(entry["inputSchema"]["properties"]["times"]["maximum"], 3);
    // The listing's output schema types the result's fields; the exact one documents them.
    assert_eq!(
        entry["outputSchema"]["properties"]["result"]["anyOf"][0]["properties"]["tone"]["type"],
        "string"
    );
    assert!(
        engine.get("beep").unwrap().result_schema()["properties"]["tone"]["description"]
            == "The tone played."
    );
    assert!(tapflow_tools::reference::markdown(&engine).contains("### `beep`"));
}

// ---- no second list ----------------------------------------------------------------------

/// Files that use a tool by name for a flow feature, and why. Anything else that names a tool
/// or a tool's parameter outside the tool's own file fails the test below.
const USES: &[(&str, &str, &str)] = &[
    (
        "crates/tapflow-core/src/plan/compile/args.rs",
        "wait_for_element",
        "ASSERT_TOOL: the flow format defines assert_visible/not_visible and element conditions as this wait",
    ),
    (
        "src/run/exec/mod.rs",
        "stop_app clear_app_data run_app bundle_name",
        "clean_state is defined as stop, clear data, launch of the flow's app",
    ),
    (
        "crates/tapflow-device/src/ui/refine.rs",
        "below above left_of right_of child_of contains_child",
        "the state and position filters shared by every search-mode tool (flattened into each \
         tool's parameters), declared once beside their matching",
    ),
    (
        "src/cli/inspect_cmd.rs",
        "element_id element_type index text",
        "`tapflow inspect` prints selectors to paste into flows",
    ),
    (
        "src/run/evidence.rs",
        "screenshot",
        "an evidence kind (a file name part), not a tool call",
    ),
    (
        "src/report/html/view.rs",
        "screenshot",
        "an evidence kind shown inline in the HTML report, not a tool call",
    ),
    (
        "src/cli/demo_cmd.rs",
        "screenshot",
        "a demo step's label, printed as it runs",
    ),
    (
        "src/mcp/levels.rs",
        "element_handle",
        "a tree digest's entries have find_elements' shape: the handle a tool takes back",
    ),
    // The MCP server's busy-wait budget (a candidate for `Engine::budget_ms`).
    ("src/mcp/call.rs", "timeout_ms", "a call's busy-wait budget"),
    (
        "src/mcp/flow_tools/save/convert.rs",
        "find_elements get_ui_tree screenshot list_devices list_windows query_package logs_query \
         wait_for_element wait_for_stable element_handle window_id element_id element_text",
        "save_flow: which calls of a session are exploration and which are waits, and how a \
         handle becomes the selector it came from",
    ),
    (
        "src/mcp/flow_tools/save/render.rs",
        "run_app bundle_name",
        "save_flow: the saved flow's `app` is the app the session launched",
    ),
];

/// Every Rust source file of the workspace's crates (not their tests or benches).
fn source_files(root: &Path) -> impl Iterator<Item = walkdir::DirEntry> + '_ {
    ["src", "crates"]
        .into_iter()
        .flat_map(move |d| walkdir::WalkDir::new(root.join(d)))
        .map(Result::unwrap)
        .filter(|e| e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "rs"))
        .filter(move |e| {
            let rel = e.path().strip_prefix(root).unwrap().to_string_lossy();
            rel.starts_with("src/") || rel.split('/').nth(2) == Some("src")
        })
}

/// The device modules of `tapflow-device` (not its `ui`, `logs` or `hostfs`).
fn device_layer(file: &str) -> bool {
    file.strip_prefix("crates/tapflow-device/src/")
        .is_some_and(|f| !["ui/", "logs/", "hostfs/"].iter().any(|m| f.starts_with(m)))
}

/// Parameter names distinctive enough to find (plain words such as `text` are everywhere).
fn distinctive(p: &str) -> bool {
    p.contains('_') && !ROUTING_PARAMS.contains(&p)
}

/// The code of a file up to its unit tests, without comment lines.
fn code_of(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    text.split("#[cfg(test)]")
        .next()
        .unwrap_or("")
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn no_source_file_keeps_a_second_list_of_tools_or_parameters() {
    let engine = Engine::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // Where each tool lives: its file (or folder), and, for logs_query, its parameter type.
    // (`crates/tapflow-tools/src/build_app_tool.rs` and `…/build_app/` both start with the name.)
    let own = |tool: &str, file: &str| -> bool {
        file.starts_with(&format!("crates/tapflow-tools/src/{tool}"))
            || (tool == "logs_query" && file.starts_with("crates/tapflow-device/src/logs/"))
            || (["stop_app", "uninstall_app", "clear_app_data"].contains(&tool)
                && file == "crates/tapflow-tools/src/app_ops.rs")
    };
    let mut names: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for t in engine.tools() {
        names
            .entry(t.name.to_string())
            .or_default()
            .push(t.name.to_string());
        for p in t.flow_params().filter(|p| distinctive(p)) {
            names
                .entry(p.to_string())
                .or_default()
                .push(t.name.to_string());
        }
    }
    let mut found = Vec::new();
    for entry in source_files(root) {
        let file = entry
            .path()
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        // The device layer and the simulator speak hdc/uitest (`click`, `swipe`, `drag` are
        // uitest commands there); they cannot see the tools (docs/reference/architecture.md §2, module rules).
        if device_layer(&file) || file.starts_with("crates/tapflow-sim/") {
            continue;
        }
        // The registry line, and the registry's own shared parameters.
        if file == "crates/tapflow-tools/src/lib.rs"
            || file == "crates/tapflow-tools/src/registry.rs"
        {
            continue;
        }
        let code = code_of(entry.path());
        for (name, owners) in &names {
            if !code.contains(&format!("\"{name}\"")) {
                continue;
            }
            // A parameter shared by several tools (bundle_name, …) may be read by the shared
            // helpers of `src/tools/` (target resolution, search, app operations).
            let shared_helper = owners.len() > 1 && file.starts_with("crates/tapflow-tools/src/");
            if owners.iter().any(|t| own(t, &file)) || shared_helper {
                continue;
            }
            let allowed = USES
                .iter()
                .any(|(f, what, _)| *f == file && what.split(' ').any(|w| w == name));
            if !allowed {
                found.push(format!("{file} names `{name}` (of {})", owners.join(", ")));
            }
        }
    }
    assert!(
        found.is_empty(),
        "tool or parameter names outside their tool's file (declare them on the tool instead):\n{}",
        found.join("\n")
    );
}

// ---- no code spelled out twice ---------------------------------------------------------------

/// Upper-case names in the sources that are not error codes (environment variables, key names,
/// a demo log marker).
const NOT_CODES: &[&str] = &[
    "TAPFLOW_",
    "NO_COLOR",
    "KEYCODE_",
    "HAP_KEY_PASSWORD",
    "HAP_SIGN_PASSWORD",
    "HAP_STORE_PASSWORD",
    "DEVECO_SDK_HOME",
    "HARMONYOS_HDC_SERVER",
    "INPUT_FOCUS_TIMEOUT_MS",
    "INPUT_VERIFY_TIMEOUT_MS",
    "CARGO_PKG_VERSION",
    "LOGIN_SUCCESS",
    "GITHUB_STEP_SUMMARY",
    "RUST_LOG",
    "RUN_DIR",
    // ADBKeyBoard's broadcast action (Android text input).
    "ADB_INPUT_B64",
];

/// Every holder of a code is typed (`tapflow_core::codes::Code`), so a code written in a source
/// can only come from the list; what is left to find is a code's name written as text (a
/// comparison with a string, a name parsed at run time), which this test still refuses.
#[test]
fn every_code_comes_from_the_one_list() {
    use tapflow_core::codes::{ALL, diag};
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let upper = regex::Regex::new(r#""([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)""#).unwrap();
    let kebab = regex::Regex::new(r#""([a-z]+(?:-[a-z0-9]+)+)""#).unwrap();
    let mut found = Vec::new();
    for entry in source_files(root) {
        let file = entry
            .path()
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        // The simulator speaks the device's own words; the list itself.
        if file.starts_with("crates/tapflow-sim/") || file == "crates/tapflow-core/src/codes.rs" {
            continue;
        }
        let code = code_of(entry.path());
        for m in upper.captures_iter(&code) {
            let name = &m[1];
            if NOT_CODES.iter().any(|n| name.starts_with(n)) {
                continue;
            }
            let listed = ALL.iter().any(|c| c.code == name);
            found.push(if listed {
                format!("{file} spells out {name}: use tapflow_core::codes::{name}")
            } else {
                format!("{file} uses {name}, which crates/tapflow-core/src/codes.rs does not list")
            });
        }
        if file.starts_with("crates/tapflow-core/src/flow/")
            || file.starts_with("crates/tapflow-core/src/plan/")
        {
            for m in kebab.captures_iter(&code) {
                if diag::ALL.iter().any(|d| d.code == &m[1]) {
                    found.push(format!("{file} spells out the diagnostic code {}", &m[1]));
                }
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}
