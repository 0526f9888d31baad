//! `target="hnp"` (docs/reference/hap-packing.md §6): build the base HAP, stage the module's prebuilt `.hnp`
//! packages (an `hnp/` root with ABI folders), repack with `--hnp-path`, sign and verify.
//! Project-local build scripts (`.sh`, `.bat`, `.ps1`) are never run.

use std::path::{Path, PathBuf};

use super::error::{BuildError, Flow, codes};
use super::packing::{self, Extra, PackInputs};
use super::project::{SKIP_DIRS, files_under};
use super::repack::{BaseHap, Repacker};
use super::run::{Ctx, FlowOutput};

const ABI_DIRS: &[&str] = &["arm64-v8a", "armeabi-v7a", "x86_64", "x86"];

pub fn run(ctx: &Ctx) -> Result<FlowOutput, BuildError> {
    let req = ctx.req;
    let flow = Flow::Hnp;
    let base = BaseHap::of(ctx);
    let hnp_root = find_hnp_root(&base.root, &req.project).ok_or_else(|| {
        BuildError::new(
            codes::HNP_PACKAGE_NOT_FOUND,
            format!(
                "target=hnp requires built HNP packages under a module hnp directory, for example {} containing ABI subdirectories with .hnp files",
                base.root.join("hnp").display()
            ),
        )
    })?;
    let repacker = Repacker::prepare(ctx, flow)?;

    repacker.build_base(ctx)?;
    let inputs = PackInputs::locate(flow, &base.root, &req.product)?;
    let native = base.outputs_dir(&req.product).join("native");
    packing::reset_dir(flow, &native, &base.root)?;
    let children = std::fs::read_dir(&hnp_root).map_err(|e| {
        BuildError::new(
            flow.repack_error(),
            format!("failed to read {}: {e}", hnp_root.display()),
        )
    })?;
    for child in children.filter_map(Result::ok) {
        packing::copy_into(flow, &child.path(), &native)?;
    }

    let artifact = repacker.run(ctx, &base, &inputs, &inputs.pack_info, &Extra::Hnp(native))?;
    Ok(FlowOutput {
        artifact,
        hsp_output_paths: Vec::new(),
        hsp_module_names: None,
    })
}

/// The HNP root: the first of `<module>/hnp`, `<module>/src/main/hnp`, `<project>/hnp` holding any
/// `.hnp`; else the first `.hnp` under the module, then the project, decides (its ABI folder's parent,
/// or its own folder).
pub fn find_hnp_root(module_root: &Path, project: &Path) -> Option<PathBuf> {
    for cand in [
        module_root.join("hnp"),
        module_root.join("src/main/hnp"),
        project.join("hnp"),
    ] {
        if first_hnp(&cand).is_some() {
            return Some(cand);
        }
    }
    let file = first_hnp(module_root).or_else(|| first_hnp(project))?;
    let parent = file.parent()?;
    let is_abi = parent
        .file_name()
        .is_some_and(|n| ABI_DIRS.contains(&n.to_string_lossy().as_ref()));
    if is_abi {
        parent.parent().map(Path::to_path_buf)
    } else {
        Some(parent.to_path_buf())
    }
}

fn first_hnp(dir: &Path) -> Option<PathBuf> {
    if !dir.is_dir() {
        return None;
    }
    let mut files: Vec<PathBuf> = files_under(dir, 8, SKIP_DIRS)
        .filter(|p| p.extension().is_some_and(|x| x == "hnp"))
        .collect();
    files.sort();
    files.into_iter().next()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build_app::project::test_files::touch;

    #[test]
    fn hnp_root_candidates_and_abi_rule() {
        let d = tempfile::tempdir().unwrap();
        let m = d.path().join("entry");
        assert_eq!(find_hnp_root(&m, d.path()), None);
        touch(&m.join("native/out/x86_64/a.hnp"));
        assert_eq!(find_hnp_root(&m, d.path()), Some(m.join("native/out")));
        touch(&m.join("build/default/hnp/ignored.hnp"));
        touch(&d.path().join("hnp/arm64-v8a/b.hnp"));
        assert_eq!(find_hnp_root(&m, d.path()), Some(d.path().join("hnp")));
        touch(&m.join("hnp/arm64-v8a/python.hnp"));
        assert_eq!(find_hnp_root(&m, d.path()), Some(m.join("hnp")));
    }
}
