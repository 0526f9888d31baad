//! The run result: everything a report needs, per run, per device, per flow (including flows
//! that did not run, and why), per step (every attempt, arguments as run with secrets masked,
//! the tool's result, the error with its code, source location and the flow source around it,
//! the target's bounds, evidence with its hash and an excerpt). Serialised as `result.json`;
//! every report (JUnit, HTML, manifest, GitHub summary) is rendered from it alone, so that
//! `tapflow report RUN_DIR` can render them again.
//!
//! While a run goes on, `result.json` says `"status": "running"` and `"complete": false`; the
//! flow in progress has status `running` and the flows not started yet `not_run`. A file that
//! still says so after the process ended belongs to a run that was killed or crashed.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tapflow_core::codes::Code;

/// Error codes that say the device or the host tooling failed, not the app under test.
pub const INFRA_CODES: &[Code] = &[
    tapflow_core::codes::DEVICE_NOT_FOUND,
    tapflow_core::codes::DEVICE_DISCONNECTED,
    tapflow_core::codes::DEVICE_UNAUTHORIZED,
    tapflow_core::codes::MULTIPLE_DEVICES,
    tapflow_core::codes::HDC_NOT_FOUND,
    tapflow_core::codes::HDC_TIMEOUT,
    tapflow_core::codes::HDC_CHANNEL_NOT_READY,
    tapflow_core::codes::HDC_SERVER_UNREACHABLE,
    tapflow_core::codes::HDC_FAILED,
    tapflow_core::codes::ADB_NOT_FOUND,
    tapflow_core::codes::ADB_TIMEOUT,
    tapflow_core::codes::ADB_SERVER_UNREACHABLE,
    tapflow_core::codes::DEVICE_UNRESPONSIVE,
    tapflow_core::codes::INPUT_KEYS_LOST,
];

/// Version of the `result.json` shape.
pub const RESULT_SCHEMA_VERSION: u32 = 2;

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
    /// The flow file did not validate (its diagnostics are in the flow's `error.details`);
    /// the valid flows of the run still ran.
    Invalid,
    /// Still going (a run or a flow, in a `result.json` written while the run goes on). Found
    /// in a file whose run has ended, it means the process stopped without finishing: it was
    /// killed or crashed.
    Running,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Passed => "passed",
            Status::Failed => "failed",
            Status::Skipped => "skipped",
            Status::NotRun => "not_run",
            Status::Interrupted => "interrupted",
            Status::Running => "running",
            Status::Invalid => "invalid",
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

/// One line of a flow file, as shown around a failure.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceLine {
    /// 1-based.
    pub line: usize,
    pub text: String,
    /// The line the failure points at.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub marked: bool,
}

/// A failure: the tool's (or the runner's) code, message and details, where it happened.
/// Serialized with its `help` line (what to try next, [`crate::run::help`]) when the code has
/// one, so `result.json`, MCP's `get_run` and the reports all carry it.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct StepError {
    pub code: Code,
    pub message: String,
    #[serde(default)]
    pub details: Value,
    pub location: Option<Location>,
}

impl Serialize for StepError {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        fn null(v: &&Value) -> bool {
            v.is_null()
        }
        #[derive(Serialize)]
        struct Out<'a> {
            code: &'a str,
            message: &'a str,
            #[serde(skip_serializing_if = "null")]
            details: &'a Value,
            #[serde(skip_serializing_if = "Option::is_none")]
            location: Option<&'a Location>,
            #[serde(skip_serializing_if = "Option::is_none")]
            help: Option<&'static str>,
        }
        Out {
            code: self.code.as_str(),
            message: &self.message,
            details: &self.details,
            location: self.location.as_ref(),
            help: self.help(),
        }
        .serialize(s)
    }
}

impl StepError {
    /// An error with no details, location or source.
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        StepError {
            code,
            message: message.into(),
            details: Value::Null,
            location: None,
        }
    }

    /// What to try next, for the common codes ([`crate::run::help::for_code`]).
    pub fn help(&self) -> Option<&'static str> {
        crate::run::help::for_code(self.code)
    }

    /// Whether the device or the host tooling failed, not the app under test.
    pub fn is_infrastructure(&self) -> bool {
        INFRA_CODES.contains(&self.code)
    }
}

