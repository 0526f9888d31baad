//! `build_app` end to end with the fake hvigor: each target's command line, artifact discovery,
//! failures with extracted errors, timeout, and the validation codes.

use crate::common::harness;

use std::time::{Duration, Instant};

use harness::{Fixture, fixture_path};
use pretty_assertions::assert_eq;
use tapflow_tools::build_app::{ArtifactSource, BuildConfig, SignStatus, build_app, codes};

const FLAGS: &str = "--analyze=normal --parallel --incremental --no-daemon";

#[test]
fn hap_default_build_is_signed_and_found_by_metadata() {
    let f = Fixture::new();
    let r = build_app(&f.params(), &f.config()).unwrap();
    assert_eq!(
        f.hvigor_calls(),
        vec![format!(
            "--mode module -p product=default -p buildMode=debug assembleHap {FLAGS}"
        )]
    );
    assert_eq!(
        r.output_path.as_deref(),
        Some(
            f.p("entry/build/default/outputs/default/entry-default-signed.hap")
                .as_str()
        )
    );
    assert_eq!(r.artifact_source, Some(ArtifactSource::Metadata));
    assert_eq!(r.sign_status, SignStatus::Signed);
    assert_eq!(
        (r.target.as_str(), r.build_mode.as_str(), r.product.as_str()),
        ("hap", "debug", "default")
    );
    assert_eq!(
        (
            r.module_name.clone(),
            r.is_clean,
            r.include_hsp,
            r.hsp_module_names.clone()
        ),
        (None, false, false, None)
    );
    assert!(r.hsp_output_paths.is_empty() && r.errors.is_empty() && r.error_count == 0);
    assert!(r.duration > 0.0);
    let json = serde_json::to_value(&r).unwrap();
    let keys: Vec<&str> = json
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        vec![
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
    assert_eq!(json["artifact_source"], "metadata");
}

#[test]
fn hap_release_with_module_and_clean_runs_clean_first() {
    let f = Fixture::new();
    let mut p = f.params();
    p.build_mode = "release".into();
    p.module_name = Some("entry".into());
    p.is_clean = true;
    let r = build_app(&p, &f.config()).unwrap();
    assert_eq!(
        f.hvigor_calls(),
        vec![
            "--mode module -p product=default -p module=entry@default clean --no-daemon"
                .to_string(),
            format!(
                "--mode module -p product=default -p module=entry@default -p buildMode=release assembleHap {FLAGS}"
            ),
        ]
    );
    assert!(r.is_clean);
    assert_eq!(r.module_name.as_deref(), Some("entry"));
}

#[test]
fn product_without_signing_gives_unsigned_hap() {
    let f = Fixture::new();
    let mut p = f.params();
    p.product = "nosign".into();
    let r = build_app(&p, &f.config()).unwrap();
    assert_eq!(r.sign_status, SignStatus::Unsigned);
    assert!(
        r.output_path
            .unwrap()
            .ends_with("entry/build/nosign/outputs/nosign/entry-nosign-unsigned.hap")
    );
}

#[test]
fn conventional_path_when_metadata_is_absent() {
    let f = Fixture::new();
    build_app(&f.params(), &f.config()).unwrap();
    std::fs::remove_file(
        f.root
            .join("entry/build/default/intermediates/hap_metadata/default/output_metadata.json"),
    )
    .unwrap();
    // A second, incremental build that leaves no metadata (as when hvigor's packaging is up to date).
    let f2 = f.env("FAKE_HVIGOR_SCENARIO", "no_artifact");
    let r = build_app(&f2.params(), &f2.config()).unwrap();
    assert_eq!(r.artifact_source, Some(ArtifactSource::ConventionalPath));
    assert_eq!(r.sign_status, SignStatus::Signed);
}

#[test]
fn har_target() {
    let mut f = Fixture::new();
    f.add_module("library", "har");
    let mut p = f.params();
    p.target = "har".into();
    p.module_name = Some("library".into());
    let r = build_app(&p, &f.config()).unwrap();
    assert_eq!(
        f.hvigor_calls(),
        vec![format!(
            "--mode module -p product=default -p module=library@default -p buildMode=debug assembleHar {FLAGS}"
        )]
    );
    assert_eq!(
        r.output_path.as_deref(),
        Some(
            f.p("library/build/default/outputs/default/library.har")
                .as_str()
        )
    );
    assert_eq!(
        (r.artifact_source, r.sign_status),
        (
            Some(ArtifactSource::ConventionalPath),
            SignStatus::NotApplicable
        )
    );
}

#[test]
fn hsp_target() {
    let mut f = Fixture::new();
    f.add_module("shared", "shared");
    let mut p = f.params();
    p.target = "hsp".into();
    p.module_name = Some("shared".into());
    let r = build_app(&p, &f.config()).unwrap();
    assert_eq!(
        f.hvigor_calls(),
        vec![format!(
            "--mode module -p product=default -p module=shared@default -p buildMode=debug assembleHsp {FLAGS}"
        )]
    );
    assert_eq!(
        r.output_path.as_deref(),
        Some(
            f.p("shared/build/default/outputs/default/shared-default-signed.hsp")
                .as_str()
        )
    );
    assert_eq!(r.sign_status, SignStatus::Signed);
}

#[test]
fn app_target_uses_project_mode() {
    let f = Fixture::new();
    let mut p = f.params();
    p.target = "app".into();
    p.build_mode = "release".into();
    let r = build_app(&p, &f.config()).unwrap();
    assert_eq!(
        f.hvigor_calls(),
        vec![format!(
            "--mode project -p product=default -p buildMode=release assembleApp {FLAGS}"
        )]
    );
    assert_eq!(
        r.output_path.as_deref(),
        Some(
            f.p("build/outputs/default/DemoApp-default-signed.app")
                .as_str()
        )
    );
    assert_eq!(r.sign_status, SignStatus::Signed);
}

fn assert_fixture_failure(f: &Fixture) {
    let e = build_app(&f.params(), &f.config()).unwrap_err();
    assert_eq!(e.code, codes::BUILD_FAILED);
    assert!(
        e.message
            .contains("COMPILE RESULT:FAIL with 180 errors and 27 warnings"),
        "{}",
        e.message
    );
    assert!(e.message.contains("Index.ets:274:13"), "{}", e.message);
    let d = &e.details;
    assert_eq!(d["error_count"], 179);
    assert_eq!(d["errors"].as_array().unwrap().len(), 100);
    assert_eq!(
        d["compile_result"],
        serde_json::json!({"passed": false, "errors": 180, "warnings": 27})
    );
    assert_eq!(
        d["errors"][0],
        serde_json::json!({
            "code": "10605008",
            "kind": "ArkTS Compiler Error",
            "message": "Use explicit types instead of \"any\", \"unknown\" (arkts-no-any-unknown)",
            "file": "C:/Users/15365/NwpuCampus/entry/src/main/ets/pages/Index.ets",
            "line": 274,
            "column": 13
        })
    );
    assert_eq!(d["errors"][45]["code"], "10505001");
    assert!(
        d["output_tail"]
            .as_str()
            .unwrap()
            .contains("BUILD FAILED in 39 s 5 ms")
    );
    assert!(!d["output_tail"].as_str().unwrap().contains('\r'));
    let result = &d["result"];
    assert_eq!(result["error_count"], 179);
    assert_eq!(result["errors"].as_array().unwrap().len(), 100);
    assert_eq!(result["output_path"], serde_json::Value::Null);
    assert_eq!(result["target"], "hap");
}

#[test]
fn failure_markers_win_over_exit_code_zero() {
    let f = Fixture::new()
        .env("FAKE_HVIGOR_SCENARIO", "fail_fixture")
        .env(
            "FAKE_HVIGOR_FIXTURE",
            fixture_path("hvigor_build_failed_arkts_compiler_errors.txt")
                .to_str()
                .unwrap(),
        );
    assert_fixture_failure(&f);
}

#[test]
fn failure_with_crlf_and_nonzero_exit() {
    let f = Fixture::new()
        .env("FAKE_HVIGOR_SCENARIO", "fail_fixture")
        .env(
            "FAKE_HVIGOR_FIXTURE",
            fixture_path("hvigor_build_failed_arkts_compiler_errors.txt")
                .to_str()
                .unwrap(),
        )
        .env("FAKE_HVIGOR_EXIT", "255")
        .env("FAKE_SDK_CRLF", "1");
    assert_fixture_failure(&f);
}

#[test]
fn nonzero_exit_without_markers_is_a_failure() {
    let f = Fixture::new().env("FAKE_HVIGOR_SCENARIO", "exit_nonzero");
    let e = build_app(&f.params(), &f.config()).unwrap_err();
    assert_eq!(e.code, codes::BUILD_FAILED);
    assert!(e.message.contains("exited with status 3"), "{}", e.message);
    assert_eq!(e.details["exit_code"], 3);
}

#[test]
fn hvigor_argument_errors_are_reported() {
    let f = Fixture::new();
    let mut p = f.params();
    p.product = "nosuchproduct".into();
    let e = build_app(&p, &f.config()).unwrap_err();
    assert_eq!(e.code, codes::BUILD_FAILED);
    assert_eq!(
        e.details["errors"][0]["message"],
        "Product 'nosuchproduct' not found in build-profile.json5."
    );
    assert_eq!(e.details["error_count"], 1);
}

#[test]
fn timeout_kills_hvigor() {
    let f = Fixture::new().env("FAKE_HVIGOR_SCENARIO", "hang");
    let cfg = BuildConfig {
        timeout: Duration::from_millis(1500),
        ..f.config()
    };
    let t0 = Instant::now();
    let e = build_app(&f.params(), &cfg).unwrap_err();
    assert_eq!(e.code, codes::BUILD_TIMEOUT);
    assert!(
        t0.elapsed() < Duration::from_secs(10),
        "took {:?}",
        t0.elapsed()
    );
    assert!(
        e.details["output_tail"]
            .as_str()
            .unwrap()
            .contains("> hvigor Starting...")
    );
    assert!(e.details["result"]["duration"].as_f64().unwrap() >= 1.4);
}

#[test]
fn success_without_artifact_is_output_not_found() {
    let f = Fixture::new().env("FAKE_HVIGOR_SCENARIO", "no_artifact");
    let e = build_app(&f.params(), &f.config()).unwrap_err();
    assert_eq!(e.code, codes::BUILD_OUTPUT_NOT_FOUND);
}

#[test]
fn validation_codes() {
    let f = Fixture::new();
    let cfg = f.config();
    let check = |mutate: &dyn Fn(&mut tapflow_tools::build_app::BuildAppParams),
                 code: tapflow_core::codes::Code| {
        let mut p = f.params();
        mutate(&mut p);
        let e = build_app(&p, &cfg).unwrap_err();
        assert_eq!(e.code, code, "{}", e.message);
    };
    check(
        &|p| p.project_path = f.root.join("missing").display().to_string(),
        codes::INVALID_PROJECT_PATH,
    );
    check(
        &|p| p.project_path = f.root.join("build-profile.json5").display().to_string(),
        codes::INVALID_PROJECT_PATH,
    );
    check(
        &|p| p.build_mode = "profile".into(),
        codes::INVALID_BUILD_MODE,
    );
    check(&|p| p.target = "apk".into(), codes::INVALID_BUILD_TARGET);
    check(&|p| p.target = "har".into(), codes::MISSING_MODULE_NAME);
    check(&|p| p.target = "hsp".into(), codes::MISSING_MODULE_NAME);
    check(
        &|p| p.module_name = Some("../entry".into()),
        codes::INVALID_PARAM,
    );
    assert!(
        f.hvigor_calls().is_empty(),
        "validation must fail before hvigor runs"
    );
    let bad: Result<tapflow_tools::build_app::BuildAppParams, _> =
        serde_json::from_str(r#"{"project_path": "/x", "bogus": 1}"#);
    assert!(bad.is_err());
}

#[cfg(unix)]
#[test]
fn project_hvigorw_is_used_when_none_is_configured() {
    let f = Fixture::new();
    let cfg = BuildConfig {
        hvigorw: None,
        ..f.config()
    };
    let e = build_app(&f.params(), &cfg).unwrap_err();
    assert_eq!(e.code, codes::HVIGOR_NOT_FOUND);
    // A project's wrapper is a small sh script (DevEco's starts node); this one starts the fake.
    use std::os::unix::fs::PermissionsExt;
    let wrapper = f.root.join("hvigorw");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nexec '{}' \"$@\"\n",
            harness::fake_sdk_dir().join("hvigorw").display()
        ),
    )
    .unwrap();
    // Without an exec bit it is refused, never run through sh, and nothing runs.
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o644)).unwrap();
    let e = build_app(&f.params(), &cfg).unwrap_err();
    assert_eq!(e.code, codes::HVIGOR_NOT_FOUND);
    assert_eq!(e.details["reason"], "not_executable");
    assert!(f.hvigor_calls().is_empty());
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let r = build_app(&f.params(), &cfg).unwrap();
    assert_eq!(r.sign_status, SignStatus::Signed);
    // A link named hvigorw is not the project's own wrapper.
    std::fs::remove_file(&wrapper).unwrap();
    std::os::unix::fs::symlink(harness::fake_sdk_dir().join("hvigorw"), &wrapper).unwrap();
    let e = build_app(&f.params(), &cfg).unwrap_err();
    assert_eq!(e.details["reason"], "symlink");
}

