//! GitHub Actions conveniences (`--github-summary`): a Markdown summary to append to
//! `$GITHUB_STEP_SUMMARY`, and one `::error file=…,line=…,col=…,title=…::message` workflow
//! command per failed flow, at its failing step's line. Escaping follows `@actions/core`:
//! a message escapes `%`, CR and LF; a property value also `:` and `,` (`%` first). GitHub shows
//! about 10 annotations per step, so the summary lists every failure too. The summary stays
//! under GitHub's 1 MiB limit.
//!
//! Also owns what keeps device text **inert** for the Actions runner, which reads every line a
//! step prints on stdout and stderr: a line that starts with `::` once leading whitespace is
//! trimmed is a workflow command, and so is `##[command]` anywhere in a line (the legacy
//! form, tried when the line is not a `::` command). [`inert`] escapes what could start either
//! in text tapflow prints (terminal lines, log lines); in the summary every text cell is a
//! Markdown code span, where nothing is a link, an image or HTML.

use std::borrow::Cow;

use super::text::one_line;
use super::walk;
use crate::run::result::RunResult;
use crate::run::{Masker, Status};

/// `s` for a line tapflow prints: CR and LF shown as `\r` and `\n` (so `s` never starts a
/// line: no `::command` after a newline of device text), and `##[` as `#\#[` (the runner's
/// legacy command prefix). Mask before: a secret is looked for in its own forms, not these.
pub fn inert(s: &str) -> Cow<'_, str> {
    if !s.contains(['\n', '\r']) && !s.contains("##[") {
        return Cow::Borrowed(s);
    }
    Cow::Owned(
        s.replace('\r', "\\r")
            .replace('\n', "\\n")
            .replace("##[", "#\\#["),
    )
}

/// [`inert`] for a line of JSON (a JSON log record), which has no raw line break: `##[` inside a
/// string becomes `##\u005b`, which a JSON reader decodes back to `##[`.
pub fn inert_json(s: &str) -> Cow<'_, str> {
    if s.contains("##[") {
        Cow::Owned(s.replace("##[", "##\\u005b"))
    } else {
        Cow::Borrowed(s)
    }
}

/// GitHub refuses a step summary over 1 MiB; stay well below.
pub const MAX_SUMMARY_BYTES: usize = 900 * 1024;

/// `@actions/core` `escapeData`.
pub fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// `@actions/core` `escapeProperty`.
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// A text in the summary (flow names, steps, messages, paths: any of them may hold device
/// text): masked, on one line, as a Markdown code span. Inside a code span GitHub renders
/// nothing (no emphasis, link, autolink, image or HTML); a backtick would end it, so it is
/// written `'`, and `|` is escaped, as GitHub's tables require even inside a code span.
fn cell(s: &str, masker: &Masker) -> String {
    let text = one_line(&masker.text(s), 500)
        .replace('`', "'")
        .replace('|', "\\|");
    if text.trim().is_empty() {
        return String::new();
    }
    format!("`{text}`")
}

/// One `::error` line per failed (or interrupted) flow. Every text is masked before it is
/// escaped (escaping turns a secret's `%` or line break into a form the masker does not know).
pub fn annotations(r: &RunResult, masker: &Masker) -> Vec<String> {
    let mask = |s: &str| masker.text(s).into_owned();
    let mut out = Vec::new();
    for f in &r.flows {
        if !matches!(
            f.status,
            Status::Failed | Status::Interrupted | Status::Running
        ) {
            continue;
        }
        let step = walk::deciding_failure(f);
        let err = f
            .error
            .as_ref()
            .or_else(|| step.and_then(|s| s.error.as_ref()));
        let loc = err
            .and_then(|e| e.location.clone())
            .or_else(|| step.map(|s| s.location.clone()));
        let mut props = Vec::new();
        match &loc {
            Some(l) => {
                props.push(format!("file={}", escape_property(&mask(&l.file))));
                props.push(format!("line={}", l.line));
                props.push(format!("col={}", l.column));
            }
            None => props.push(format!("file={}", escape_property(&mask(&f.file)))),
        }
        let device = f.device.as_deref().unwrap_or("?");
        props.push(format!(
            "title={}",
            escape_property(&one_line(
                &mask(&format!(
                    "tapflow: {} {} on {device}",
                    f.name,
                    f.status.as_str()
                )),
                300
            ))
        ));
        let message = match (err, step) {
            (Some(e), Some(s)) => format!("step {} ({}): {}: {}", s.id, s.title, e.code, e.message),
            (Some(e), None) => format!("{}: {}", e.code, e.message),
            _ => f
                .reason
                .clone()
                .unwrap_or_else(|| format!("flow {}", f.status.as_str())),
        };
        out.push(format!(
            "::error {}::{}",
            props.join(","),
            escape_data(&super::text::clean_max(&mask(&message), 4000))
        ));
    }
    out
}

