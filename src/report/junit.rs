//! `junit.xml`, from a [`RunResult`] through quick-junit's typed model, valid against Jenkins'
//! `junit-10.xsd` and read by GitLab, Jenkins, Azure and the GitHub reporters
//! (`docs/reference/junit-consumers.md` has what each one reads).
//!
//! ```xml
//! <testsuites name="tapflow" tests="2" failures="1" errors="0" time="3.210">
//!   <!-- one suite per flow file and device -->
//!   <testsuite name="flows/login.yaml [SIM-0001]" tests="1" failures="1" errors="0" skipped="0"
//!              timestamp="2026-12-01T10:00:00.000+00:00" time="2.100" file="flows/login.yaml">
//!     <properties>  <!-- device.serial, device.platform, device.model, device.api_level,
//!                        flow.file, flow.tags, run.id, tapflow.version -->
//!     <!-- one case per flow; classname = flow id, name = flow name -->
//!     <testcase name="Login" classname="login" time="2.100">
//!       <!-- the failing step, its file:line, the code and the message; type = code -->
//!       <failure message="login.3 (click Login) at flows/login.yaml:7:5: ELEMENT_NOT_FOUND: …"
//!                type="ELEMENT_NOT_FOUND">…details, the flow source with the line marked…</failure>
//!       <rerunFailure type="WAIT_TIMEOUT" message="…"/>   <!-- earlier failed attempts -->
//!       <system-out>   <!-- the step log with timings, then the attachments -->
//!         PASS    login.1 run_app com.tapflow.demo (412 ms, 3 round trips) flows/login.yaml:5
//!         FAIL    login.3 click Login (1.2 s, 6 round trips) flows/login.yaml:7
//!                 ELEMENT_NOT_FOUND: no element matches
//!         [[ATTACHMENT|artifacts/SIM-0001/login/login.3.screenshot.png]]
//!       </system-out>
//!       <system-err>   <!-- device log (hilog, logcat) excerpt of the failing step, cleaned -->
//! ```
//!
//! - A flow that passed after failed attempts (step `retries`, `retry` blocks) keeps one
//!   `flakyFailure` per failed attempt; a failed flow lists its earlier failed attempts as
//!   `rerunFailure`.
//! - A failure of the device or the host tooling (`DEVICE_*`, `HDC_*`) is an `error`, as is a
//!   flow interrupted or still running when the run stopped; an app or flow failure is a
//!   `failure`.
//! - Skipped and not-run flows are `skipped`, with the reason in `message` and as text.
//! - `[[ATTACHMENT|path]]` paths are relative to the XML file.
//! - Text is cleaned ([`super::text`]): no ANSI, no character XML forbids, `]]>` escaped by
//!   the writer. `<testsuites>` carries only the attributes junit-10.xsd allows there.

use std::time::Duration;

use quick_junit::{
    NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestRerun, TestSuite,
};

use super::text::{clean, one_line};
use super::walk;
use crate::run::result::{FlowResult, RunResult, StepResult};
use crate::run::{Section, Status};

/// Where the XML goes relative to the run directory: the prefix that makes an artifact path
/// (relative to the run directory) relative to the XML file (`""` when it is in the run dir).
pub struct JunitOptions<'a> {
    pub attachment_prefix: &'a str,
}

fn secs(ms: u64) -> Duration {
    Duration::from_millis(ms)
}

fn human(ms: u64) -> String {
    if ms < 1000 {
        format!("{ms} ms")
    } else {
        format!("{:.1} s", ms as f64 / 1000.0)
    }
}

fn mark(s: Status) -> &'static str {
    match s {
        Status::Passed => "PASS",
        Status::Failed => "FAIL",
        Status::Skipped => "SKIP",
        Status::NotRun => "NOT RUN",
        Status::Interrupted => "INTR",
        Status::Running => "RUNNING",
        Status::Invalid => "INVALID",
    }
}

fn timestamp(at: Option<&str>) -> Option<chrono::DateTime<chrono::FixedOffset>> {
    at.and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
}

