//! `build_app` itself: validate, pick the flow for the target, run it under one wall-clock budget,
//! and shape the contract's result (or a typed error carrying the partial result).

use std::time::Instant;

use super::artifacts::{self, Artifact};
use super::config::BuildConfig;
use super::error::{BuildError, codes};
use super::hvigor_command;
use super::hvigor_run::{MAX_ERRORS, run_hvigor};
use super::params::{BuildAppParams, BuildRequest, Target};
use super::project::Project;
use super::result::{BuildAppResult, CompileError, SignStatus};
use super::{hnp_flow, hsp_flow};

/// Everything a flow needs: the validated request, the tools, the parsed project and the deadline.
pub struct Ctx<'a> {
    pub req: &'a BuildRequest,
    pub cfg: &'a BuildConfig,
    pub project: Project,
    pub deadline: Instant,
}

/// What a flow produced.
#[derive(Debug, Clone)]
pub struct FlowOutput {
    pub artifact: Artifact,
    pub hsp_output_paths: Vec<String>,
    pub hsp_module_names: Option<Vec<String>>,
}

/// Builds a HarmonyOS artifact with hvigor (and, for `include_hsp` and `hnp`, repacks and signs it).
///
/// Errors are typed with the contract's codes. Every error raised after validation carries
/// `details.result`, the contract result filled with what is known (and `errors`/`error_count` for
/// build failures), so an MCP envelope can report `ok: false` with both `error` and `result`.
pub fn build_app(params: &BuildAppParams, cfg: &BuildConfig) -> Result<BuildAppResult, BuildError> {
    let started = Instant::now();
    let req = BuildRequest::from_params(params)?;
    let ctx = Ctx {
        req: &req,
        cfg,
        project: Project::open(&req.project),
        deadline: started + cfg.timeout,
    };
    let outcome = if req.wants_hsp_integration() {
        hsp_flow::run(&ctx)
    } else if req.target == Target::Hnp {
        hnp_flow::run(&ctx)
    } else {
        standard(&ctx)
    };
    let mut result = base_result(&req);
    result.duration = (started.elapsed().as_secs_f64() * 100.0).round() / 100.0;
    match outcome {
        Ok(out) => {
            result.output_path = Some(out.artifact.path.display().to_string());
            result.artifact_source = Some(out.artifact.source);
            result.sign_status = out.artifact.sign_status;
            result.hsp_output_paths = out.hsp_output_paths;
            if out.hsp_module_names.is_some() {
                result.hsp_module_names = out.hsp_module_names;
            }
            Ok(result)
        }
        Err(err) => {
            if let Some(errors) = err
                .details
                .get("errors")
                .and_then(|e| serde_json::from_value::<Vec<CompileError>>(e.clone()).ok())
            {
                result.errors = errors.into_iter().take(MAX_ERRORS).collect();
                result.error_count = err
                    .details
                    .get("error_count")
                    .and_then(|c| c.as_u64())
                    .unwrap_or(0) as usize;
            }
            let value = serde_json::to_value(&result).unwrap_or_default();
            Err(err.detail("result", value))
        }
    }
}

fn base_result(req: &BuildRequest) -> BuildAppResult {
    BuildAppResult {
        output_path: None,
        hsp_output_paths: Vec::new(),
        artifact_source: None,
        sign_status: SignStatus::Unknown,
        target: req.target.as_str().to_string(),
        build_mode: req.mode.as_str().to_string(),
        product: req.product.clone(),
        module_name: req.module_name.clone(),
        is_clean: req.is_clean,
        include_hsp: req.include_hsp,
        hsp_module_names: (!req.hsp_module_names.is_empty()).then(|| req.hsp_module_names.clone()),
        duration: 0.0,
        errors: Vec::new(),
        error_count: 0,
    }
}

/// `clean` (when asked) then one assemble run for `target` and `module`.
pub fn clean_and_assemble(
    ctx: &Ctx,
    target: Target,
    module: Option<&str>,
    step: &str,
    fail_code: tapflow_core::codes::Code,
) -> Result<(), BuildError> {
    let req = ctx.req;
    if req.is_clean {
        let args = hvigor_command::clean_args(target, &req.product, module);
        run_hvigor(
            ctx.cfg,
            &req.project,
            &args,
            &format!("{step} clean"),
            fail_code,
            ctx.deadline,
        )?;
    }
    let args = hvigor_command::assemble_args(target, req.mode, &req.product, module);
    run_hvigor(ctx.cfg, &req.project, &args, step, fail_code, ctx.deadline)?;
    Ok(())
}

/// hap (without HSPs), har, hsp and app: one hvigor build, then artifact discovery.
fn standard(ctx: &Ctx) -> Result<FlowOutput, BuildError> {
    let req = ctx.req;
    let module = req.module_name.as_deref();
    clean_and_assemble(
        ctx,
        req.target,
        module,
        &format!("build {}", req.target.as_str()),
        codes::BUILD_FAILED,
    )?;
    let report_module = match req.target {
        Target::Hap | Target::Hnp => artifacts::default_hap_module(&ctx.project, module),
        _ => module.unwrap_or("entry").to_string(),
    };
    let artifact = artifacts::find(&ctx.project, req.target, &req.product, &report_module).ok_or_else(|| {
        BuildError::new(
            codes::BUILD_OUTPUT_NOT_FOUND,
            format!(
                "hvigor reported success but no .{} artifact was found for module {report_module:?}, product {:?}; try is_clean=true",
                req.target.as_str(),
                req.product
            ),
        )
    })?;
    Ok(FlowOutput {
        artifact,
        hsp_output_paths: Vec::new(),
        hsp_module_names: None,
    })
}
