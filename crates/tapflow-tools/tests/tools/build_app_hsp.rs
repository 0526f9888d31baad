//! `build_app` with `target="hap", include_hsp=true`, end to end through the fake hvigor, packing tool
//! and sign tool: the happy path and every `HSP_*` code.

use crate::common::harness;

use std::time::Duration;

use harness::{ENCRYPTED_KEY_PWD, ENCRYPTED_STORE_PWD, Fixture, zip_entries, zip_text};
use pretty_assertions::assert_eq;
use tapflow_tools::build_app::{
    ArtifactSource, BuildAppParams, BuildConfig, SignStatus, SigningPasswords, build_app, codes,
};

const FLAGS: &str = "--analyze=normal --parallel --incremental --no-daemon";

fn project() -> Fixture {
    let mut f = Fixture::new();
    f.add_module("liba", "shared");
    f.add_module("libb", "shared");
    f
}

fn hsp_params(f: &Fixture, names: Option<&[&str]>) -> BuildAppParams {
    let mut p = f.params();
    p.include_hsp = true;
    p.hsp_module_names = names.map(|n| n.iter().map(|s| s.to_string()).collect());
    p
}

fn code_of(f: &Fixture, p: &BuildAppParams) -> tapflow_core::codes::Code {
    build_app(p, &f.config()).unwrap_err().code
}