/// The step log: one line per step (status, id, title, duration, round trips, line), the
/// error under a failed step, then the attachments of failed steps.
fn step_log(f: &FlowResult, prefix: &str) -> String {
    let mut out = String::new();
    if let Some(r) = &f.reason {
        out.push_str(&format!("{}: {r}\n", mark(f.status)));
    }
    let mut last_section = Section::Steps;
    for v in walk::steps(f) {
        let s = v.step;
        if v.depth == 0 && v.section != last_section {
            out.push_str(&format!("-- {}\n", walk::section_name(v.section)));
            last_section = v.section;
        }
        let indent = "  ".repeat(v.depth);
        let cost = s
            .cost
            .map(|c| format!(", {} round trips", c.device_round_trips))
            .unwrap_or_default();
        let attempts = if s.attempts.len() > 1 {
            format!(", {} attempts", s.attempts.len())
        } else {
            String::new()
        };
        out.push_str(&format!(
            "{:<7} {indent}{} {} ({}{cost}{attempts}) {}:{}\n",
            mark(s.status),
            s.id,
            one_line(&s.title, 300),
            human(s.duration_ms),
            s.location.file,
            s.location.line
        ));
        if let Some(e) = &s.error {
            out.push_str(&format!(
                "        {indent}{}: {}\n",
                e.code,
                one_line(&e.message, 2000)
            ));
        }
        if let Some(r) = s.reason.as_ref().filter(|_| s.status != Status::Passed) {
            out.push_str(&format!("        {indent}({r})\n"));
        }
    }
    for s in walk::failed_leaves(f) {
        for ev in &s.evidence {
            // GitLab and Jenkins read one `[[ATTACHMENT|path]]` per line; `[`, `]`, `|` are not
            // allowed in the path (evidence names never contain them).
            out.push_str(&format!("[[ATTACHMENT|{prefix}{}]]\n", ev.path));
        }
    }
    out
}

/// The failure's text: step, location, code, message, details and the source with the line
/// marked, then the evidence files.
fn failure_text(s: &StepResult, prefix: &str) -> String {
    let mut out = String::new();
    out.push_str(&format!("step {} ({})\n", s.id, one_line(&s.title, 300)));
    if let Some(e) = &s.error {
        let at = e.location.as_ref().unwrap_or(&s.location);
        out.push_str(&format!("at {at}\n{}: {}\n", e.code, e.message));
        if let Some(help) = e.help() {
            out.push_str(&format!("help: {help}\n"));
        }
        if !e.details.is_null() {
            out.push_str(&format!(
                "details: {}\n",
                serde_json::to_string(&e.details).unwrap_or_default()
            ));
        }
    }
    if !s.source.is_empty() {
        out.push('\n');
        for l in &s.source {
            out.push_str(&format!(
                "{} {:>4} | {}\n",
                if l.marked { ">" } else { " " },
                l.line,
                l.text
            ));
        }
    }
    if !s.evidence.is_empty() {
        out.push('\n');
        for ev in &s.evidence {
            out.push_str(&format!("{}: {prefix}{}\n", ev.kind, ev.path));
        }
    }
    out
}

/// Failed attempts that were followed by another attempt: of tool steps with `retries`, and
/// passes of `retry` blocks. (step, code, message)
fn earlier_failures(f: &FlowResult) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for v in walk::steps(f) {
        let s = v.step;
        let n = s.attempts.len();
        for a in s.attempts.iter().take(n.saturating_sub(1)) {
            if let Some(e) = &a.error {
                out.push((
                    format!("{} attempt {}", s.id, a.number),
                    e.code.to_string(),
                    e.message.clone(),
                ));
            }
        }
        if s.kind == crate::run::result::StepKind::Retry {
            let passes = s.children.len();
            for it in s.children.iter().take(passes.saturating_sub(1)) {
                if it.status == Status::Failed {
                    let (code, message) =
                        first_error(it).unwrap_or_else(|| ("FAILED".into(), String::new()));
                    out.push((
                        format!("{} pass {}", s.id, it.id.rsplit('#').next().unwrap_or("?")),
                        code,
                        message,
                    ));
                }
            }
        }
    }
    out
}

fn first_error(s: &StepResult) -> Option<(String, String)> {
    if let Some(e) = &s.error {
        return Some((e.code.to_string(), e.message.clone()));
    }
    s.children.iter().find_map(first_error)
}

fn rerun(step: &str, code: &str, message: &str) -> TestRerun {
    let mut r = TestRerun::new(NonSuccessKind::Failure);
    r.set_type(clean(code));
    r.set_message(one_line(&format!("{step}: {code}: {message}"), 4000));
    r.set_stack_trace(clean(&format!("{step}\n{code}: {message}")));
    r
}

