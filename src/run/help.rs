//! One help line per common failure code: what to try next, printed under the error in the
//! progress and the summary (`help: …`) and listed in `docs/errors.md`.

use tapflow_core::codes;

/// The fix to suggest for `code`, when there is a common one.
pub fn for_code(code: codes::Code) -> Option<&'static str> {
    Some(match code {
        codes::ELEMENT_NOT_FOUND => {
            "check the near misses in the message and the UI tree saved as evidence (`ui_tree`); raise the step's `wait:` if the screen is slow to appear"
        }
        codes::WAIT_TIMEOUT => {
            "raise `timeout_ms` if the screen is slow, or check the selector against the UI tree saved as evidence (`ui_tree`)"
        }
        codes::AMBIGUOUS_ELEMENT_MATCH => {
            "several elements match: add `element_type` or `element_id`, or pick one with `index: N` (0-based, reading order)"
        }
        codes::TEXT_NOT_READABLE => {
            "the field hides its value (a password field): a call whose masked length matches succeeds with `verified: false`, `length_verified: true`; this one showed a different length (characters lost or added)"
        }
        codes::APP_CRASHED => {
            "the app crashed: read the exception and stack in the error details, the crash file (evidence `crash`, HarmonyOS) and the device log excerpt"
        }
        codes::STEP_TIMEOUT => "raise the step's `deadline:` or the flow's `step_timeout:`",
        codes::FLOW_TIMEOUT => "raise the flow's `timeout:`",
        codes::EXPECTATION_FAILED => {
            "the tool ran but its result differs: compare `expected` and `actual` in the error details"
        }
        codes::UNRESOLVED_VARIABLE => {
            "pass the variable with `--env NAME=value`, set `TAPFLOW_NAME`, or keep the step it reads"
        }
        codes::MULTIPLE_DEVICES => {
            "several devices are connected: choose one with `--device SERIAL`, or run on all with `--all-devices`"
        }
        codes::DEVICE_NOT_FOUND => {
            "list devices with `tapflow devices`; use `--sim N` for simulated ones"
        }
        codes::DEVICE_UNRESPONSIVE => {
            "the device's UI dumps failed or took 5 s or more: check the device (`tapflow devices`, `hdc shell uitest dumpLayout` / `adb exec-out uiautomator dump /dev/tty` by hand); rerun when it answers promptly"
        }
        codes::INPUT_KEYS_LOST => {
            "the device drops keys typed one at a time: check its load and input method, or use a route that commits text at once (HarmonyOS pastes non-digit text; on Android, ADBKeyBoard)"
        }
        codes::HDC_NOT_FOUND => {
            "install the HarmonyOS SDK's `hdc` (or pass `--hdc PATH`); without a phone use `--sim N`"
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn common_codes_have_help_and_others_none() {
        assert!(super::for_code(tapflow_core::codes::ELEMENT_NOT_FOUND).is_some());
        assert!(super::for_code(tapflow_core::codes::APP_CRASHED).is_some());
        assert!(super::for_code(tapflow_core::codes::INVALID_BUNDLE_NAME).is_none());
    }
}
