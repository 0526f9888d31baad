//! The plan as text for `tapflow plan`: one block per flow, one line per step (id, tool,
//! arguments with defaults, deadline, retries, options), blocks indented. Secrets are shown as
//! references or masked, never as values; bidirectional control characters are written out
//! (`<U+202E>`, [`crate::visible`]).

use std::fmt::Write;

use serde_json::Value;

use super::model::*;

/// Renders a whole plan.
pub fn render_text(plan: &Plan) -> String {
    let mut out = String::new();
    for (i, f) in plan.flows.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        flow(&mut out, f);
    }
    crate::visible::escape_bidi(&out).into_owned()
}

fn flow(out: &mut String, f: &FlowPlan) {
    let _ = writeln!(out, "flow {} — {} ({})", f.id, f.name, f.file);
    let _ = writeln!(out, "  device: {}", f.device);
    let _ = writeln!(out, "  timeout: {} ms", f.timeout_ms);
    if let Some(app) = &f.app {
        let _ = writeln!(out, "  app: {app}");
    }
    if !f.tags.is_empty() {
        let _ = writeln!(out, "  tags: {}", f.tags.join(", "));
    }
    if let Some(iso) = &f.isolation {
        let _ = writeln!(
            out,
            "  isolation: stop {0}, clear its data, launch {0}",
            iso.bundle
        );
    }
    if !f.variables.is_empty() {
        let _ = writeln!(out, "  variables:");
        for v in &f.variables {
            let _ = writeln!(out, "    {} = {} ({})", v.name, shown(v), source(v.source));
        }
    }
    for (title, steps) in [
        ("steps", &f.steps),
        ("on_failure", &f.on_failure),
        ("finally", &f.finally),
    ] {
        if steps.is_empty() && title != "steps" {
            continue;
        }
        let _ = writeln!(out, "  {title}:");
        for s in steps {
            step(out, s, 2, &f.file);
        }
    }
}

fn shown(v: &PlanVariable) -> String {
    if v.secret {
        format!("{MASK} [secret]")
    } else {
        format!("{:?}", v.value)
    }
}

fn source(s: VarSource) -> &'static str {
    match s {
        VarSource::Project => "tapflow.toml",
        VarSource::Flow => "flow default",
        VarSource::Environment => "environment",
        VarSource::Cli => "--env",
        VarSource::RunFlow => "run_flow env",
    }
}

fn step(out: &mut String, s: &PlanStep, depth: usize, file: &str) {
    let pad = "  ".repeat(depth);
    let mut line = format!("{pad}{}  ", s.id);
    match &s.action {
        Action::Tool { tool, args } => match &s.written_as {
            // As written, with the tool behind it: `assert_visible (wait_for_element) {…}`.
            Some(w) => {
                let _ = write!(line, "{w} ({tool}) {}", compact(args));
            }
            None => {
                let _ = write!(line, "{tool} {}", compact(args));
            }
        },
        Action::Repeat { times, while_, .. } => {
            line.push_str("repeat");
            if let Some(t) = times {
                let _ = write!(line, " times={}", compact(t));
            }
            if let Some(w) = while_ {
                let _ = write!(line, " while {}", condition(w));
            }
        }
        Action::Retry {
            times, delay_ms, ..
        } => {
            let _ = write!(
                line,
                "retry block: up to {times} more time(s), delay {delay_ms} ms"
            );
        }
        Action::SubFlow {
            file, variables, ..
        } => {
            let _ = write!(line, "run_flow {}", file.as_deref().unwrap_or("(inline)"));
            if !variables.is_empty() {
                let vars: Vec<String> = variables
                    .iter()
                    .map(|v| format!("{}={}", v.name, shown(v)))
                    .collect();
                let _ = write!(line, " with {}", vars.join(", "));
            }
        }
    }
    let mut notes = Vec::new();
    if let Some(d) = s.deadline_ms {
        notes.push(format!("deadline {d} ms"));
    }
    if s.wait_ms > 0 {
        notes.push(format!("waits up to {} ms for its element", s.wait_ms));
    }
    if s.retries > 0 {
        notes.push(format!(
            "retries {} (delay {} ms)",
            s.retries, s.retry_delay_ms
        ));
    }
    if s.optional {
        notes.push("optional".into());
    }
    if let Some(w) = &s.when {
        notes.push(format!("when {}", condition(w)));
    }
    if let Some(k) = &s.keep {
        notes.push(format!("keep as steps.{k}"));
    }
    for e in &s.expect {
        notes.push(format!(
            "expect {} {} {}",
            e.field,
            e.op.as_str(),
            compact(&e.value)
        ));
    }
    if let Some(l) = &s.label {
        notes.push(format!("label {l:?}"));
    }
    if !notes.is_empty() {
        let _ = write!(line, "  [{}]", notes.join("; "));
    }
    // Steps inlined from a sub-flow name their file.
    if s.source.file == file {
        let _ = writeln!(line, "  @{}:{}", s.source.line, s.source.column);
    } else {
        let _ = writeln!(
            line,
            "  @{}:{}:{}",
            s.source.file, s.source.line, s.source.column
        );
    }
    out.push_str(&line);
    let children = match &s.action {
        Action::Repeat { steps, .. }
        | Action::Retry { steps, .. }
        | Action::SubFlow { steps, .. } => steps.as_slice(),
        Action::Tool { .. } => &[],
    };
    for c in children {
        step(out, c, depth + 1, file);
    }
}

fn condition(c: &PlanCondition) -> String {
    let mut parts = Vec::new();
    if let Some(p) = &c.platform {
        parts.push(format!("platform={p}"));
    }
    if let Some(v) = &c.visible {
        parts.push(format!("visible {}", compact(v)));
    }
    if let Some(v) = &c.not_visible {
        parts.push(format!("not_visible {}", compact(v)));
    }
    if let Some(cmp) = &c.compare {
        let var = match &cmp.resolved {
            Some(v) => format!("{} (= {v:?})", cmp.var),
            None => cmp.var.clone(),
        };
        parts.push(format!("{var} {} {}", cmp.op.as_str(), compact(&cmp.value)));
    }
    parts.join(" and ")
}

fn compact(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}
