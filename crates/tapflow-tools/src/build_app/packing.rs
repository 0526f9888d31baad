//! Repacking a HAP with `app_packing_tool.jar --mode hap` (docs/reference/hap-packing.md §2, §5.6–5.9, §6.4–6.6):
//! the hvigor intermediates it needs, staging HSP/HNP files, merging `pack.info`, the command line, and
//! checking the finished package.

use std::io::Read;
use std::path::{Path, PathBuf};

use regex::Regex;
use serde_json::{Value, json};
use std::sync::LazyLock;

use super::artifacts::{module_build_dir, module_outputs_dir};
use super::config::ToolContext;
use super::error::{BuildError, Flow, codes};
use super::process::{self, Invocation};

/// The hvigor intermediates a hap-mode repack reads, under `<module_root>/build/<product>/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackInputs {
    pub module_json: PathBuf,
    pub resources: PathBuf,
    pub ets: PathBuf,
    pub resources_index: PathBuf,
    pub pack_info: PathBuf,
    pub pkg_context: PathBuf,
    /// `intermediates/libs/<product>`, passed as `--lib-path` only when it exists.
    pub libs: Option<PathBuf>,
}

impl PackInputs {
    /// Locates the six required inputs; any missing → `<P>_PACKAGING_INPUT_MISSING` listing them.
    pub fn locate(flow: Flow, module_root: &Path, product: &str) -> Result<Self, BuildError> {
        let b = module_build_dir(module_root, product);
        let im = b.join("intermediates");
        let inputs = Self {
            module_json: im.join("package").join(product).join("module.json"),
            resources: im.join("res").join(product).join("resources"),
            ets: im.join("loader_out").join(product).join("ets"),
            resources_index: im.join("res").join(product).join("resources.index"),
            pack_info: module_outputs_dir(module_root, product).join("pack.info"),
            pkg_context: im.join("loader").join(product).join("pkgContextInfo.json"),
            libs: Some(im.join("libs").join(product)).filter(|p| p.is_dir()),
        };
        let missing: Vec<String> = [
            &inputs.module_json,
            &inputs.resources,
            &inputs.ets,
            &inputs.resources_index,
            &inputs.pack_info,
            &inputs.pkg_context,
        ]
        .into_iter()
        .filter(|p| !p.exists())
        .map(|p| p.display().to_string())
        .collect();
        if !missing.is_empty() {
            return Err(BuildError::with_details(
                flow.packaging_input_missing(),
                format!(
                    "{} packaging inputs were not found: {}",
                    flow.name(),
                    missing.join(", ")
                ),
                json!({"missing": missing}),
            ));
        }
        Ok(inputs)
    }
}

/// Empties (or creates) `dir`. Refuses anything outside `within`, so a bad path can never wipe a tree.
pub fn reset_dir(flow: Flow, dir: &Path, within: &Path) -> Result<(), BuildError> {
    let io = |e: std::io::Error| {
        BuildError::new(
            flow.repack_error(),
            format!("failed to prepare {}: {e}", dir.display()),
        )
    };
    if !dir.starts_with(within)
        || dir
            .components()
            .any(|c| matches!(c, std::path::Component::ParentDir))
    {
        return Err(BuildError::new(
            flow.repack_error(),
            format!(
                "refusing to stage outside the module root: {}",
                dir.display()
            ),
        ));
    }
    if dir.exists() {
        std::fs::remove_dir_all(dir).map_err(io)?;
    }
    std::fs::create_dir_all(dir).map_err(io)
}

