//! What the tool suites check on every envelope `Engine::call` returns: `structuredContent`
//! matches the tool's published output schema, and a call that must succeed (or fail) did, the
//! message naming the call. Used as `crate::common::envelope`.

#![allow(dead_code)]

use serde_json::Value;
use tapflow_tools::Envelope;

/// Fails unless `sc` (a call's `structuredContent`) matches `schema`, `tool`'s output schema.
pub fn assert_matches_schema(tool: &str, schema: &Value, sc: &Value) {
    if let Err(e) = jsonschema::validate(schema, sc) {
        panic!("{tool}: structuredContent does not match its output schema: {e}\n{sc:#}");
    }
}

/// The result of `tool ARGS`, a call that must succeed.
pub fn expect_ok(e: &Envelope, tool: &str, args: &Value) -> Value {
    assert!(e.ok(), "{tool} {args} failed: {:?}", e.structured.error);
    e.result().clone()
}

/// The error code and details of `tool ARGS`, a call that must fail.
pub fn expect_err(e: Envelope, tool: &str, args: &Value) -> (String, Value) {
    assert!(
        !e.ok(),
        "{tool} {args} unexpectedly succeeded: {:#}",
        e.result()
    );
    let err = e.structured.error.unwrap();
    (err.code.to_string(), err.details)
}
