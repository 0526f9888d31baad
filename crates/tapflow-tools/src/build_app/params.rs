//! `build_app` parameters as the contract names them, and their validation into a typed request.
//!
//! `build_mode` and `target` are decoded as plain strings so that a value outside the enumeration
//! yields the contract's code (`INVALID_BUILD_MODE`, `INVALID_BUILD_TARGET`) instead of a serde message;
//! the published JSON Schema still declares the enumerations.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::error::{BuildError, codes};

/// Arguments of the `build_app` tool (contract names and defaults).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BuildAppParams {
    /// Project root: an existing directory holding `build-profile.json5` and `hvigorfile.ts` (and an executable `hvigorw` unless a wrapper is configured).
    pub project_path: String,
    /// `debug` or `release`.
    #[serde(default = "default_build_mode")]
    #[schemars(extend("enum" = ["debug", "release"]))]
    pub build_mode: String,
    /// `hap`, `har`, `hsp`, `app` or `hnp`.
    #[serde(default = "default_target")]
    #[schemars(extend("enum" = ["hap", "har", "hsp", "app", "hnp"]))]
    pub target: String,
    /// Hvigor product.
    #[serde(default = "default_product")]
    pub product: String,
    /// Module to build; required when `target` is `har` or `hsp`.
    #[serde(default)]
    pub module_name: Option<String>,
    /// Clean before building.
    #[serde(default)]
    pub is_clean: bool,
    /// Only with `target="hap"`: build the shared (HSP) modules and inject them into the HAP.
    #[serde(default)]
    pub include_hsp: bool,
    /// Shared modules to inject; omitted or empty means auto-discover `type: "shared"` modules.
    #[serde(default)]
    pub hsp_module_names: Option<Vec<String>>,
}

fn default_build_mode() -> String {
    "debug".to_string()
}
fn default_target() -> String {
    "hap".to_string()
}
fn default_product() -> String {
    "default".to_string()
}

impl BuildAppParams {
    /// Parameters with every default applied, for `project_path`.
    pub fn new(project_path: impl Into<String>) -> Self {
        Self {
            project_path: project_path.into(),
            build_mode: default_build_mode(),
            target: default_target(),
            product: default_product(),
            module_name: None,
            is_clean: false,
            include_hsp: false,
            hsp_module_names: None,
        }
    }
}

/// What hvigor is asked to produce.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Hap,
    Har,
    Hsp,
    App,
    Hnp,
}

impl Target {
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "hap" => Target::Hap,
            "har" => Target::Har,
            "hsp" => Target::Hsp,
            "app" => Target::App,
            "hnp" => Target::Hnp,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Target::Hap => "hap",
            Target::Har => "har",
            Target::Hsp => "hsp",
            Target::App => "app",
            Target::Hnp => "hnp",
        }
    }
}

/// `-p buildMode=` value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BuildMode {
    Debug,
    Release,
}

impl BuildMode {
    pub fn as_str(self) -> &'static str {
        match self {
            BuildMode::Debug => "debug",
            BuildMode::Release => "release",
        }
    }
}

/// A validated request: every string checked, defaults applied, module names normalised.
#[derive(Debug, Clone, PartialEq)]
pub struct BuildRequest {
    pub project: PathBuf,
    pub mode: BuildMode,
    pub target: Target,
    pub product: String,
    pub module_name: Option<String>,
    pub is_clean: bool,
    pub include_hsp: bool,
    /// Explicit shared modules: trimmed, empties dropped, duplicates removed keeping the first.
    /// Empty means auto-discovery.
    pub hsp_module_names: Vec<String>,
}

impl BuildRequest {
    /// Validates in the contract's order: project path, build mode, target, module name.
    pub fn from_params(p: &BuildAppParams) -> Result<Self, BuildError> {
        let project = PathBuf::from(p.project_path.trim());
        if p.project_path.trim().is_empty() || !project.is_dir() {
            return Err(BuildError::new(
                codes::INVALID_PROJECT_PATH,
                format!(
                    "project_path must be an existing directory: {:?}",
                    p.project_path
                ),
            ));
        }
        super::project::check_markers(&project)?;
        let c = check_args(p)?;
        Ok(Self {
            project,
            mode: c.mode,
            target: c.target,
            product: c.product,
            module_name: c.module_name,
            is_clean: p.is_clean,
            include_hsp: p.include_hsp,
            hsp_module_names: c.hsp_module_names,
        })
    }

    /// True when this is the HSP-integration flow (`target="hap"` with `include_hsp`).
    pub fn wants_hsp_integration(&self) -> bool {
        self.target == Target::Hap && self.include_hsp
    }
}

/// What [`check_args`] derives from the parameters (see [`BuildRequest`]).
pub struct CheckedArgs {
    pub mode: BuildMode,
    pub target: Target,
    pub product: String,
    pub module_name: Option<String>,
    pub hsp_module_names: Vec<String>,
}