fn test_case(f: &FlowResult, prefix: &str) -> TestCase {
    let status = match f.status {
        Status::Passed => {
            let mut st = TestCaseStatus::success();
            for (step, code, message) in earlier_failures(f) {
                st.add_rerun(rerun(&step, &code, &message));
            }
            st
        }
        Status::Failed => {
            let deciding = walk::deciding_failure(f);
            let err = f
                .error
                .as_ref()
                .or_else(|| deciding.and_then(|s| s.error.as_ref()));
            let infra = err.is_some_and(|e| e.is_infrastructure());
            let mut st = TestCaseStatus::non_success(if infra {
                NonSuccessKind::Error
            } else {
                NonSuccessKind::Failure
            });
            if let Some(e) = err {
                let at = e
                    .location
                    .as_ref()
                    .map(|l| format!(" at {}:{}", l.file, l.line))
                    .unwrap_or_default();
                let step = deciding
                    .map(|s| format!("{} ({}){at}: ", s.id, s.title))
                    .unwrap_or_else(|| {
                        if at.is_empty() {
                            String::new()
                        } else {
                            format!("{}: ", at.trim())
                        }
                    });
                st.set_message(one_line(&format!("{step}{}: {}", e.code, e.message), 4000));
                st.set_type(clean(e.code.as_str()));
            } else if let Some(r) = &f.reason {
                st.set_message(one_line(r, 4000));
                st.set_type("FAILED");
            }
            let text = match deciding {
                Some(s) => failure_text(s, prefix),
                None => f.reason.clone().unwrap_or_default(),
            };
            st.set_description(clean(&text));
            for (step, code, message) in earlier_failures(f) {
                st.add_rerun(rerun(&step, &code, &message));
            }
            st
        }
        Status::Invalid => {
            let mut st = TestCaseStatus::non_success(NonSuccessKind::Error);
            let why = f.reason.clone().unwrap_or_else(|| "invalid flow".into());
            st.set_type(tapflow_core::codes::INVALID_FLOW);
            st.set_message(one_line(&why, 4000));
            let text = f
                .error
                .as_ref()
                .map_or_else(|| why.clone(), |e| format!("{}\n{}", e.message, e.details));
            st.set_description(clean(&text));
            st
        }
        Status::Interrupted | Status::Running => {
            let mut st = TestCaseStatus::non_success(NonSuccessKind::Error);
            let (ty, msg) = if f.status == Status::Interrupted {
                (
                    tapflow_core::codes::INTERRUPTED,
                    "the run was interrupted during this flow".to_string(),
                )
            } else {
                (
                    tapflow_core::codes::RUN_STOPPED,
                    "the run stopped (killed or crashed) while this flow was running; \
                     the steps it finished are listed"
                        .to_string(),
                )
            };
            st.set_type(ty);
            st.set_message(msg.clone());
            st.set_description(msg);
            st
        }
        Status::Skipped | Status::NotRun => {
            let mut st = TestCaseStatus::skipped();
            let why = f.reason.clone().unwrap_or_else(|| mark(f.status).into());
            let why = if f.status == Status::NotRun {
                format!("not run: {why}")
            } else {
                why
            };
            // Jenkins, Azure and junitparser read the attribute, GitLab the text.
            st.set_message(one_line(&why, 4000));
            st.set_description(clean(&why));
            st
        }
    };
    let mut tc = TestCase::new(clean(&f.name), status);
    tc.set_classname(clean(&f.id));
    tc.set_time(secs(f.duration_ms));
    tc.set_system_out(clean(&step_log(f, prefix)));
    let logs: Vec<String> = walk::failed_leaves(f)
        .iter()
        .flat_map(|s| s.evidence.iter().map(move |e| (s, e)))
        .filter(|(_, e)| e.kind == "hilog")
        .filter_map(|(s, e)| {
            e.excerpt
                .as_ref()
                .map(|x| format!("device log of {} ({}):\n{x}", s.id, e.path))
        })
        .collect();
    if !logs.is_empty() {
        tc.set_system_err(clean(&logs.join("\n\n")));
    }
    tc
}

