//! Signing material from `build-profile.json5` and `hap-sign-tool.jar sign-app` runs
//! (docs/reference/hap-packing.md §3, §4).
//!
//! DevEco stores `keyPassword`/`storePassword` as ciphertext that the sign tool cannot use, so a run
//! is tried per password candidate (stored values; `HAP_KEY_PASSWORD`/`HAP_STORE_PASSWORD`;
//! `HAP_SIGN_PASSWORD` for both; the SDK test keystore's `123456` when the stored values look encrypted)
//! until one exits 0 and leaves the output file.

use std::path::{Path, PathBuf};

use regex::Regex;
use serde_json::{Value, json};
use std::sync::LazyLock;

use super::config::{SigningPasswords, ToolContext, Toolchain};
use super::error::{BuildError, Flow};
use super::process::{self, Invocation};
use super::project::{Project, join_clean, read_json5};

const REQUIRED_KEYS: [&str; 6] = [
    "keyAlias",
    "keyPassword",
    "storePassword",
    "certpath",
    "profile",
    "storeFile",
];
const DEFAULT_SIGN_ALG: &str = "SHA256withECDSA";
/// Password of the OpenHarmony SDK's test keystore (hapsigner `autosign.config`).
const SDK_TEST_KEYSTORE_PASSWORD: &str = "123456";

/// Everything `sign-app` needs, resolved and checked.
#[derive(Clone, PartialEq, Eq)]
pub struct SigningMaterial {
    pub key_alias: String,
    pub key_password: String,
    pub store_password: String,
    pub cert_path: PathBuf,
    pub profile: PathBuf,
    pub store_file: PathBuf,
    pub sign_alg: String,
    pub compatible_version: String,
}

impl std::fmt::Debug for SigningMaterial {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SigningMaterial")
            .field("key_alias", &self.key_alias)
            .field("cert_path", &self.cert_path)
            .field("profile", &self.profile)
            .field("store_file", &self.store_file)
            .field("sign_alg", &self.sign_alg)
            .field("compatible_version", &self.compatible_version)
            .finish_non_exhaustive()
    }
}

/// Resolves the signing config of `product` (§4.2): first profile declaring the product wins.
pub fn resolve(
    project: &Project,
    product: &str,
    flow: Flow,
) -> Result<SigningMaterial, BuildError> {
    let mut found = None;
    for path in project.profile_paths() {
        let Some(profile) = read_json5(&path) else {
            continue;
        };
        let app = profile.get("app").unwrap_or(&profile);
        let product_obj = app
            .get("products")
            .and_then(Value::as_array)
            .and_then(|ps| {
                ps.iter()
                    .find(|p| p.get("name").and_then(Value::as_str) == Some(product))
            })
            .cloned();
        if let Some(p) = product_obj {
            found = Some((path, app.clone(), p));
            break;
        }
    }
    let Some((profile_path, app, product_obj)) = found else {
        return Err(BuildError::new(
            flow.signing_config_missing(),
            format!("product \"{product}\" was not found in build-profile.json5"),
        ));
    };
    let Some(config_name) = product_obj.get("signingConfig").and_then(Value::as_str) else {
        return Err(BuildError::new(
            flow.signing_config_missing(),
            format!("product \"{product}\" does not declare signingConfig"),
        ));
    };
    let config = app
        .get("signingConfigs")
        .and_then(Value::as_array)
        .and_then(|cs| cs.iter().find(|c| c.get("name").and_then(Value::as_str) == Some(config_name)))
        .ok_or_else(|| {
            BuildError::new(
                flow.signing_config_missing(),
                format!("signing config \"{config_name}\" referenced by product \"{product}\" was not found"),
            )
        })?;
    let material = config.get("material").unwrap_or(config);
    let get = |k: &str| {
        material
            .get(k)
            .and_then(Value::as_str)
            .map(str::to_string)
            .filter(|s| !s.is_empty())
    };
    let missing: Vec<&str> = REQUIRED_KEYS
        .iter()
        .copied()
        .filter(|k| get(k).is_none())
        .collect();
    if !missing.is_empty() {
        return Err(BuildError::with_details(
            flow.signing_config_incomplete(),
            format!(
                "signing material is missing required keys: {}",
                missing.join(", ")
            ),
            json!({"missing": missing, "profile": profile_path.display().to_string(), "signing_config": config_name}),
        ));
    }
    let base = profile_path.parent().unwrap_or(&project.root).to_path_buf();
    let mut not_found = Vec::new();
    let mut resolve_file = |key: &str| -> PathBuf {
        let text = get(key).unwrap_or_default();
        let raw = PathBuf::from(&text);
        let candidates = if raw.is_absolute() {
            vec![raw.clone()]
        } else {
            vec![join_clean(&base, &text), join_clean(&project.root, &text)]
        };
        candidates
            .iter()
            .find(|c| c.is_file())
            .cloned()
            .unwrap_or_else(|| {
                not_found.push(candidates[0].display().to_string());
                candidates[0].clone()
            })
    };
    let cert_path = resolve_file("certpath");
    let profile = resolve_file("profile");
    let store_file = resolve_file("storeFile");
    if !not_found.is_empty() {
        return Err(BuildError::with_details(
            flow.signing_file_not_found(),
            format!("signing files were not found: {}", not_found.join(", ")),
            json!({"missing": not_found}),
        ));
    }
    let version_source = product_obj
        .get("compatibleSdkVersion")
        .or_else(|| product_obj.get("targetSdkVersion"));
    Ok(SigningMaterial {
        key_alias: get("keyAlias").unwrap_or_default(),
        key_password: get("keyPassword").unwrap_or_default(),
        store_password: get("storePassword").unwrap_or_default(),
        cert_path,
        profile,
        store_file,
        sign_alg: get("signAlg").unwrap_or_else(|| DEFAULT_SIGN_ALG.to_string()),
        compatible_version: compatible_version(version_source),
    })
}

