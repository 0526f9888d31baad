//! Context lines before and after each match.

use serde_json::json;
use tapflow_device::logs::classify::ItemKind;

use super::{excerpt_lines, run, synthetic};

#[test]
fn context_lines_before_and_after() {
    let r = run(json!({"logs": synthetic(), "keyword": "render error", "context_lines": 2}));
    let item = &r.items[0];
    assert_eq!(item.context_before, synthetic()[3..5].to_vec());
    assert_eq!(item.context_after, synthetic()[6..8].to_vec());
    // At the edges the context is shorter, never padded.
    let first = run(
        json!({"logs": synthetic(), "level": "D", "lines": 1, "keyword": "AbilityMgr", "context_lines": 3}),
    );
    assert!(first.items[0].context_before.is_empty());
    assert_eq!(first.items[0].context_after.len(), 3);
    // A crash block's context starts after the whole block.
    let c = run(json!({"logs": excerpt_lines(), "context_lines": 2}));
    let crash = c.items.iter().find(|i| i.kind == ItemKind::Crash).unwrap();
    assert_eq!(crash.context_before.len(), 2);
    assert!(crash.context_after.is_empty());
}