/// The Markdown summary of a run, masked. It shows no image and no link: every text is a code
/// span ([`cell`]).
pub fn summary(r: &RunResult, html_hint: Option<&str>, masker: &Masker) -> String {
    let cell = |s: &str| cell(s, masker);
    let t = &r.totals;
    let verdict = if !r.complete {
        "did not finish"
    } else {
        match r.status {
            Status::Passed => "passed",
            Status::Interrupted => "interrupted",
            _ => "failed",
        }
    };
    let mut md = String::new();
    md.push_str(&format!(
        "## tapflow run {}: {verdict}\n\n",
        cell(&r.run_id)
    ));
    md.push_str("| flows | passed | failed | skipped | not run | interrupted | steps | time |\n");
    md.push_str("|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    md.push_str(&format!(
        "| {} | {} | {} | {} | {} | {} | {} | {:.1} s |\n\n",
        t.flows,
        t.passed,
        t.failed,
        t.skipped,
        t.not_run,
        t.interrupted + t.running,
        t.steps,
        r.duration_ms as f64 / 1000.0
    ));
    let bad: Vec<_> = r
        .flows
        .iter()
        .filter(|f| {
            matches!(
                f.status,
                Status::Failed | Status::Interrupted | Status::Running
            )
        })
        .collect();
    if !bad.is_empty() {
        md.push_str(
            "### Failures\n\n| flow | device | step | where | error |\n|---|---|---|---|---|\n",
        );
        for f in &bad {
            let step = walk::deciding_failure(f);
            let err = f
                .error
                .as_ref()
                .or_else(|| step.and_then(|s| s.error.as_ref()));
            let loc = err
                .and_then(|e| e.location.as_ref())
                .map(|l| format!("{}:{}", l.file, l.line))
                .unwrap_or_else(|| f.file.clone());
            let row = format!(
                "| {} | {} | {} | {} | {} |\n",
                cell(&f.name),
                cell(f.device.as_deref().unwrap_or("—")),
                cell(
                    &step
                        .map(|s| format!("{} {}", s.id, s.title))
                        .unwrap_or_default()
                ),
                cell(&loc),
                cell(&err.map_or_else(
                    || f.reason.clone().unwrap_or_default(),
                    |e| format!("{}: {}", e.code, e.message)
                )),
            );
            if md.len() + row.len() > MAX_SUMMARY_BYTES - 200 {
                md.push_str("\n(more failures: see the JUnit and HTML reports)\n");
                break;
            }
            md.push_str(&row);
        }
        md.push('\n');
    }
    let not_run = r
        .flows
        .iter()
        .filter(|f| matches!(f.status, Status::NotRun | Status::Skipped))
        .count();
    if not_run > 0 {
        md.push_str(&format!(
            "{not_run} flow(s) skipped or not run; the reports list each with its reason.\n\n"
        ));
    }
    if let Some(h) = html_hint {
        md.push_str(&format!("HTML report: {}\n", cell(h)));
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_like_actions_core() {
        // The line @actions/core printed for these values (docs/reference/junit-consumers.md §7).
        let props = [
            format!("title={}", escape_property("T: x, y")),
            format!("file={}", escape_property("src/a,b:c.rs")),
        ];
        assert_eq!(
            format!(
                "::error {}::{}",
                props.join(","),
                escape_data("50% done\nline2: a,b")
            ),
            "::error title=T%3A x%2C y,file=src/a%2Cb%3Ac.rs::50%25 done%0Aline2: a,b"
        );
    }

    #[test]
    fn cells_cannot_break_the_table_or_render_anything() {
        let m = Masker::none();
        assert_eq!(cell("a|b\n<c>", &m), "`a\\|b <c>`");
        assert_eq!(
            cell("x `![i](http://e.example/a.png)`", &m),
            "`x '![i](http://e.example/a.png)'`"
        );
        assert_eq!(cell(" \n", &m), "");
        assert_eq!(
            cell("pw: hunter2", &Masker::new(["hunter2"])),
            "`pw: ******`"
        );
    }

    #[test]
    fn device_text_never_starts_a_line_or_a_legacy_command() {
        let typed = "x\n::warning::forged\r\n  ::error::b ##[stop-commands]t";
        let shown = inert(typed);
        assert_eq!(shown.lines().count(), 1);
        assert_eq!(
            shown,
            "x\\n::warning::forged\\r\\n  ::error::b #\\#[stop-commands]t"
        );
        assert!(matches!(inert("plain :: text"), Cow::Borrowed(_)));
        let json = serde_json::json!({ "m": typed }).to_string();
        let line = inert_json(&json);
        assert!(!line.contains("##[") && !line.contains('\n'));
        let back: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(back["m"], typed);
    }
}
