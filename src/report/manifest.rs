//! `manifest.json`: every artifact of a run with its run, device, flow, step id, pass, kind,
//! size and SHA-256, rendered from the evidence references in `result.json` (hashed when each
//! file was written), and `tapflow report --verify`: every listed file must exist under the
//! run directory with that size and hash, no path may be listed twice, and every artifact
//! `result.json` names must be listed.

use std::collections::BTreeSet;
use std::io::Read;
use std::path::Path;

use sha2::{Digest, Sha256};

use super::walk;
use crate::run::evidence::{Manifest, ManifestEntry};
use crate::run::result::RunResult;
use tapflow_device::hostfs::PathPolicy;

/// The manifest of a run (artifacts in result order).
pub fn build(r: &RunResult) -> Manifest {
    let mut artifacts = Vec::new();
    for f in &r.flows {
        for v in walk::steps(f) {
            for e in &v.step.evidence {
                artifacts.push(ManifestEntry {
                    path: e.path.clone(),
                    kind: e.kind.clone(),
                    run_id: f.run_id.clone().unwrap_or_else(|| r.run_id.clone()),
                    device: f.device.clone().unwrap_or_default(),
                    flow: f.id.clone(),
                    step: v.step.id.clone(),
                    pass: e.pass.clone(),
                    sha256: e.sha256.clone(),
                    bytes: e.bytes,
                });
            }
        }
    }
    Manifest {
        run_id: r.run_id.clone(),
        artifacts,
    }
}

/// One thing `--verify` found wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub path: String,
    pub what: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.what)
    }
}

/// Hashes a file under the run directory (streaming: screenshots and logs can be large).
fn hash_file(policy: &PathPolicy, rel: &str) -> Result<(String, u64), String> {
    let real = policy
        .check_existing(rel, tapflow_device::hostfs::Expect::File)
        .map_err(|e| e.message)?;
    let mut file = std::fs::File::open(&real).map_err(|e| format!("cannot open: {e}"))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    let mut total = 0u64;
    loop {
        let n = file
            .read(&mut buf)
            .map_err(|e| format!("cannot read: {e}"))?;
        if n == 0 {
            break;
        }
        total += n as u64;
        hasher.update(&buf[..n]);
    }
    Ok((hex::encode(hasher.finalize()), total))
}

/// Checks the manifest against the files under `run_dir` and against the result.
pub fn verify(run_dir: &Path, manifest: &Manifest, result: Option<&RunResult>) -> Vec<Problem> {
    let policy = PathPolicy::new(run_dir, [run_dir.to_path_buf()]);
    let mut problems = Vec::new();
    let mut seen = BTreeSet::new();
    for e in &manifest.artifacts {
        if !seen.insert(e.path.clone()) {
            problems.push(Problem {
                path: e.path.clone(),
                what: "listed more than once".into(),
            });
            continue;
        }
        match hash_file(&policy, &e.path) {
            Err(why) => problems.push(Problem {
                path: e.path.clone(),
                what: format!("missing or unreadable ({why})"),
            }),
            Ok((sha, bytes)) => {
                if sha != e.sha256 {
                    problems.push(Problem {
                        path: e.path.clone(),
                        what: format!("SHA-256 is {sha}, the manifest says {}", e.sha256),
                    });
                } else if bytes != e.bytes {
                    problems.push(Problem {
                        path: e.path.clone(),
                        what: format!("{bytes} bytes, the manifest says {}", e.bytes),
                    });
                }
            }
        }
    }
    if let Some(r) = result {
        for e in build(r).artifacts {
            if !seen.contains(&e.path) {
                problems.push(Problem {
                    path: e.path,
                    what: "named in result.json but not in the manifest".into(),
                });
            }
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(path: &str, bytes: &[u8]) -> ManifestEntry {
        ManifestEntry {
            path: path.into(),
            kind: "screenshot".into(),
            run_id: "r".into(),
            device: "d".into(),
            flow: "f".into(),
            step: "f.1".into(),
            pass: None,
            sha256: hex::encode(Sha256::digest(bytes)),
            bytes: bytes.len() as u64,
        }
    }

    #[test]
    fn finds_missing_changed_and_duplicate_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("artifacts")).unwrap();
        std::fs::write(dir.path().join("artifacts/a.png"), b"aaa").unwrap();
        std::fs::write(dir.path().join("artifacts/b.png"), b"changed").unwrap();
        let m = Manifest {
            run_id: "r".into(),
            artifacts: vec![
                entry("artifacts/a.png", b"aaa"),
                entry("artifacts/b.png", b"bbb"),
                entry("artifacts/c.png", b"ccc"),
                entry("artifacts/a.png", b"aaa"),
            ],
        };
        let p = verify(dir.path(), &m, None);
        let paths: Vec<&str> = p.iter().map(|p| p.path.as_str()).collect();
        assert_eq!(
            paths,
            ["artifacts/b.png", "artifacts/c.png", "artifacts/a.png"],
            "{p:?}"
        );
        assert!(p[0].what.contains("SHA-256"));
        assert!(p[1].what.contains("missing"));
        assert!(p[2].what.contains("more than once"));
        let ok = Manifest {
            run_id: "r".into(),
            artifacts: vec![entry("artifacts/a.png", b"aaa")],
        };
        assert!(verify(dir.path(), &ok, None).is_empty());
    }
}
