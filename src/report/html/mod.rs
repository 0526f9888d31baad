//! `report.html`: one self-contained page for people (handlebars template, the stylesheet
//! inlined, no script, no font, nothing fetched from the network). Images are the run's own
//! screenshots, referenced beside the page (relative paths), so the file stays small and
//! opens from a CI artifact or a file share.
//!
//! The page: a summary (counts, devices, durations, the command line, the tapflow version),
//! then each flow as a step timeline (status, tool, parameters with secrets masked, a result
//! summary, duration, round trips); a failed step shows its screenshot with the target's
//! bounds outlined, the UI tree around the target, the hilog lines of its window, a crash file,
//! and the flow source with the failing line marked. With `--screenshots every-step`, each
//! step has a thumbnail. It is usable from the keyboard (a skip link, native `<details>`,
//! focusable scroll areas), reads well with a screen reader (landmarks, headings, status as
//! text, alternative text, table captions) and fits a phone screen.
//!
//! Every text the page shows has its bidirectional control characters written out as
//! `<U+202E>` ([`tapflow_core::visible`]): a flow named with a right-to-left override cannot
//! show as something else. Link targets (artifact paths) are left as they are, so they still
//! resolve.

mod view;

use handlebars::Handlebars;

use crate::run::result::RunResult;

pub use view::{Page, page};

const TEMPLATE: &str = include_str!("report.hbs");
const CSS: &str = include_str!("report.css");

/// The HTML of a run; `prefix` makes run-directory paths (artifacts) relative to the HTML file.
pub fn render(r: &RunResult, prefix: &str) -> Result<String, String> {
    let mut hb = Handlebars::new();
    hb.register_template_string("report", TEMPLATE)
        .map_err(|e| format!("the report template is broken: {e}"))?;
    let page = page(r, prefix);
    let mut data = serde_json::to_value(&page).map_err(|e| e.to_string())?;
    show_bidi(&mut data, None);
    if let serde_json::Value::Object(o) = &mut data {
        o.insert("css".into(), serde_json::Value::String(CSS.into()));
    }
    hb.render("report", &data).map_err(|e| e.to_string())
}

/// Fields of the page that are link targets, not text: left as they are.
const LINK_FIELDS: &[&str] = &["src", "href", "path", "thumbnail", "anchor"];

/// Writes out the bidirectional control characters of every shown string of the page data.
fn show_bidi(v: &mut serde_json::Value, key: Option<&str>) {
    use serde_json::Value;
    match v {
        Value::String(s) if !key.is_some_and(|k| LINK_FIELDS.contains(&k)) => {
            if let std::borrow::Cow::Owned(shown) = tapflow_core::visible::escape_bidi(s) {
                *s = shown;
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| show_bidi(x, key)),
        Value::Object(o) => o.iter_mut().for_each(|(k, x)| show_bidi(x, Some(k))),
        _ => {}
    }
}
