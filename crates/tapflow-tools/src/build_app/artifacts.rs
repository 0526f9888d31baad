//! Finding what a successful hvigor run produced, per target, and saying how it was found.
//!
//! Layout (docs/reference/hdc.md §11): `<module>/build/<product>/outputs/<product>/<module>-<product>-signed.hap`
//! (`-unsigned.hap` when the product has no signing config), `<module>-<product>-signed.hsp`,
//! `<module>.har`, and `build/outputs/<product>/<project>-<product>-signed.app` at the project root.
//! HAP builds also leave `intermediates/hap_metadata/<product>/output_metadata.json`, a list of
//! `{ "hapName": … }` objects naming the HAP(s) in the outputs directory; it is tried first.
//! hvigor only reports success once outputs are current (rebuilt or up to date), so no freshness check.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::params::Target;
use super::project::{Project, SKIP_DIRS, files_under};
use super::result::{ArtifactSource, SignStatus};

/// A located artifact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Artifact {
    pub path: PathBuf,
    pub source: ArtifactSource,
    pub sign_status: SignStatus,
}

/// `<module_root>/build/<product>`.
pub fn module_build_dir(module_root: &Path, product: &str) -> PathBuf {
    module_root.join("build").join(product)
}

/// `<module_root>/build/<product>/outputs/<product>`.
pub fn module_outputs_dir(module_root: &Path, product: &str) -> PathBuf {
    module_build_dir(module_root, product)
        .join("outputs")
        .join(product)
}