/// Copies `src` (file or directory tree) into `dest_dir`.
pub fn copy_into(flow: Flow, src: &Path, dest_dir: &Path) -> Result<(), BuildError> {
    let io = |e: std::io::Error| {
        BuildError::new(
            flow.repack_error(),
            format!("failed to stage {}: {e}", src.display()),
        )
    };
    let name = src.file_name().ok_or_else(|| {
        BuildError::new(
            flow.repack_error(),
            format!("nothing to stage at {}", src.display()),
        )
    })?;
    if src.is_file() {
        std::fs::copy(src, dest_dir.join(name)).map_err(io)?;
        return Ok(());
    }
    for entry in walkdir::WalkDir::new(src)
        .into_iter()
        .filter_map(Result::ok)
    {
        let rel = entry.path().strip_prefix(src).unwrap_or(entry.path());
        let target = dest_dir.join(name).join(rel);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).map_err(io)?;
        } else if entry.file_type().is_file() {
            std::fs::copy(entry.path(), &target).map_err(io)?;
        }
    }
    Ok(())
}

/// Merges the `pack.info` of each HSP into the base one: `summary.modules[]` de-duplicated by
/// `distro.moduleName`, `packages[]` by `name`. Writes compact JSON to `out`.
pub fn merge_pack_info(base: &Path, hsps: &[PathBuf], out: &Path) -> Result<(), BuildError> {
    let err = |msg: String| BuildError::new(codes::HSP_PACK_INFO_ERROR, msg);
    let text = std::fs::read_to_string(base)
        .map_err(|e| err(format!("failed to read base pack.info: {e}")))?;
    let mut merged: Value = serde_json::from_str(&text)
        .map_err(|e| err(format!("failed to read base pack.info: {e}")))?;
    if !merged.is_object() {
        return Err(err(
            "failed to read base pack.info: not a JSON object".into()
        ));
    }
    for hsp in hsps {
        let info = read_pack_info_from_zip(hsp).map_err(|e| {
            err(format!(
                "failed to read pack.info from HSP {}: {e}",
                hsp.display()
            ))
        })?;
        append_unique(&mut merged, &info, &["summary", "modules"], |m| {
            m.pointer("/distro/moduleName").cloned()
        });
        append_unique(&mut merged, &info, &["packages"], |p| {
            p.get("name").cloned()
        });
    }
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| err(format!("failed to write merged pack.info: {e}")))?;
    }
    std::fs::write(out, serde_json::to_vec(&merged).unwrap_or_default())
        .map_err(|e| err(format!("failed to write merged pack.info: {e}")))
}

fn read_pack_info_from_zip(path: &Path) -> Result<Value, String> {
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut zip = zip::ZipArchive::new(file).map_err(|e| format!("not a zip archive: {e}"))?;
    let mut entry = zip
        .by_name("pack.info")
        .map_err(|e| format!("no pack.info entry: {e}"))?;
    let mut text = String::new();
    entry.read_to_string(&mut text).map_err(|e| e.to_string())?;
    serde_json::from_str(&text).map_err(|e| format!("invalid JSON: {e}"))
}

fn append_unique(
    into: &mut Value,
    from: &Value,
    path: &[&str],
    key: impl Fn(&Value) -> Option<Value>,
) {
    let Some(items) = path
        .iter()
        .try_fold(from, |v, k| v.get(k))
        .and_then(Value::as_array)
    else {
        return;
    };
    let mut cursor = &mut *into;
    for (i, k) in path.iter().enumerate() {
        let last = i + 1 == path.len();
        if !cursor.is_object() {
            *cursor = json!({});
        }
        cursor = cursor
            .as_object_mut()
            .expect("made an object")
            .entry(k.to_string())
            .or_insert_with(|| if last { json!([]) } else { json!({}) });
    }
    let Some(target) = cursor.as_array_mut() else {
        return;
    };
    for item in items {
        let k = key(item);
        if k.is_some() && target.iter().any(|t| key(t) == k) {
            continue;
        }
        target.push(item.clone());
    }
}

/// What the repack adds besides the base HAP's own content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Extra {
    /// `--shared-libs-path <dir>`: lands under `shared_libs/`.
    SharedLibs(PathBuf),
    /// `--hnp-path <dir>`: lands under `hnp/`.
    Hnp(PathBuf),
}