static PAREN_NUMBER: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\((\d+)\)").unwrap());
static FIRST_NUMBER: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\d+").unwrap());

/// `"5.0.0(12)"` → `12`, `"12"`/`12` → `12`, else the first integer, else `9`.
pub fn compatible_version(v: Option<&Value>) -> String {
    let text = match v {
        Some(Value::Number(n)) => n.to_string(),
        Some(Value::String(s)) => s.clone(),
        _ => String::new(),
    };
    if let Some(c) = PAREN_NUMBER.captures(&text) {
        return c[1].to_string();
    }
    FIRST_NUMBER
        .find(&text)
        .map(|m| m.as_str().to_string())
        .unwrap_or_else(|| "9".to_string())
}

/// DevEco ciphertext: at least 32 characters, all hex.
pub fn looks_encrypted(pw: &str) -> bool {
    pw.len() >= 32 && pw.chars().all(|c| c.is_ascii_hexdigit())
}

/// `(keyPwd, keystorePwd)` pairs to try, in order, without duplicates (§4.3).
pub fn password_candidates(m: &SigningMaterial, env: &SigningPasswords) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut push = |pair: (String, String)| {
        if !out.contains(&pair) {
            out.push(pair);
        }
    };
    push((m.key_password.clone(), m.store_password.clone()));
    if env.key.is_some() || env.store.is_some() {
        push((
            env.key.clone().unwrap_or_else(|| m.key_password.clone()),
            env.store
                .clone()
                .unwrap_or_else(|| m.store_password.clone()),
        ));
    }
    if let Some(s) = &env.sign {
        push((s.clone(), s.clone()));
    }
    if looks_encrypted(&m.key_password) || looks_encrypted(&m.store_password) {
        push((
            SDK_TEST_KEYSTORE_PASSWORD.to_string(),
            SDK_TEST_KEYSTORE_PASSWORD.to_string(),
        ));
    }
    out
}

/// `java -jar hap-sign-tool.jar sign-app …` for one candidate.
pub fn sign_invocation(
    tc: &Toolchain,
    m: &SigningMaterial,
    pwd: &(String, String),
    input: &Path,
    output: &Path,
    cwd: &Path,
) -> Invocation {
    Invocation::new(&tc.java, cwd)
        .arg("-jar")
        .arg(tc.sign_jar.clone().into_os_string())
        .args([
            "sign-app".into(),
            "-mode".into(),
            "localSign".into(),
            "-keyAlias".into(),
            m.key_alias.clone().into(),
            "-keyPwd".into(),
            pwd.0.clone().into(),
            "-appCertFile".into(),
            m.cert_path.clone().into_os_string(),
            "-profileFile".into(),
            m.profile.clone().into_os_string(),
            "-inFile".into(),
            input.as_os_str().to_owned(),
            "-signAlg".into(),
            m.sign_alg.clone().into(),
            "-keystoreFile".into(),
            m.store_file.clone().into_os_string(),
            "-keystorePwd".into(),
            pwd.1.clone().into(),
            "-outFile".into(),
            output.as_os_str().to_owned(),
            "-compatibleVersion".into(),
            m.compatible_version.clone().into(),
            "-signCode".into(),
            "1".into(),
        ] as [std::ffi::OsString; 25])
}

static NEW_FORMAT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"ERROR:\s*(\d{8})\s+(.*)").unwrap());
static OLD_FORMAT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"([A-Z_]+), code: (\d+)\. Details: (.*)").unwrap());

/// Failure records from sign tool output, both formats (§3.2): `{code, description, cause}`.
pub fn sign_tool_errors(output: &str) -> Vec<Value> {
    let lines: Vec<&str> = output.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if let Some(c) = NEW_FORMAT.captures(line) {
            let cause = lines
                .get(i + 1)
                .and_then(|l| l.trim().strip_prefix("Error Message:"))
                .map(|s| s.trim().to_string());
            out.push(json!({"code": &c[1], "description": c[2].trim(), "cause": cause}));
        } else if let Some(c) = OLD_FORMAT.captures(line) {
            out.push(json!({"code": &c[2], "description": &c[1], "cause": c[3].trim()}));
        }
    }
    out
}

