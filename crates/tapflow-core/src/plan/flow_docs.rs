//! The generated parts of `docs/flow-format.md`, from the tool catalog: which parameter a bare
//! value fills for each tool (`click: Login` → `text`), and what other runners call the step.
//! `crates/tapflow-tools/tests/flow/docs.rs` fails when the committed block drifts (`TAPFLOW_BLESS=1` rewrites it).

use super::catalog::ToolCatalog;

/// Markers around the generated block in `docs/flow-format.md`.
pub const BEGIN: &str =
    "<!-- BEGIN GENERATED SHORTHANDS (TAPFLOW_BLESS=1 cargo test -p tapflow-tools --test flow) -->";
pub const END: &str = "<!-- END GENERATED SHORTHANDS -->";

/// One row per tool, in registry order.
pub fn shorthand_table(catalog: &dyn ToolCatalog) -> String {
    let mut out =
        String::from("| tool | a bare value fills | other runners' names |\n|---|---|---|\n");
    for tool in catalog.tool_names() {
        let fills = catalog
            .scalar_shorthand(tool)
            .map_or_else(|| "— (give a mapping)".to_string(), |p| format!("`{p}`"));
        let others: Vec<String> = catalog
            .known_as_of(tool)
            .iter()
            .map(|(n, note)| match *note {
                "" => format!("`{n}`"),
                note => format!("`{n}` ({note})"),
            })
            .collect();
        out.push_str(&format!(
            "| `{tool}` | {fills} | {} |\n",
            if others.is_empty() {
                "—".to_string()
            } else {
                others.join(", ")
            }
        ));
    }
    out
}
