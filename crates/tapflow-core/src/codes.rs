//! Every code tapflow answers with, in one list: the device layer's, the tools' (the HarmonyOS
//! tool reference's where it has one, marked `contract`), the flow runner's, the MCP server's,
//! and the flow diagnostics' (`diag`). Every code is a variant of [`Code`] (with a constant of
//! its written name, `codes::INVALID_PARAM == Code::InvalidParam`), so every holder of a code
//! (`ToolError`, `DeviceError`, `LogsError`, …) takes one from this list and a misspelt code does
//! not compile; `docs/errors.md` is generated from [`ALL`] and [`diag::ALL`]
//! (`crates/tapflow-tools/tests/flow/docs.rs` fails when it drifts; `tests/flow/one_registry.rs` when a code's name
//! is spelled out as text anywhere else, e.g. compared with a string).
//!
//! A leaf, used by every layer (`device`, `tools`, `run`, `mcp`, `flow`, `plan`).

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

/// One code with what it means (a row of `docs/errors.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CodeDoc {
    pub code: Code,
    pub layer: Layer,
    /// The HarmonyOS tool reference defines it (else it is tapflow's own).
    pub contract: bool,
    pub meaning: &'static str,
}

macro_rules! codes {
    ($( $layer:ident { $( $variant:ident = $name:ident $(($c:ident))? => $meaning:literal, )* } )*) => {
        /// Every code tapflow answers with. Rendered (`as_str`, `Display`, serde) as its
        /// upper-case name, e.g. [`Code::InvalidParam`] as `INVALID_PARAM`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Code {
            $($(
                #[doc = $meaning]
                $variant,
            )*)*
        }

        $($(
            #[doc = $meaning]
            pub const $name: Code = Code::$variant;
        )*)*

        impl Code {
            /// The code as it is written in envelopes, results and `docs/errors.md`.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $($( Code::$variant => stringify!($name), )*)*
                }
            }
        }

        /// Every code, by layer (in [`Code`]'s order: `ALL[code as usize].code == code`).
        pub const ALL: &[CodeDoc] = &[
            $($( CodeDoc {
                code: Code::$variant,
                layer: Layer::$layer,
                contract: codes!(@contract $($c)?),
                meaning: $meaning,
            }, )*)*
        ];
    };
    (@contract contract) => { true };
    (@contract) => { false };
}

