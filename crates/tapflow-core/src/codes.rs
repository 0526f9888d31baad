//! Every code tapflow answers with, in one list: the device layer's, the tools' (the HarmonyOS
//! tool reference's where it has one, marked `contract`), the flow runner's, the MCP server's,
//! and the flow diagnostics' (`diag`). Code elsewhere names a code through these constants,
//! never as a string of its own, and `docs/errors.md` is generated from [`ALL`] and
//! [`diag::ALL`] (`crates/tapflow-tools/tests/flow/docs.rs` fails when it drifts; `tests/flow/one_registry.rs` when a
//! code is spelled out anywhere else).
//!
//! A leaf: strings only, used by every layer (`device`, `tools`, `run`, `mcp`, `flow`, `plan`).

/// Which part of tapflow answers with a code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layer {
    /// The `Device` trait and its backends (`DeviceError::code()`), passed through by tools.
    Device,
    /// A tool (`Engine::call`'s envelope).
    Tool,
    /// The flow runner (a step's or a flow's error in the run result).
    Run,
    /// The MCP server, around a tool call.
    Mcp,
}

/// One code with what it means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Code {
    pub code: &'static str,
    pub layer: Layer,
    /// The HarmonyOS tool reference defines it (else it is tapflow's own).
    pub contract: bool,
    pub meaning: &'static str,
}

macro_rules! codes {
    ($( $layer:ident { $( $name:ident $(($c:ident))? => $meaning:literal, )* } )*) => {
        $($(
            #[doc = $meaning]
            pub const $name: &str = stringify!($name);
        )*)*
        /// Every code, by layer.
        pub const ALL: &[Code] = &[
            $($( Code {
                code: $name,
                layer: Layer::$layer,
                contract: codes!(@contract $($c)?),
                meaning: $meaning,
            }, )*)*
        ];
    };
    (@contract contract) => { true };
    (@contract) => { false };
}

