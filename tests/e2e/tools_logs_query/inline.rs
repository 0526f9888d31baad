//! Inline logs and files: errors mode, markers found and missing, files relative to the project
//! and the save path, the contract's file and parameter codes, the published parameters; none of
//! it resolves a device.

use super::*;

#[test]
fn inline_errors_mode_groups_errors_and_needs_no_device() {
    let e = env();
    let r = e.ok(json!({"logs": lines()}));
    assert_eq!(r["query_mode"], "errors");
    assert_eq!(r["source_attempted"], json!(["inline"]));
    assert_eq!(r["source_used"], "inline");
    assert_eq!(r["matched"], true);
    // Two E lines with the same shape are one group; the exception text counts at level I.
    assert_eq!(r["match_count"], 3);
    assert_eq!(r["group_count"], 2);
    let items = r["items"].as_array().unwrap();
    assert_eq!(items[0]["kind"], "error");
    assert_eq!(items[0]["count"], 2);
    assert_eq!(items[0]["tag"], "DemoApp");
    assert_eq!(items[1]["kind"], "exception");
    assert_eq!(r["filters_applied"]["level"], "E");
    assert_eq!(r["saved_path"], Value::Null);
    assert_eq!(r["crash_info"], Value::Null);
    assert_eq!(r["lines_scanned"], 6);
    // include_crash without a device source reads no device either.
    let r = e.ok(json!({"logs": lines(), "include_crash": true, "level": "W"}));
    assert_eq!(r["crash_info"]["sources"], json!([]));
    assert_eq!(r["match_count"], 3);
    assert_eq!(e.resolves(), 0, "inline logs must not resolve a device");
}

#[test]
fn inline_markers_found_and_missing() {
    let e = env();
    let r = e.ok(json!({
        "logs": lines(),
        "mode": "markers",
        "marker_keywords": ["LOGIN_SUCCESS", "PAYMENT_DONE"]
    }));
    assert_eq!(r["matched"], true);
    assert_eq!(r["items"][0]["marker"], "LOGIN_SUCCESS");
    assert_eq!(r["items"][0]["line"], LINES[5]);
    assert_eq!(r["markers"][0]["matched"], true);
    assert_eq!(r["markers"][0]["count"], 1);
    assert_eq!(
        r["markers"][1],
        json!({"keyword": "PAYMENT_DONE", "matched": false, "count": 0, "first_time": null, "last_time": null})
    );
    // Nothing found is a successful answer, not an error.
    let r = e.ok(json!({"logs": lines(), "mode": "markers", "marker_keywords": ["PAYMENT_DONE"]}));
    assert_eq!(r["matched"], false);
    assert_eq!(r["match_count"], 0);
    assert_eq!(r["items"], json!([]));
    assert!(!r["notes"].as_array().unwrap().is_empty());
    assert_eq!(e.resolves(), 0);
}

#[test]
fn input_files_relative_to_the_project_and_save_path() {
    let e = env();
    std::fs::create_dir_all(e.project.join("logs")).unwrap();
    std::fs::write(e.project.join("logs/a.log"), LINES[..3].join("\n")).unwrap();
    std::fs::write(e.project.join("logs/b.log"), LINES[3..].join("\n")).unwrap();
    let r = e.ok(json!({
        "input_file": "logs/a.log",
        "input_files": ["logs/b.log"],
        "mode": "markers",
        "marker_keywords": ["LOGIN_SUCCESS"],
        "save_path": "reports/snapshot.log"
    }));
    assert_eq!(r["source_used"], "file");
    assert_eq!(r["source_attempted"], json!(["file"]));
    assert_eq!(r["items"][0]["source"], "logs/b.log");
    assert_eq!(r["items"][0]["line_no"], 3);
    assert_eq!(r["lines_scanned"], 6);
    let saved = PathBuf::from(r["saved_path"].as_str().unwrap());
    assert!(saved.ends_with("reports/snapshot.log"), "{saved:?}");
    let text = std::fs::read_to_string(&saved).unwrap();
    assert_eq!(text, format!("{}\n", LINES.join("\n")));
    assert_eq!(e.resolves(), 0, "files must not resolve a device");
}