#[test]
fn explicit_modules_are_built_injected_and_signed() {
    let f = project();
    let r = build_app(
        &hsp_params(&f, Some(&["libb", " liba", "libb", ""])),
        &f.config(),
    )
    .unwrap();
    assert_eq!(
        f.hvigor_calls(),
        vec![
            format!("--mode module -p product=default -p buildMode=debug assembleHap {FLAGS}"),
            format!(
                "--mode module -p product=default -p module=libb@default -p buildMode=debug assembleHsp {FLAGS}"
            ),
            format!(
                "--mode module -p product=default -p module=liba@default -p buildMode=debug assembleHsp {FLAGS}"
            ),
        ]
    );
    let out = f.root.join("entry/build/default/outputs/default");
    assert_eq!(
        r.output_path.as_deref(),
        Some(out.join("entry-default-signed-hsp.hap").to_str().unwrap())
    );
    assert_eq!(
        (r.artifact_source, r.sign_status),
        (Some(ArtifactSource::HspDirect), SignStatus::Signed)
    );
    assert_eq!(
        r.hsp_module_names,
        Some(vec!["libb".to_string(), "liba".to_string()])
    );
    assert_eq!(
        r.hsp_output_paths,
        vec![
            f.p("libb/build/default/outputs/default/libb-default-signed.hsp"),
            f.p("liba/build/default/outputs/default/liba-default-signed.hsp")
        ]
    );
    let signed = out.join("entry-default-signed-hsp.hap");
    let entries = zip_entries(&signed);
    for e in [
        "module.json",
        "pack.info",
        "pkgContextInfo.json",
        "resources.index",
        "ets/modules.abc",
        "shared_libs/liba-default-signed.hsp",
        "shared_libs/libb-default-signed.hsp",
    ] {
        assert!(
            entries.contains(&e.to_string()),
            "{e} missing from {entries:?}"
        );
    }
    let pack: serde_json::Value = serde_json::from_str(&zip_text(&signed, "pack.info")).unwrap();
    let names: Vec<&str> = pack["summary"]["modules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["distro"]["moduleName"].as_str().unwrap())
        .collect();
    assert_eq!(names, vec!["entry", "libb", "liba"]);
    assert_eq!(pack["packages"].as_array().unwrap().len(), 3);

    // The java calls: one repack, then sign-app per password candidate until one works.
    let calls = f.java_calls();
    assert_eq!(calls.len(), 3, "{calls:#?}");
    let b = "entry/build/default";
    let expected_pack = vec![
        "-jar".to_string(),
        f.sdk_lib.join("app_packing_tool.jar").display().to_string(),
        "--mode".into(),
        "hap".into(),
        "--json-path".into(),
        f.p(&format!("{b}/intermediates/package/default/module.json")),
        "--resources-path".into(),
        f.p(&format!("{b}/intermediates/res/default/resources")),
        "--ets-path".into(),
        f.p(&format!("{b}/intermediates/loader_out/default/ets")),
        "--out-path".into(),
        f.p(&format!(
            "{b}/outputs/default/entry-default-unsigned-hsp.hap"
        )),
        "--shared-libs-path".into(),
        f.p(&format!("{b}/outputs/default/shared_libs")),
        "--index-path".into(),
        f.p(&format!("{b}/intermediates/res/default/resources.index")),
        "--pack-info-path".into(),
        f.p(&format!("{b}/outputs/default/hsp_pack_info/pack.info")),
        "--pkg-context-path".into(),
        f.p(&format!(
            "{b}/intermediates/loader/default/pkgContextInfo.json"
        )),
        "--force".into(),
        "true".into(),
    ];
    assert_eq!(calls[0], expected_pack);
    let sign_line = |key: &str, store: &str| -> Vec<String> {
        [
            "-jar",
            &f.sdk_lib.join("hap-sign-tool.jar").display().to_string(),
            "sign-app",
            "-mode",
            "localSign",
            "-keyAlias",
            "debugKey",
            "-keyPwd",
            key,
            "-appCertFile",
            &f.p("signing/default.cer"),
            "-profileFile",
            &f.p("signing/default.p7b"),
            "-inFile",
            &f.p(&format!(
                "{b}/outputs/default/entry-default-unsigned-hsp.hap"
            )),
            "-signAlg",
            "SHA256withECDSA",
            "-keystoreFile",
            &f.p("signing/default.p12"),
            "-keystorePwd",
            store,
            "-outFile",
            &f.p(&format!("{b}/outputs/default/entry-default-signed-hsp.hap")),
            "-compatibleVersion",
            "12",
            "-signCode",
            "1",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    };
    // Stored DevEco ciphertext first (rejected by the keystore), then the SDK test keystore password.
    assert_eq!(calls[1], sign_line(ENCRYPTED_KEY_PWD, ENCRYPTED_STORE_PWD));
    assert_eq!(calls[2], sign_line("123456", "123456"));
}

#[test]
fn shared_modules_are_auto_discovered_sorted() {
    let mut f = Fixture::new();
    f.add_module("zeta", "shared");
    f.add_module("alpha", "shared");
    f.add_module("feature1", "feature");
    let r = build_app(&hsp_params(&f, Some(&[])), &f.config()).unwrap();
    assert_eq!(
        r.hsp_module_names,
        Some(vec!["alpha".to_string(), "zeta".to_string()])
    );
    assert_eq!(r.hsp_output_paths.len(), 2);
    assert!(
        zip_entries(std::path::Path::new(r.output_path.as_ref().unwrap()))
            .contains(&"shared_libs/zeta-default-signed.hsp".to_string())
    );
}

#[test]
fn env_passwords_are_tried() {
    let f = project();
    f.set_keystore("store-pw", "key-pw");
    let p = hsp_params(&f, Some(&["liba"]));
    let e = build_app(&p, &f.config()).unwrap_err();
    assert_eq!(e.code, codes::HSP_SIGN_FAILED);
    assert_eq!(e.details["attempts"], 2);
    assert_eq!(e.details["tool_errors"][0]["code"], "11014003");
    assert!(
        e.message
            .contains("11014003 keystore password was incorrect"),
        "{}",
        e.message
    );
    assert!(e.message.contains("HAP_SIGN_PASSWORD"));
    let cfg = BuildConfig {
        passwords: SigningPasswords {
            key: Some("key-pw".into()),
            store: Some("store-pw".into()),
            sign: None,
        },
        ..f.config()
    };
    let r = build_app(&p, &cfg).unwrap();
    assert_eq!(r.sign_status, SignStatus::Signed);
    f.set_keystore("same", "same");
    let cfg = BuildConfig {
        passwords: SigningPasswords {
            sign: Some("same".into()),
            ..Default::default()
        },
        ..f.config()
    };
    build_app(&p, &cfg).unwrap();
}

#[test]
fn sign_exit_zero_without_output_is_sign_failed() {
    let f = project().env("FAKE_SIGN_BEHAVIOUR", "no_output");
    let e = build_app(&hsp_params(&f, Some(&["liba"])), &f.config()).unwrap_err();
    assert_eq!(e.code, codes::HSP_SIGN_FAILED);
}

#[test]
fn module_not_found_cases() {
    let f = Fixture::new();
    assert_eq!(
        code_of(&f, &hsp_params(&f, None)),
        codes::HSP_MODULE_NOT_FOUND
    );
    let f = project();
    let e = build_app(&hsp_params(&f, Some(&["nope"])), &f.config()).unwrap_err();
    assert_eq!(e.code, codes::HSP_MODULE_NOT_FOUND);
    assert_eq!(
        code_of(&f, &hsp_params(&f, Some(&["liba", "entry"]))),
        codes::HSP_MODULE_NOT_FOUND
    );
    assert!(f.hvigor_calls().is_empty(), "checks run before any build");
}

#[test]
fn signing_config_missing_cases() {
    let f = project();
    let mut p = hsp_params(&f, None);
    p.product = "nosign".into();
    let e = build_app(&p, &f.config()).unwrap_err();
    assert_eq!(
        (e.code, e.message.as_str()),
        (
            codes::HSP_SIGNING_CONFIG_MISSING,
            "product \"nosign\" does not declare signingConfig"
        )
    );
    p.product = "ghost".into();
    let e = build_app(&p, &f.config()).unwrap_err();
    assert_eq!(
        e.message,
        "product \"ghost\" was not found in build-profile.json5"
    );
    f.edit_profile("signingConfig: 'default'", "signingConfig: 'release'");
    let e = build_app(&hsp_params(&f, None), &f.config()).unwrap_err();
    assert_eq!(e.code, codes::HSP_SIGNING_CONFIG_MISSING);
    assert_eq!(
        e.message,
        "signing config \"release\" referenced by product \"default\" was not found"
    );
}

#[test]
fn signing_config_incomplete() {
    let f = project();
    f.edit_profile("keyAlias: 'debugKey',", "");
    f.edit_profile("profile: './signing/default.p7b',", "");
    let e = build_app(&hsp_params(&f, None), &f.config()).unwrap_err();
    assert_eq!(e.code, codes::HSP_SIGNING_CONFIG_INCOMPLETE);
    assert_eq!(
        e.message,
        "signing material is missing required keys: keyAlias, profile"
    );
}

#[test]
fn signing_file_not_found() {
    let f = project();
    std::fs::remove_file(f.root.join("signing/default.p12")).unwrap();
    let e = build_app(&hsp_params(&f, None), &f.config()).unwrap_err();
    assert_eq!(e.code, codes::HSP_SIGNING_FILE_NOT_FOUND);
    assert_eq!(
        e.message,
        format!(
            "signing files were not found: {}",
            f.p("signing/default.p12")
        )
    );
}

#[test]
fn toolchain_not_found() {
    let f = project();
    std::fs::remove_file(f.sdk_lib.join("hap-sign-tool.jar")).unwrap();
    let e = build_app(&hsp_params(&f, None), &f.config()).unwrap_err();
    assert_eq!(e.code, codes::HSP_TOOLCHAIN_NOT_FOUND);
    assert_eq!(
        e.message,
        "required SDK toolchain jars were not found: hap-sign-tool.jar"
    );
    assert!(f.hvigor_calls().is_empty());
}

#[test]
fn packaging_input_missing() {
    let f = project().env("FAKE_HVIGOR_SCENARIO", "no_intermediates");
    let e = build_app(&hsp_params(&f, None), &f.config()).unwrap_err();
    assert_eq!(e.code, codes::HSP_PACKAGING_INPUT_MISSING);
    assert_eq!(e.details["missing"].as_array().unwrap().len(), 6);
}

#[test]
fn pack_info_error_when_an_hsp_has_none() {
    let f = project().env("FAKE_HVIGOR_HSP_WITHOUT_PACK_INFO", "1");
    let e = build_app(&hsp_params(&f, Some(&["liba"])), &f.config()).unwrap_err();
    assert_eq!(e.code, codes::HSP_PACK_INFO_ERROR);
    assert!(
        e.message.starts_with("failed to read pack.info from HSP "),
        "{}",
        e.message
    );
}

#[test]
fn old_packer_that_drops_shared_libs_is_not_in_hap() {
    let f = project().env("FAKE_PACKING_BEHAVIOUR", "ignore_extras");
    let e = build_app(&hsp_params(&f, Some(&["liba"])), &f.config()).unwrap_err();
    assert_eq!(e.code, codes::HSP_NOT_IN_HAP);
    assert!(
        e.message
            .starts_with("signed HAP does not contain shared_libs/*.hsp: ")
    );
}

#[test]
fn hsp_build_failure_carries_its_errors() {
    let f = project().env("FAKE_HVIGOR_FAIL_MODULE", "libb");
    let e = build_app(&hsp_params(&f, None), &f.config()).unwrap_err();
    assert_eq!(e.code, codes::HSP_BUILD_FAILED);
    assert_eq!(e.details["error_count"], 1);
    assert_eq!(
        e.details["errors"][0]["message"],
        "Cannot find name 'undefinedThing'."
    );
    assert_eq!(
        e.details["errors"][0]["file"],
        f.p("libb/src/main/ets/Index.ets")
    );
    assert_eq!(e.details["result"]["error_count"], 1);
}

#[test]
fn hsp_output_not_found() {
    let f = project().env("FAKE_HVIGOR_SCENARIO", "no_artifact");
    assert_eq!(
        code_of(&f, &hsp_params(&f, None)),
        codes::HSP_OUTPUT_NOT_FOUND
    );
}

#[test]
fn repack_failures() {
    let f = project().env("FAKE_PACKING_BEHAVIOUR", "fail");
    let e = build_app(&hsp_params(&f, Some(&["liba"])), &f.config()).unwrap_err();
    assert_eq!(e.code, codes::HSP_REPACK_FAILED);
    assert_eq!(
        e.message,
        "app_packing_tool.jar --mode hap failed: Compressor::compressProcess compress failed."
    );
    let f = project().env("FAKE_PACKING_BEHAVIOUR", "no_output");
    assert_eq!(
        code_of(&f, &hsp_params(&f, Some(&["liba"]))),
        codes::HSP_REPACK_FAILED
    );
    let f = project();
    let cfg = BuildConfig {
        java: Some(f.root.join("no-java")),
        ..f.config()
    };
    assert_eq!(
        build_app(&hsp_params(&f, Some(&["liba"])), &cfg)
            .unwrap_err()
            .code,
        codes::HSP_REPACK_ERROR
    );
}

#[test]
fn repack_and_sign_timeouts() {
    for (var, code) in [
        ("FAKE_PACKING_BEHAVIOUR", codes::HSP_REPACK_TIMEOUT),
        ("FAKE_SIGN_BEHAVIOUR", codes::HSP_SIGN_TIMEOUT),
    ] {
        let f = project().env(var, "hang");
        let cfg = BuildConfig {
            timeout: Duration::from_secs(6),
            ..f.config()
        };
        let e = build_app(&hsp_params(&f, Some(&["liba"])), &cfg).unwrap_err();
        assert_eq!(e.code, code);
    }
}

#[cfg(unix)]
#[test]
fn sign_tool_that_cannot_start_is_sign_error() {
    let f = project();
    let cfg = BuildConfig {
        java: Some(harness::java_that_vanishes_after_one_run(&f)),
        ..f.config()
    };
    let e = build_app(&hsp_params(&f, Some(&["liba"])), &cfg).unwrap_err();
    assert_eq!(e.code, codes::HSP_SIGN_ERROR);
}