/// The rules that need no file system, in the contract's order after the project path: build
/// mode, target, module name (required for `har`/`hsp`), plain product/module names. The tool
/// runs them before anything else (and `tapflow validate` runs them on flows).
pub fn check_args(p: &BuildAppParams) -> Result<CheckedArgs, BuildError> {
    let mode = match p.build_mode.trim() {
        "debug" => BuildMode::Debug,
        "release" => BuildMode::Release,
        other => {
            return Err(BuildError::new(
                codes::INVALID_BUILD_MODE,
                format!("build_mode must be \"debug\" or \"release\", got {other:?}"),
            )
            .detail("param", "build_mode"));
        }
    };
    let target = Target::parse(p.target.trim()).ok_or_else(|| {
        BuildError::new(
            codes::INVALID_BUILD_TARGET,
            format!(
                "target must be one of \"hap\", \"har\", \"hsp\", \"app\" or \"hnp\", got {:?}",
                p.target
            ),
        )
        .detail("param", "target")
    })?;
    let module_name = p
        .module_name
        .as_deref()
        .map(str::trim)
        .filter(|m| !m.is_empty());
    if matches!(target, Target::Har | Target::Hsp) && module_name.is_none() {
        return Err(BuildError::new(
            codes::MISSING_MODULE_NAME,
            format!(
                "module_name is required when target=\"{}\"",
                target.as_str()
            ),
        )
        .detail("param", "target"));
    }
    let product = p.product.trim();
    check_plain_name("product", product)?;
    if let Some(m) = module_name {
        check_plain_name("module_name", m)?;
    }
    let mut hsp_module_names: Vec<String> = Vec::new();
    for name in p.hsp_module_names.iter().flatten() {
        let name = name.trim();
        if name.is_empty() || hsp_module_names.iter().any(|n| n == name) {
            continue;
        }
        check_plain_name("hsp_module_names", name)?;
        hsp_module_names.push(name.to_string());
    }
    Ok(CheckedArgs {
        mode,
        target,
        product: product.to_string(),
        module_name: module_name.map(str::to_string),
        hsp_module_names,
    })
}

/// Products and modules become path segments (`<module>/build/<product>/…`) and hvigor `-p` values,
/// so they must be single, plain names.
fn check_plain_name(field: &str, value: &str) -> Result<(), BuildError> {
    let bad = value.is_empty()
        || value == "."
        || value == ".."
        || value
            .chars()
            .any(|c| matches!(c, '/' | '\\' | '@' | '=' | ':') || c.is_control());
    if bad {
        return Err(BuildError::new(
            codes::INVALID_PARAM,
            format!(
                "{field} must be a plain name without path separators, '@', '=' or ':', got {:?}",
                crate::decode::clip(value)
            ),
        )
        .detail("param", field));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parameters for `dir`, made a project (the two files `build_app` requires).
    fn params(dir: &std::path::Path) -> BuildAppParams {
        for marker in super::super::project::PROJECT_MARKERS {
            std::fs::write(dir.join(marker), "{}").unwrap();
        }
        BuildAppParams::new(dir.to_string_lossy())
    }

    #[test]
    fn defaults_follow_the_contract() {
        let p: BuildAppParams = serde_json::from_str(r#"{"project_path": "/x"}"#).unwrap();
        assert_eq!(p, BuildAppParams::new("/x"));
        assert_eq!(
            (p.build_mode.as_str(), p.target.as_str(), p.product.as_str()),
            ("debug", "hap", "default")
        );
    }

    #[test]
    fn schema_declares_enums_and_defaults() {
        let schema = serde_json::to_value(schemars::schema_for!(BuildAppParams)).unwrap();
        let props = &schema["properties"];
        assert_eq!(
            props["target"]["enum"],
            serde_json::json!(["hap", "har", "hsp", "app", "hnp"])
        );
        assert_eq!(
            props["build_mode"]["enum"],
            serde_json::json!(["debug", "release"])
        );
        assert_eq!(props["product"]["default"], "default");
        assert_eq!(schema["required"], serde_json::json!(["project_path"]));
    }

    #[test]
    fn validation_codes_in_contract_order() {
        let dir = tempfile::tempdir().unwrap();
        let mut p = BuildAppParams::new("/definitely/not/here");
        p.build_mode = "bogus".into();
        assert_eq!(
            BuildRequest::from_params(&p).unwrap_err().code,
            codes::INVALID_PROJECT_PATH
        );
        let mut p = params(dir.path());
        p.build_mode = "Debug ".into();
        assert_eq!(
            BuildRequest::from_params(&p).unwrap_err().code,
            codes::INVALID_BUILD_MODE
        );
        let mut p = params(dir.path());
        p.target = "apk".into();
        assert_eq!(
            BuildRequest::from_params(&p).unwrap_err().code,
            codes::INVALID_BUILD_TARGET
        );
        for t in ["har", "hsp"] {
            let mut p = params(dir.path());
            p.target = t.into();
            p.module_name = Some("  ".into());
            assert_eq!(
                BuildRequest::from_params(&p).unwrap_err().code,
                codes::MISSING_MODULE_NAME
            );
        }
        let mut p = params(dir.path());
        p.product = "../../etc".into();
        assert_eq!(
            BuildRequest::from_params(&p).unwrap_err().code,
            codes::INVALID_PARAM
        );
    }

    #[test]
    fn hsp_names_are_trimmed_and_deduplicated_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let mut p = params(dir.path());
        p.include_hsp = true;
        p.hsp_module_names = Some(vec![
            "libb".into(),
            " liba ".into(),
            "".into(),
            "libb".into(),
            "liba".into(),
        ]);
        let r = BuildRequest::from_params(&p).unwrap();
        assert_eq!(r.hsp_module_names, vec!["libb", "liba"]);
        assert!(r.wants_hsp_integration());
    }
}
