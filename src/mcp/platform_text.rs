//! Tool entries for the platform a server drives (`tapflow mcp --platform`). The registry's
//! descriptions speak of HarmonyOS, its home platform; a server whose devices are all Android
//! publishes them in Android's words (logcat, am/pm, resource-id, .apk) and without the
//! HarmonyOS-only routing parameter `hdc_server`, which it then refuses like any unknown
//! parameter. A tool that declares itself HarmonyOS-only (`build_app`: hvigor builds HarmonyOS
//! artifacts) is not served there at all.

use serde_json::{Value, json};

use tapflow_device::Platform;
use tapflow_tools::ToolError;
use tapflow_tools::registry::ToolDef;

/// Parameters only HarmonyOS devices have.
pub const HARMONYOS_ONLY_PARAMS: &[&str] = &["hdc_server"];

/// HarmonyOS words → Android words, longest first where one contains another.
const ANDROID_WORDS: &[(&str, &str)] = &[
    ("; `hdc_server` lists a remote hdc server's devices", ""),
    (
        "must end with `.hap` or `.app` (`.apk` on an Android device)",
        "must end with `.apk`",
    ),
    (
        "Use `build_app` first to produce the package, `run_app` afterwards",
        "Use `run_app` afterwards",
    ),
    ("(aa force-stop)", "(am force-stop)"),
    ("(bm clean -d)", "(pm clear)"),
    (
        "its main ability unless `ability_name` is given",
        "its launcher activity unless `ability_name` names an activity",
    ),
    ("ability to launch", "activity to launch"),
    ("main ability", "launcher activity"),
    ("abilities", "activities"),
    ("ArkUI id / key", "resource-id"),
    ("OpenHarmony `KEYCODE_*`", "`KEYCODE_*`"),
    ("hilog domain", "log domain"),
    ("hilog", "logcat"),
    (".hap or .app package", ".apk package"),
    ("HarmonyOS", "Android"),
];

/// Whether a tool is served on `platform` (`None`: devices of both kinds).
pub fn serves(platform: Option<Platform>, def: &ToolDef) -> bool {
    platform != Some(Platform::Android) || !def.harmonyos_only
}

/// Rewrites a `tools/list` entry for `platform` in place.
pub fn adapt(entry: &mut Value, platform: Option<Platform>) {
    if platform != Some(Platform::Android) {
        return;
    }
    if let Some(props) = entry
        .pointer_mut("/inputSchema/properties")
        .and_then(Value::as_object_mut)
    {
        for p in HARMONYOS_ONLY_PARAMS {
            props.remove(*p);
        }
    }
    reword(entry);
}

fn reword(v: &mut Value) {
    match v {
        Value::Object(o) => {
            for (k, x) in o.iter_mut() {
                match x {
                    Value::String(s) if k == "description" => *s = android_words(s),
                    _ => reword(x),
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(reword),
        _ => {}
    }
}

fn android_words(text: &str) -> String {
    ANDROID_WORDS
        .iter()
        .fold(text.to_string(), |t, (from, to)| t.replace(from, to))
}

/// Refuses a parameter the server's platform does not have (it is not in the published
/// schema; the engine itself would take it, so it must be refused here).
pub fn refuse_foreign(
    args: &serde_json::Map<String, Value>,
    platform: Option<Platform>,
) -> Result<(), ToolError> {
    if platform != Some(Platform::Android) {
        return Ok(());
    }
    match HARMONYOS_ONLY_PARAMS.iter().find(|p| args.contains_key(**p)) {
        None => Ok(()),
        Some(p) => Err(ToolError::new(
            tapflow_core::codes::INVALID_PARAM,
            format!("unknown parameter `{p}`: this server drives Android devices (adb); `{p}` is for HarmonyOS devices. Leave it out (`device_id` picks the device)."),
        )
        .with_details(json!({ "param": p }))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn android_entries_lose_hdc_words_and_parameters() {
        let engine = crate::mcp::engine();
        for def in engine.tools() {
            if !serves(Some(Platform::Android), def) {
                continue;
            }
            let mut entry = def.mcp_entry();
            adapt(&mut entry, Some(Platform::Android));
            let words = [&entry["description"], &entry["inputSchema"]]
                .iter()
                .map(|v| v.to_string())
                .collect::<String>();
            for w in [
                "HarmonyOS",
                "hdc",
                "hilog",
                "ArkUI",
                "OpenHarmony",
                "hvigor",
                ".hap",
            ] {
                assert!(!words.contains(w), "{}: `{w}` in {words}", def.name);
            }
        }
        let build = engine.get("build_app").unwrap();
        assert!(!serves(Some(Platform::Android), build));
        assert!(serves(None, build));
        let mut args = serde_json::Map::new();
        args.insert("hdc_server".into(), json!("1.2.3.4:5"));
        let e = refuse_foreign(&args, Some(Platform::Android)).unwrap_err();
        assert_eq!(e.code, "INVALID_PARAM");
        assert!(refuse_foreign(&args, Some(Platform::Harmonyos)).is_ok());
    }
}
