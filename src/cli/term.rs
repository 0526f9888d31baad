//! The terminal: colour (`--color auto|always|never`, `NO_COLOR`, on only for a terminal by
//! default), text made safe to show ([`visible`]), and a closed pipe
//! (`tapflow tools --json | head -2`), which ends the process quietly (exit 141, as a shell
//! reports SIGPIPE) instead of panicking with exit 101.

use std::io::IsTerminal;
use std::sync::OnceLock;

/// When to colour output.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    /// On a terminal, unless `NO_COLOR` is set (non-empty).
    #[default]
    Auto,
    Always,
    Never,
}

static COLOR: OnceLock<bool> = OnceLock::new();

/// Decides once, at start-up, from the flag and `NO_COLOR` (see <https://no-color.org>), for
/// stderr (where diagnostics and progress go).
pub fn init_color(choice: ColorChoice, no_color_env: Option<std::ffi::OsString>) {
    let on = match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            no_color_env.is_none_or(|v| v.is_empty()) && std::io::stderr().is_terminal()
        }
    };
    let _ = COLOR.set(on);
}

/// Whether stderr output is coloured.
pub fn color() -> bool {
    COLOR.get().copied().unwrap_or(false)
}

/// `text` in the ANSI style `sgr` (e.g. `"32"` green, `"1;31"` bold red) when colour is on.
pub fn paint(text: &str, sgr: &str) -> String {
    if color() {
        format!("\x1b[{sgr}m{text}\x1b[0m")
    } else {
        text.to_string()
    }
}

/// Text for a person at the terminal (progress lines, the run summary, the plan): its
/// bidirectional control characters written out as `<U+202E>`, so a flow or device name cannot
/// reorder what the line shows. The same helper escapes the HTML report
/// ([`tapflow_core::visible::escape_bidi`]). Apply it after masking (a secret may contain one).
pub fn visible(text: &str) -> std::borrow::Cow<'_, str> {
    tapflow_core::visible::escape_bidi(text)
}

/// A device error as the command line says it: the fix names CLI flags (`--device`,
/// `--all-devices`), not the tools' `device_id` parameter, and several connected devices are
/// not called "not reachable".
pub fn cli_wording(code: tapflow_core::codes::Code, message: &str) -> String {
    if code != tapflow_core::codes::MULTIPLE_DEVICES {
        return message.to_string();
    }
    let m = message
        .strip_prefix("the device is not reachable: ")
        .unwrap_or(message);
    let m = m.replace(
        "choose one with device_id",
        "choose one with --device SERIAL, or run on every one with --all-devices",
    );
    if m.contains("--device") {
        m
    } else {
        format!("{m}; choose one with --device SERIAL, or run on every one with --all-devices")
    }
}

/// Exit code of a process whose reader went away (128 + SIGPIPE).
pub const CLOSED_PIPE: i32 = 141;

/// Turns the panic `print!`/`println!` raise on a closed stdout or stderr into a quiet exit.
pub fn quiet_closed_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let msg = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("");
        if msg.starts_with("failed printing to std") && msg.contains("Broken pipe") {
            std::process::exit(CLOSED_PIPE);
        }
        default(info);
    }));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Seen 8c: with two devices the message said "not reachable … choose one with device_id".
    #[test]
    fn several_devices_are_not_unreachable_and_the_fix_names_cli_flags() {
        let m = cli_wording(
            tapflow_core::codes::MULTIPLE_DEVICES,
            "the device is not reachable: several devices are connected (a, b); choose one with device_id",
        );
        assert!(!m.contains("not reachable"), "{m}");
        assert!(!m.contains("device_id"), "{m}");
        assert!(
            m.contains("--device SERIAL") && m.contains("--all-devices"),
            "{m}"
        );
        assert_eq!(cli_wording(tapflow_core::codes::HDC_TIMEOUT, "x"), "x");
    }
}
