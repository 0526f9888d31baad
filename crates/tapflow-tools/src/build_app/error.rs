//! The typed error of `build_app` and every error code it can return.
//!
//! The contract (`build_app` in the tool reference) lists the codes a caller must handle; the reference
//! implementation emits a few more (the `*_REPACK_*`, `*_SIGN_TIMEOUT`/`*_SIGN_ERROR`, `HNP_SIGNING_*` and
//! `*_NOT_IN_HAP` codes), which we keep with the same meaning. Codes we add ourselves are marked below.

use serde::Serialize;
use serde_json::Value;
pub use tapflow_core::codes::Code;

/// A failed `build_app` call: a stable code, a human sentence, and structured details.
///
/// For `BUILD_FAILED` (and `HSP_BUILD_FAILED`) `details` carries `errors` (structured compiler errors),
/// `error_count`, `compile_result` and `output_tail`, plus `result`: the partially filled
/// [`BuildAppResult`](super::BuildAppResult) so an envelope can still report what was asked.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BuildError {
    pub code: Code,
    pub message: String,
    pub details: Value,
}

impl BuildError {
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            details: Value::Object(Default::default()),
        }
    }

    pub fn with_details(code: Code, message: impl Into<String>, details: Value) -> Self {
        Self {
            code,
            message: message.into(),
            details,
        }
    }

    /// Adds one key to `details` (turning a non-object `details` into an object first).
    pub fn detail(mut self, key: &str, value: impl Into<Value>) -> Self {
        if !self.details.is_object() {
            self.details = Value::Object(Default::default());
        }
        if let Value::Object(map) = &mut self.details {
            map.insert(key.to_string(), value.into());
        }
        self
    }
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for BuildError {}

/// Every code `build_app` returns, as constants so callers can match without typos.
pub mod codes {
    // Contract: parameter validation.
    pub use tapflow_core::codes::INVALID_BUILD_MODE;
    pub use tapflow_core::codes::INVALID_BUILD_TARGET;
    /// Ours: `product`, `module_name` or an `hsp_module_names` entry is not a plain name (it would
    /// escape the project's build directories).
    pub use tapflow_core::codes::INVALID_PARAM;
    pub use tapflow_core::codes::INVALID_PROJECT_PATH;
    pub use tapflow_core::codes::MISSING_MODULE_NAME;

    // Contract + reference: running hvigor.
    /// Reference generic code: hvigor (or node) could not be started at all.
    pub use tapflow_core::codes::BUILD_ERROR;
    /// Reference default code: hvigor reported failure; `details.errors` holds the compiler errors.
    pub use tapflow_core::codes::BUILD_FAILED;
    /// Reference: hvigor succeeded but no artifact of the requested kind was found.
    pub use tapflow_core::codes::BUILD_OUTPUT_NOT_FOUND;
    pub use tapflow_core::codes::BUILD_TIMEOUT;
    /// Ours: no hvigor wrapper (`hvigorw`, `hvigorw.bat`, configured path) could be found.
    pub use tapflow_core::codes::HVIGOR_NOT_FOUND;

    // Contract: HNP packaging.
    pub use tapflow_core::codes::HNP_PACKAGE_NOT_FOUND;
    pub use tapflow_core::codes::HNP_PACKAGING_INPUT_MISSING;
    pub use tapflow_core::codes::HNP_SIGN_FAILED;
    pub use tapflow_core::codes::HNP_TOOLCHAIN_NOT_FOUND;
    // Reference (not in the contract list).
    pub use tapflow_core::codes::HNP_NOT_IN_HAP;
    pub use tapflow_core::codes::HNP_REPACK_ERROR;
    pub use tapflow_core::codes::HNP_REPACK_FAILED;
    pub use tapflow_core::codes::HNP_REPACK_TIMEOUT;
    pub use tapflow_core::codes::HNP_SIGN_ERROR;
    pub use tapflow_core::codes::HNP_SIGN_TIMEOUT;
    pub use tapflow_core::codes::HNP_SIGNING_CONFIG_INCOMPLETE;
    pub use tapflow_core::codes::HNP_SIGNING_CONFIG_MISSING;
    pub use tapflow_core::codes::HNP_SIGNING_FILE_NOT_FOUND;

    // Contract: HSP integration.
    pub use tapflow_core::codes::HSP_MODULE_NOT_FOUND;
    pub use tapflow_core::codes::HSP_NOT_IN_HAP;
    pub use tapflow_core::codes::HSP_PACK_INFO_ERROR;
    pub use tapflow_core::codes::HSP_PACKAGING_INPUT_MISSING;
    pub use tapflow_core::codes::HSP_SIGN_FAILED;
    pub use tapflow_core::codes::HSP_SIGNING_CONFIG_INCOMPLETE;
    pub use tapflow_core::codes::HSP_SIGNING_CONFIG_MISSING;
    pub use tapflow_core::codes::HSP_SIGNING_FILE_NOT_FOUND;
    pub use tapflow_core::codes::HSP_TOOLCHAIN_NOT_FOUND;
    // Reference (not in the contract list).
    pub use tapflow_core::codes::HSP_BUILD_FAILED;
    pub use tapflow_core::codes::HSP_OUTPUT_NOT_FOUND;
    pub use tapflow_core::codes::HSP_REPACK_ERROR;
    pub use tapflow_core::codes::HSP_REPACK_FAILED;
    pub use tapflow_core::codes::HSP_REPACK_TIMEOUT;
    pub use tapflow_core::codes::HSP_SIGN_ERROR;
    pub use tapflow_core::codes::HSP_SIGN_TIMEOUT;