#[test]
fn file_errors_have_the_contract_codes() {
    let e = env();
    std::fs::write(e.outside.join("x.log"), LINES.join("\n")).unwrap();
    let outside = e.outside.join("x.log").display().to_string();
    let (code, d) = e.err(json!({"input_file": outside}));
    assert_eq!(code, "PATH_NOT_ALLOWED");
    assert_eq!(d["param"], "input_file");
    assert_eq!(
        e.err(json!({"input_files": ["../outside/x.log"]})).0,
        "PATH_NOT_ALLOWED"
    );
    assert_eq!(
        e.err(json!({"logs": ["x"], "save_path": "../outside/out.log"}))
            .0,
        "PATH_NOT_ALLOWED"
    );
    assert!(!e.outside.join("out.log").exists());

    let (code, d) = e.err(json!({"input_file": "missing.log"}));
    assert_eq!(code, "FILE_NOT_FOUND");
    assert_eq!(d["param"], "input_file");

    // A sparse file: over the 64 MiB limit without writing 64 MiB.
    let big = std::fs::File::create(e.project.join("big.log")).unwrap();
    big.set_len(65 * 1024 * 1024).unwrap();
    let (code, d) = e.err(json!({"input_file": "big.log"}));
    assert_eq!(code, "FILE_TOO_LARGE");
    assert_eq!(d["max_bytes"], 64 * 1024 * 1024);

    // A root added with TAPFLOW_ALLOWED_ROOTS admits its files.
    let extra = e.project.parent().unwrap().join("extra");
    assert!(e.ctx.config.paths.read_roots().contains(&extra));
    let temp = extra.join("t.log");
    std::fs::write(&temp, LINES.join("\n")).unwrap();
    assert_eq!(
        e.ok(json!({"input_file": temp.display().to_string()}))["source_used"],
        "file"
    );
    assert_eq!(e.resolves(), 0);
}

#[test]
fn parameter_errors() {
    let e = env();
    let (code, d) = e.err(json!({"logs": ["x"], "mode": "everything"}));
    assert_eq!(code, "INVALID_QUERY_MODE");
    assert_eq!(d["param"], "mode");
    for (args, param) in [
        (json!({"logs": ["x"], "lines": 0}), "lines"),
        (json!({"logs": ["x"], "level": "verbose"}), "level"),
        (json!({"logs": ["x"], "time_expr": "sometime"}), "time_expr"),
        (json!({"logs": []}), "logs"),
        (json!({"logs": ["x"], "colour": "red"}), "colour"),
        (json!({"logs": "x"}), "logs"),
    ] {
        let (code, d) = e.err(args.clone());
        assert_eq!(code, "INVALID_PARAM", "{args}");
        assert_eq!(d["param"], param, "{args}");
    }
    // A bad parameter is reported before any device is resolved.
    assert_eq!(e.err(json!({"level": "verbose"})).0, "INVALID_PARAM");
    assert_eq!(e.resolves(), 0);
    // A device query with no backend fails with the device layer's code.
    assert_eq!(e.err(json!({})).0, "UNSUPPORTED");
    assert_eq!(e.resolves(), 1);
}

#[test]
fn published_parameters_are_the_contracts() {
    let engine = Engine::new();
    let def = engine.get("logs_query").unwrap();
    let mut props: Vec<&str> = def.input_schema()["properties"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    props.sort_unstable();
    let mut want = vec![
        "device_id",
        "hdc_server",
        "logs",
        "input_file",
        "input_files",
        "lines",
        "level",
        "tag",
        "tag_search",
        "keyword",
        "domain",
        "pid",
        "package_name",
        "start_time",
        "end_time",
        "seconds",
        "save_path",
        "time_expr",
        "include_crash",
        "mode",
        "marker_keywords",
        "fallback_to_historical",
        "realtime_wait_ms",
        "context_lines",
        "include_cost",
    ];
    want.sort_unstable();
    assert_eq!(props, want);
    assert_eq!(
        def.input_schema()["properties"]["mode"]["enum"],
        json!(["errors", "markers"])
    );
    assert_eq!(def.policy.risk, tapflow_tools::Risk::Read);
    assert!(def.policy.writes_host_files && !def.policy.mutates_device);
}
