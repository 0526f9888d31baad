//! What the HSP and HNP flows share: the base HAP they start from, the checks made before any
//! hvigor run (signing material, SDK jars), building the base HAP, and the common tail: repack
//! the base HAP with the staged extras, sign it, and check the signed package really carries them.

use std::path::{Path, PathBuf};

use super::artifacts::{self, Artifact, module_outputs_dir};
use super::config::{ToolContext, Toolchain};
use super::error::{BuildError, Flow, codes};
use super::packing::{self, Extra, PackInputs};
use super::params::Target;
use super::result::{ArtifactSource, SignStatus};
use super::run::{Ctx, clean_and_assemble};
use super::signing::{self, SigningMaterial};

/// The module whose HAP is repacked: the requested one, else the project's entry module.
pub struct BaseHap {
    pub module: String,
    pub root: PathBuf,
}

impl BaseHap {
    pub fn of(ctx: &Ctx) -> Self {
        let module = artifacts::default_hap_module(&ctx.project, ctx.req.module_name.as_deref());
        let root = ctx
            .project
            .module_root(&module)
            .unwrap_or_else(|| ctx.req.project.join(&module));
        BaseHap { module, root }
    }

    /// `<module_root>/build/<product>/outputs/<product>`.
    pub fn outputs_dir(&self, product: &str) -> PathBuf {
        module_outputs_dir(&self.root, product)
    }
}

/// One flow's repack-and-sign step, with what it needs resolved up front: the cheap
/// preconditions (signing material, SDK jars) are checked before any hvigor run, so a missing
/// jar is reported in a second, not after a two-minute build.
pub struct Repacker {
    flow: Flow,
    material: SigningMaterial,
    toolchain: Toolchain,
}

impl Repacker {
    pub fn prepare(ctx: &Ctx, flow: Flow) -> Result<Self, BuildError> {
        let material = signing::resolve(&ctx.project, &ctx.req.product, flow)?;
        let toolchain = ctx.cfg.toolchain(flow)?;
        Ok(Repacker {
            flow,
            material,
            toolchain,
        })
    }

    /// hvigor builds the base HAP (the requested module, or all when none is named).
    pub fn build_base(&self, ctx: &Ctx) -> Result<(), BuildError> {
        clean_and_assemble(
            ctx,
            Target::Hap,
            ctx.req.module_name.as_deref(),
            "build base hap",
            codes::BUILD_FAILED,
        )
    }

    /// Repacks `base` with `pack_info` (merged for HSPs, the base one for HNPs) and `extra`,
    /// signs it and verifies it; returns the signed HAP as the call's artifact.
    pub fn run(
        &self,
        ctx: &Ctx,
        base: &BaseHap,
        inputs: &PackInputs,
        pack_info: &Path,
        extra: &Extra,
    ) -> Result<Artifact, BuildError> {
        let tools = ToolContext {
            toolchain: &self.toolchain,
            cfg: ctx.cfg,
            cwd: &ctx.req.project,
            deadline: ctx.deadline,
        };
        let unsigned = self.hap_path(base, &ctx.req.product, "unsigned");
        let signed = self.hap_path(base, &ctx.req.product, "signed");
        let inv = packing::repack_invocation(&tools, inputs, pack_info, extra, &unsigned);
        packing::repack(self.flow, &tools, &inv, &unsigned)?;
        signing::sign(self.flow, &tools, &self.material, &unsigned, &signed)?;
        let (prefix, ext, source) = match self.flow {
            Flow::Hsp => ("shared_libs/", ".hsp", ArtifactSource::HspDirect),
            Flow::Hnp => ("hnp/", ".hnp", ArtifactSource::HnpDirect),
        };
        packing::verify_contains(self.flow, &signed, prefix, ext)?;
        Ok(Artifact {
            path: signed,
            source,
            sign_status: SignStatus::Signed,
        })
    }

    /// `<outputs>/<module>-<product>-<signed|unsigned>-<hsp|hnp>.hap`
    fn hap_path(&self, base: &BaseHap, product: &str, state: &str) -> PathBuf {
        let suffix = match self.flow {
            Flow::Hsp => "hsp",
            Flow::Hnp => "hnp",
        };
        base.outputs_dir(product)
            .join(format!("{}-{product}-{state}-{suffix}.hap", base.module))
    }
}
