//! `tapflow report --merge OUT RUN_DIR…`: the `result.json` files of the shards of one plan
//! (`tapflow run --shard I/N` on many CI machines) combined into one run, after checking that
//! the shards cover the plan exactly once: they ran the same plan, no flow of it is missing,
//! none was selected by two shards. Artifacts are copied into OUT under the same relative
//! paths, so every path in the merged result and manifest stays valid; two different files
//! claiming one path are an error, never an overwrite.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::run::result::{MergedShard, RunResult, Totals};
use tapflow_device::hostfs::{Overwrite, PathPolicy};

use super::walk;

/// Largest artifact copied (screenshots and logs are far smaller).
const MAX_ARTIFACT_BYTES: u64 = 512 * 1024 * 1024;

/// A shard: where it came from (as given) and its result.
pub struct ShardInput {
    pub dir: String,
    pub result: RunResult,
}

/// Why shards cannot be merged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeError(pub Vec<String>);

impl std::fmt::Display for MergeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0.join("\n"))
    }
}

/// Checks coverage and combines the results.
pub fn merge(shards: &[ShardInput]) -> Result<RunResult, MergeError> {
    let mut problems = Vec::new();
    let Some(first) = shards.first() else {
        return Err(MergeError(vec!["no run directory to merge".into()]));
    };
    for s in shards {
        if s.result.coverage.plan_flows.is_empty() {
            problems.push(format!(
                "{}: result.json records no plan (written by an older tapflow, or nothing was \
                 compiled); it cannot be checked for coverage",
                s.dir
            ));
        }
    }
    let plan: BTreeSet<&String> = first.result.coverage.plan_flows.iter().collect();
    for s in &shards[1..] {
        let other: BTreeSet<&String> = s.result.coverage.plan_flows.iter().collect();
        if other != plan {
            let only_a: Vec<_> = plan.difference(&other).map(|s| s.as_str()).collect();
            let only_b: Vec<_> = other.difference(&plan).map(|s| s.as_str()).collect();
            problems.push(format!(
                "{} and {} ran different plans (only in the first: [{}]; only in the second: \
                 [{}]); run every shard from the same commit and flow paths",
                first.dir,
                s.dir,
                only_a.join(", "),
                only_b.join(", ")
            ));
        }
    }
    let mut by_flow: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for s in shards {
        for id in &s.result.coverage.selected {
            by_flow.entry(id.as_str()).or_default().push(s.dir.as_str());
        }
    }
    let missing: Vec<&str> = first
        .result
        .coverage
        .plan_flows
        .iter()
        .map(String::as_str)
        .filter(|id| !by_flow.contains_key(id))
        .collect();
    if !missing.is_empty() {
        problems.push(format!(
            "no shard ran {} of the plan's flows: {} (a shard is missing: pass every \
             --shard I/N directory)",
            missing.len(),
            missing.join(", ")
        ));
    }
    for (id, dirs) in &by_flow {
        if dirs.len() > 1 {
            problems.push(format!(
                "flow {id} was run by {} shards ({}); each flow must be in exactly one",
                dirs.len(),
                dirs.join(", ")
            ));
        }
    }
    if !problems.is_empty() {
        return Err(MergeError(problems));
    }

    // Flows in plan order; each keeps the run it ran in.
    let order: BTreeMap<&str, usize> = first
        .result
        .coverage
        .plan_flows
        .iter()
        .enumerate()
        .map(|(i, id)| (id.as_str(), i))
        .collect();
    let mut flows = Vec::new();
    for s in shards {
        for f in &s.result.flows {
            let mut f = f.clone();
            f.run_id.get_or_insert_with(|| s.result.run_id.clone());
            flows.push(f);
        }
    }
    flows.sort_by_key(|f| order.get(f.id.as_str()).copied().unwrap_or(usize::MAX));
    let mut devices = Vec::new();
    for s in shards {
        for d in &s.result.devices {
            if !devices
                .iter()
                .any(|x: &crate::run::result::DeviceResult| x.serial == d.serial)
            {
                devices.push(d.clone());
            }
        }
    }
    let parse = |t: &str| chrono::DateTime::parse_from_rfc3339(t).ok();
    let started = shards
        .iter()
        .filter_map(|s| parse(&s.result.started_at))
        .min();
    let complete = shards.iter().all(|s| s.result.complete);
    let finished = if complete {
        shards
            .iter()
            .filter_map(|s| s.result.finished_at.as_deref().and_then(parse))
            .max()
    } else {
        None
    };
    let duration_ms = match (started, finished) {
        (Some(a), Some(b)) => (b - a).num_milliseconds().max(0) as u64,
        _ => shards
            .iter()
            .map(|s| s.result.duration_ms)
            .max()
            .unwrap_or(0),
    };
    let fmt = |t: chrono::DateTime<chrono::FixedOffset>| {
        t.with_timezone(&chrono::Utc)
            .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
    };
    let mut r = RunResult {
        schema_version: crate::run::result::RESULT_SCHEMA_VERSION,
        run_id: format!("merged-{}", first.result.run_id),
        tapflow_version: env!("CARGO_PKG_VERSION").to_string(),
        command: None,
        approval: None,
        started_at: started.map(fmt).unwrap_or_default(),
        finished_at: finished.map(fmt),
        updated_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        duration_ms,
        status: crate::run::Status::Running,
        complete,
        interrupted: shards.iter().any(|s| s.result.interrupted),
        shard: None,
        coverage: crate::run::result::Coverage {
            plan_flows: first.result.coverage.plan_flows.clone(),
            selected: first.result.coverage.plan_flows.clone(),
        },
        merged_from: shards
            .iter()
            .map(|s| MergedShard {
                run_id: s.result.run_id.clone(),
                shard: s.result.shard.clone(),
                dir: s.dir.clone(),
                status: s.result.status,
                complete: s.result.complete,
            })
            .collect(),
        devices,
        flows,
        totals: Totals::default(),
        artifacts_manifest: "manifest.json".into(),
    };
    r.finish_totals();
    Ok(r)
}

