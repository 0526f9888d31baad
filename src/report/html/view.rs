//! The data the HTML template shows, built from a [`RunResult`]: every string is cleaned text
//! (the template's HTML escaping does the rest), every artifact path is relative to the HTML
//! file, and a failed step carries its screenshot (with the target's bounds as a rectangle in
//! the screenshot's pixel space), UI tree excerpt, hilog lines, crash head and flow source.

use serde::Serialize;
use serde_json::Value;

use super::super::text::{clean, clean_max, one_line};
use super::super::walk;
use crate::run::result::{EvidenceRef, FlowResult, RunResult, StepKind, StepResult};
use crate::run::{Section, Status};
use tapflow_device::Bounds;

#[derive(Serialize)]
pub struct Page {
    pub title: String,
    pub run_id: String,
    pub status: String,
    pub status_label: String,
    /// Set when the run did not finish (killed, crashed, or still going).
    pub unfinished: Option<String>,
    pub interrupted: bool,
    pub command: Option<String>,
    pub version: String,
    pub started_at: String,
    pub finished_at: String,
    pub duration: String,
    pub shard: Option<String>,
    pub merged_from: Vec<Merged>,
    pub counts: Vec<Count>,
    pub steps_total: usize,
    pub steps_failed: usize,
    pub devices: Vec<DeviceView>,
    pub flows: Vec<FlowView>,
}

#[derive(Serialize)]
pub struct Merged {
    pub run_id: String,
    pub shard: String,
    pub dir: String,
    pub status: String,
}

#[derive(Serialize)]
pub struct Count {
    pub label: &'static str,
    pub status: &'static str,
    pub n: usize,
}

#[derive(Serialize)]
pub struct DeviceView {
    pub serial: String,
    pub platform: String,
    pub model: String,
    pub api_level: String,
    pub ready: bool,
    pub error: Option<String>,
}

#[derive(Serialize)]
pub struct FlowView {
    pub anchor: String,
    pub id: String,
    pub name: String,
    pub file: String,
    pub device: String,
    pub tags: String,
    pub status: String,
    pub status_label: String,
    pub duration: String,
    pub reason: Option<String>,
    pub error: Option<String>,
    pub open: bool,
    pub step_count: usize,
    pub steps: Vec<StepView>,
}

#[derive(Serialize)]
pub struct StepView {
    /// Unique in the page (step ids repeat across passes and devices).
    pub uid: String,
    pub id: String,
    pub section: Option<String>,
    pub indent: usize,
    pub kind: String,
    pub title: String,
    pub tool: String,
    pub status: String,
    pub status_label: String,
    pub duration: String,
    pub round_trips: Option<u64>,
    pub attempts: Option<usize>,
    pub params: Option<String>,
    pub summary: Option<String>,
    pub reason: Option<String>,
    pub location: String,
    pub error: Option<ErrorView>,
    pub thumbnail: Option<String>,
    pub detail: Option<Detail>,
}

#[derive(Serialize)]
pub struct ErrorView {
    pub code: String,
    pub message: String,
    /// What to try next, for the common codes.
    pub help: Option<&'static str>,
}

/// What a failed step shows.
#[derive(Serialize)]
pub struct Detail {
    pub screenshot: Option<Shot>,
    pub ui_tree: Option<Excerpt>,
    pub hilog: Option<Excerpt>,
    pub crashes: Vec<Excerpt>,
    pub source: Vec<SourceView>,
    pub files: Vec<FileLink>,
}

#[derive(Serialize)]
pub struct Shot {
    pub src: String,
    pub width: u32,
    pub height: u32,
    pub alt: String,
    pub target: Option<Rect>,
}

#[derive(Serialize)]
pub struct Rect {
    pub x: i32,
    pub y: i32,
    pub w: i32,
    pub h: i32,
    pub label: String,
}

#[derive(Serialize)]
pub struct Excerpt {
    pub path: String,
    pub text: String,
    pub note: Option<String>,
}

#[derive(Serialize)]
pub struct SourceView {
    pub line: usize,
    pub text: String,
    pub marked: bool,
}

#[derive(Serialize)]
pub struct FileLink {
    pub kind: String,
    pub href: String,
}

pub fn human(ms: u64) -> String {
    if ms < 1000 {
        format!("{ms} ms")
    } else if ms < 60_000 {
        format!("{:.1} s", ms as f64 / 1000.0)
    } else {
        format!("{} min {:02} s", ms / 60_000, (ms % 60_000) / 1000)
    }
}

pub fn status_label(s: Status) -> &'static str {
    match s {
        Status::Passed => "✔ passed",
        Status::Failed => "✘ failed",
        Status::Skipped => "↷ skipped",
        Status::NotRun => "○ not run",
        Status::Interrupted => "■ interrupted",
        Status::Running => "… running when the run stopped",
        Status::Invalid => "⚠ invalid (not run)",
    }
}

