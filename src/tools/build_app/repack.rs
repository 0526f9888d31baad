//! The common tail of the HSP and HNP flows: repack the base HAP with the staged extras, sign it, and
//! check the signed package really carries them.

use std::path::{Path, PathBuf};

use super::artifacts::{Artifact, module_outputs_dir};
use super::config::ToolContext;
use super::error::{BuildError, Flow};
use super::packing::{self, Extra, PackInputs};
use super::result::{ArtifactSource, SignStatus};
use super::signing::{self, SigningMaterial};

/// One repack-and-sign job.
pub struct RepackJob<'a> {
    pub flow: Flow,
    pub module: &'a str,
    pub module_root: &'a Path,
    pub product: &'a str,
    pub inputs: &'a PackInputs,
    /// `pack.info` to pack (merged for HSPs, the base one for HNPs).
    pub pack_info: &'a Path,
    pub extra: Extra,
}

impl RepackJob<'_> {
    fn suffix(&self) -> &'static str {
        match self.flow {
            Flow::Hsp => "hsp",
            Flow::Hnp => "hnp",
        }
    }

    /// `<outputs>/<module>-<product>-unsigned-<hsp|hnp>.hap`
    pub fn unsigned_path(&self) -> PathBuf {
        module_outputs_dir(self.module_root, self.product).join(format!(
            "{}-{}-unsigned-{}.hap",
            self.module,
            self.product,
            self.suffix()
        ))
    }

    /// `<outputs>/<module>-<product>-signed-<hsp|hnp>.hap`
    pub fn signed_path(&self) -> PathBuf {
        module_outputs_dir(self.module_root, self.product).join(format!(
            "{}-{}-signed-{}.hap",
            self.module,
            self.product,
            self.suffix()
        ))
    }

    /// Repack, sign, verify; returns the signed HAP as the call's artifact.
    pub fn run(
        &self,
        tools: &ToolContext,
        material: &SigningMaterial,
    ) -> Result<Artifact, BuildError> {
        let unsigned = self.unsigned_path();
        let signed = self.signed_path();
        let inv =
            packing::repack_invocation(tools, self.inputs, self.pack_info, &self.extra, &unsigned);
        packing::repack(self.flow, tools, &inv, &unsigned)?;
        signing::sign(self.flow, tools, material, &unsigned, &signed)?;
        let (prefix, ext) = match self.flow {
            Flow::Hsp => ("shared_libs/", ".hsp"),
            Flow::Hnp => ("hnp/", ".hnp"),
        };
        packing::verify_contains(self.flow, &signed, prefix, ext)?;
        let source = match self.flow {
            Flow::Hsp => ArtifactSource::HspDirect,
            Flow::Hnp => ArtifactSource::HnpDirect,
        };
        Ok(Artifact {
            path: signed,
            source,
            sign_status: SignStatus::Signed,
        })
    }
}
