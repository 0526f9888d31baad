//! Parameter errors carry the contract's codes.

use serde_json::json;
use tapflow_device::logs::LogsQueryParams;

use super::run_err;

#[test]
fn parameter_errors_use_contract_codes() {
    assert_eq!(
        run_err(json!({"logs": ["x"], "mode": "warnings"})).code,
        "INVALID_QUERY_MODE"
    );
    let bad_expr = run_err(json!({"logs": ["x"], "time_expr": "around lunch"}));
    assert_eq!(bad_expr.code, "INVALID_PARAM");
    assert!(bad_expr.message.contains("last 5 minutes"));
    assert_eq!(
        run_err(json!({"logs": ["x"], "start_time": "25:00:00"})).code,
        "INVALID_PARAM"
    );
    assert_eq!(
        run_err(json!({"logs": ["x"], "lines": 0})).code,
        "INVALID_PARAM"
    );
    assert_eq!(run_err(json!({"logs": []})).code, "INVALID_PARAM");
    assert_eq!(run_err(json!({"input_files": []})).code, "INVALID_PARAM");
    assert_eq!(
        run_err(json!({"logs": ["x"], "level": "loud"})).code,
        "INVALID_PARAM"
    );
    assert_eq!(
        LogsQueryParams::from_value(json!({"lins": 5}))
            .unwrap_err()
            .code,
        "INVALID_PARAM",
        "unknown parameter"
    );
}