/// What a tool step cost on the device, over all its attempts (from the tools' `cost`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepCost {
    pub device_round_trips: u64,
    pub ui_dumps: u64,
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

/// An artifact collected for a step (paths relative to the run directory). The hash and size
/// are taken when the file is written; the manifest is rendered from them and `tapflow report
/// --verify` checks the files against them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvidenceRef {
    /// `screenshot`, `ui_tree`, `hilog`, `crash`.
    pub kind: String,
    pub path: String,
    #[serde(default)]
    pub sha256: String,
    #[serde(default)]
    pub bytes: u64,
    /// Which pass of the enclosing `repeat`/`retry` blocks it belongs to (`2`, `2.1`), when the
    /// step runs inside one: every pass keeps its own files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pass: Option<String>,
    /// Pixel size of a screenshot (to draw the target's bounds on it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height: Option<u32>,
    /// What a report shows of a text artifact (masked, clipped): the UI tree around the
    /// target, the last hilog lines, the head of a crash file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub excerpt: Option<String>,
    /// Lines in the file (text artifacts), so a report can say how much the excerpt leaves out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines: Option<usize>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepResult {
    pub id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    pub kind: StepKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// A short human title, as the flow wrote the step (the label, else the step's name and its
    /// main argument: `assert_visible Hello, bob!`, `assert_not_visible greeting (gone)`; masked).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub title: String,
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
    /// Device round trips and UI dumps, over all attempts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<StepCost>,
    /// The tool's result (last attempt), secrets masked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<StepError>,
    /// The flow source around the step's line when it failed (secrets masked), for reports.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub source: Vec<SourceLine>,
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
    /// The run it ran in, when this result was merged from shards (`tapflow report --merge`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
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
    /// Flows in progress (only in a file written while the run goes on, or of a killed run).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub running: usize,
    /// Flow files that did not validate (listed, not run).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub invalid: usize,
    pub steps: usize,
    pub steps_failed: usize,
}

/// Which flows of the plan a run was asked to run, so that shards can be merged and checked
/// to cover the plan exactly once.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Coverage {
    /// Every flow id of the compiled plan, before sharding and tags.
    pub plan_flows: Vec<String>,
    /// The flow ids this run's shard selected (tags may still have skipped some).
    pub selected: Vec<String>,
}

/// One shard of a merged run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MergedShard {
    pub run_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    /// The shard's run directory, as given to `tapflow report --merge`.
    pub dir: String,
    pub status: Status,
    pub complete: bool,
}

/// The whole run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    pub schema_version: u32,
    pub run_id: String,
    pub tapflow_version: String,
    /// The command line that started the run (values of `--env` masked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// The approval the MCP server recorded for this run (`run_flow`: who approved the steps
    /// that needed it, and how: operator, trusted caller or elicitation); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval: Option<serde_json::Value>,
    pub started_at: String,
    /// When the run ended; absent while it is running (and in the file of a killed run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<String>,
    /// When this file was last written (while running: how far the run got).
    #[serde(default)]
    pub updated_at: String,
    pub duration_ms: u64,
    /// `running` until the run ends, then `passed`, `failed` or `interrupted`.
    pub status: Status,
    /// False while the run is still going (the file is rewritten as it progresses), true once
    /// it ended (normally or interrupted). False in a file whose process is gone: killed.
    pub complete: bool,
    pub interrupted: bool,
    /// `I/N` when the run was a shard.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    #[serde(default)]
    pub coverage: Coverage,
    /// The shards this result was merged from (`tapflow report --merge`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub merged_from: Vec<MergedShard>,
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
                Status::Running => t.running += 1,
                Status::Invalid => t.invalid += 1,
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
        self.status = if !self.complete {
            Status::Running
        } else if self.interrupted || t.interrupted > 0 {
            Status::Interrupted
        } else if t.failed > 0 || t.not_run > 0 || t.invalid > 0 {
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
                    .is_some_and(|e| INFRA_CODES.contains(&e.code))
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

fn is_zero(n: &usize) -> bool {
    *n == 0
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
