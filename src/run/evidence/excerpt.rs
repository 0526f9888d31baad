//! What a report shows of a text artifact, computed when the artifact is collected (so that
//! `result.json` alone can render every report): the UI tree around the step's target, the
//! last hilog lines of the step's window, the head of a crash file. Every excerpt is clipped in
//! lines and in line length.

use tapflow_device::{Bounds, UiNode};

/// Lines of a hilog or crash excerpt.
pub const MAX_LOG_LINES: usize = 200;
/// Lines of a UI tree excerpt.
pub const MAX_TREE_LINES: usize = 60;
/// Characters kept of one line.
pub const MAX_LINE_CHARS: usize = 400;

fn clip_line(l: &str) -> String {
    if l.chars().count() <= MAX_LINE_CHARS {
        l.to_string()
    } else {
        let mut s: String = l.chars().take(MAX_LINE_CHARS).collect();
        s.push('…');
        s
    }
}

/// The last `MAX_LOG_LINES` lines (a failure is usually at the end of its window).
pub fn tail(lines: &[String]) -> String {
    let skip = lines.len().saturating_sub(MAX_LOG_LINES);
    let mut out: Vec<String> = Vec::new();
    if skip > 0 {
        out.push(format!("… {skip} earlier lines in the file"));
    }
    out.extend(lines[skip..].iter().map(|l| clip_line(l)));
    out.join("\n")
}

/// The first `MAX_LOG_LINES` lines (a crash file starts with what matters).
pub fn head(text: &str) -> String {
    let total = text.lines().count();
    let mut out: Vec<String> = text.lines().take(MAX_LOG_LINES).map(clip_line).collect();
    if total > MAX_LOG_LINES {
        out.push(format!(
            "… {} more lines in the file",
            total - MAX_LOG_LINES
        ));
    }
    out.join("\n")
}

/// One line per node: type, id, text, bounds.
fn describe(n: &UiNode) -> String {
    let mut s = String::new();
    let ty = n.node_type();
    s.push_str(if ty.is_empty() { "node" } else { ty });
    let id = n.attr("id");
    if !id.is_empty() {
        s.push_str(&format!(" #{id}"));
    }
    let text = n.text();
    if !text.is_empty() {
        s.push_str(&format!(" {:?}", text));
    }
    let b = n.attr("bounds");
    if !b.is_empty() {
        s.push_str(&format!(" {b}"));
    }
    clip_line(&s)
}

/// Path of child indices from the root to the first node with exactly these bounds.
fn find(n: &UiNode, target: &Bounds, path: &mut Vec<usize>) -> bool {
    if n.bounds().as_ref() == Some(target) {
        return true;
    }
    for (i, c) in n.children.iter().enumerate() {
        path.push(i);
        if find(c, target, path) {
            return true;
        }
        path.pop();
    }
    false
}

fn outline(
    n: &UiNode,
    depth: usize,
    max_depth: usize,
    mark: Option<&Bounds>,
    out: &mut Vec<String>,
) {
    if out.len() >= MAX_TREE_LINES {
        return;
    }
    let here = mark.is_some_and(|b| n.bounds().as_ref() == Some(b));
    out.push(format!(
        "{}{}{}",
        if here { "> " } else { "  " },
        "  ".repeat(depth),
        describe(n)
    ));
    if depth < max_depth {
        for c in &n.children {
            outline(c, depth + 1, max_depth, mark, out);
        }
    }
}

/// The UI tree around the target: its ancestors, then the target's parent with its children
/// (the target marked `>`, two levels below it). Without a target (or when it is gone), the top
/// of the tree.
pub fn ui_tree(root: &UiNode, target: Option<&Bounds>) -> String {
    let mut out = Vec::new();
    let mut path = Vec::new();
    match target {
        Some(b) if find(root, b, &mut path) => {
            // Ancestors down to the target's parent, one line each.
            let mut node = root;
            let parent_depth = path.len().saturating_sub(1);
            for (depth, &i) in path.iter().take(parent_depth).enumerate() {
                out.push(format!("  {}{}", "  ".repeat(depth), describe(node)));
                node = &node.children[i];
            }
            // The parent (or the root itself when it is the target), its children, the
            // target's own children.
            let base = out.len();
            outline(node, parent_depth, parent_depth + 3, Some(b), &mut out);
            if out.len() == base {
                out.push(describe(node));
            }
        }
        _ => outline(root, 0, 6, None, &mut out),
    }
    if out.len() >= MAX_TREE_LINES {
        out.truncate(MAX_TREE_LINES);
        out.push("  … (more nodes in the file)".into());
    }
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(ty: &str, text: &str, bounds: &str, children: Vec<UiNode>) -> UiNode {
        let mut attributes = indexmap::IndexMap::new();
        attributes.insert("type".to_string(), ty.to_string());
        attributes.insert("text".to_string(), text.to_string());
        attributes.insert("bounds".to_string(), bounds.to_string());
        UiNode {
            attributes,
            children,
        }
    }

    #[test]
    fn marks_the_target_among_its_siblings() {
        let tree = node(
            "root",
            "",
            "[0,0][100,100]",
            vec![node(
                "Column",
                "",
                "[0,0][100,100]",
                vec![
                    node("Text", "Welcome", "[0,0][100,10]", vec![]),
                    node("Button", "Login", "[0,20][100,30]", vec![]),
                ],
            )],
        );
        let b = Bounds::parse("[0,20][100,30]").unwrap();
        let e = ui_tree(&tree, Some(&b));
        assert!(e.contains("> ") && e.contains("Button \"Login\""), "{e}");
        assert!(e.contains("Welcome"), "{e}");
        let none = ui_tree(&tree, None);
        assert!(none.starts_with("  root"), "{none}");
    }

    #[test]
    fn long_logs_keep_their_end() {
        let lines: Vec<String> = (0..10_000).map(|i| format!("line {i}")).collect();
        let t = tail(&lines);
        assert!(t.starts_with("… 9800 earlier lines"));
        assert!(t.ends_with("line 9999"));
        assert_eq!(t.lines().count(), MAX_LOG_LINES + 1);
    }
}
