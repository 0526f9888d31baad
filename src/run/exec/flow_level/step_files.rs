//! Files named by steps land in the run (a flow-level behaviour): a step of a tool that writes
//! a file ([`StepFile`]: `screenshot`'s `local_path`) and names it relatively writes under the
//! run's `artifacts/<device>/<flow>/`, and the file is listed as the step's evidence (so in
//! `manifest.json`, with its SHA-256, and in the reports). An absolute path is left to the
//! host-path policy; a bare tool call resolves a relative path as the reference says.

use std::path::Path;

use serde_json::Value;
use sha2::{Digest, Sha256};
use tapflow_tools::flow_hooks::StepFile;

use super::super::FlowRun;
use crate::run::evidence::safe_name;
use crate::run::result::EvidenceRef;

impl FlowRun<'_, '_> {
    /// The step's arguments with a relative file path moved under the run's artifacts.
    pub(super) fn file_in_run(&self, f: &StepFile, args: &Value) -> Option<Value> {
        let col = self.dev.evidence?;
        let given = args.get(f.param)?.as_str()?.trim();
        if given.is_empty() || Path::new(given).is_absolute() {
            return None;
        }
        let path = col
            .run_dir()
            .join("artifacts")
            .join(safe_name(&self.dev.serial))
            .join(safe_name(&self.fp.id))
            .join(given.trim_start_matches("./"));
        let mut out = args.clone();
        out[f.param] = Value::String(path.display().to_string());
        Some(out)
    }

    /// The file a passed step wrote inside the run directory, as evidence.
    pub(super) fn file_evidence(&self, f: &StepFile, result: &Value) -> Option<EvidenceRef> {
        let run_dir = self.dev.evidence?.run_dir();
        let written = Path::new(result.get(f.param)?.as_str()?);
        let rel = written.strip_prefix(&run_dir).ok()?;
        let bytes = std::fs::read(written).ok()?;
        let rel = rel.to_string_lossy().replace('\\', "/");
        serde_json::from_value(serde_json::json!({
            "kind": f.evidence,
            "path": rel,
            "sha256": format!("{:x}", Sha256::digest(&bytes)),
            "bytes": bytes.len() as u64,
        }))
        .ok()
    }
}
