//! The response envelope every tool call returns (tool reference, "Shared Response Shape"):
//! `content` (one text item), `structuredContent {tool, ok, result, error, meta}` and `isError`.
//!
//! Owns: the envelope types, the error type tools return ([`ToolError`]) and the JSON Schema of
//! the envelope around a tool's result schema. Knows nothing about individual tools.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use tapflow_core::codes::Code;
use tapflow_device::{DeviceError, Platform};

/// A tool failure: a stable code (the contract's where it has one), a human message, details.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolError {
    pub code: Code,
    pub message: String,
    #[serde(default)]
    pub details: Value,
}

impl ToolError {
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            details: Value::Null,
        }
    }

    /// Adds (or merges into) `details`.
    pub fn with_details(mut self, details: Value) -> Self {
        match (&mut self.details, details) {
            (Value::Object(have), Value::Object(add)) => have.extend(add),
            (slot, add) => *slot = add,
        }
        self
    }

    /// `INVALID_PARAM` naming the parameter.
    pub fn invalid_param(param: &str, message: impl Into<String>) -> Self {
        Self::new(tapflow_core::codes::INVALID_PARAM, message).at(param)
    }

    /// Names the parameter at fault (`details.param`): callers (and `tapflow validate`, which
    /// underlines it) see which argument to change.
    pub fn at(self, param: &str) -> Self {
        self.with_details(json!({ "param": param }))
    }

    /// The parameter at fault, when the error names one.
    pub fn param(&self) -> Option<&str> {
        self.details.get("param").and_then(Value::as_str)
    }

    /// A device failure while doing `op`, reported under the tool's own failure code
    /// (`INSTALL_FAILED`, …) when the device refused the operation, but under the device's code
    /// when the device itself was unreachable (not found, disconnected, hdc missing, timeout):
    /// those are not failures of the operation and callers handle them differently.
    pub fn from_device_op(err: DeviceError, op_code: Code) -> Self {
        // Infrastructure errors, and the backend's own refusals of a malformed value
        // (`INVALID_BUNDLE_NAME`, …: nothing was sent), keep their code.
        if is_infrastructure(&err) || err.code().as_str().starts_with("INVALID_") {
            return err.into();
        }
        let cause = err.code();
        let mut e = ToolError::from(err);
        e.code = op_code;
        e.with_details(json!({ "cause_code": cause }))
    }
}

/// Errors that say nothing about the operation, only about reaching the device (or its
/// screen being locked, which the user must fix before any UI operation can work). hdc's
/// transport answers belong here: a channel still being established after the backend's
/// retries, an unreachable hdc server, an hdc client that failed instead of answering; and
/// adb's alike (a missing adb, a call killed at its deadline, an unreachable adb server).
pub fn is_infrastructure(err: &DeviceError) -> bool {
    matches!(
        err,
        DeviceError::HdcNotFound { .. }
            | DeviceError::ChannelNotReady { .. }
            | DeviceError::ServerUnreachable { .. }
            | DeviceError::HdcFailed { .. }
            | DeviceError::Timeout { .. }
            | DeviceError::NotFound { .. }
            | DeviceError::Ambiguous { .. }
            | DeviceError::Disconnected { .. }
            | DeviceError::Unauthorized { .. }
            | DeviceError::ScreenLocked { .. }
            | DeviceError::Unsupported { .. }
            | DeviceError::AdbNotFound { .. }
            | DeviceError::AdbTimeout { .. }
    ) || matches!(err, DeviceError::Command { code, .. } if *code == tapflow_core::codes::ADB_SERVER_UNREACHABLE)
}

impl From<DeviceError> for ToolError {
    fn from(err: DeviceError) -> Self {
        let mut details = serde_json::Map::new();
        if let Some(says) = err.device_says() {
            details.insert("device_says".into(), Value::String(says.to_string()));
        }
        ToolError {
            code: err.code(),
            message: err.to_string(),
            details: if details.is_empty() {
                Value::Null
            } else {
                Value::Object(details)
            },
        }
    }
}

impl std::fmt::Display for ToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for ToolError {}

/// `structuredContent.meta`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Meta {
    pub request_id: String,
    pub timestamp: String,
    pub duration_ms: u64,
    /// The platform of the device the call used (`harmonyos`, `android`); absent when it used
    /// none (host-only tools, calls refused before a device was resolved).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub platform: Option<Platform>,
}

/// `structuredContent`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Structured {
    pub tool: String,
    pub ok: bool,
    pub result: Value,
    pub error: Option<ToolError>,
    pub meta: Meta,
}

impl Structured {
    /// What the call returned: its result, or its error's details when it failed (where
    /// `cost` and partial results live then).
    pub fn payload(&self) -> &Value {
        self.error.as_ref().map_or(&self.result, |e| &e.details)
    }