impl Code {
    /// Its row of [`ALL`]: layer, contract, meaning.
    pub fn doc(self) -> &'static CodeDoc {
        &ALL[self as usize]
    }

    /// The code of a name, for codes that come from outside as text (a JSON payload, a
    /// result file); `None` for a name the list does not have.
    pub fn from_name(name: &str) -> Option<Code> {
        ALL.iter().map(|d| d.code).find(|c| c.as_str() == name)
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl AsRef<str> for Code {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

/// A name that is not in the list of codes.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown error code `{0}`")]
pub struct UnknownCode(pub String);

impl std::str::FromStr for Code {
    type Err = UnknownCode;

    fn from_str(s: &str) -> Result<Code, UnknownCode> {
        Code::from_name(s).ok_or_else(|| UnknownCode(s.to_string()))
    }
}

impl serde::Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for Code {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Code, D::Error> {
        let name = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

/// Comparisons with a code's name (tests, and text that comes from outside).
impl PartialEq<str> for Code {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Code {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for Code {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<Code> for str {
    fn eq(&self, other: &Code) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<Code> for &str {
    fn eq(&self, other: &Code) -> bool {
        *self == other.as_str()
    }
}

impl PartialEq<Code> for String {
    fn eq(&self, other: &Code) -> bool {
        self == other.as_str()
    }
}

codes! {
    Device {
        HdcNotFound = HDC_NOT_FOUND => "The hdc executable could not be started (wrong path, not installed, not executable).",
        HdcTimeout = HDC_TIMEOUT => "An hdc call did not finish before its deadline and was killed; the message names the exact command.",
        DeviceNotFound = DEVICE_NOT_FOUND => "No connected device has the requested key, or no device is connected at all.",
        MultipleDevices = MULTIPLE_DEVICES => "Several devices are connected and none was chosen; pass `device_id`.",
        DeviceUnauthorized = DEVICE_UNAUTHORIZED => "The device has not authorised this host; accept the prompt on the device.",
        DeviceDisconnected = DEVICE_DISCONNECTED => "The device is offline or the link broke during the command.",
        HdcChannelNotReady = HDC_CHANNEL_NOT_READY => "hdc kept answering `[Fail][E000004]:The communication channel is being established.` through the backend's whole retry budget (5 attempts over about 3 s, see `docs/run.md`, \"Infrastructure faults\"); the command was never run.",
        HdcServerUnreachable = HDC_SERVER_UNREACHABLE => "The hdc client could not reach its server (`Connect server failed`): the server is not running, was killed, or listens elsewhere (`-s`, `HARMONYOS_HDC_SERVER`). Nothing reached the device.",
        HdcFailed = HDC_FAILED => "The hdc client itself failed instead of answering: it exited with a non-zero status or was killed by a signal (real hdc exits 0 on every path). Whether the command reached the device is unknown; the message carries what the client printed.",
        DeviceListFailed = DEVICE_LIST_FAILED => "`hdc list targets` itself failed (e.g. the hdc server could not be reached).",
        HostIoError = HOST_IO_ERROR => "Host-side I/O failed: a package to install is missing, a received file could not be read, a temporary directory could not be made.",
        Unsupported = UNSUPPORTED => "The backend cannot do this operation (it never fakes success).",
        DeviceInfoFailed = DEVICE_INFO_FAILED => "Device information or the power state could not be read or understood.",
        ScreenLocked = SCREEN_LOCKED => "The UI dump is the empty root uitest writes when the screen is locked or no window is shown.",
        UiTreeFetchError = UI_TREE_FETCH_ERROR (contract) => "uitest could not dump the layout, the dump could not be read back (empty every time it was sent: an empty dump is sent again within the resend budget), or a scoped dump matched no window.",
        InvalidUiTreePayload = INVALID_UI_TREE_PAYLOAD (contract) => "The layout came back but is not valid uitest JSON (truncated every time it was sent, or the wrong shape; a truncated dump is sent again within the resend budget).",
        WindowQueryFailed = WINDOW_QUERY_FAILED => "The window manager's window table could not be read or parsed.",
        MissionQueryFailed = MISSION_QUERY_FAILED => "The ability manager's mission list (`aa dump -l`) was refused.",
        ScreenshotError = SCREENSHOT_ERROR (contract) => "Capturing, transferring, decoding or writing a screenshot failed, or the region lies outside the image.",
        PackageQueryFailed = PACKAGE_QUERY_FAILED => "Listing packages or reading one package's information (`bm dump`) failed or was refused (unknown bundle).",
        PidQueryFailed = PID_QUERY_FAILED => "`pidof` answered something that is not a process id.",
        LogQueryFailed = LOG_QUERY_FAILED => "Reading the log buffer (`hilog -x`) failed.",
        CrashQueryFailed = CRASH_QUERY_FAILED => "The faultlogger directory could not be listed (other than \"does not exist\", which means no crash).",
        CrashReadFailed = CRASH_READ_FAILED => "A crash file could not be read (e.g. it does not exist).",
        InputFailed = INPUT_FAILED => "uitest refused a tap, gesture or text input.",
        KeyEventFailed = KEY_EVENT_FAILED => "uitest refused a key event.",
        InstallFailed = INSTALL_FAILED (contract) => "The package was not installed; the device's `code:…` / `error:…` lines are kept.",
        UninstallFailed = UNINSTALL_FAILED (contract) => "The bundle was not uninstalled.",
        RunAppFailed = RUN_APP_FAILED (contract) => "`aa start` did not start the ability.",
        StopAppFailed = STOP_APP_FAILED => "`aa force-stop` did not stop the app.",
        ClearDataFailed = CLEAR_DATA_FAILED => "`bm clean` did not clear the app's data or cache (the device layer's code; the tool reports CLEAR_APP_DATA_FAILED).",
        LogClearFailed = LOG_CLEAR_FAILED => "`hilog -r` did not report the buffer as cleared.",
        InvalidParam = INVALID_PARAM (contract) => "A value cannot be used as given: an unknown parameter or a wrong type, a value out of range, a bad regular expression or path extension, text containing NUL, a log filter hilog cannot take.",
        InvalidBundleName = INVALID_BUNDLE_NAME => "Not a bundle name (letters, digits, `.`, `_`, `-`; not starting with `-`); every tool that sends a bundle name refuses it before anything runs.",
        InvalidKey = INVALID_KEY (contract) => "An unknown key name or code, a raw key list, or a key combination uitest cannot send.",
        PathNotAllowed = PATH_NOT_ALLOWED (contract) => "A host path outside the allowed roots (also via `..` or a symlink), or a crash file name that could leave the faultlogger directory.",
        AdbNotFound = ADB_NOT_FOUND => "The adb executable could not be started (`--adb`, `TAPFLOW_ADB` or `PATH`; Debian's `adb` package).",
        AdbTimeout = ADB_TIMEOUT => "An adb call did not finish before its deadline and was killed (`logcat`, `uninstall`, `wait-for-device` block forever without a device); the message names the exact command.",
        AdbServerUnreachable = ADB_SERVER_UNREACHABLE => "The adb client could not reach or start its server (`-P PORT` / `ADB_SERVER_SOCKET`).",
        AdbConnectFailed = ADB_CONNECT_FAILED => "`adb connect` / `adb disconnect` of a networked Android device was refused or failed.",
        UnsupportedOnPlatform = UNSUPPORTED_ON_PLATFORM => "The tool or value exists on another platform only (a `.hap` on Android, hvigor builds, a key Android has no code for); the message names the alternative.",
    }
    Tool {
        UnknownTool = UNKNOWN_TOOL => "No tool of that name (with a suggestion).",
        InternalError = INTERNAL_ERROR => "A bug in tapflow surfaced (a call never panics its caller); the run goes on and the result says so.",
        ParamConflict = PARAM_CONFLICT (contract) => "Parameters that exclude each other: two target modes, direction with coordinates, a partial or `display_id` region, `list` with `bundle_name`, `index` with `gone`.",
        MissingParams = MISSING_PARAMS (contract) => "A required group is missing: no target, half a coordinate pair, a partial gesture.",
        MissingText = MISSING_TEXT (contract) => "`input_text` without `text`, or empty text where it cannot clear a field (append, coordinates).",
        MissingBundleName = MISSING_BUNDLE_NAME (contract) => "A bundle name is required (app tools, `query_package` details).",
        MissingHapPath = MISSING_HAP_PATH (contract) => "`install_app` without `hap_path`.",
        InvalidAppPackage = INVALID_APP_PACKAGE (contract) => "`install_app`: the package does not end with `.hap` or `.app`.",
        InvalidInfoType = INVALID_INFO_TYPE (contract) => "`query_package`: `info_type` outside list, abilities, main_ability, permissions.",
        AbilityResolutionFailed = ABILITY_RESOLUTION_FAILED (contract) => "`run_app` / `query_package`: no ability to launch could be found, or `auto_detect=false` without `ability_name`.",
        ClearAppDataFailed = CLEAR_APP_DATA_FAILED => "`clear_app_data`: the device did not clear the data.",
        InvalidClickCount = INVALID_CLICK_COUNT (contract) => "`click`: `count` other than 1 or 2.",
        InvalidElementHandle = INVALID_ELEMENT_HANDLE (contract) => "A handle that is not the object `find_elements` returns (e.g. a JSON string).",
        ElementNotFound = ELEMENT_NOT_FOUND (contract) => "No visible element matches (or a stale handle whose hint matches nothing).",
        AmbiguousElementMatch = AMBIGUOUS_ELEMENT_MATCH (contract) => "Several elements match and no `index` was given (candidates in details).",
        InvalidMatchMode = INVALID_MATCH_MODE => "`match_mode` outside exact, contains, regex.",
        InvalidDirection = INVALID_DIRECTION => "`direction` outside up, down, left, right.",
        ScreenSizeUnknown = SCREEN_SIZE_UNKNOWN => "A swipe by direction on a device that reports no screen size and no visible window.",
        InvalidModifier = INVALID_MODIFIER (contract) => "`press_key`: an unknown modifier, or a system key with modifiers.",
        InvalidModifierCount = INVALID_MODIFIER_COUNT (contract) => "`press_key`: more than two modifiers.",
        DuplicateModifier = DUPLICATE_MODIFIER (contract) => "`press_key`: a modifier given twice, or the key itself as a modifier.",
        MissingSearchCriteria = MISSING_SEARCH_CRITERIA (contract) => "`find_elements` / `scroll_until_visible` without text, element_type or element_id.",
        WindowResolutionError = WINDOW_RESOLUTION_ERROR (contract) => "`get_ui_tree`: the window named by `window_id` / `bundle_name` could not be validated.",
        InvalidWaitTarget = INVALID_WAIT_TARGET (contract) => "`wait_for_element` without text, element_type or element_id.",
        InvalidWaitState = INVALID_WAIT_STATE (contract) => "`wait_for_element`: `state` other than found or gone.",
        InvalidTimeout = INVALID_TIMEOUT (contract) => "`timeout_ms` below 0.",
        InvalidInterval = INVALID_INTERVAL (contract) => "`interval_ms` below 0.",
        WaitTimeout = WAIT_TIMEOUT (contract) => "A wait's strict budget ran out (what was seen is in details).",
        InputTextFailed = INPUT_TEXT_FAILED => "`input_text` coordinate mode: uitest refused the text.",
        InputFocusDispatchFailed = INPUT_FOCUS_DISPATCH_FAILED (contract) => "`input_text`: the focus click was not delivered.",
        InputFocusTimeout = INPUT_FOCUS_TIMEOUT (contract) => "`input_text`: focus on the target and a foreground window were not both observed in time.",
        InputTargetNotInteractable = INPUT_TARGET_NOT_INTERACTABLE (contract) => "`input_text`: the target is disabled or does not take text.",
        TextNotReadable = TEXT_NOT_READABLE (contract) => "`input_text`: the field's value cannot be read back (password or some Web fields).",
        TextCleanupFailed = TEXT_CLEANUP_FAILED (contract) => "`input_text`: the sentinel character could not be removed.",
        TextVerificationTimeout = TEXT_VERIFICATION_TIMEOUT (contract) => "`input_text`: the field did not show exactly the expected value in time.",
        Cancelled = CANCELLED => "The call was cancelled before it finished (the runner's deadline, an MCP client); no further device command was sent.",
        InvalidQueryMode = INVALID_QUERY_MODE (contract) => "`logs_query`: `mode` other than errors or markers.",
        FileNotFound = FILE_NOT_FOUND (contract) => "An input file (`logs_query`, `install_app`) does not exist or is not a regular file.",
        FileTooLarge = FILE_TOO_LARGE (contract) => "A `logs_query` input file (or all of them together) exceeds the size limit.",
        IoError = IO_ERROR => "Reading a `logs_query` input or writing its `save_path` failed for another reason (permissions, disk full).",
        InvalidPath = INVALID_PATH => "A host path that cannot be used at all (empty, NUL, not representable).",
        PathIsSymlink = PATH_IS_SYMLINK => "A host file to write is a symbolic link (never followed).",
        WrongFileType = WRONG_FILE_TYPE => "A host path that is not a regular file where one is needed (a directory, a FIFO, a device).",
        FileExists = FILE_EXISTS => "A host file to create exists already and was not made by tapflow.",
        RunnableName = RUNNABLE_NAME => "A host file to write has a name a build tool or shell would run (`hvigorw`, `Makefile`, `*.sh`, a hidden file, …); see docs/security.md.",
        TrustedConfig = TRUSTED_CONFIG => "A host file to write is trusted configuration (`tapflow.toml`, anything under `.tapflow/`, a file this process was configured with); tools never write it. See docs/security.md.",
        InvalidProjectPath = INVALID_PROJECT_PATH (contract) => "`build_app`: `project_path` is empty or not a directory.",
        InvalidBuildMode = INVALID_BUILD_MODE (contract) => "`build_app`: `build_mode` other than debug or release.",
        InvalidBuildTarget = INVALID_BUILD_TARGET (contract) => "`build_app`: `target` other than hap, har, hsp, app, hnp.",
        MissingModuleName = MISSING_MODULE_NAME (contract) => "`build_app`: `har` / `hsp` without `module_name`.",
        BuildTimeout = BUILD_TIMEOUT (contract) => "`build_app`: the build budget ran out during an hvigor run.",
        BuildFailed = BUILD_FAILED => "`build_app`: hvigor reported failure (compiler errors in details).",
        BuildOutputNotFound = BUILD_OUTPUT_NOT_FOUND => "`build_app`: the build succeeded but left no artifact.",
        BuildError = BUILD_ERROR => "`build_app`: hvigor or node could not be started.",
        HvigorNotFound = HVIGOR_NOT_FOUND => "`build_app`: no hvigor wrapper configured or in the project.",
        HspModuleNotFound = HSP_MODULE_NOT_FOUND (contract) => "`build_app` HSP integration: no shared module found, or a named one is unknown or not shared.",
        HspBuildFailed = HSP_BUILD_FAILED => "`build_app`: a shared module's `assembleHsp` failed.",
        HspOutputNotFound = HSP_OUTPUT_NOT_FOUND => "`build_app`: `assembleHsp` succeeded without a `.hsp`.",
        HspSigningConfigMissing = HSP_SIGNING_CONFIG_MISSING (contract) => "`build_app` HSP integration: no usable signing configuration in `build-profile.json5`.",
        HspSigningConfigIncomplete = HSP_SIGNING_CONFIG_INCOMPLETE (contract) => "`build_app` HSP integration: a required signing material key is missing.",
        HspSigningFileNotFound = HSP_SIGNING_FILE_NOT_FOUND (contract) => "`build_app` HSP integration: a certificate, profile or keystore file is absent.",
        HspToolchainNotFound = HSP_TOOLCHAIN_NOT_FOUND (contract) => "`build_app` HSP integration: a packing or signing jar is missing.",
        HspPackagingInputMissing = HSP_PACKAGING_INPUT_MISSING (contract) => "`build_app` HSP integration: an intermediate file is missing.",
        HspPackInfoError = HSP_PACK_INFO_ERROR (contract) => "`build_app` HSP integration: a `pack.info` is unreadable or invalid, or an HSP is not a zip.",
        HspRepackFailed = HSP_REPACK_FAILED => "`build_app` HSP integration: the packer failed or wrote nothing.",
        HspRepackTimeout = HSP_REPACK_TIMEOUT => "`build_app` HSP integration: the budget ran out while packing.",
        HspRepackError = HSP_REPACK_ERROR => "`build_app` HSP integration: java could not be started, or staging failed.",
        HspSignFailed = HSP_SIGN_FAILED (contract) => "`build_app` HSP integration: every password candidate failed to sign.",
        HspSignTimeout = HSP_SIGN_TIMEOUT => "`build_app` HSP integration: the budget ran out while signing.",
        HspSignError = HSP_SIGN_ERROR => "`build_app` HSP integration: java could not be started for signing.",
        HspNotInHap = HSP_NOT_IN_HAP (contract) => "`build_app` HSP integration: the signed HAP lacks its shared libraries.",
        HnpPackageNotFound = HNP_PACKAGE_NOT_FOUND (contract) => "`build_app` `hnp`: no `.hnp` anywhere in the module or project.",
        HnpSigningConfigMissing = HNP_SIGNING_CONFIG_MISSING => "`build_app` `hnp`: no usable signing configuration.",
        HnpSigningConfigIncomplete = HNP_SIGNING_CONFIG_INCOMPLETE => "`build_app` `hnp`: a required signing material key is missing.",
        HnpSigningFileNotFound = HNP_SIGNING_FILE_NOT_FOUND => "`build_app` `hnp`: a certificate, profile or keystore file is absent.",
        HnpToolchainNotFound = HNP_TOOLCHAIN_NOT_FOUND (contract) => "`build_app` `hnp`: a packing or signing jar is missing.",
        HnpPackagingInputMissing = HNP_PACKAGING_INPUT_MISSING (contract) => "`build_app` `hnp`: an intermediate file is missing.",
        HnpRepackFailed = HNP_REPACK_FAILED => "`build_app` `hnp`: the packer failed or wrote nothing.",
        HnpRepackTimeout = HNP_REPACK_TIMEOUT => "`build_app` `hnp`: the budget ran out while packing.",
        HnpRepackError = HNP_REPACK_ERROR => "`build_app` `hnp`: java could not be started, or staging failed.",
        HnpSignFailed = HNP_SIGN_FAILED (contract) => "`build_app` `hnp`: every password candidate failed to sign.",
        HnpSignTimeout = HNP_SIGN_TIMEOUT => "`build_app` `hnp`: the budget ran out while signing.",
        HnpSignError = HNP_SIGN_ERROR => "`build_app` `hnp`: java could not be started for signing.",
        HnpNotInHap = HNP_NOT_IN_HAP => "`build_app` `hnp`: the signed HAP lacks its native packages.",
    }
    Run {
        StepTimeout = STEP_TIMEOUT => "The step's deadline passed before its tool answered (the call is abandoned, not killed).",
        FlowTimeout = FLOW_TIMEOUT => "The flow's `timeout` passed; no retry follows, `finally` still runs.",
        ExpectationFailed = EXPECTATION_FAILED => "An `expect:` on a result field did not hold (field, op, expected, actual in details).",
        UnresolvedVariable = UNRESOLVED_VARIABLE => "A `{{ … }}` had no value at run time (e.g. a kept result of a step that did not run).",
        InvalidRepeat = INVALID_REPEAT => "`repeat.times` is not a whole number up to 10 000, or `while` held 10 000 times.",
        Interrupted = INTERRUPTED => "The run was cancelled (Ctrl-C) during the step.",
        InvalidFlow = INVALID_FLOW => "`tapflow run`: the flow file did not validate; it is listed in the result as `invalid` with its diagnostics (`error.details.diagnostics`), the valid flows still run, and the exit code is 3.",
        AppCrashed = APP_CRASHED => "A step failed and the app had crashed meanwhile (a new faultlogger file since the flow started): the exception's first line is the message, the step's own error is `details.cause`, the crash file is attached as evidence.",
        RunStopped = RUN_STOPPED => "Reports of a run that stopped (killed or crashed) while a flow was running: that flow's JUnit error type; the steps it finished are listed.",
        ScreenOff = SCREEN_OFF => "Device check before the first flow: the screen is off (wake the device).",
        DeviceUnresponsive = DEVICE_UNRESPONSIVE => "A flow step failed because its device did not show the screen: none of the UI dumps sent during its last attempt returned a tree (they failed, or one was unanswered after 5 s), a dump the step needed failed (UI_TREE_FETCH_ERROR, INVALID_UI_TREE_PAYLOAD after the resends), or a deadline ran out after a dump took 5 s or more. The step's own verdict is `details.cause`; the run exits 4 (docs/run.md, \"When a failure is the device's\").",
        InputKeysLost = INPUT_KEYS_LOST => "A flow's `input_text` typed key by key and the device lost keystrokes at random: the field showed a different subsequence of the text on each of its tries (docs/run.md, \"When a failure is the device's\"); the run exits 4.",
        LogMarkerNotFound = LOG_MARKER_NOT_FOUND => "`tapflow sim demo`: the demo's log marker did not appear in hilog.",
    }
    Mcp {
        ApprovalRequired = APPROVAL_REQUIRED => "`tapflow mcp --require-approval`: the tool's policy needs approval and the call has none (or it is not approved).",
        ApprovalExpired = APPROVAL_EXPIRED => "`tapflow mcp`: `approval.expires_at` has passed.",
        InvalidApproval = INVALID_APPROVAL => "`tapflow mcp`: `approval` is not `{approved, approved_by, reason, expires_at?}`.",
        ApprovalDeclined = APPROVAL_DECLINED => "`tapflow mcp`: the person asked through elicitation declined the call (or the whole flow); nothing ran.",
        ApprovalCancelled = APPROVAL_CANCELLED => "`tapflow mcp`: the person asked through elicitation dismissed the request without answering; nothing ran.",
        ApprovalNotTrusted = APPROVAL_NOT_TRUSTED => "`tapflow mcp`: the call carried its own `approval` but the operator did not enable trusted-caller mode (`--trust-caller-approval` or `[mcp] approval = \"caller\"`).",
        StepDenied = STEP_DENIED => "`tapflow mcp` `run_flow` / `plan_flow`: a step of the flow (its hooks, sub-flows, `repeat` and `when` bodies included) uses a tool this server does not serve (`--deny-tools`, `--allow-tools`, `[mcp] deny_tools`) or targets a device outside `--allow-device`; nothing ran.",
        DeviceNotAllowed = DEVICE_NOT_ALLOWED => "`tapflow mcp`: the call targets a device outside `--allow-device`.",
        DeviceBusy = DEVICE_BUSY => "`tapflow mcp`: the device stayed busy with earlier calls for the call's whole wait budget.",
        FlowInvalid = FLOW_INVALID => "`tapflow mcp` `run_flow`: the flow has errors (diagnostics in details); nothing ran.",
        RunNotFound = RUN_NOT_FOUND => "`tapflow mcp` `get_run`: no readable `result.json` for that run id.",
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
    pub fn of_tool_code(code: super::Code) -> String {
        code.as_str().to_ascii_lowercase().replace('_', "-")
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
        for (i, c) in ALL.iter().enumerate() {
            assert!(seen.insert(c.code.as_str()), "{} twice", c.code);
            assert_eq!(c.code as usize, i, "{} out of order", c.code);
            assert_eq!(c.code.doc(), c);
            assert_eq!(Code::from_name(c.code.as_str()), Some(c.code));
            assert_eq!(c.code.as_str().parse::<Code>(), Ok(c.code));
            assert!(!c.meaning.trim().is_empty());
        }
        let mut seen = std::collections::BTreeSet::new();
        for d in diag::ALL {
            assert!(seen.insert(d.code), "{} twice", d.code);
        }
        assert_eq!(diag::of_tool_code(PARAM_CONFLICT), diag::PARAM_CONFLICT);
    }

    #[test]
    fn renders_and_reads_its_name() {
        assert_eq!(Code::InvalidParam.as_str(), "INVALID_PARAM");
        assert_eq!(INVALID_PARAM, Code::InvalidParam);
        assert_eq!(
            Code::HdcChannelNotReady.to_string(),
            "HDC_CHANNEL_NOT_READY"
        );
        assert_eq!(
            serde_json::to_string(&Code::ElementNotFound).unwrap(),
            r#""ELEMENT_NOT_FOUND""#
        );
        assert_eq!(
            serde_json::from_str::<Code>(r#""WAIT_TIMEOUT""#).unwrap(),
            Code::WaitTimeout
        );
        assert!(serde_json::from_str::<Code>(r#""NO_SUCH_CODE""#).is_err());
        assert_eq!(
            "NO_SUCH_CODE".parse::<Code>(),
            Err(UnknownCode("NO_SUCH_CODE".into()))
        );
        assert_eq!(Code::Unsupported, "UNSUPPORTED");
        assert_eq!("UNSUPPORTED", Code::Unsupported);
    }
}
