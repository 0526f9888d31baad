//! `tapflow inspect` (`--sim N` / `--device SERIAL`): the current screen as an indented tree of
//! the elements a flow can act on or check (clickable, scrollable, checkable, text fields, or
//! with text), each with the shortest selector that finds exactly it, ready to paste into a
//! flow (`click: Login`, `click: {element_id: open_items}`). `--watch` reprints it whenever the
//! screen changes.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::cli::exit;
use tapflow_device::DumpScope;
use tapflow_device::model::UiNode;
use tapflow_device::ui::digest::TreeDigest;
use tapflow_device::ui::matching::{find, window_nodes};
use tapflow_device::ui::selector::{Selector, TextMatch};
use tapflow_tools::{DeviceProvider, DeviceRoute};

/// Arguments of `tapflow inspect`.
#[derive(Debug, clap::Args)]
pub struct InspectArgs {
    /// Inspect a simulated device (in-process, with the demo app open; no phone needed).
    #[arg(long, value_name = "N", conflicts_with = "device", hide = cfg!(not(feature = "sim")))]
    pub sim: Option<usize>,
    /// The device to inspect (default: the only connected one).
    #[arg(long, short = 'd', value_name = "SERIAL")]
    pub device: Option<String>,
    /// Only the windows of this app.
    #[arg(long, value_name = "BUNDLE")]
    pub bundle: Option<String>,
    /// Reprint the tree whenever the screen changes (Ctrl-C to stop).
    #[arg(long)]
    pub watch: bool,
}

/// How often `--watch` looks at the screen (each look is one dump).
const WATCH_EVERY: Duration = Duration::from_millis(500);

/// `tapflow inspect`.
pub fn run(args: InspectArgs, hdc: Option<PathBuf>) -> i32 {
    let config = match crate::cli::setup::load(None, &[]).map(|(_, c)| c) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("tapflow inspect: {e}");
            return exit::USAGE;
        }
    };
    let (provider, device): (Arc<dyn DeviceProvider>, Option<String>) = match args.sim {
        #[cfg(feature = "sim")]
        Some(n) => match crate::sim_provider::sim_with_demo(n, &crate::cli::setup::cwd()) {
            Ok((p, serial)) => (p, Some(serial)),
            Err(e) => {
                eprintln!("tapflow inspect: {e}");
                return exit::USAGE;
            }
        },
        #[cfg(not(feature = "sim"))]
        Some(_) => return super::sim_feature::without_sim("tapflow inspect", "--sim"),
        None => (
            super::providers::provider(hdc, &config),
            args.device.clone(),
        ),
    };
    let route = DeviceRoute {
        device_id: device,
        hdc_server: config.default_hdc_server.clone(),
    };
    let dev = match provider.resolve(&route) {
        Ok(d) => d,
        Err(e) => {
            eprintln!(
                "tapflow inspect: [{}] {}",
                e.code(),
                crate::cli::term::cli_wording(e.code(), &e.to_string())
            );
            return exit::INFRA;
        }
    };
    let scope = DumpScope {
        bundle: args.bundle.clone(),
        window_id: None,
    };
    let mut last: Option<String> = None;
    loop {
        match dev.ui_tree(&scope) {
            Ok(tree) => {
                let digest = TreeDigest::of(&tree).digest;
                if last.as_deref() != Some(digest.as_str()) {
                    print!("{}", render(&tree));
                    last = Some(digest);
                    if args.watch {
                        println!("---");
                    }
                }
            }
            Err(e) if args.watch && e.is_transient() => {}
            Err(e) => {
                eprintln!("tapflow inspect: [{}] {e}", e.code());
                return exit::INFRA;
            }
        }
        if !args.watch {
            return exit::SUCCESS;
        }
        std::thread::sleep(WATCH_EVERY);
    }
}

/// Worth showing: something a flow can act on or check.
fn actionable(n: &UiNode) -> bool {
    n.attr("visible") != "false"
        && n.bounds().is_some_and(|b| !b.is_empty())
        && (n.flag("clickable")
            || n.flag("scrollable")
            || n.flag("checkable")
            || n.node_type() == "TextInput"
            || !n.text().is_empty())
}

fn count(root: &UiNode, sel: &Selector) -> usize {
    find(root, sel).len()
}

