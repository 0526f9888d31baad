//! Log windows in flows (docs/run.md, "Evidence is about this run"): a log query step that
//! reads the device and names no time window reads from the flow's start, not the whole
//! buffer, so lines logged by earlier runs are never taken for this run's. A step that sets
//! any window parameter keeps its own window, and one that reads host files has none; a bare
//! tool call (MCP, `tapflow tool`) keeps the reference's defaults. The tool names its window
//! parameters ([`LogWindow`]).

use serde_json::Value;
use tapflow_tools::flow_hooks::LogWindow;

/// `args` with the window starting at `flow_start`, when the step leaves it unset.
pub(super) fn from_flow_start(
    w: &LogWindow,
    args: &Value,
    flow_start: &chrono::DateTime<chrono::Local>,
) -> Option<Value> {
    let o = args.as_object()?;
    let set = |k: &&str| o.get(*k).is_some_and(|v| !v.is_null());
    if w.window.iter().any(set) || w.host_sources.iter().any(set) {
        return None;
    }
    let mut o = o.clone();
    o.insert(
        w.start.into(),
        // Milliseconds: a flow that starts in the same second another one logged stays apart.
        Value::String(flow_start.format("%Y-%m-%d %H:%M:%S%.3f").to_string()),
    );
    Some(Value::Object(o))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const W: LogWindow = LogWindow {
        start: "from",
        window: &["from", "to", "last"],
        host_sources: &["file"],
    };

    #[test]
    fn only_an_unset_device_window_starts_at_the_flow() {
        let start = chrono::Local::now();
        let a = from_flow_start(&W, &json!({"mode": "markers"}), &start).unwrap();
        assert_eq!(a["from"], start.format("%Y-%m-%d %H:%M:%S%.3f").to_string());
        assert_eq!(a["mode"], "markers");
        // A null is unset.
        assert!(from_flow_start(&W, &json!({"to": null}), &start).is_some());
        assert!(from_flow_start(&W, &json!({"last": 5}), &start).is_none());
        assert!(from_flow_start(&W, &json!({"file": "x.log"}), &start).is_none());
    }
}
