//! The `aa` tool's fixed texts: usage messages and the coded error report (`Error Code:` …
//! `Error cause:` … `Try the following:`) it prints for an ability-manager error, as in
//! OpenHarmony's `ability_command.h` / `shell_command.h` (read, not copied: only the texts a
//! device prints are reproduced).

use crate::phone::codes;

/// `aa help` and the text after an unknown sub-command.
pub const HELP: &str = "usage: aa <command> <options>\n\
These are common aa commands list:\n\
\x20 help                        list available commands\n\
\x20 start                       start ability with options\n\
\x20 stop-service                stop service with options\n\
\x20 dump                        dump the ability info\n\
\x20 force-stop <bundle-name>    force stop the process with bundle name\n\
\x20 attach                      attach application to enter debug mode\n\
\x20 detach                      detach application to exit debug mode\n\
\x20 send-memory-level           send memory level to application by pid \n\
\x20 pre-start                   prestart ability with options \n\
\x20 test                        start the test framework with options\n\
\x20 appdebug                    set / cancel / get waiting debug status\n\
\x20 process                     debug and tune\n";

/// `aa start`'s usage: the option list is one long line on the device too.
pub const HELP_START: &str = "usage: aa start <options>\n\
options list:\n\
\x20 -h, --help                                                   list available commands\n\
\x20 [-d <device-id>] [-a <ability-name> -b <bundle-name>] [-m <module-name>] [-p <perf-cmd>]   \
[-C] [-D] [-E] [-S] [-N]   [-R] [-c] [--ps <key> <string-value>]   \
[--pi <key> <integer-value>]   [--pb <key> <boolean-value>]   [--psn <key>]   \
[-A <action-name>]   [-U <URI>]   [-e <entity>]   [-t <mime-type>]   [-W]   \
[--wl <window-left>]   [--wt <window-top>]   [--wh <window-height>]   \
[--ww <window-width>]   [-u <user-id>]   start ability with an element name\n";

pub const HELP_DUMP: &str = "usage: aa dump <options>\n\
options list:\n\
\x20 -h, --help                   list available commands\n\
\x20 -a, --all                    dump all abilities\n\
\x20 -l, --mission-list           dump mission list\n\
\x20 -i, --ability                dump abilityRecordId\n\
\x20 -e, --extension              dump elementName (FA: serviceAbilityRecords,Stage: ExtensionRecords)\n\
\x20 -p, --pending                dump pendingWantRecordId\n\
\x20 -r, --process                dump process\n\
\x20 -d, --data                   dump the data abilities\n\
\x20 -u, --userId                 userId\n\
\x20 -c, --client                 client\n\
\x20 -c, -u are auxiliary parameters and cannot be used alone\n\
\x20 The original -s parameter is invalid\n\
\x20 The original -m parameter is invalid\n";

pub const HELP_FORCE_STOP: &str = "usage: aa force-stop <bundle-name> [-p pid] [-r kill-reason]\n";

pub const START_OK: &str = "start ability successfully.\n";
pub const START_NG: &str = "error: failed to start ability.\n";
pub const NO_OPTION: &str = "error: you must specify an option at least.\n";
pub const NO_BUNDLE: &str = "error: -b <bundle-name> is expected\n";
pub const REQUIRES_VALUE: &str = "error: option requires a value.\n";
pub const UNKNOWN_OPTION: &str = "fail: unknown option.\n";
pub const IMPLICIT_WITH_WAIT: &str = "The wait option does not support starting implict\n";
pub const NON_UI_WITH_WAIT: &str = "The wait option does not support starting non-uiability\n";

/// The report `aa` prints after `error: failed to …` for an ability-manager error code
/// (followed by an empty line, as the tool appends one to every message); empty for codes it has
/// no entry for.
pub fn error_report(code: u32) -> String {
    let (message, cause, solutions): (&str, &str, &[&str]) = match code {
        codes::ABILITY_NOT_EXIST => (
            "The specified ability does not exist",
            "The specified Ability is not installed",
            &[
                "Check if the parameter abilityName of aa -a and the parameter bundleName of -b are correct",
                "Check if the application corresponding to the specified bundleName is installed",
                "For multi-HAP applications, it is necessary to confirm whether the HAP to which the ability belongs has been installed",
            ],
        ),
        codes::ABILITY_NOT_VISIBLE => (
            "Failed to verify the visibility of the target ability.",
            "Application visibility check failed",
            &[
                "Check if the exported configuration of the Ability field in the module.json5 of the pulled application is set to true. If not, set it to true",
            ],
        ),
        codes::IMPLICIT_START_FAILED => (
            "Failed to find a matching application for implicit launch.",
            "The parameter configuration of implicit startup is incorrect, or the specified HAP package is not installed.",
            &[
                "Make sure the parameter configuration of implicit startup is correct",
                "Make sure the corresponding HAP package is installed",
            ],
        ),
        _ => return String::new(),
    };
    let mut s = format!(
        "Error Code:{code}  Error Message:{message}\nError cause: {cause}\n  Try the following:\n"
    );
    for sol in solutions {
        s.push_str("  > ");
        s.push_str(sol);
        s.push('\n');
    }
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_report_shape() {
        let r = error_report(codes::ABILITY_NOT_EXIST);
        let lines: Vec<&str> = r.lines().collect();
        assert_eq!(
            lines[0],
            "Error Code:10104001  Error Message:The specified ability does not exist"
        );
        assert_eq!(
            lines[1],
            "Error cause: The specified Ability is not installed"
        );
        assert_eq!(lines[2], "  Try the following:");
        assert!(lines[3].starts_with("  > "));
        assert!(r.ends_with("\n\n"));
        assert!(error_report(1).is_empty());
    }
}
