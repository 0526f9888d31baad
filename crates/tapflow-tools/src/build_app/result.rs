//! The `build_app` result: exactly the contract's result fields, plus the structured compiler error type.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Result of a `build_app` call (contract field names).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BuildAppResult {
    /// The artifact to install: signed HAP/HSP/APP, unsigned HAP when no signing config exists, or the HAR.
    pub output_path: Option<String>,
    /// HSP files built for `include_hsp=true`; install them together with the HAP.
    pub hsp_output_paths: Vec<String>,
    /// How `output_path` was found.
    pub artifact_source: Option<ArtifactSource>,
    pub sign_status: SignStatus,
    pub target: String,
    pub build_mode: String,
    pub product: String,
    pub module_name: Option<String>,
    pub is_clean: bool,
    pub include_hsp: bool,
    /// The shared modules actually integrated (explicit list de-duplicated, or auto-discovered);
    /// `null` unless `include_hsp` applied.
    pub hsp_module_names: Option<Vec<String>>,
    /// Wall-clock seconds for the whole call, two decimals.
    pub duration: f64,
    /// Structured compiler/build errors (empty on success).
    pub errors: Vec<CompileError>,
    /// Number of structured errors found (`errors` may be capped; this is not).
    pub error_count: usize,
}

/// How the artifact in `output_path` was located.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ArtifactSource {
    /// Named by hvigor's `output_metadata.json` (HAP builds).
    Metadata,
    /// Found at hvigor's conventional output path for the target.
    ConventionalPath,
    /// Found by scanning the module's/project's `build/outputs` directories.
    Scan,
    /// Repacked with the HSPs under `shared_libs/` and signed by this tool.
    HspDirect,
    /// Repacked with the HNP packages under `hnp/` and signed by this tool.
    HnpDirect,
}

/// Whether `output_path` is signed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SignStatus {
    Signed,
    /// hvigor skipped signing (no `signingConfigs` for the product); the HAP installs on no device.
    Unsigned,
    /// A HAR is a library archive and is never signed.
    NotApplicable,
    Unknown,
}

/// One error extracted from hvigor's output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CompileError {
    /// hvigor's 8-digit error code (e.g. `10605008`), when the output has one.
    pub code: Option<String>,
    /// The error's title line (e.g. `ArkTS Compiler Error`), when present.
    pub kind: Option<String>,
    pub message: String,
    /// Source file as hvigor printed it.
    pub file: Option<String>,
    pub line: Option<u32>,
    pub column: Option<u32>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_has_exactly_the_contract_fields() {
        let schema = serde_json::to_value(schemars::schema_for!(BuildAppResult)).unwrap();
        let props: Vec<&str> = schema["properties"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            props,
            [
                "output_path",
                "hsp_output_paths",
                "artifact_source",
                "sign_status",
                "target",
                "build_mode",
                "product",
                "module_name",
                "is_clean",
                "include_hsp",
                "hsp_module_names",
                "duration",
                "errors",
                "error_count"
            ]
        );
        let sources = serde_json::to_value(schemars::schema_for!(ArtifactSource))
            .unwrap()
            .to_string();
        for s in [
            "metadata",
            "conventional_path",
            "scan",
            "hsp_direct",
            "hnp_direct",
        ] {
            assert!(sources.contains(s), "{s}");
        }
    }
}
