//! `target="hap", include_hsp=true` (docs/reference/hap-packing.md §5): build the base HAP and each shared
//! module, stage the HSPs into `shared_libs/`, merge their `pack.info`, repack, sign and verify.
//!
//! Unlike the reference we check the cheap preconditions (module list, signing material, SDK jars) before
//! any hvigor run, so a missing jar is reported in a second, not after a two-minute build.

use super::artifacts;
use super::error::{BuildError, Flow, codes};
use super::packing::{self, Extra, PackInputs};
use super::params::Target;
use super::project::Project;
use super::repack::{BaseHap, Repacker};
use super::run::{Ctx, FlowOutput, clean_and_assemble};

pub fn run(ctx: &Ctx) -> Result<FlowOutput, BuildError> {
    let req = ctx.req;
    let flow = Flow::Hsp;
    let hsp_modules = select_modules(ctx)?;
    let repacker = Repacker::prepare(ctx, flow)?;

    repacker.build_base(ctx)?;
    let mut hsp_paths = Vec::new();
    for m in &hsp_modules {
        clean_and_assemble(
            ctx,
            Target::Hsp,
            Some(m),
            &format!("build hsp {m}"),
            codes::HSP_BUILD_FAILED,
        )?;
        let found =
            artifacts::find(&ctx.project, Target::Hsp, &req.product, m).ok_or_else(|| {
                BuildError::new(
                    codes::HSP_OUTPUT_NOT_FOUND,
                    format!("assembleHsp succeeded but no .hsp was found for module {m:?}"),
                )
            })?;
        hsp_paths.push(found.path);
    }

    let base = BaseHap::of(ctx);
    let inputs = PackInputs::locate(flow, &base.root, &req.product)?;
    let outputs = base.outputs_dir(&req.product);
    let shared_libs = outputs.join("shared_libs");
    packing::reset_dir(flow, &shared_libs, &base.root)?;
    for p in &hsp_paths {
        packing::copy_into(flow, p, &shared_libs)?;
    }
    let merged = outputs.join("hsp_pack_info").join("pack.info");
    packing::merge_pack_info(&inputs.pack_info, &hsp_paths, &merged)?;

    let extra = Extra::SharedLibs(shared_libs);
    let artifact = repacker.run(ctx, &base, &inputs, &merged, &extra)?;
    Ok(FlowOutput {
        artifact,
        hsp_output_paths: hsp_paths.iter().map(|p| p.display().to_string()).collect(),
        hsp_module_names: Some(hsp_modules),
    })
}

/// Explicit names (already de-duplicated) must be modules of the project and, when their type is
/// known, shared ones; without names, shared modules are discovered. None → `HSP_MODULE_NOT_FOUND`.
fn select_modules(ctx: &Ctx) -> Result<Vec<String>, BuildError> {
    let req = ctx.req;
    if req.hsp_module_names.is_empty() {
        let found = ctx.project.discover_shared_modules();
        if found.is_empty() {
            return Err(BuildError::new(
                codes::HSP_MODULE_NOT_FOUND,
                "include_hsp=true requires at least one shared module. Pass hsp_module_names or add modules whose src/main/module.json5 declares type=\"shared\".",
            ));
        }
        return Ok(found);
    }
    for m in &req.hsp_module_names {
        let Some(root) = ctx.project.module_root(m) else {
            return Err(BuildError::with_details(
                codes::HSP_MODULE_NOT_FOUND,
                format!(
                    "shared module {m:?} is neither declared in build-profile.json5 nor a directory of the project"
                ),
                serde_json::json!({"module": m}),
            ));
        };
        if let Some(t) = Project::module_type(&root).filter(|t| t != "shared") {
            return Err(BuildError::with_details(
                codes::HSP_MODULE_NOT_FOUND,
                format!(
                    "module {m:?} is not a shared module: its module.json5 declares type {t:?}"
                ),
                serde_json::json!({"module": m, "type": t}),
            ));
        }
    }
    Ok(req.hsp_module_names.clone())
}