codes! {
    Device {
        HDC_NOT_FOUND => "The hdc executable could not be started (wrong path, not installed, not executable).",
        HDC_TIMEOUT => "An hdc call did not finish before its deadline and was killed; the message names the exact command.",
        DEVICE_NOT_FOUND => "No connected device has the requested key, or no device is connected at all.",
        MULTIPLE_DEVICES => "Several devices are connected and none was chosen; pass `device_id`.",
        DEVICE_UNAUTHORIZED => "The device has not authorised this host; accept the prompt on the device.",
        DEVICE_DISCONNECTED => "The device is offline or the link broke during the command.",
        HDC_CHANNEL_NOT_READY => "hdc kept answering `[Fail][E000004]:The communication channel is being established.` through the backend's whole retry budget (5 attempts over about 3 s, see `docs/run.md`, \"Infrastructure faults\"); the command was never run.",
        HDC_SERVER_UNREACHABLE => "The hdc client could not reach its server (`Connect server failed`): the server is not running, was killed, or listens elsewhere (`-s`, `HARMONYOS_HDC_SERVER`). Nothing reached the device.",
        HDC_FAILED => "The hdc client itself failed instead of answering: it exited with a non-zero status or was killed by a signal (real hdc exits 0 on every path). Whether the command reached the device is unknown; the message carries what the client printed.",
        DEVICE_LIST_FAILED => "`hdc list targets` itself failed (e.g. the hdc server could not be reached).",
        HOST_IO_ERROR => "Host-side I/O failed: a package to install is missing, a received file could not be read, a temporary directory could not be made.",
        UNSUPPORTED => "The backend cannot do this operation (it never fakes success).",
        DEVICE_INFO_FAILED => "Device information or the power state could not be read or understood.",
        SCREEN_LOCKED => "The UI dump is the empty root uitest writes when the screen is locked or no window is shown.",
        UI_TREE_FETCH_ERROR (contract) => "uitest could not dump the layout, the dump could not be read back, or a scoped dump matched no window.",
        INVALID_UI_TREE_PAYLOAD (contract) => "The layout came back but is not valid uitest JSON (truncated, wrong shape).",
        WINDOW_QUERY_FAILED => "The window manager's window table could not be read or parsed.",
        MISSION_QUERY_FAILED => "The ability manager's mission list (`aa dump -l`) was refused.",
        SCREENSHOT_ERROR (contract) => "Capturing, transferring, decoding or writing a screenshot failed, or the region lies outside the image.",
        PACKAGE_QUERY_FAILED => "Listing packages or reading one package's information (`bm dump`) failed or was refused (unknown bundle).",
        PID_QUERY_FAILED => "`pidof` answered something that is not a process id.",
        LOG_QUERY_FAILED => "Reading the log buffer (`hilog -x`) failed.",
        CRASH_QUERY_FAILED => "The faultlogger directory could not be listed (other than \"does not exist\", which means no crash).",
        CRASH_READ_FAILED => "A crash file could not be read (e.g. it does not exist).",
        INPUT_FAILED => "uitest refused a tap, gesture or text input.",
        KEY_EVENT_FAILED => "uitest refused a key event.",
        INSTALL_FAILED (contract) => "The package was not installed; the device's `code:…` / `error:…` lines are kept.",
        UNINSTALL_FAILED (contract) => "The bundle was not uninstalled.",
        RUN_APP_FAILED (contract) => "`aa start` did not start the ability.",
        STOP_APP_FAILED => "`aa force-stop` did not stop the app.",
        CLEAR_DATA_FAILED => "`bm clean` did not clear the app's data or cache (the device layer's code; the tool reports CLEAR_APP_DATA_FAILED).",
        LOG_CLEAR_FAILED => "`hilog -r` did not report the buffer as cleared.",
        INVALID_PARAM (contract) => "A value cannot be used as given: an unknown parameter or a wrong type, a value out of range, a bad regular expression or path extension, text containing NUL, a log filter hilog cannot take.",
        INVALID_BUNDLE_NAME => "Not a bundle name (letters, digits, `.`, `_`, `-`; not starting with `-`); every tool that sends a bundle name refuses it before anything runs.",
        INVALID_KEY (contract) => "An unknown key name or code, a raw key list, or a key combination uitest cannot send.",
        PATH_NOT_ALLOWED (contract) => "A host path outside the allowed roots (also via `..` or a symlink), or a crash file name that could leave the faultlogger directory.",
        ADB_NOT_FOUND => "The adb executable could not be started (`--adb`, `TAPFLOW_ADB` or `PATH`; Debian's `adb` package).",
        ADB_TIMEOUT => "An adb call did not finish before its deadline and was killed (`logcat`, `uninstall`, `wait-for-device` block forever without a device); the message names the exact command.",
        ADB_SERVER_UNREACHABLE => "The adb client could not reach or start its server (`-P PORT` / `ADB_SERVER_SOCKET`).",
        ADB_CONNECT_FAILED => "`adb connect` / `adb disconnect` of a networked Android device was refused or failed.",
        UNSUPPORTED_ON_PLATFORM => "The tool or value exists on another platform only (a `.hap` on Android, hvigor builds, a key Android has no code for); the message names the alternative.",
    }
    Tool {
        UNKNOWN_TOOL => "No tool of that name (with a suggestion).",
        INTERNAL_ERROR => "A bug in tapflow surfaced (a call never panics its caller); the run goes on and the result says so.",
        PARAM_CONFLICT (contract) => "Parameters that exclude each other: two target modes, direction with coordinates, a partial or `display_id` region, `list` with `bundle_name`, `index` with `gone`.",
        MISSING_PARAMS (contract) => "A required group is missing: no target, half a coordinate pair, a partial gesture.",
        MISSING_TEXT (contract) => "`input_text` without `text`, or empty text where it cannot clear a field (append, coordinates).",
        MISSING_BUNDLE_NAME (contract) => "A bundle name is required (app tools, `query_package` details).",
        MISSING_HAP_PATH (contract) => "`install_app` without `hap_path`.",
        INVALID_APP_PACKAGE (contract) => "`install_app`: the package does not end with `.hap` or `.app`.",
        INVALID_INFO_TYPE (contract) => "`query_package`: `info_type` outside list, abilities, main_ability, permissions.",
        ABILITY_RESOLUTION_FAILED (contract) => "`run_app` / `query_package`: no ability to launch could be found, or `auto_detect=false` without `ability_name`.",
        CLEAR_APP_DATA_FAILED => "`clear_app_data`: the device did not clear the data.",
        INVALID_CLICK_COUNT (contract) => "`click`: `count` other than 1 or 2.",
        INVALID_ELEMENT_HANDLE (contract) => "A handle that is not the object `find_elements` returns (e.g. a JSON string).",
        ELEMENT_NOT_FOUND (contract) => "No visible element matches (or a stale handle whose hint matches nothing).",
        AMBIGUOUS_ELEMENT_MATCH (contract) => "Several elements match and no `index` was given (candidates in details).",
        INVALID_MATCH_MODE => "`match_mode` outside exact, contains, regex.",
        INVALID_DIRECTION => "`direction` outside up, down, left, right.",
        SCREEN_SIZE_UNKNOWN => "A swipe by direction on a device that reports no screen size and no visible window.",
        INVALID_MODIFIER (contract) => "`press_key`: an unknown modifier, or a system key with modifiers.",
        INVALID_MODIFIER_COUNT (contract) => "`press_key`: more than two modifiers.",
        DUPLICATE_MODIFIER (contract) => "`press_key`: a modifier given twice, or the key itself as a modifier.",
        MISSING_SEARCH_CRITERIA (contract) => "`find_elements` / `scroll_until_visible` without text, element_type or element_id.",
        WINDOW_RESOLUTION_ERROR (contract) => "`get_ui_tree`: the window named by `window_id` / `bundle_name` could not be validated.",
        INVALID_WAIT_TARGET (contract) => "`wait_for_element` without text, element_type or element_id.",
        INVALID_WAIT_STATE (contract) => "`wait_for_element`: `state` other than found or gone.",
        INVALID_TIMEOUT (contract) => "`timeout_ms` below 0.",
        INVALID_INTERVAL (contract) => "`interval_ms` below 0.",
        WAIT_TIMEOUT (contract) => "A wait's strict budget ran out (what was seen is in details).",
        INPUT_TEXT_FAILED => "`input_text` coordinate mode: uitest refused the text.",
        INPUT_FOCUS_DISPATCH_FAILED (contract) => "`input_text`: the focus click was not delivered.",
        INPUT_FOCUS_TIMEOUT (contract) => "`input_text`: focus on the target and a foreground window were not both observed in time.",
        INPUT_TARGET_NOT_INTERACTABLE (contract) => "`input_text`: the target is disabled or does not take text.",
        TEXT_NOT_READABLE (contract) => "`input_text`: the field's value cannot be read back (password or some Web fields).",
        TEXT_CLEANUP_FAILED (contract) => "`input_text`: the sentinel character could not be removed.",
        TEXT_VERIFICATION_TIMEOUT (contract) => "`input_text`: the field did not show exactly the expected value in time.",
        CANCELLED => "The call was cancelled before it finished (the runner's deadline, an MCP client); no further device command was sent.",
        INVALID_QUERY_MODE (contract) => "`logs_query`: `mode` other than errors or markers.",
        FILE_NOT_FOUND (contract) => "An input file (`logs_query`, `install_app`) does not exist or is not a regular file.",
        FILE_TOO_LARGE (contract) => "A `logs_query` input file (or all of them together) exceeds the size limit.",
        IO_ERROR => "Reading a `logs_query` input or writing its `save_path` failed for another reason (permissions, disk full).",
        INVALID_PATH => "A host path that cannot be used at all (empty, NUL, not representable).",
        PATH_IS_SYMLINK => "A host file to write is a symbolic link (never followed).",
        WRONG_FILE_TYPE => "A host path that is not a regular file where one is needed (a directory, a FIFO, a device).",
        FILE_EXISTS => "A host file to create exists already and was not made by tapflow.",
        RUNNABLE_NAME => "A host file to write has a name a build tool or shell would run (`hvigorw`, `Makefile`, `*.sh`, a hidden file, …); see docs/security.md.",
        INVALID_PROJECT_PATH (contract) => "`build_app`: `project_path` is empty or not a directory.",
        INVALID_BUILD_MODE (contract) => "`build_app`: `build_mode` other than debug or release.",
        INVALID_BUILD_TARGET (contract) => "`build_app`: `target` other than hap, har, hsp, app, hnp.",
        MISSING_MODULE_NAME (contract) => "`build_app`: `har` / `hsp` without `module_name`.",
        BUILD_TIMEOUT (contract) => "`build_app`: the build budget ran out during an hvigor run.",
        BUILD_FAILED => "`build_app`: hvigor reported failure (compiler errors in details).",
        BUILD_OUTPUT_NOT_FOUND => "`build_app`: the build succeeded but left no artifact.",
        BUILD_ERROR => "`build_app`: hvigor or node could not be started.",
        HVIGOR_NOT_FOUND => "`build_app`: no hvigor wrapper configured or in the project.",
        HSP_MODULE_NOT_FOUND (contract) => "`build_app` HSP integration: no shared module found, or a named one is unknown or not shared.",
        HSP_BUILD_FAILED => "`build_app`: a shared module's `assembleHsp` failed.",
        HSP_OUTPUT_NOT_FOUND => "`build_app`: `assembleHsp` succeeded without a `.hsp`.",
        HSP_SIGNING_CONFIG_MISSING (contract) => "`build_app` HSP integration: no usable signing configuration in `build-profile.json5`.",
        HSP_SIGNING_CONFIG_INCOMPLETE (contract) => "`build_app` HSP integration: a required signing material key is missing.",
        HSP_SIGNING_FILE_NOT_FOUND (contract) => "`build_app` HSP integration: a certificate, profile or keystore file is absent.",
        HSP_TOOLCHAIN_NOT_FOUND (contract) => "`build_app` HSP integration: a packing or signing jar is missing.",
        HSP_PACKAGING_INPUT_MISSING (contract) => "`build_app` HSP integration: an intermediate file is missing.",
        HSP_PACK_INFO_ERROR (contract) => "`build_app` HSP integration: a `pack.info` is unreadable or invalid, or an HSP is not a zip.",
        HSP_REPACK_FAILED => "`build_app` HSP integration: the packer failed or wrote nothing.",
        HSP_REPACK_TIMEOUT => "`build_app` HSP integration: the budget ran out while packing.",
        HSP_REPACK_ERROR => "`build_app` HSP integration: java could not be started, or staging failed.",
        HSP_SIGN_FAILED (contract) => "`build_app` HSP integration: every password candidate failed to sign.",
        HSP_SIGN_TIMEOUT => "`build_app` HSP integration: the budget ran out while signing.",
        HSP_SIGN_ERROR => "`build_app` HSP integration: java could not be started for signing.",
        HSP_NOT_IN_HAP (contract) => "`build_app` HSP integration: the signed HAP lacks its shared libraries.",
        HNP_PACKAGE_NOT_FOUND (contract) => "`build_app` `hnp`: no `.hnp` anywhere in the module or project.",
        HNP_SIGNING_CONFIG_MISSING => "`build_app` `hnp`: no usable signing configuration.",
        HNP_SIGNING_CONFIG_INCOMPLETE => "`build_app` `hnp`: a required signing material key is missing.",
        HNP_SIGNING_FILE_NOT_FOUND => "`build_app` `hnp`: a certificate, profile or keystore file is absent.",
        HNP_TOOLCHAIN_NOT_FOUND (contract) => "`build_app` `hnp`: a packing or signing jar is missing.",
        HNP_PACKAGING_INPUT_MISSING (contract) => "`build_app` `hnp`: an intermediate file is missing.",
        HNP_REPACK_FAILED => "`build_app` `hnp`: the packer failed or wrote nothing.",
        HNP_REPACK_TIMEOUT => "`build_app` `hnp`: the budget ran out while packing.",
        HNP_REPACK_ERROR => "`build_app` `hnp`: java could not be started, or staging failed.",
        HNP_SIGN_FAILED (contract) => "`build_app` `hnp`: every password candidate failed to sign.",
        HNP_SIGN_TIMEOUT => "`build_app` `hnp`: the budget ran out while signing.",
        HNP_SIGN_ERROR => "`build_app` `hnp`: java could not be started for signing.",
        HNP_NOT_IN_HAP => "`build_app` `hnp`: the signed HAP lacks its native packages.",
    }
    Run {
        STEP_TIMEOUT => "The step's deadline passed before its tool answered (the call is abandoned, not killed).",
        FLOW_TIMEOUT => "The flow's `timeout` passed; no retry follows, `finally` still runs.",
        EXPECTATION_FAILED => "An `expect:` on a result field did not hold (field, op, expected, actual in details).",
        UNRESOLVED_VARIABLE => "A `{{ … }}` had no value at run time (e.g. a kept result of a step that did not run).",
        INVALID_REPEAT => "`repeat.times` is not a whole number up to 10 000, or `while` held 10 000 times.",
        INTERRUPTED => "The run was cancelled (Ctrl-C) during the step.",
        INVALID_FLOW => "`tapflow run`: the flow file did not validate; it is listed in the result as `invalid` with its diagnostics (`error.details.diagnostics`), the valid flows still run, and the exit code is 3.",
        APP_CRASHED => "A step failed and the app had crashed meanwhile (a new faultlogger file since the flow started): the exception's first line is the message, the step's own error is `details.cause`, the crash file is attached as evidence.",
        RUN_STOPPED => "Reports of a run that stopped (killed or crashed) while a flow was running: that flow's JUnit error type; the steps it finished are listed.",
        SCREEN_OFF => "Device check before the first flow: the screen is off (wake the device).",
        DEVICE_UNRESPONSIVE => "A flow step failed without its device ever showing the screen: none of the UI dumps sent during its last attempt returned a tree (they failed, or one was still unanswered after 5 s). The step's own verdict is `details.cause`; the run exits 4 (docs/run.md, \"When a failure is the device's\").",
        INPUT_KEYS_LOST => "A flow's `input_text` typed key by key and the device lost keystrokes at random: the field showed a different subsequence of the text on each of its tries (docs/run.md, \"When a failure is the device's\"); the run exits 4.",
        LOG_MARKER_NOT_FOUND => "`tapflow sim demo`: the demo's log marker did not appear in hilog.",
    }
    Mcp {
        APPROVAL_REQUIRED => "`tapflow mcp --require-approval`: the tool's policy needs approval and the call has none (or it is not approved).",
        APPROVAL_EXPIRED => "`tapflow mcp`: `approval.expires_at` has passed.",
        INVALID_APPROVAL => "`tapflow mcp`: `approval` is not `{approved, approved_by, reason, expires_at?}`.",
        DEVICE_NOT_ALLOWED => "`tapflow mcp`: the call targets a device outside `--allow-device`.",
        DEVICE_BUSY => "`tapflow mcp`: the device stayed busy with earlier calls for the call's whole wait budget.",
        FLOW_INVALID => "`tapflow mcp` `run_flow`: the flow has errors (diagnostics in details); nothing ran.",
        RUN_NOT_FOUND => "`tapflow mcp` `get_run`: no readable `result.json` for that run id.",
    }
}

