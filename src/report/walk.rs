//! Walking a flow's steps in report order: setup, steps, `on_failure`, `finally`, each step
//! followed by its children (block passes, sub-flow steps), with its depth.

use crate::run::result::{FlowResult, StepResult};
use crate::run::{Section, Status};

/// One step of a flow, in order, with where it sits.
pub struct Visit<'a> {
    pub section: Section,
    pub depth: usize,
    pub step: &'a StepResult,
}

pub fn sections(f: &FlowResult) -> [(Section, &[StepResult]); 4] {
    [
        (Section::Setup, f.setup.as_slice()),
        (Section::Steps, f.steps.as_slice()),
        (Section::OnFailure, f.on_failure.as_slice()),
        (Section::Finally, f.finally.as_slice()),
    ]
}

/// Every step of the flow, depth first.
pub fn steps(f: &FlowResult) -> Vec<Visit<'_>> {
    fn go<'a>(section: Section, depth: usize, s: &'a StepResult, out: &mut Vec<Visit<'a>>) {
        out.push(Visit {
            section,
            depth,
            step: s,
        });
        for c in &s.children {
            go(section, depth + 1, c, out);
        }
    }
    let mut out = Vec::new();
    for (section, list) in sections(f) {
        for s in list {
            go(section, 0, s, &mut out);
        }
    }
    out
}

/// The steps whose own failure failed them (not only a step inside them), depth first.
pub fn failed_leaves(f: &FlowResult) -> Vec<&StepResult> {
    steps(f)
        .into_iter()
        .map(|v| v.step)
        .filter(|s| {
            s.status == Status::Failed
                && s.error.is_some()
                && !s.children.iter().any(|c| c.status == Status::Failed)
        })
        .collect()
}

/// The step whose failure decided the flow (its first non-optional failed leaf).
pub fn deciding_failure(f: &FlowResult) -> Option<&StepResult> {
    let leaves = failed_leaves(f);
    leaves
        .iter()
        .find(|s| !s.optional)
        .or(leaves.first())
        .copied()
}

pub fn section_name(s: Section) -> &'static str {
    match s {
        Section::Setup => "setup",
        Section::Steps => "steps",
        Section::OnFailure => "on_failure",
        Section::Finally => "finally",
    }
}
