//! Flow files that did not validate, as `tapflow run` reports them: each is listed in the
//! result as `invalid` with its diagnostics (so CI sees which file and why), while the valid
//! flows still run; the run then exits 3. So are files that could not be read as flows at all
//! (not UTF-8, a name that is not UTF-8, too large, not a regular file): [`unreadable`].

use std::collections::BTreeSet;

use serde_json::json;

use crate::run::result::{Location, StepError};
use crate::run::{FlowResult, Status};
use tapflow_core::flow::{self, Diagnostic, SourceFile};
use tapflow_core::plan::Compiled;
use tapflow_core::plan::model::{Action, PlanStep};

fn diag_json(d: &Diagnostic) -> serde_json::Value {
    json!({
        "code": d.code,
        "message": d.message,
        "file": d.file,
        "line": d.line,
        "column": d.column,
        "help": d.help,
    })
}

/// The sub-flow files a plan's steps inline, as written, depth first.
fn subflow_files<'p>(steps: &'p [PlanStep], out: &mut Vec<&'p str>) {
    for s in steps {
        match &s.action {
            Action::SubFlow { file, steps, .. } => {
                if let Some(f) = file {
                    out.push(f);
                }
                subflow_files(steps, out);
            }
            Action::Repeat { steps, .. } | Action::Retry { steps, .. } => subflow_files(steps, out),
            Action::Tool { .. } => {}
        }
    }
}

/// One `invalid` result per flow file that could not be read (its one diagnostic), with an
/// id from its name not used by the plan.
pub fn unreadable(problems: &[(SourceFile, Diagnostic)], compiled: &Compiled) -> Vec<FlowResult> {
    let mut taken: BTreeSet<String> = compiled.plan.flows.iter().map(|f| f.id.clone()).collect();
    let mut out = Vec::new();
    for (_, d) in problems {
        if flow::is_subflow_path(&d.file) {
            continue;
        }
        let base = tapflow_core::plan::compile::flow_id_of(&d.file);
        let mut id = base.clone();
        let mut n = 2;
        while !taken.insert(id.clone()) {
            id = format!("{base}-{n}");
            n += 1;
        }
        out.push(invalid_result(
            id.clone(),
            id,
            d.file.clone(),
            Vec::new(),
            &[d],
        ));
    }
    out
}

/// Takes the flows whose file (or a sub-flow file they inline) has an error out of the plan
/// (the compiler keeps what it could compile of them) and returns one `invalid` flow result
/// for each, listing those errors.
pub fn take_invalid(flows: &[SourceFile], compiled: &mut Compiled) -> Vec<FlowResult> {
    let top: BTreeSet<&str> = flows.iter().map(SourceFile::name).collect();
    let errors: Vec<&Diagnostic> = compiled
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .collect();
    let mut out = Vec::new();
    let mut bad_files = BTreeSet::new();
    for fp in &compiled.plan.flows {
        let mut subs = Vec::new();
        subflow_files(&fp.steps, &mut subs);
        subflow_files(&fp.on_failure, &mut subs);
        subflow_files(&fp.finally, &mut subs);
        let listed: Vec<&Diagnostic> = errors
            .iter()
            .copied()
            .filter(|d| {
                d.file == fp.file
                    || (!top.contains(d.file.as_str())
                        && subs
                            .iter()
                            .any(|s| d.file.ends_with(s.trim_start_matches("./"))))
            })
            .collect();
        if listed.is_empty() {
            continue;
        }
        bad_files.insert(fp.file.clone());
        out.push(invalid_result(
            fp.id.clone(),
            fp.name.clone(),
            fp.file.clone(),
            fp.tags.clone(),
            &listed,
        ));
    }
    compiled.plan.flows.retain(|f| !bad_files.contains(&f.file));
    out
}

/// An `invalid` flow result listing `listed` (at least one diagnostic).
fn invalid_result(
    id: String,
    name: String,
    file: String,
    tags: Vec<String>,
    listed: &[&Diagnostic],
) -> FlowResult {
    let first = listed[0];
    let reason = format!(
        "invalid flow file: {} error(s); not run (see `tapflow validate {}`)",
        listed.len(),
        file
    );
    let error = StepError {
        code: tapflow_core::codes::INVALID_FLOW,
        message: format!(
            "{}:{}:{}: {}: {}",
            first.file, first.line, first.column, first.code, first.message
        ),
        details: json!({
            "diagnostics": listed.iter().copied().map(diag_json).collect::<Vec<_>>()
        }),
        location: Some(Location {
            file: first.file.clone(),
            line: first.line,
            column: first.column,
        }),
    };
    FlowResult {
        id,
        run_id: None,
        name,
        file,
        tags,
        device: None,
        status: Status::Invalid,
        reason: Some(reason),
        started_at: None,
        duration_ms: 0,
        error: Some(error),
        setup: Vec::new(),
        steps: Vec::new(),
        on_failure: Vec::new(),
        finally: Vec::new(),
    }
}