/// Copies every artifact the shards' results name from their directories into `out`, under the
/// same relative path. A path already holding different bytes is a conflict.
pub fn copy_artifacts(
    shards: &[(std::path::PathBuf, &RunResult)],
    out: &Path,
) -> Result<usize, MergeError> {
    let dest = PathPolicy::new(out, [out.to_path_buf()]);
    let mut copied = 0;
    let mut problems = Vec::new();
    let mut written: BTreeMap<String, String> = BTreeMap::new();
    for (dir, r) in shards {
        let src = PathPolicy::new(dir, [dir.clone()]);
        for f in &r.flows {
            for v in walk::steps(f) {
                for e in &v.step.evidence {
                    if let Some(sha) = written.get(&e.path) {
                        if *sha != e.sha256 {
                            problems.push(format!(
                                "{}: two shards have a different file at this path",
                                e.path
                            ));
                        }
                        continue;
                    }
                    let bytes = match src.read_file(&e.path, MAX_ARTIFACT_BYTES) {
                        Ok((_, b)) => b,
                        Err(err) => {
                            problems.push(format!(
                                "{}: cannot read {} ({})",
                                dir.display(),
                                e.path,
                                err.message
                            ));
                            continue;
                        }
                    };
                    let res = dest
                        .prepare_write(&e.path)
                        .and_then(|t| t.write(&bytes, Overwrite::Replace));
                    match res {
                        Ok(_) => {
                            written.insert(e.path.clone(), e.sha256.clone());
                            copied += 1;
                        }
                        Err(err) => problems.push(format!("{}: {}", e.path, err.message)),
                    }
                }
            }
        }
    }
    if problems.is_empty() {
        Ok(copied)
    } else {
        Err(MergeError(problems))
    }
}