    /// [`Structured::payload`], to change it.
    pub fn payload_mut(&mut self) -> &mut Value {
        match &mut self.error {
            Some(e) => &mut e.details,
            None => &mut self.result,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TextContent {
    #[serde(rename = "type")]
    pub kind: String,
    pub text: String,
}

/// What every tool call returns, serialised exactly as MCP `tools/call` carries it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Envelope {
    pub content: Vec<TextContent>,
    #[serde(rename = "structuredContent")]
    pub structured: Structured,
    #[serde(rename = "isError")]
    pub is_error: bool,
}

impl Envelope {
    /// Builds the envelope; `outcome` is the tool's result object or its error.
    pub fn new(tool: &str, outcome: Result<Value, ToolError>, duration_ms: u64) -> Self {
        let meta = Meta {
            request_id: uuid::Uuid::new_v4().to_string(),
            timestamp: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, false),
            duration_ms,
            platform: None,
        };
        let (ok, result, error, text) = match outcome {
            Ok(result) => (true, result, None, format!("{tool}: ok")),
            Err(e) => {
                let text = format!("{tool}: error {}: {}", e.code, e.message);
                (false, Value::Null, Some(e), text)
            }
        };
        Envelope {
            content: vec![TextContent {
                kind: "text".into(),
                text,
            }],
            structured: Structured {
                tool: tool.to_string(),
                ok,
                result,
                error,
                meta,
            },
            is_error: !ok,
        }
    }

    /// The envelope with the platform of the device the call used in `meta`.
    pub fn with_platform(mut self, platform: Option<Platform>) -> Self {
        self.structured.meta.platform = platform;
        self
    }

    pub fn ok(&self) -> bool {
        self.structured.ok
    }

    pub fn result(&self) -> &Value {
        &self.structured.result
    }

    /// The error's code, when the call failed.
    pub fn code(&self) -> Option<Code> {
        self.structured.error.as_ref().map(|e| e.code)
    }

    /// [`Envelope::code`], as written.
    pub fn error_code(&self) -> Option<&str> {
        self.structured.error.as_ref().map(|e| e.code.as_str())
    }

    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).expect("an envelope always serialises")
    }
}

/// The JSON Schema of `structuredContent` for a tool whose result is described by `result`.
/// MCP clients validate `structuredContent` against a tool's `outputSchema`, so this is it.
pub fn structured_schema(tool: &str, result: Value) -> Value {
    json!({
        "type": "object",
        "description": format!("The tapflow envelope of `{tool}`: `result` on success, `error` on failure."),
        "properties": {
            "tool": { "type": "string", "const": tool },
            "ok": { "type": "boolean", "description": "true when the call succeeded; then `error` is null." },
            "result": { "anyOf": [result, { "type": "null" }], "description": "The tool's result; null when ok is false." },
            "error": {
                "anyOf": [
                    {
                        "type": "object",
                        "properties": {
                            "code": { "type": "string", "description": "Stable error code (see docs/tools.md)." },
                            "message": { "type": "string" },
                            "details": { "description": "Code-specific facts (parameter name, device output, partial observations)." }
                        },
                        "required": ["code", "message", "details"]
                    },
                    { "type": "null" }
                ]
            },
            "meta": {
                "type": "object",
                "properties": {
                    "request_id": { "type": "string", "format": "uuid" },
                    "timestamp": { "type": "string", "description": "RFC 3339 time the call finished." },
                    "duration_ms": { "type": "integer", "minimum": 0 },
                    "platform": { "type": "string", "enum": ["harmonyos", "android"], "description": "The platform of the device the call used; absent when it used none." }
                },
                "required": ["request_id", "timestamp", "duration_ms"]
            }
        },
        "required": ["tool", "ok", "result", "error", "meta"]
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ok_and_error_envelopes_have_the_reference_shape() {
        let ok = Envelope::new("click", Ok(json!({"x": 1})), 3).to_value();
        assert_eq!(ok["content"][0]["text"], "click: ok");
        assert_eq!(ok["structuredContent"]["ok"], true);
        assert_eq!(ok["structuredContent"]["error"], Value::Null);
        assert_eq!(ok["isError"], false);
        assert_eq!(ok["structuredContent"]["meta"]["duration_ms"], 3);
        assert!(
            uuid::Uuid::parse_str(
                ok["structuredContent"]["meta"]["request_id"]
                    .as_str()
                    .unwrap()
            )
            .is_ok()
        );
        assert!(
            chrono::DateTime::parse_from_rfc3339(
                ok["structuredContent"]["meta"]["timestamp"]
                    .as_str()
                    .unwrap()
            )
            .is_ok()
        );

        let err = Envelope::new(
            "click",
            Err(ToolError::new(tapflow_core::codes::ELEMENT_NOT_FOUND, "no")),
            1,
        )
        .to_value();
        assert_eq!(err["isError"], true);
        assert_eq!(err["structuredContent"]["result"], Value::Null);
        assert_eq!(
            err["structuredContent"]["error"]["code"],
            "ELEMENT_NOT_FOUND"
        );
    }

    #[test]
    fn device_errors_keep_their_code_or_take_the_operation_code() {
        let refused = DeviceError::Command {
            code: tapflow_core::codes::PACKAGE_QUERY_FAILED,
            what: "install".into(),
            device_says: "code:9568320".into(),
        };
        let e = ToolError::from_device_op(refused, tapflow_core::codes::INSTALL_FAILED);
        assert_eq!(e.code, "INSTALL_FAILED");
        assert_eq!(e.details["cause_code"], "PACKAGE_QUERY_FAILED");
        assert_eq!(e.details["device_says"], "code:9568320");
        // hdc's transport answers are the infrastructure's, never the operation's.
        let not_ready = DeviceError::ChannelNotReady {
            device_says: "[Fail][E000004]:The communication channel is being established.".into(),
            attempts: 5,
        };
        assert_eq!(
            ToolError::from_device_op(not_ready, tapflow_core::codes::STOP_APP_FAILED).code,
            "HDC_CHANNEL_NOT_READY"
        );
        let no_server = DeviceError::ServerUnreachable {
            device_says: "Connect server failed".into(),
        };
        assert_eq!(
            ToolError::from_device_op(no_server, tapflow_core::codes::STOP_APP_FAILED).code,
            "HDC_SERVER_UNREACHABLE"
        );
        let gone = DeviceError::Disconnected {
            device_says: "bye".into(),
        };
        assert_eq!(
            ToolError::from_device_op(gone, tapflow_core::codes::INSTALL_FAILED).code,
            "DEVICE_DISCONNECTED"
        );
    }
}