/// The `java -jar app_packing_tool.jar --mode hap …` line (§5.9).
pub fn repack_invocation(
    tools: &ToolContext,
    inputs: &PackInputs,
    pack_info: &Path,
    extra: &Extra,
    out: &Path,
) -> Invocation {
    let tc = tools.toolchain;
    let mut inv = Invocation::new(&tc.java, tools.cwd)
        .arg("-jar")
        .arg(tc.packing_jar.clone().into_os_string())
        .args(["--mode", "hap", "--json-path"])
        .arg(inputs.module_json.clone().into_os_string())
        .arg("--resources-path")
        .arg(inputs.resources.clone().into_os_string())
        .arg("--ets-path")
        .arg(inputs.ets.clone().into_os_string())
        .arg("--out-path")
        .arg(out.as_os_str().to_owned());
    inv = match extra {
        Extra::SharedLibs(d) => inv
            .arg("--shared-libs-path")
            .arg(d.clone().into_os_string()),
        Extra::Hnp(d) => inv.arg("--hnp-path").arg(d.clone().into_os_string()),
    };
    inv = inv
        .arg("--index-path")
        .arg(inputs.resources_index.clone().into_os_string())
        .arg("--pack-info-path")
        .arg(pack_info.as_os_str().to_owned())
        .arg("--pkg-context-path")
        .arg(inputs.pkg_context.clone().into_os_string())
        .args(["--force", "true"]);
    if let Some(libs) = &inputs.libs {
        inv = inv.arg("--lib-path").arg(libs.clone().into_os_string());
    }
    inv.env = tools.cfg.child_env();
    inv
}

static BUNDLE_TOOL_ERROR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"Ohos BundleTool \[Error\]:\s*(.*)").unwrap());

/// Runs the repack. Success = exit 0 and the output file exists (the tool prints nothing on success).
pub fn repack(
    flow: Flow,
    tools: &ToolContext,
    inv: &Invocation,
    out: &Path,
) -> Result<(), BuildError> {
    let _ = std::fs::remove_file(out);
    let f = process::run(inv, tools.deadline).map_err(|e| {
        BuildError::new(
            flow.repack_error(),
            format!(
                "failed to start {} for app_packing_tool.jar: {e}",
                tools.toolchain.java.display()
            ),
        )
    })?;
    if f.timed_out() {
        return Err(BuildError::new(
            flow.repack_timeout(),
            "app_packing_tool.jar did not finish within the build budget",
        ));
    }
    let output = f.combined();
    let tool_errors: Vec<String> = output
        .lines()
        .filter_map(|l| BUNDLE_TOOL_ERROR.captures(l))
        .map(|c| c[1].trim().to_string())
        .collect();
    let exit_code = f.status.and_then(|s| s.code());
    if !f.success() || !out.is_file() {
        let why = match (f.success(), tool_errors.first()) {
            (true, _) => "exit 0 but no output file was written".to_string(),
            (false, Some(first)) => first.clone(),
            (false, None) => format!("exit status {exit_code:?}"),
        };
        return Err(BuildError::with_details(
            flow.repack_failed(),
            format!("app_packing_tool.jar --mode hap failed: {why}"),
            json!({"exit_code": exit_code, "tool_errors": tool_errors, "output_tail": super::hvigor_run::tail(&output), "command": inv.argv()}),
        ));
    }
    Ok(())
}

