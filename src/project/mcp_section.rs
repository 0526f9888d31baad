//! `tapflow.toml` `[mcp]`: the operator's MCP policy, for `tapflow mcp` only (`tapflow run` is
//! the operator's own command and ignores it).
//!
//! ```toml
//! [mcp]
//! deny_tools = ["uninstall_app", "clear_app_data"]  # never served, nor run in a flow
//! approve_tools = ["install_app"]                    # approved in advance (globs)
//! approval = "caller"                                # trust a caller's own `approval` (CI)
//! ```
//!
//! Merged with the flags (`--deny-tools`, `--approve-tools`, `--trust-caller-approval`): lists
//! add up, and trusted-caller mode is on when either turns it on.

/// The `[mcp]` table (all optional).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct McpSection {
    pub deny_tools: Vec<String>,
    pub approve_tools: Vec<String>,
    /// `approval = "caller"`: trusted-caller mode. `"operator"` (the default): only the
    /// operator and the person (elicitation) approve.
    pub trust_caller_approval: bool,
}

const KEYS: &[&str] = &["deny_tools", "approve_tools", "approval"];

/// Parses the `[mcp]` table; errors name the key and say what is expected.
pub fn parse(item: &toml_edit::Item) -> Result<McpSection, String> {
    let table = item.as_table_like().ok_or("`mcp` must be a table")?;
    let mut out = McpSection::default();
    let globs = |key: &str, v: &toml_edit::Item| -> Result<Vec<String>, String> {
        let list = v
            .as_array()
            .and_then(|a| {
                a.iter()
                    .map(|v| v.as_str().map(|s| s.trim().to_string()))
                    .collect::<Option<Vec<_>>>()
            })
            .ok_or_else(|| format!("`mcp.{key}` must be a list of tool names or globs"))?;
        if list.iter().any(String::is_empty) {
            return Err(format!("`mcp.{key}` must not contain an empty name"));
        }
        Ok(list)
    };
    for (key, v) in table.iter() {
        match key {
            "deny_tools" => out.deny_tools = globs(key, v)?,
            "approve_tools" => out.approve_tools = globs(key, v)?,
            "approval" => {
                out.trust_caller_approval = match v.as_str() {
                    Some("caller") => true,
                    Some("operator") => false,
                    _ => {
                        return Err(
                            "`mcp.approval` must be \"operator\" (the default: the operator and the person approve) or \"caller\" (trust a caller's own approval)".into(),
                        );
                    }
                }
            }
            other => {
                let hint = tapflow_core::flow::suggest::did_you_mean(other, KEYS.iter().copied())
                    .unwrap_or_else(|| format!("known keys: {}", KEYS.join(", ")));
                return Err(format!("unknown key `mcp.{other}`; {hint}"));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_text(t: &str) -> Result<McpSection, String> {
        let doc: toml_edit::DocumentMut = t.parse().unwrap();
        parse(&doc["mcp"])
    }

    #[test]
    fn the_section_and_its_errors() {
        let s = parse_text(
            "[mcp]\ndeny_tools = [\"uninstall_app\"]\napprove_tools = [\"install_*\"]\napproval = \"caller\"\n",
        )
        .unwrap();
        assert_eq!(s.deny_tools, ["uninstall_app"]);
        assert_eq!(s.approve_tools, ["install_*"]);
        assert!(s.trust_caller_approval);
        assert!(
            !parse_text("[mcp]\napproval = \"operator\"")
                .unwrap()
                .trust_caller_approval
        );
        let e = parse_text("[mcp]\napproval = \"yes\"").unwrap_err();
        assert!(e.contains("\"caller\""), "{e}");
        let e = parse_text("[mcp]\ndeny_tool = []").unwrap_err();
        assert!(
            e.contains("mcp.deny_tool") && e.contains("deny_tools"),
            "{e}"
        );
        assert!(parse_text("[mcp]\ndeny_tools = \"x\"").is_err());
        assert!(parse_text("[mcp]\napprove_tools = [\" \"]").is_err());
    }
}