    /// Every code above, in declaration order (used by docs and tests).
    pub const ALL: &[super::Code] = &[
        INVALID_PROJECT_PATH,
        INVALID_BUILD_MODE,
        INVALID_BUILD_TARGET,
        MISSING_MODULE_NAME,
        INVALID_PARAM,
        BUILD_TIMEOUT,
        BUILD_FAILED,
        BUILD_OUTPUT_NOT_FOUND,
        HVIGOR_NOT_FOUND,
        BUILD_ERROR,
        HNP_PACKAGE_NOT_FOUND,
        HNP_TOOLCHAIN_NOT_FOUND,
        HNP_PACKAGING_INPUT_MISSING,
        HNP_SIGN_FAILED,
        HNP_SIGNING_CONFIG_MISSING,
        HNP_SIGNING_CONFIG_INCOMPLETE,
        HNP_SIGNING_FILE_NOT_FOUND,
        HNP_REPACK_FAILED,
        HNP_REPACK_TIMEOUT,
        HNP_REPACK_ERROR,
        HNP_SIGN_TIMEOUT,
        HNP_SIGN_ERROR,
        HNP_NOT_IN_HAP,
        HSP_MODULE_NOT_FOUND,
        HSP_SIGNING_CONFIG_MISSING,
        HSP_SIGNING_CONFIG_INCOMPLETE,
        HSP_SIGNING_FILE_NOT_FOUND,
        HSP_TOOLCHAIN_NOT_FOUND,
        HSP_PACKAGING_INPUT_MISSING,
        HSP_PACK_INFO_ERROR,
        HSP_SIGN_FAILED,
        HSP_NOT_IN_HAP,
        HSP_BUILD_FAILED,
        HSP_OUTPUT_NOT_FOUND,
        HSP_REPACK_FAILED,
        HSP_REPACK_TIMEOUT,
        HSP_REPACK_ERROR,
        HSP_SIGN_TIMEOUT,
        HSP_SIGN_ERROR,
    ];
}

/// Which repack flow a packaging/signing error belongs to; it picks the `HSP_`/`HNP_` code family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Hsp,
    Hnp,
}

impl Flow {
    pub fn name(self) -> &'static str {
        match self {
            Flow::Hsp => "HSP",
            Flow::Hnp => "HNP",
        }
    }

    pub fn signing_config_missing(self) -> Code {
        self.pick(
            codes::HSP_SIGNING_CONFIG_MISSING,
            codes::HNP_SIGNING_CONFIG_MISSING,
        )
    }
    pub fn signing_config_incomplete(self) -> Code {
        self.pick(
            codes::HSP_SIGNING_CONFIG_INCOMPLETE,
            codes::HNP_SIGNING_CONFIG_INCOMPLETE,
        )
    }
    pub fn signing_file_not_found(self) -> Code {
        self.pick(
            codes::HSP_SIGNING_FILE_NOT_FOUND,
            codes::HNP_SIGNING_FILE_NOT_FOUND,
        )
    }
    pub fn toolchain_not_found(self) -> Code {
        self.pick(
            codes::HSP_TOOLCHAIN_NOT_FOUND,
            codes::HNP_TOOLCHAIN_NOT_FOUND,
        )
    }
    pub fn packaging_input_missing(self) -> Code {
        self.pick(
            codes::HSP_PACKAGING_INPUT_MISSING,
            codes::HNP_PACKAGING_INPUT_MISSING,
        )
    }
    pub fn repack_failed(self) -> Code {
        self.pick(codes::HSP_REPACK_FAILED, codes::HNP_REPACK_FAILED)
    }
    pub fn repack_timeout(self) -> Code {
        self.pick(codes::HSP_REPACK_TIMEOUT, codes::HNP_REPACK_TIMEOUT)
    }
    pub fn repack_error(self) -> Code {
        self.pick(codes::HSP_REPACK_ERROR, codes::HNP_REPACK_ERROR)
    }
    pub fn sign_failed(self) -> Code {
        self.pick(codes::HSP_SIGN_FAILED, codes::HNP_SIGN_FAILED)
    }
    pub fn sign_timeout(self) -> Code {
        self.pick(codes::HSP_SIGN_TIMEOUT, codes::HNP_SIGN_TIMEOUT)
    }
    pub fn sign_error(self) -> Code {
        self.pick(codes::HSP_SIGN_ERROR, codes::HNP_SIGN_ERROR)
    }
    pub fn not_in_hap(self) -> Code {
        self.pick(codes::HSP_NOT_IN_HAP, codes::HNP_NOT_IN_HAP)
    }

    fn pick(self, hsp: Code, hnp: Code) -> Code {
        match self {
            Flow::Hsp => hsp,
            Flow::Hnp => hnp,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_upper_snake() {
        let mut seen = std::collections::HashSet::new();
        for code in codes::ALL {
            assert!(seen.insert(*code), "duplicate {code}");
            assert!(
                code.as_str()
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c == '_'),
                "{code}"
            );
        }
    }

    #[test]
    fn detail_adds_keys() {
        let e = BuildError::new(codes::BUILD_FAILED, "x")
            .detail("a", 1)
            .detail("b", "c");
        assert_eq!(e.details, serde_json::json!({"a": 1, "b": "c"}));
        assert_eq!(e.to_string(), "BUILD_FAILED: x");
    }
}