/// Signs `input` into `output`, trying each password candidate (the output is removed before each try).
pub fn sign(
    flow: Flow,
    tools: &ToolContext,
    m: &SigningMaterial,
    input: &Path,
    output: &Path,
) -> Result<(), BuildError> {
    let tc = tools.toolchain;
    let candidates = password_candidates(m, &tools.cfg.passwords);
    let mut transcript = String::new();
    let mut last_exit = None;
    for (attempt, pwd) in candidates.iter().enumerate() {
        let _ = std::fs::remove_file(output);
        let mut inv = sign_invocation(tc, m, pwd, input, output, tools.cwd);
        inv.env = tools.cfg.child_env();
        let finished = process::run(&inv, tools.deadline).map_err(|e| {
            BuildError::with_details(
                flow.sign_error(),
                format!(
                    "failed to start {} for hap-sign-tool.jar: {e}",
                    tc.java.display()
                ),
                json!({"java": tc.java.display().to_string()}),
            )
        })?;
        transcript.push_str(&finished.combined());
        if finished.timed_out() {
            return Err(BuildError::with_details(
                flow.sign_timeout(),
                "hap-sign-tool.jar sign-app did not finish within the build budget",
                json!({"attempts": attempt + 1}),
            ));
        }
        if finished.success() && output.is_file() {
            return Ok(());
        }
        last_exit = finished.status.and_then(|s| s.code());
    }
    let tool_errors = sign_tool_errors(&transcript);
    let why = tool_errors
        .last()
        .map(|e| {
            format!(
                ": {} {}",
                e["code"].as_str().unwrap_or(""),
                e["cause"]
                    .as_str()
                    .or(e["description"].as_str())
                    .unwrap_or("")
            )
        })
        .unwrap_or_else(|| {
            if last_exit == Some(0) {
                ": exit 0 but no signed file was written".to_string()
            } else {
                String::new()
            }
        });
    Err(BuildError::with_details(
        flow.sign_failed(),
        format!(
            "hap-sign-tool.jar sign-app failed for all {} password candidate(s){why}; set HAP_SIGN_PASSWORD, or HAP_KEY_PASSWORD and HAP_STORE_PASSWORD, to the plaintext passwords",
            candidates.len()
        ),
        json!({"attempts": candidates.len(), "exit_code": last_exit, "tool_errors": tool_errors, "output_tail": super::hvigor_run::tail(&transcript)}),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn material(k: &str, s: &str) -> SigningMaterial {
        SigningMaterial {
            key_alias: "a".into(),
            key_password: k.into(),
            store_password: s.into(),
            cert_path: "c.cer".into(),
            profile: "p.p7b".into(),
            store_file: "k.p12".into(),
            sign_alg: DEFAULT_SIGN_ALG.into(),
            compatible_version: "12".into(),
        }
    }

    #[test]
    fn compatible_version_rules() {
        assert_eq!(compatible_version(Some(&json!("5.0.0(12)"))), "12");
        assert_eq!(compatible_version(Some(&json!(11))), "11");
        assert_eq!(compatible_version(Some(&json!("4.1.0"))), "4");
        assert_eq!(compatible_version(None), "9");
    }

    #[test]
    fn candidates_follow_the_reference_order() {
        let enc = "0000001A2B3C4D5E6F7A8B9C0D1E2F3A4B5C6D7E8F90";
        let env = SigningPasswords {
            sign: Some("S".into()),
            key: Some("K".into()),
            store: None,
        };
        let c = password_candidates(&material(enc, enc), &env);
        assert_eq!(
            c,
            vec![
                (enc.to_string(), enc.to_string()),
                ("K".to_string(), enc.to_string()),
                ("S".to_string(), "S".to_string()),
                ("123456".to_string(), "123456".to_string()),
            ]
        );
        let c = password_candidates(&material("plain", "plain"), &SigningPasswords::default());
        assert_eq!(c, vec![("plain".to_string(), "plain".to_string())]);
        assert!(!looks_encrypted("123456"));
    }

    #[test]
    fn sign_tool_error_formats() {
        let new = "11-30 12:00:00.000 ERROR - ERROR: 11014003 Init keystore failed\nError Message: keystore password was incorrect\n";
        assert_eq!(
            sign_tool_errors(new),
            vec![
                json!({"code": "11014003", "description": "Init keystore failed", "cause": "keystore password was incorrect"})
            ]
        );
        let old = "hap-sign-tool: error: ACCESS_ERROR, code: 109. Details: Init keystore failed: keystore password was incorrect";
        assert_eq!(sign_tool_errors(old)[0]["code"], "109");
    }

    #[test]
    fn debug_hides_passwords() {
        assert!(!format!("{:?}", material("topsecret", "x")).contains("topsecret"));
    }
}