#[test]
fn a_directory_without_the_project_files_is_not_built() {
    let f = Fixture::new();
    for marker in ["hvigorfile.ts", "build-profile.json5"] {
        let path = f.root.join(marker);
        let saved = std::fs::read(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        let e = build_app(&f.params(), &f.config()).unwrap_err();
        assert_eq!(e.code, codes::INVALID_PROJECT_PATH, "{marker}");
        assert_eq!(e.details["missing"], serde_json::json!([marker]));
        assert!(e.message.contains(marker), "{}", e.message);
        std::fs::write(&path, saved).unwrap();
    }
    assert!(f.hvigor_calls().is_empty(), "nothing ran");
}

#[test]
fn unstartable_hvigor_is_build_error() {
    let f = Fixture::new();
    let js = f.root.join("hvigorw.js");
    std::fs::write(&js, "").unwrap();
    let cfg = BuildConfig {
        hvigorw: Some(js),
        node: Some(f.root.join("no-such-node")),
        ..f.config()
    };
    let e = build_app(&f.params(), &cfg).unwrap_err();
    assert_eq!(e.code, codes::BUILD_ERROR);
    assert_eq!(e.details["result"]["target"], "hap");
}

/// Every error code `build_app` can return is asserted by some integration test.
#[test]
fn every_error_code_is_exercised_by_a_test() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tools");
    let mut sources = String::new();
    for name in ["build_app.rs", "build_app_hsp.rs", "build_app_hnp.rs"] {
        sources.push_str(&std::fs::read_to_string(dir.join(name)).unwrap());
    }
    let self_test = sources
        .find("fn every_error_code_is_exercised_by_a_test")
        .unwrap();
    let (tests_text, _) = sources.split_at(self_test);
    let rest = &sources[self_test..];
    let rest = &rest[rest.find("\n}\n").unwrap()..];
    let corpus = format!("{tests_text}{rest}");
    let untested: Vec<tapflow_core::codes::Code> = codes::ALL
        .iter()
        .copied()
        .filter(|c| !corpus.contains(&format!("codes::{c}")))
        .collect();
    assert!(untested.is_empty(), "codes without a test: {untested:?}");
}