/// The shortest selector that finds exactly `n`, as flow YAML.
fn shortest_selector(root: &UiNode, n: &UiNode) -> String {
    let sel = |text: Option<&str>, ty: Option<&str>, id: Option<&str>| {
        Selector::new(
            text.map(str::to_string),
            ty.map(str::to_string),
            id.map(str::to_string),
            TextMatch::Exact,
        )
        .ok()
    };
    let yaml = |v: Value| {
        let s = serde_json::to_string(&v).unwrap_or_default();
        // `{"text":"Login"}` → `{text: "Login"}`: keys bare, values as JSON strings (valid YAML).
        s.replace("{\"", "{")
            .replace(",\"", ", ")
            .replace("\":", ": ")
    };
    let (text, ty, id) = (n.text(), n.node_type(), n.id());
    if !text.is_empty()
        && let Some(s) = sel(Some(text), None, None)
        && count(root, &s) == 1
    {
        return serde_json::to_string(text).unwrap_or_default();
    }
    if !id.is_empty()
        && let Some(s) = sel(None, None, Some(id))
        && count(root, &s) == 1
    {
        return yaml(json!({ "element_id": id }));
    }
    if !text.is_empty()
        && let Some(s) = sel(Some(text), Some(ty), None)
        && count(root, &s) == 1
    {
        return yaml(json!({ "text": text, "element_type": ty }));
    }
    // By type and position in reading order.
    if let Some(s) = sel(None, Some(ty), None) {
        let all = find(root, &s);
        if let Some(i) = all.iter().position(|m| std::ptr::eq(m.node, n)) {
            return yaml(json!({ "element_type": ty, "index": i }));
        }
    }
    yaml(json!({ "element_type": ty }))
}

fn walk(root: &UiNode, n: &UiNode, depth: usize, out: &mut String) {
    let shown = actionable(n);
    if shown {
        let mut flags = Vec::new();
        for f in ["checked", "selected", "focused"] {
            if n.flag(f) {
                flags.push(f);
            }
        }
        if !n.flag("enabled") && !n.attr("enabled").is_empty() {
            flags.push("disabled");
        }
        let flags = if flags.is_empty() {
            String::new()
        } else {
            format!(" [{}]", flags.join(", "))
        };
        // Device text (types, texts in selectors) never starts a line (`report::github::inert`).
        let line = format!(
            "{}{}{flags}  {}",
            "  ".repeat(depth),
            n.node_type(),
            shortest_selector(root, n)
        );
        out.push_str(&crate::report::github::inert(&line));
        out.push('\n');
    }
    for c in &n.children {
        walk(root, c, depth + usize::from(shown), out);
    }
}

/// The indented tree, one window after the other.
pub fn render(root: &UiNode) -> String {
    let mut out = String::new();
    for (_, w) in window_nodes(root) {
        let bundle = w.attr("bundleName");
        let line = format!(
            "window {}{}",
            w.window_id().map_or_else(|| "?".into(), |i| i.to_string()),
            if bundle.is_empty() {
                String::new()
            } else {
                format!(" ({bundle})")
            }
        );
        out.push_str(&crate::report::github::inert(&line));
        out.push('\n');
        walk(root, w, 1, &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(attrs: &[(&str, &str)], children: Vec<UiNode>) -> UiNode {
        UiNode {
            attributes: attrs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            children,
        }
    }

    /// On-screen text with a line break (`x\n::warning::forged`) never starts a line.
    #[test]
    fn screen_text_never_starts_a_line() {
        let field = node(
            &[
                ("type", "Text\n::error::t"),
                ("text", "x\n::warning::forged ##[stop-commands]t"),
                ("bounds", "[0,0][100,50]"),
                ("clickable", "true"),
            ],
            vec![],
        );
        let window = node(
            &[
                ("bundleName", "com.x\n::notice::b"),
                ("bounds", "[0,0][100,100]"),
            ],
            vec![field],
        );
        let shown = render(&node(&[("bounds", "[0,0][100,100]")], vec![window]));
        assert!(shown.contains("forged"), "{shown}");
        for line in shown.lines() {
            assert!(!line.trim_start().starts_with("::"), "{shown}");
            assert!(!line.contains("##["), "{shown}");
        }
    }
}