/// The finished package must contain an entry `<prefix>…<suffix>` (`shared_libs/*.hsp`, `hnp/*.hnp`).
pub fn verify_contains(
    flow: Flow,
    hap: &Path,
    prefix: &str,
    suffix: &str,
) -> Result<(), BuildError> {
    let fail = || {
        BuildError::new(
            flow.not_in_hap(),
            format!(
                "signed HAP does not contain {prefix}*{suffix}: {}",
                hap.display()
            ),
        )
    };
    let file = std::fs::File::open(hap).map_err(|_| fail())?;
    let zip = zip::ZipArchive::new(file).map_err(|_| fail())?;
    if zip
        .file_names()
        .any(|n| n.starts_with(prefix) && n.ends_with(suffix))
    {
        Ok(())
    } else {
        Err(fail())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn zip_with(path: &Path, entries: &[(&str, &str)]) {
        let mut w = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
        for (n, c) in entries {
            w.start_file(*n, zip::write::SimpleFileOptions::default())
                .unwrap();
            w.write_all(c.as_bytes()).unwrap();
        }
        w.finish().unwrap();
    }

    #[test]
    fn pack_info_merge_deduplicates() {
        let d = tempfile::tempdir().unwrap();
        let base = d.path().join("pack.info");
        std::fs::write(&base, r#"{"summary":{"app":{"bundleName":"com.x"},"modules":[{"distro":{"moduleName":"entry"}}]},"packages":[{"name":"entry-default"}]}"#).unwrap();
        let hsp = d.path().join("lib.hsp");
        let info = r#"{"summary":{"modules":[{"distro":{"moduleName":"lib"}},{"distro":{"moduleName":"entry"}}]},"packages":[{"name":"lib-default"},{"name":"entry-default"}]}"#;
        zip_with(&hsp, &[("pack.info", info)]);
        let out = d.path().join("merged/pack.info");
        merge_pack_info(&base, &[hsp.clone(), hsp], &out).unwrap();
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        assert_eq!(v["summary"]["modules"].as_array().unwrap().len(), 2);
        assert_eq!(
            v["packages"],
            json!([{"name": "entry-default"}, {"name": "lib-default"}])
        );
        assert_eq!(v["summary"]["app"]["bundleName"], "com.x");
    }

    #[test]
    fn pack_info_errors() {
        let d = tempfile::tempdir().unwrap();
        let out = d.path().join("o/pack.info");
        let e = merge_pack_info(&d.path().join("nope"), &[], &out).unwrap_err();
        assert_eq!(e.code, codes::HSP_PACK_INFO_ERROR);
        assert!(e.message.starts_with("failed to read base pack.info"));
        let base = d.path().join("pack.info");
        std::fs::write(&base, "{}").unwrap();
        let not_zip = d.path().join("x.hsp");
        std::fs::write(&not_zip, "plain").unwrap();
        let e = merge_pack_info(&base, &[not_zip], &out).unwrap_err();
        assert!(
            e.message.starts_with("failed to read pack.info from HSP"),
            "{}",
            e.message
        );
    }

    #[test]
    fn verify_and_reset_guards() {
        let d = tempfile::tempdir().unwrap();
        let hap = d.path().join("a.hap");
        zip_with(&hap, &[("module.json", "{}"), ("shared_libs/lib.hsp", "z")]);
        verify_contains(Flow::Hsp, &hap, "shared_libs/", ".hsp").unwrap();
        assert_eq!(
            verify_contains(Flow::Hnp, &hap, "hnp/", ".hnp")
                .unwrap_err()
                .code,
            codes::HNP_NOT_IN_HAP
        );
        assert_eq!(
            reset_dir(Flow::Hsp, Path::new("/tmp/elsewhere"), d.path())
                .unwrap_err()
                .code,
            codes::HSP_REPACK_ERROR
        );
        let stage = d.path().join("stage");
        std::fs::create_dir_all(stage.join("old")).unwrap();
        reset_dir(Flow::Hsp, &stage, d.path()).unwrap();
        assert_eq!(std::fs::read_dir(&stage).unwrap().count(), 0);
    }

    #[test]
    fn inputs_missing_lists_paths() {
        let d = tempfile::tempdir().unwrap();
        let e = PackInputs::locate(Flow::Hnp, d.path(), "default").unwrap_err();
        assert_eq!(e.code, codes::HNP_PACKAGING_INPUT_MISSING);
        assert_eq!(e.details["missing"].as_array().unwrap().len(), 6);
        assert!(
            e.message
                .starts_with("HNP packaging inputs were not found: ")
        );
    }
}
