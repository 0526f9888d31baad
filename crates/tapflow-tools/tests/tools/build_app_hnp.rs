//! `build_app` with `target="hnp"`, end to end through the fake hvigor, packing tool and sign tool:
//! the happy path and every `HNP_*` code.

use crate::common::harness;

use std::time::Duration;

use harness::{Fixture, zip_entries};
use pretty_assertions::assert_eq;
use tapflow_tools::build_app::{
    ArtifactSource, BuildAppParams, BuildConfig, SignStatus, build_app, codes,
};

fn project() -> Fixture {
    let f = Fixture::new();
    f.write("entry/hnp/arm64-v8a/python.hnp", "HNP arm64");
    f.write("entry/hnp/x86_64/python.hnp", "HNP x86_64");
    f.write("entry/hnp/arm64-v8a/tools/base-public.hnp", "HNP sub");
    f
}

fn hnp_params(f: &Fixture) -> BuildAppParams {
    let mut p = f.params();
    p.target = "hnp".into();
    p
}

fn code_of(f: &Fixture) -> tapflow_core::codes::Code {
    build_app(&hnp_params(f), &f.config()).unwrap_err().code
}

#[test]
fn hnp_packages_are_repacked_and_signed() {
    let f = project();
    // A project script that must never run.
    f.write(
        "entry/hnp/build.sh",
        "#!/bin/sh\ntouch \"$(dirname \"$0\")/../../SCRIPT_RAN\"\n",
    );
    let r = build_app(&hnp_params(&f), &f.config()).unwrap();
    assert_eq!(
        f.hvigor_calls(),
        vec![
            "--mode module -p product=default -p buildMode=debug assembleHap --analyze=normal --parallel --incremental --no-daemon"
        ]
    );
    let out = f.root.join("entry/build/default/outputs/default");
    assert_eq!(
        r.output_path.as_deref(),
        Some(out.join("entry-default-signed-hnp.hap").to_str().unwrap())
    );
    assert_eq!(
        (r.artifact_source, r.sign_status),
        (Some(ArtifactSource::HnpDirect), SignStatus::Signed)
    );
    assert_eq!(
        (
            r.target.as_str(),
            r.hsp_module_names.clone(),
            r.hsp_output_paths.len()
        ),
        ("hnp", None, 0)
    );
    let entries = zip_entries(&out.join("entry-default-signed-hnp.hap"));
    for e in [
        "hnp/arm64-v8a/python.hnp",
        "hnp/x86_64/python.hnp",
        "hnp/arm64-v8a/tools/base-public.hnp",
        "module.json",
        "pack.info",
    ] {
        assert!(
            entries.contains(&e.to_string()),
            "{e} missing from {entries:?}"
        );
    }
    assert!(!entries.iter().any(|e| e.starts_with("shared_libs/")));
    assert!(
        !f.root.join("SCRIPT_RAN").exists(),
        "project scripts must not run"
    );
    let pack = f.java_calls()[0].clone();
    let arg = |k: &str| pack[pack.iter().position(|a| a == k).unwrap() + 1].clone();
    assert_eq!(arg("--hnp-path"), out.join("native").display().to_string());
    assert_eq!(
        arg("--pack-info-path"),
        out.join("pack.info").display().to_string()
    );
    assert_eq!(
        arg("--out-path"),
        out.join("entry-default-unsigned-hnp.hap")
            .display()
            .to_string()
    );
    assert!(!pack.contains(&"--shared-libs-path".to_string()));
}

#[test]
fn package_not_found_before_any_build() {
    let f = Fixture::new();
    let e = build_app(&hnp_params(&f), &f.config()).unwrap_err();
    assert_eq!(e.code, codes::HNP_PACKAGE_NOT_FOUND);
    assert!(
        e.message
            .starts_with("target=hnp requires built HNP packages under a module hnp directory")
    );
    assert!(f.hvigor_calls().is_empty());
}