/// The codes of flow diagnostics (`tapflow validate`), kebab case. A tool's own device-free
/// rule is reported under the tool's code in kebab case (`PARAM_CONFLICT` → `param-conflict`),
/// with the code itself in the label.
pub mod diag {
    /// One diagnostic code with what it means.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct DiagCode {
        pub code: &'static str,
        pub meaning: &'static str,
    }

    macro_rules! diag_codes {
        ($( $name:ident = $code:literal => $meaning:literal, )*) => {
            $(
                #[doc = $meaning]
                pub const $name: &str = $code;
            )*
            /// Every diagnostic code.
            pub const ALL: &[DiagCode] = &[ $( DiagCode { code: $name, meaning: $meaning }, )* ];
        };
    }

    diag_codes! {
        YAML_SYNTAX = "yaml-syntax" => "The file is not valid YAML (also: duplicate keys, tabs, nesting deeper than 40).",
        EMPTY_FLOW = "empty-flow" => "The flow file is empty.",
        MISSING_STEPS = "missing-steps" => "The flow has no `steps`.",
        UNKNOWN_KEY = "unknown-key" => "A key that is not a flow key, variable setting or condition.",
        WRONG_TYPE = "wrong-type" => "A value of the wrong type.",
        INVALID_DURATION = "invalid-duration" => "A duration that is not milliseconds or `500ms`, `30s`, `2m`, …",
        INVALID_VALUE = "invalid-value" => "A value outside an enumeration.",
        OUT_OF_RANGE = "out-of-range" => "A number outside its range (retries, repeat, a tool parameter's bounds).",
        INVALID_STEP = "invalid-step" => "A step that is neither a tool name nor a mapping.",
        MISSING_TOOL = "missing-tool" => "A step with options but no tool.",
        EXTRA_STEP_KEY = "extra-step-key" => "A step with two tool keys (often a parameter indented too little).",
        UNKNOWN_STEP = "unknown-step" => "A step that names no tool and no control step (with other runners' names and typos).",
        NO_SHORTHAND = "no-shorthand" => "A bare value for a tool that declares no shorthand.",
        UNKNOWN_PARAM = "unknown-param" => "A parameter the tool or control step does not have.",
        MISSING_PARAM = "missing-param" => "A control step's required setting is missing.",
        RUN_LEVEL_PARAM = "run-level-param" => "`device_id` / `hdc_server` in a flow: the run chooses devices.",
        STEP_OPTION_IN_PARAMS = "step-option-in-params" => "A step option (or `name`) written among a tool's parameters.",
        PARAM_CONFLICT = "param-conflict" => "`run_flow` with both `file` and `steps`, or a condition with two comparisons (a tool's own PARAM_CONFLICT reads the same).",
        UNDEFINED_VARIABLE = "undefined-variable" => "A variable that is not defined, or declared without a default and not supplied.",
        INVALID_TEMPLATE = "invalid-template" => "A malformed `{{ }}` reference.",
        INVALID_VARIABLE_NAME = "invalid-variable-name" => "A variable or kept-result name that is not letters, digits and `_`.",
        UNKNOWN_RESULT_FIELD = "unknown-result-field" => "`keep` / `expect`: a result field the tool does not have.",
        UNKNOWN_OPERATOR = "unknown-operator" => "`expect`: a comparison that does not exist.",
        INVALID_OPTION = "invalid-option" => "`keep` / `expect` on a block.",
        RUN_FLOW_MISSING = "run-flow-missing" => "A sub-flow file that cannot be read.",
        RUN_FLOW_CYCLE = "run-flow-cycle" => "Sub-flows that call each other in a cycle.",
        TOO_DEEP = "too-deep" => "Blocks and sub-flows nested more than 32 levels.",
        MISSING_APP = "missing-app" => "`clean_state` without the flow's `app`.",
        DEADLINE_TOO_SHORT = "deadline-too-short" => "(warning) An explicit deadline shorter than the tool's own time budget.",
        IGNORED_IN_SUB_FLOW = "ignored-in-sub-flow" => "(warning) `on_failure`, `finally` or `clean_state` in a sub-flow: only the running flow's are used.",
    }

    /// The diagnostic code of a tool's own rule: its code in kebab case.
    pub fn of_tool_code(code: &str) -> String {
        code.to_ascii_lowercase().replace('_', "-")
    }
}