/// Signing state read from the file name, as hvigor names its outputs.
pub fn sign_status_of(path: &Path, target: Target) -> SignStatus {
    if target == Target::Har {
        return SignStatus::NotApplicable;
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    if name.contains("unsigned") {
        SignStatus::Unsigned
    } else if name.contains("signed") {
        SignStatus::Signed
    } else {
        SignStatus::Unknown
    }
}

/// The module whose HAP a `hap`/`hnp` build reports: the requested one, else the first `entry`-typed
/// module of the profile, else `entry`.
pub fn default_hap_module(project: &Project, requested: Option<&str>) -> String {
    if let Some(m) = requested {
        return m.to_string();
    }
    project
        .modules()
        .into_iter()
        .find(|m| Project::module_type(&m.root).as_deref() == Some("entry"))
        .map(|m| m.name)
        .unwrap_or_else(|| "entry".to_string())
}

/// Finds the artifact of `target` for `module` (ignored for `app`).
pub fn find(project: &Project, target: Target, product: &str, module: &str) -> Option<Artifact> {
    let make = |path: PathBuf, source| Artifact {
        sign_status: sign_status_of(&path, target),
        path,
        source,
    };
    if target == Target::App {
        let dir = project.root.join("build/outputs").join(product);
        let name = project
            .root
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        for suffix in ["signed", "unsigned"] {
            let p = dir.join(format!("{name}-{product}-{suffix}.app"));
            if p.is_file() {
                return Some(make(p, ArtifactSource::ConventionalPath));
            }
        }
        return scan(&project.root.join("build/outputs"), "app")
            .map(|p| make(p, ArtifactSource::Scan));
    }
    let module_root = project.module_root(module)?;
    let outputs = module_outputs_dir(&module_root, product);
    let ext = match target {
        Target::Hap | Target::Hnp => "hap",
        Target::Hsp => "hsp",
        Target::Har => "har",
        Target::App => unreachable!("handled above"),
    };
    if ext == "hap"
        && let Some(p) = from_metadata(&module_root, product)
    {
        return Some(make(p, ArtifactSource::Metadata));
    }
    let conventional: Vec<PathBuf> = if target == Target::Har {
        vec![outputs.join(format!("{module}.har"))]
    } else {
        ["signed", "unsigned"]
            .iter()
            .map(|s| outputs.join(format!("{module}-{product}-{s}.{ext}")))
            .collect()
    };
    if let Some(p) = conventional.into_iter().find(|p| p.is_file()) {
        return Some(make(p, ArtifactSource::ConventionalPath));
    }
    scan(
        &module_root.join("build").join(product).join("outputs"),
        ext,
    )
    .map(|p| make(p, ArtifactSource::Scan))
}

fn from_metadata(module_root: &Path, product: &str) -> Option<PathBuf> {
    let meta = module_build_dir(module_root, product)
        .join("intermediates/hap_metadata")
        .join(product)
        .join("output_metadata.json");
    let value: Value = serde_json::from_str(&std::fs::read_to_string(meta).ok()?).ok()?;
    let outputs = module_outputs_dir(module_root, product);
    let mut names: Vec<&str> = value
        .as_array()?
        .iter()
        .filter_map(|i| i.get("hapName")?.as_str())
        .collect();
    // Prefer a signed HAP when the metadata lists both.
    names.sort_by_key(|n| n.contains("unsigned"));
    names
        .into_iter()
        .filter(|n| !n.contains('/') && !n.contains('\\'))
        .map(|n| outputs.join(n))
        .find(|p| p.is_file())
}

/// Newest-signed-first pick among `*.<ext>` under `dir`, skipping test packages (`ohosTest`).
fn scan(dir: &Path, ext: &str) -> Option<PathBuf> {
    let mut found: Vec<(bool, std::time::SystemTime, PathBuf)> =
        files_under(dir, 4, &SKIP_DIRS[..2])
            .filter(|p| p.extension().is_some_and(|x| x == ext))
            .filter(|p| !p.to_string_lossy().to_lowercase().contains("ohostest"))
            .map(|p| {
                let unsigned = p
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().contains("unsigned"));
                let mtime = p
                    .metadata()
                    .and_then(|m| m.modified())
                    .unwrap_or(std::time::UNIX_EPOCH);
                (unsigned, mtime, p)
            })
            .collect();
    found.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    found.into_iter().next().map(|(_, _, p)| p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build_app::project::test_files::touch;

    #[test]
    fn hap_prefers_metadata_then_conventional_then_scan() {
        let d = tempfile::tempdir().unwrap();
        let project = Project::open(d.path());
        let out = d.path().join("entry/build/default/outputs/default");
        assert_eq!(find(&project, Target::Hap, "default", "entry"), None);
        touch(&out.join("sub/odd-name.hap"));
        let a = find(&project, Target::Hap, "default", "entry").unwrap();
        assert_eq!(
            (a.source, a.sign_status),
            (ArtifactSource::Scan, SignStatus::Unknown)
        );
        touch(&out.join("entry-default-unsigned.hap"));
        let a = find(&project, Target::Hap, "default", "entry").unwrap();
        assert_eq!(
            (a.source, a.sign_status),
            (ArtifactSource::ConventionalPath, SignStatus::Unsigned)
        );
        touch(&out.join("entry-default-signed.hap"));
        assert_eq!(
            find(&project, Target::Hap, "default", "entry")
                .unwrap()
                .sign_status,
            SignStatus::Signed
        );
        let meta = d
            .path()
            .join("entry/build/default/intermediates/hap_metadata/default/output_metadata.json");
        touch(&meta);
        std::fs::write(&meta, r#"[{"hapName":"entry-default-unsigned.hap"}]"#).unwrap();
        let a = find(&project, Target::Hap, "default", "entry").unwrap();
        assert_eq!(
            (a.source, a.path.clone()),
            (
                ArtifactSource::Metadata,
                out.join("entry-default-unsigned.hap")
            )
        );
    }

    #[test]
    fn har_hsp_and_app_paths() {
        let d = tempfile::tempdir().unwrap();
        let project = Project::open(d.path());
        touch(&d.path().join("lib/build/default/outputs/default/lib.har"));
        let a = find(&project, Target::Har, "default", "lib").unwrap();
        assert_eq!(a.sign_status, SignStatus::NotApplicable);
        touch(
            &d.path()
                .join("sh/build/default/outputs/default/sh-default-signed.hsp"),
        );
        assert_eq!(
            find(&project, Target::Hsp, "default", "sh")
                .unwrap()
                .sign_status,
            SignStatus::Signed
        );
        let name = d.path().file_name().unwrap().to_string_lossy().into_owned();
        let app = d
            .path()
            .join(format!("build/outputs/default/{name}-default-signed.app"));
        touch(&app);
        assert_eq!(
            find(&project, Target::App, "default", "ignored")
                .unwrap()
                .path,
            app
        );
    }

    #[test]
    fn scan_skips_test_packages() {
        let d = tempfile::tempdir().unwrap();
        touch(
            &d.path()
                .join("entry/build/default/outputs/ohosTest/entry-ohosTest-signed.hap"),
        );
        assert_eq!(
            find(&Project::open(d.path()), Target::Hap, "default", "entry"),
            None
        );
    }
}
