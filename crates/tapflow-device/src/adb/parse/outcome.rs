//! Verdicts of Android device programs, from their text (exit statuses are not reliable across
//! versions, and shell protocol v1 devices always report 0). `Ok` is the program's success;
//! `Err` carries the device's own words for the caller's typed error.

/// The first line that looks like a Java failure or an `Error:` report.
fn failure_line(text: &str) -> Option<&str> {
    text.lines().map(str::trim).find(|l| {
        l.starts_with("Error:")
            || l.starts_with("Error type")
            || l.starts_with("Exception occurred")
            || l.starts_with("java.lang.")
            || l.starts_with("android.") && (l.contains("Exception:") || l.ends_with("Exception"))
            || l.starts_with("Security exception")
            || l.ends_with(": not found") && l.starts_with("sh: ")
            || l.starts_with("/system/bin/sh: ")
    })
}

/// `input tap|swipe|keyevent|text|keycombination|draganddrop`: silent on success; malformed
/// argv or unmappable text prints a Java exception (`Exception occurred while executing
/// 'text':` / `java.lang.NullPointerException: Attempt to get length of null array`).
pub fn input(text: &str) -> Result<(), String> {
    match failure_line(text) {
        Some(_) => Err(text.trim().to_string()),
        None => Ok(()),
    }
}

/// `am start -n PKG/ACT`: `Starting: Intent { cmp=… }`; the `Warning: Activity not started,
/// intent has been delivered to currently running top-most instance.` is a success; `Error:
/// Activity class {…} does not exist.` / `Error type 3` are failures.
pub fn am_start(text: &str) -> Result<(), String> {
    if failure_line(text).is_some() {
        // `Error type 3` alone says little: keep every failure line (`Error: Activity class
        // {…} does not exist.`).
        let lines: Vec<&str> = text
            .lines()
            .map(str::trim)
            .filter(|l| failure_line(l).is_some())
            .collect();
        return Err(lines.join(" "));
    }
    if text
        .lines()
        .any(|l| l.trim_start().starts_with("Starting: Intent"))
    {
        Ok(())
    } else {
        Err(format!("no `Starting: Intent` in: {}", text.trim()))
    }
}

/// `monkey -p PKG -c android.intent.category.LAUNCHER 1`: `Events injected: 1`; a package
/// without a launcher activity (or not installed) prints `** No activities found to run,
/// monkey aborted.`
pub fn monkey(text: &str) -> Result<(), String> {
    if let Some(l) = text.lines().map(str::trim).find(|l| l.starts_with("** ")) {
        return Err(l.to_string());
    }
    if text
        .lines()
        .any(|l| l.trim().starts_with("Events injected:"))
    {
        Ok(())
    } else {
        Err(format!("no `Events injected` in: {}", text.trim()))
    }
}

/// A `Success` line (install, uninstall, `pm clear`): 2 or 4 lines across adb versions, so a
/// line is looked for, never the whole text. Otherwise the `Failure […]` line (or `Failed`,
/// or adb's `adb: failed to install …` line) is the device's words.
pub fn success_line(text: &str) -> Result<(), String> {
    if text.lines().any(|l| l.trim() == "Success") {
        return Ok(());
    }
    let words = text
        .lines()
        .map(str::trim)
        .find(|l| {
            l.starts_with("adb: failed to install")
                || l.starts_with("Failure")
                || *l == "Failed"
                || l.starts_with("Error:")
                || l.starts_with("adb: error:")
        })
        .map(str::to_string)
        .unwrap_or_else(|| {
            let t = text.trim();
            if t.is_empty() {
                "(no output)".to_string()
            } else {
                t.to_string()
            }
        });
    Err(words)
}

/// What `uiautomator dump` printed instead of a hierarchy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DumpFailure {
    /// `ERROR: could not get idle state.`: the UI is animating; retrying helps.
    NotIdle(String),
    /// `ERROR: null root node returned by UiTestAutomationBridge.`: screen off or locked.
    NoRoot(String),
    /// Anything else, in the device's words.
    Other(String),
}

pub fn dump_failure(text: &str) -> DumpFailure {
    let t = text.trim();
    if t.contains("could not get idle state") {
        DumpFailure::NotIdle(t.to_string())
    } else if t.contains("null root node") {
        DumpFailure::NoRoot(t.to_string())
    } else if t.is_empty() {
        DumpFailure::Other("uiautomator printed nothing".to_string())
    } else {
        DumpFailure::Other(t.to_string())
    }
}

/// The PNG signature every `screencap -p` image starts with.
pub const PNG_MAGIC: &[u8] = b"\x89PNG\r\n\x1a\n";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts() {
        assert!(input("").is_ok());
        assert!(
            input("Exception occurred while executing 'text':\njava.lang.NullPointerException: Attempt to get length of null array\n\tat …").is_err()
        );
        assert!(am_start("Starting: Intent { cmp=com.x/.Main }\n").is_ok());
        assert!(am_start("Starting: Intent { cmp=com.x/.Main }\nWarning: Activity not started, intent has been delivered to currently running top-most instance.\n").is_ok());
        assert_eq!(
            am_start(
                "Starting: Intent { cmp=com.x/.Nope }\nError type 3\nError: Activity class {com.x/com.x.Nope} does not exist.\n"
            ),
            Err("Error type 3 Error: Activity class {com.x/com.x.Nope} does not exist.".into())
        );
        assert!(
            monkey("  bash arg: -p\nEvents injected: 1\n## Network stats: elapsed time=12ms\n")
                .is_ok()
        );
        assert_eq!(
            monkey("** No activities found to run, monkey aborted.\n"),
            Err("** No activities found to run, monkey aborted.".into())
        );
        assert!(success_line("Performing Streamed Install\nSuccess\n").is_ok());
        assert_eq!(
            success_line(
                "Performing Push Install\nfiles/app.apk: 1 file pushed\nadb: failed to install files/app.apk: Failure [INSTALL_FAILED_INVALID_APK: fake]\n"
            ),
            Err(
                "adb: failed to install files/app.apk: Failure [INSTALL_FAILED_INVALID_APK: fake]"
                    .into()
            )
        );
        assert_eq!(
            success_line("Failure [DELETE_FAILED_INTERNAL_ERROR]\n"),
            Err("Failure [DELETE_FAILED_INTERNAL_ERROR]".into())
        );
        assert_eq!(success_line("Failed\n"), Err("Failed".into()));
        assert_eq!(
            dump_failure("ERROR: could not get idle state.\n"),
            DumpFailure::NotIdle("ERROR: could not get idle state.".into())
        );
        assert!(matches!(
            dump_failure("ERROR: null root node returned by UiTestAutomationBridge.\n"),
            DumpFailure::NoRoot(_)
        ));
    }
}