/// The tables of `docs/errors.md` (between its generated markers).
pub fn markdown() -> String {
    let mut out = String::new();
    for (layer, title, intro) in [
        (
            Layer::Device,
            "Device layer",
            "Every `DeviceError` has one of these (`DeviceError::code()`); tools pass them through unchanged when the device cannot be reached, or keep them in `details.cause_code` under their operation's code when the device refused the operation.",
        ),
        (
            Layer::Tool,
            "Tools",
            "The envelope's `error.code` of `Engine::call` (`tapflow tool`, MCP, a flow step). A device-free rule's code is also what `tapflow validate` reports for a flow step (in kebab case, with the code in the label).",
        ),
        (
            Layer::Run,
            "Flow runner",
            "Assigned by `tapflow run` to a step or a flow (see `docs/run.md`); a step's tool keeps its own code. Device check failures keep the device's code and leave the device's flows not run.",
        ),
        (
            Layer::Mcp,
            "MCP server",
            "Assigned by `tapflow mcp` around a tool call (see `docs/mcp.md`); all are tool errors (`isError: true`).",
        ),
    ] {
        out.push_str(&format!(
            "## {title}\n\n{intro}\n\n| Code | Meaning |\n|---|---|\n"
        ));
        for c in ALL.iter().filter(|c| c.layer == layer) {
            let mark = if c.contract { "*contract* — " } else { "" };
            out.push_str(&format!("| `{}` | {mark}{} |\n", c.code, c.meaning.trim()));
        }
        out.push('\n');
    }
    out.push_str("## Flow diagnostics\n\n`tapflow validate` (`--format json`: `diagnostics[].code`); see `docs/flow-format.md`.\n\n| Code | Meaning |\n|---|---|\n");
    for d in diag::ALL {
        out.push_str(&format!("| `{}` | {} |\n", d.code, d.meaning.trim()));
    }
    out.push_str("| *a tool's code in kebab case* | A tool's own device-free rule (`param-conflict`, `missing-text`, `invalid-key`, …): the code itself is in the label. |\n");
    out
}

/// Markers around the generated block in `docs/errors.md`.
pub const BEGIN: &str = "<!-- BEGIN GENERATED ERROR CODES (TAPFLOW_BLESS=1 cargo test -p tapflow-tools --test flow) -->";
pub const END: &str = "<!-- END GENERATED ERROR CODES -->";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_once() {
        let mut seen = std::collections::BTreeSet::new();
        for c in ALL {
            assert!(seen.insert(c.code), "{} twice", c.code);
            assert!(!c.meaning.trim().is_empty());
        }
        let mut seen = std::collections::BTreeSet::new();
        for d in diag::ALL {
            assert!(seen.insert(d.code), "{} twice", d.code);
        }
        assert_eq!(diag::of_tool_code(PARAM_CONFLICT), diag::PARAM_CONFLICT);
    }
}