fn anchor(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// Parameters as run, without the runner's own additions, compact.
fn params(args: &Option<Value>) -> Option<String> {
    let mut a = args.clone()?;
    if let Value::Object(o) = &mut a {
        o.remove("device_id");
        if o.is_empty() {
            return None;
        }
    }
    Some(one_line(
        &serde_json::to_string(&a).unwrap_or_default(),
        600,
    ))
}

/// A short summary of a tool result: its scalar fields, then how many items lists hold.
fn summary(result: &Option<Value>) -> Option<String> {
    let Value::Object(o) = result.as_ref()? else {
        return result.as_ref().map(|v| one_line(&v.to_string(), 200));
    };
    let mut parts = Vec::new();
    for (k, v) in o {
        if k == "evidence" || k == "cost" {
            continue;
        }
        match v {
            Value::Bool(_) | Value::Number(_) => parts.push(format!("{k}: {v}")),
            Value::String(s) if s.chars().count() <= 60 => parts.push(format!("{k}: {s}")),
            Value::Array(a) => parts.push(format!("{k}: {} item(s)", a.len())),
            _ => {}
        }
        if parts.len() >= 6 {
            break;
        }
    }
    (!parts.is_empty()).then(|| one_line(&parts.join(" · "), 400))
}

fn excerpt(e: &EvidenceRef, prefix: &str) -> Option<Excerpt> {
    let text = e.excerpt.as_ref()?;
    Some(Excerpt {
        path: format!("{prefix}{}", e.path),
        text: clean(text),
        note: e.lines.map(|n| format!("{n} lines in the file")),
    })
}

fn detail(s: &StepResult, prefix: &str) -> Detail {
    let find = |k: &str| s.evidence.iter().find(|e| e.kind == k);
    let screenshot = find("screenshot").map(|e| {
        let target = s.bounds.as_deref().and_then(Bounds::parse).map(|b| Rect {
            x: b.left,
            y: b.top,
            w: (b.right - b.left).max(1),
            h: (b.bottom - b.top).max(1),
            label: format!("target bounds {}", s.bounds.as_deref().unwrap_or_default()),
        });
        Shot {
            src: format!("{prefix}{}", e.path),
            width: e.width.unwrap_or(0),
            height: e.height.unwrap_or(0),
            alt: format!(
                "Screen at the failure of step {}{}",
                s.id,
                if target.is_some() {
                    ", the target's bounds outlined"
                } else {
                    ""
                }
            ),
            target,
        }
    });
    Detail {
        screenshot,
        ui_tree: find("ui_tree").and_then(|e| excerpt(e, prefix)),
        hilog: find("hilog").and_then(|e| excerpt(e, prefix)),
        crashes: s
            .evidence
            .iter()
            .filter(|e| e.kind == "crash")
            .filter_map(|e| excerpt(e, prefix))
            .collect(),
        source: s
            .source
            .iter()
            .map(|l| SourceView {
                line: l.line,
                text: clean_max(&l.text, 600),
                marked: l.marked,
            })
            .collect(),
        files: s
            .evidence
            .iter()
            .map(|e| FileLink {
                kind: e.kind.clone(),
                href: format!("{prefix}{}", e.path),
            })
            .collect(),
    }
}

fn step_view(
    uid: String,
    s: &StepResult,
    depth: usize,
    section: Option<Section>,
    prefix: &str,
) -> StepView {
    let is_leaf_failure = s.status == Status::Failed
        && s.error.is_some()
        && !s.children.iter().any(|c| c.status == Status::Failed);
    let thumbnail = (!is_leaf_failure)
        .then(|| s.evidence.iter().find(|e| e.kind == "screenshot"))
        .flatten()
        .map(|e| format!("{prefix}{}", e.path));
    let kind = match s.kind {
        StepKind::Tool => "tool",
        StepKind::Repeat => "repeat",
        StepKind::Retry => "retry",
        StepKind::SubFlow => "sub_flow",
        StepKind::Iteration => "pass",
    };
    StepView {
        uid,
        id: clean(&s.id),
        section: section.map(|s| walk::section_name(s).to_string()),
        indent: depth.min(8),
        kind: kind.into(),
        title: if s.title.is_empty() {
            kind.to_string()
        } else {
            one_line(&s.title, 300)
        },
        tool: s.tool.clone().unwrap_or_default(),
        status: s.status.as_str().into(),
        status_label: status_label(s.status).into(),
        duration: human(s.duration_ms),
        round_trips: s.cost.map(|c| c.device_round_trips),
        attempts: (s.attempts.len() > 1).then_some(s.attempts.len()),
        params: params(&s.args),
        summary: summary(&s.result),
        reason: s.reason.as_ref().map(|r| one_line(r, 600)),
        location: format!("{}:{}", s.location.file, s.location.line),
        error: s.error.as_ref().map(|e| ErrorView {
            code: clean(e.code.as_str()),
            message: clean_max(&e.message, 8 * 1024),
            help: e.help(),
        }),
        thumbnail,
        detail: is_leaf_failure.then(|| detail(s, prefix)),
    }
}

fn flow_view(f: &FlowResult, i: usize, prefix: &str) -> FlowView {
    let mut steps = Vec::new();
    let mut last: Option<Section> = None;
    for v in walk::steps(f) {
        let section = (v.depth == 0 && last != Some(v.section)).then_some(v.section);
        if v.depth == 0 {
            last = Some(v.section);
        }
        // Only name a section when it is not the plain steps list starting the flow.
        let section = section.filter(|s| !(steps.is_empty() && *s == Section::Steps));
        let uid = format!("f{}s{}", i + 1, steps.len() + 1);
        steps.push(step_view(uid, v.step, v.depth, section, prefix));
    }
    FlowView {
        anchor: format!("flow-{}-{}", i + 1, anchor(&f.id)),
        id: clean(&f.id),
        name: one_line(&f.name, 300),
        file: clean(&f.file),
        device: f.device.clone().unwrap_or_else(|| "—".into()),
        tags: f.tags.join(", "),
        status: f.status.as_str().into(),
        status_label: status_label(f.status).into(),
        duration: human(f.duration_ms),
        reason: f.reason.as_ref().map(|r| one_line(r, 600)),
        error: f
            .error
            .as_ref()
            .map(|e| one_line(&format!("{}: {}", e.code, e.message), 600)),
        open: matches!(
            f.status,
            Status::Failed | Status::Interrupted | Status::Running
        ),
        step_count: steps.len(),
        steps,
    }
}

/// The page of a run; `prefix` makes run-directory paths relative to the HTML file.
pub fn page(r: &RunResult, prefix: &str) -> Page {
    let t = &r.totals;
    let mut counts = vec![
        Count {
            label: "passed",
            status: "passed",
            n: t.passed,
        },
        Count {
            label: "failed",
            status: "failed",
            n: t.failed,
        },
        Count {
            label: "skipped",
            status: "skipped",
            n: t.skipped,
        },
        Count {
            label: "not run",
            status: "not_run",
            n: t.not_run,
        },
    ];
    if t.interrupted > 0 {
        counts.push(Count {
            label: "interrupted",
            status: "interrupted",
            n: t.interrupted,
        });
    }
    if t.running > 0 {
        counts.push(Count {
            label: "running when the run stopped",
            status: "running",
            n: t.running,
        });
    }
    let unfinished = (!r.complete).then(|| {
        format!(
            "This run did not finish. result.json was last written at {} while the run was \
             still going, and the run never wrote its end: the process was killed or crashed \
             (or it is still running). Flows marked “running” were in progress, with the steps \
             they finished; flows marked “not run” had not started.",
            if r.updated_at.is_empty() {
                "an unknown time"
            } else {
                &r.updated_at
            }
        )
    });
    let status_label = if !r.complete {
        "did not finish".to_string()
    } else {
        match r.status {
            Status::Passed => "passed".into(),
            Status::Interrupted => "interrupted".into(),
            _ => "failed".into(),
        }
    };
    Page {
        title: format!("tapflow run {}: {status_label}", r.run_id),
        run_id: clean(&r.run_id),
        status: if r.complete {
            r.status.as_str().into()
        } else {
            "running".into()
        },
        status_label,
        unfinished,
        interrupted: r.interrupted,
        command: r.command.as_ref().map(|c| one_line(c, 4000)),
        version: r.tapflow_version.clone(),
        started_at: r.started_at.clone(),
        finished_at: r.finished_at.clone().unwrap_or_else(|| "—".into()),
        duration: human(r.duration_ms),
        shard: r.shard.clone(),
        merged_from: r
            .merged_from
            .iter()
            .map(|m| Merged {
                run_id: m.run_id.clone(),
                shard: m.shard.clone().unwrap_or_else(|| "—".into()),
                dir: m.dir.clone(),
                status: if m.complete {
                    m.status.as_str().into()
                } else {
                    "did not finish".into()
                },
            })
            .collect(),
        counts,
        steps_total: t.steps,
        steps_failed: t.steps_failed,
        devices: r
            .devices
            .iter()
            .map(|d| DeviceView {
                serial: clean(&d.serial),
                platform: d.platform.clone(),
                model: d.model.clone().unwrap_or_else(|| "—".into()),
                api_level: d.api_level.map_or_else(|| "—".into(), |a| a.to_string()),
                ready: d.ready,
                error: d
                    .error
                    .as_ref()
                    .map(|e| one_line(&format!("{}: {}", e.code, e.message), 600)),
            })
            .collect(),
        flows: r
            .flows
            .iter()
            .enumerate()
            .map(|(i, f)| flow_view(f, i, prefix))
            .collect(),
    }
}