#[test]
fn packages_found_outside_the_hnp_folder() {
    let f = Fixture::new();
    f.write("entry/native/out/arm64-v8a/lib.hnp", "HNP");
    let r = build_app(&hnp_params(&f), &f.config()).unwrap();
    assert!(
        zip_entries(std::path::Path::new(r.output_path.as_ref().unwrap()))
            .contains(&"hnp/arm64-v8a/lib.hnp".to_string())
    );
}

#[test]
fn signing_codes() {
    let f = project();
    f.edit_profile(
        "{ name: 'default', signingConfig: 'default',",
        "{ name: 'default',",
    );
    assert_eq!(code_of(&f), codes::HNP_SIGNING_CONFIG_MISSING);
    let f = project();
    f.edit_profile("storeFile: './signing/default.p12',", "");
    assert_eq!(code_of(&f), codes::HNP_SIGNING_CONFIG_INCOMPLETE);
    let f = project();
    std::fs::remove_file(f.root.join("signing/default.cer")).unwrap();
    assert_eq!(code_of(&f), codes::HNP_SIGNING_FILE_NOT_FOUND);
    let f = project();
    f.set_keystore("other", "other");
    let e = build_app(&hnp_params(&f), &f.config()).unwrap_err();
    assert_eq!(e.code, codes::HNP_SIGN_FAILED);
    assert_eq!(e.details["attempts"], 2);
}

#[test]
fn toolchain_and_inputs() {
    let f = project();
    std::fs::remove_file(f.sdk_lib.join("app_packing_tool.jar")).unwrap();
    let e = build_app(&hnp_params(&f), &f.config()).unwrap_err();
    assert_eq!(
        (e.code, e.message.as_str()),
        (
            codes::HNP_TOOLCHAIN_NOT_FOUND,
            "required SDK toolchain jars were not found: app_packing_tool.jar"
        )
    );
    let f = project().env("FAKE_HVIGOR_SCENARIO", "no_intermediates");
    assert_eq!(code_of(&f), codes::HNP_PACKAGING_INPUT_MISSING);
}

#[test]
fn repack_and_verify_codes() {
    let f = project().env("FAKE_PACKING_BEHAVIOUR", "ignore_extras");
    let e = build_app(&hnp_params(&f), &f.config()).unwrap_err();
    assert_eq!(e.code, codes::HNP_NOT_IN_HAP);
    assert!(
        e.message
            .starts_with("signed HAP does not contain hnp/*.hnp: ")
    );
    let f = project().env("FAKE_PACKING_BEHAVIOUR", "fail");
    assert_eq!(code_of(&f), codes::HNP_REPACK_FAILED);
    let f = project();
    let cfg = BuildConfig {
        java: Some(f.root.join("no-java")),
        ..f.config()
    };
    assert_eq!(
        build_app(&hnp_params(&f), &cfg).unwrap_err().code,
        codes::HNP_REPACK_ERROR
    );
}

#[test]
fn repack_and_sign_timeouts() {
    for (var, code) in [
        ("FAKE_PACKING_BEHAVIOUR", codes::HNP_REPACK_TIMEOUT),
        ("FAKE_SIGN_BEHAVIOUR", codes::HNP_SIGN_TIMEOUT),
    ] {
        let f = project().env(var, "hang");
        let cfg = BuildConfig {
            timeout: Duration::from_secs(5),
            ..f.config()
        };
        assert_eq!(build_app(&hnp_params(&f), &cfg).unwrap_err().code, code);
    }
}

#[test]
fn base_build_failure_is_build_failed() {
    let f = project().env("FAKE_HVIGOR_SCENARIO", "exit_nonzero");
    assert_eq!(code_of(&f), codes::BUILD_FAILED);
}

#[cfg(unix)]
#[test]
fn sign_tool_that_cannot_start_is_sign_error() {
    let f = project();
    let cfg = BuildConfig {
        java: Some(harness::java_that_vanishes_after_one_run(&f)),
        ..f.config()
    };
    assert_eq!(
        build_app(&hnp_params(&f), &cfg).unwrap_err().code,
        codes::HNP_SIGN_ERROR
    );
}