/// The JUnit XML of a run.
pub fn render(r: &RunResult, opts: &JunitOptions<'_>) -> Result<String, String> {
    let mut report = Report::new("tapflow");
    report.set_time(secs(r.duration_ms));
    // One suite per (flow file, device), in the order the result lists them.
    let mut keys: Vec<(String, String)> = Vec::new();
    let mut groups: Vec<Vec<&FlowResult>> = Vec::new();
    for f in &r.flows {
        let key = (f.file.clone(), f.device.clone().unwrap_or_default());
        match keys.iter().position(|k| *k == key) {
            Some(i) => groups[i].push(f),
            None => {
                keys.push(key);
                groups.push(vec![f]);
            }
        }
    }
    for ((file, device), flows) in keys.into_iter().zip(groups) {
        let name = if device.is_empty() {
            file.clone()
        } else {
            format!("{file} [{device}]")
        };
        let mut suite = TestSuite::new(clean(&name));
        suite.extra.insert("file".into(), clean(&file).into());
        if let Some(ts) = flows
            .iter()
            .filter_map(|f| timestamp(f.started_at.as_deref()))
            .min()
        {
            suite.set_timestamp(ts);
        }
        suite.set_time(secs(flows.iter().map(|f| f.duration_ms).sum()));
        let mut props: Vec<(&str, String)> = Vec::new();
        if let Some(d) = r.devices.iter().find(|d| d.serial == device) {
            props.push(("device.serial", d.serial.clone()));
            props.push(("device.platform", d.platform.clone()));
            if let Some(m) = &d.model {
                props.push(("device.model", m.clone()));
            }
            if let Some(a) = d.api_level {
                props.push(("device.api_level", a.to_string()));
            }
            if let Some(v) = &d.software_version {
                props.push(("device.software_version", v.clone()));
            }
        } else if !device.is_empty() {
            props.push(("device.serial", device.clone()));
        }
        props.push(("flow.file", file.clone()));
        let mut tags: Vec<String> = flows.iter().flat_map(|f| f.tags.clone()).collect();
        tags.dedup();
        props.push(("flow.tags", tags.join(",")));
        props.push(("run.id", r.run_id.clone()));
        props.push(("tapflow.version", r.tapflow_version.clone()));
        if let Some(s) = &r.shard {
            props.push(("run.shard", s.clone()));
        }
        for (k, v) in props {
            suite.add_property(Property::new(k, clean(&v)));
        }
        for f in flows {
            suite.add_test_case(test_case(f, opts.attachment_prefix));
        }
        report.add_test_suite(suite);
    }
    let xml = report.to_string().map_err(|e| e.to_string())?;
    strict_root(&xml)
}

/// junit-10.xsd allows only `name time tests failures errors` on `<testsuites>`; quick-junit
/// also writes `skipped` there. Rewrites that one start tag, passing every other event through.
fn strict_root(xml: &str) -> Result<String, String> {
    use quick_xml::events::{BytesStart, Event};
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut writer = quick_xml::Writer::new(Vec::with_capacity(xml.len()));
    loop {
        let ev = reader.read_event().map_err(|e| e.to_string())?;
        match ev {
            Event::Eof => break,
            Event::Start(s) if s.name().as_ref() == b"testsuites" => {
                let mut root = BytesStart::new("testsuites");
                for a in s.attributes() {
                    let a = a.map_err(|e| e.to_string())?;
                    if matches!(
                        a.key.as_ref(),
                        b"name" | b"time" | b"tests" | b"failures" | b"errors"
                    ) {
                        root.push_attribute(a);
                    }
                }
                writer
                    .write_event(Event::Start(root))
                    .map_err(|e| e.to_string())?;
            }
            other => writer.write_event(other).map_err(|e| e.to_string())?,
        }
    }
    String::from_utf8(writer.into_inner()).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_root_keeps_only_allowed_attributes() {
        let x = r#"<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="t" tests="1" skipped="0" failures="0" errors="0" time="0.001">
    <testsuite name="a &amp; b" tests="1" skipped="0" failures="0" errors="0"><system-out>]]&gt;</system-out></testsuite>
</testsuites>
"#;
        let out = strict_root(x).unwrap();
        assert!(
            out.contains(r#"<testsuites name="t" tests="1" failures="0" errors="0" time="0.001">"#),
            "{out}"
        );
        assert!(
            out.contains(r#"<testsuite name="a &amp; b" tests="1" skipped="0""#),
            "{out}"
        );
        assert!(out.contains("]]&gt;"), "{out}");
    }
}
