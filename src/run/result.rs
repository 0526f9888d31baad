//! The run result: everything a report needs, per run, per device, per flow (including flows
//! that did not run, and why), per step (every attempt, arguments as run with secrets masked,
//! the tool's result, the error with its code and source location, the target's bounds,
//! evidence paths). Serialised as `result.json`; reports (JUnit, HTML) are written from it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Error codes that say the device or the host tooling failed, not the app under test.
pub const INFRA_CODES: &[&str] = &[
    crate::codes::DEVICE_NOT_FOUND,
    crate::codes::DEVICE_DISCONNECTED,
    crate::codes::DEVICE_UNAUTHORIZED,
    crate::codes::MULTIPLE_DEVICES,
    crate::codes::HDC_NOT_FOUND,
    crate::codes::HDC_TIMEOUT,
];

/// Version of the `result.json` shape.
pub const RESULT_SCHEMA_VERSION: u32 = 1;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Passed,
    Failed,
    /// Deliberately not run: a `when` that did not hold, a flow excluded by tags.
    Skipped,
    /// Could not run: its device failed its check, fail-fast stopped the run, the run was
    /// interrupted before it started.
    NotRun,
    /// Was running when the run was interrupted.
    Interrupted,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Passed => "passed",
            Status::Failed => "failed",
            Status::Skipped => "skipped",
            Status::NotRun => "not_run",
            Status::Interrupted => "interrupted",
        }
    }
}

/// Where a step is written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Location {
    pub file: String,
    pub line: usize,
    pub column: usize,
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// A failure: the tool's (or the runner's) code, message and details, where it happened.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepError {
    pub code: String,
    pub message: String,
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub details: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<Location>,
}

/// One try of a tool step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Attempt {
    /// 1-based.
    pub number: u64,
    pub status: Status,
    pub started_at: String,
    pub duration_ms: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<StepError>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepKind {
    Tool,
    Repeat,
    Retry,
    SubFlow,
    /// One pass of a `repeat` or `retry` block.
    Iteration,
}

/// An artifact collected for a step (paths relative to the run directory).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvidenceRef {
    /// `screenshot`, `ui_tree`, `hilog`, `crash`.
    pub kind: String,
    pub path: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepResult {
    pub id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    pub kind: StepKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// The step as progress lines show it, as the flow wrote it (`assert_visible Hello, bob!`,
    /// `assert_not_visible greeting (gone)`), secrets masked.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub title: Option<String>,
    pub status: Status,
    /// Why it was skipped / not run, or that an optional step's failure was tolerated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    pub optional: bool,
    pub location: Location,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub started_at: Option<String>,
    pub duration_ms: u64,
    /// The arguments as run (kept results substituted, secrets masked).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub args: Option<Value>,
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub attempts: Vec<Attempt>,
    /// The tool's result (last attempt), secrets masked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<StepError>,
    /// The bounds (`[l,t][r,b]`) of the element the step acted on, where known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bounds: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub evidence: Vec<EvidenceRef>,
    /// Steps of a block, or passes of a `repeat`/`retry` (kind `iteration`).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub children: Vec<StepResult>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FlowResult {
    pub id: String,
    pub name: String,
    pub file: String,
    pub tags: Vec<String>,
    /// Serial of the device it ran (or was to run) on; `None` when none was assigned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
    pub status: Status,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub started_at: Option<String>,
    pub duration_ms: u64,
    /// The first failure that decided the flow's status.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<StepError>,
    /// Clean-state setup (stop, clear data, launch), when the flow asks for it.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub setup: Vec<StepResult>,
    pub steps: Vec<StepResult>,
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub on_failure: Vec<StepResult>,
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub finally: Vec<StepResult>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DeviceResult {
    pub serial: String,
    pub platform: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub api_level: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub software_version: Option<String>,
    /// Passed its check (reachable, authorised, awake, unlocked).
    pub ready: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<StepError>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Totals {
    pub flows: usize,
    pub passed: usize,
    pub failed: usize,
    pub skipped: usize,
    pub not_run: usize,
    pub interrupted: usize,
    pub steps: usize,
    pub steps_failed: usize,
}

/// The whole run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    pub schema_version: u32,
    pub run_id: String,
    pub tapflow_version: String,
    pub started_at: String,
    pub finished_at: String,
    pub duration_ms: u64,
    pub status: Status,
    /// False while the run is still going (the file is rewritten after every flow), true once
    /// it ended (normally or interrupted).
    pub complete: bool,
    pub interrupted: bool,
    /// `I/N` when the run was a shard.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    pub devices: Vec<DeviceResult>,
    pub flows: Vec<FlowResult>,
    pub totals: Totals,
    /// Relative path of the artifact manifest.
    pub artifacts_manifest: String,
}

impl RunResult {
    /// Recomputes totals and the overall status from the flows.
    pub fn finish_totals(&mut self) {
        let mut t = Totals {
            flows: self.flows.len(),
            ..Totals::default()
        };
        for f in &self.flows {
            match f.status {
                Status::Passed => t.passed += 1,
                Status::Failed => t.failed += 1,
                Status::Skipped => t.skipped += 1,
                Status::NotRun => t.not_run += 1,
                Status::Interrupted => t.interrupted += 1,
            }
            for s in f
                .setup
                .iter()
                .chain(&f.steps)
                .chain(&f.on_failure)
                .chain(&f.finally)
            {
                count_steps(s, &mut t);
            }
        }
        self.status = if self.interrupted || t.interrupted > 0 {
            Status::Interrupted
        } else if t.failed > 0 || t.not_run > 0 {
            Status::Failed
        } else {
            Status::Passed
        };
        self.totals = t;
    }

    /// True when every failed flow failed because its device or the host tooling did (see
    /// [`INFRA_CODES`]), and at least one did.
    pub fn failed_on_infrastructure_only(&self) -> bool {
        let failed: Vec<&FlowResult> = self
            .flows
            .iter()
            .filter(|f| f.status == Status::Failed)
            .collect();
        !failed.is_empty()
            && failed.iter().all(|f| {
                f.error
                    .as_ref()
                    .is_some_and(|e| INFRA_CODES.contains(&e.code.as_str()))
            })
    }

    /// Every step of every flow, depth first (hooks included).
    pub fn all_steps(&self) -> Vec<&StepResult> {
        fn walk<'a>(s: &'a StepResult, out: &mut Vec<&'a StepResult>) {
            out.push(s);
            s.children.iter().for_each(|c| walk(c, out));
        }
        let mut out = Vec::new();
        for f in &self.flows {
            for s in f
                .setup
                .iter()
                .chain(&f.steps)
                .chain(&f.on_failure)
                .chain(&f.finally)
            {
                walk(s, &mut out);
            }
        }
        out
    }
}

fn count_steps(s: &StepResult, t: &mut Totals) {
    if s.kind == StepKind::Tool {
        t.steps += 1;
        if s.status == Status::Failed && !s.optional {
            t.steps_failed += 1;
        }
    }
    s.children.iter().for_each(|c| count_steps(c, t));
}
