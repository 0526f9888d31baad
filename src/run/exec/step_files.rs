//! Files named by steps land in the run (a flow-level behaviour): a `screenshot` step whose
//! `local_path` is relative writes under the run's `artifacts/<device>/<flow>/`, and the file
//! is listed as the step's evidence (so in `manifest.json`, with its SHA-256, and in the
//! reports). An absolute path is left to the host-path policy; a bare tool call resolves a
//! relative path as the reference says.

use std::path::Path;

use serde_json::Value;
use sha2::{Digest, Sha256};

use super::FlowRun;
use crate::run::evidence::safe_name;
use crate::run::result::EvidenceRef;

/// The tool whose file a flow keeps in the run.
const FILE_TOOL: &str = "screenshot";
/// Its parameter naming the file (and the result field with the file written).
const FILE_PARAM: &str = "local_path";

impl FlowRun<'_, '_> {
    /// The step's arguments with a relative `local_path` moved under the run's artifacts.
    pub(super) fn step_file(&self, tool: &str, args: &Value) -> Option<Value> {
        if tool != FILE_TOOL {
            return None;
        }
        let col = self.dev.evidence?;
        let given = args.get(FILE_PARAM)?.as_str()?.trim();
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
        out[FILE_PARAM] = Value::String(path.display().to_string());
        Some(out)
    }

    /// The file a passed step wrote inside the run directory, as evidence.
    pub(super) fn step_file_evidence(&self, tool: &str, result: &Value) -> Option<EvidenceRef> {
        if tool != FILE_TOOL {
            return None;
        }
        let run_dir = self.dev.evidence?.run_dir();
        let written = Path::new(result.get(FILE_PARAM)?.as_str()?);
        let rel = written.strip_prefix(&run_dir).ok()?;
        let bytes = std::fs::read(written).ok()?;
        let rel = rel.to_string_lossy().replace('\\', "/");
        serde_json::from_value(serde_json::json!({
            "kind": "screenshot",
            "path": rel,
            "sha256": format!("{:x}", Sha256::digest(&bytes)),
            "bytes": bytes.len() as u64,
        }))
        .ok()
    }
}
