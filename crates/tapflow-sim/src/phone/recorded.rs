//! Recorded screens: a real uitest layout dump (fixture) shown as the current screen and served
//! back structurally identical (same nodes, same attributes in the same order, same values).

use super::{LayoutOptions, Phone};
use serde_json::Value;
use tapflow_device::model::UiNode;

impl Phone {
    /// Shows a real recorded layout (uitest JSON) as the current screen until an ability starts,
    /// an app is stopped or Home is pressed. Taps on it do nothing; screenshots draw it.
    pub fn show_recorded_layout(&mut self, layout_json: &str) -> Result<(), String> {
        let v: Value =
            serde_json::from_str(layout_json).map_err(|e| format!("invalid layout JSON: {e}"))?;
        // The same typed check the hdc backend applies: every node has string attributes.
        serde_json::from_value::<UiNode>(v.clone())
            .map_err(|e| format!("not a uitest layout: {e}"))?;
        self.recorded = Some(v);
        self.awake = true;
        Ok(())
    }
}

/// Serves the recording, honouring `-b`/`-w` (window selection) and `-i` (array of windows).
pub fn serve(rec: &Value, opts: &LayoutOptions) -> Result<Value, String> {
    if opts.bundle.is_none() && opts.window_id.is_none() && !opts.per_window {
        return Ok(rec.clone());
    }
    let windows = rec["children"].as_array().cloned().unwrap_or_default();
    let sel = Phone::select_json(&windows, opts)?;
    if opts.per_window {
        return Ok(Value::Array(sel.into_iter().cloned().collect()));
    }
    let mut out = rec.clone();
    out["children"] = Value::Array(sel.into_iter().cloned().collect());
    Ok(out)
}
