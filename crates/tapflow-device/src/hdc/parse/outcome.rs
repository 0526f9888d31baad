//! Success or the device's own words, for commands whose answer is one status message:
//! install/uninstall, `aa start` / `aa force-stop`, `bm clean`, file transfer, uitest uiInput,
//! `uitest dumpLayout` / `screenCap`, `snapshot_display`. `Err` carries the failure text verbatim.
//!
//! Rule shared by all of them: success needs the tool's own success sentence (never inferred from
//! the absence of an error), and any error marker wins over a success sentence printed beside it.
//! The one exception is uitest uiInput, which prints nothing but an empty line on success (its
//! source prints the empty message of `ApiCallErr(NO_ERROR)`): there, any words are a failure.

use super::failure::detect_hdc_failure;

/// What `Err` says when the command printed nothing at all.
const NO_OUTPUT: &str = "no output";

/// `[Info]App install path:…msg:install bundle successfully.` (success ⇔ that text).
///
/// Several packages give several `[Info]` lines: all must succeed. `bm install` output
/// (`install bundle successfully.` / `error: failed to install bundle.` + `code:…`) is accepted too.
pub fn install(text: &str) -> Result<(), String> {
    app_mod(text, "install bundle successfully")
}

/// `[Info]App uninstall path:, queuesize:0, msg:uninstall bundle successfully.`
pub fn uninstall(text: &str) -> Result<(), String> {
    app_mod(text, "uninstall bundle successfully")
}

/// `start ability successfully.`; failure: `error: failed to start ability.` + `Error Code:…  Error Message:…`.
pub fn aa_start(text: &str) -> Result<(), String> {
    tool_status(text, |l| l.starts_with("start ability successfully"))
}

/// `force stop process successfully.`
pub fn aa_force_stop(text: &str) -> Result<(), String> {
    tool_status(text, |l| l.starts_with("force stop process successfully"))
}

/// `bm clean -n <b> -d|-c`: `clean bundle data files successfully.` / `clean bundle cache files successfully.`
pub fn bm_clean(text: &str) -> Result<(), String> {
    tool_status(text, |l| {
        l.starts_with("clean bundle") && l.contains("successfully")
    })
}

/// `FileTransfer finish, Size:…`; failure `[Fail]Error opening file…`.
pub fn file_transfer(text: &str) -> Result<(), String> {
    if let Some(f) = detect_hdc_failure(text) {
        return Err(f.message().to_string());
    }
    if super::lines(text).any(|l| l.starts_with("FileTransfer finish")) {
        Ok(())
    } else {
        Err(or_no_output(text.trim()))
    }
}

/// uitest uiInput: its parameter messages are failures.
///
/// uiInput prints the driver's status message after the operation: empty on the open-source
/// builds (`ApiCallErr(NO_ERROR)` has no message), `No Error` on others (and on the simulator).
/// The only other words it prints beside a successful gesture are the velocity warning (it
/// then uses the default speed). Anything else is the
/// failure text (parameter messages, or the driver's own error message), reported from the
/// first such line; the usage text that follows a parameter message is not repeated.
pub fn ui_input(text: &str) -> Result<(), String> {
    if let Some(f) = detect_hdc_failure(text) {
        return Err(f.message().to_string());
    }
    match super::lines(text).find(|l| !is_benign_ui_input_line(l)) {
        None => Ok(()),
        Some(line) => Err(line.to_string()),
    }
}

fn is_benign_ui_input_line(line: &str) -> bool {
    line == "No Error" || line.starts_with("The swipe velocity out of range")
}

/// `DumpLayout saved to:<path>` → the path.
pub fn dump_layout(text: &str) -> Result<String, String> {
    saved_path(text, "DumpLayout saved to:")
}

/// `ScreenCap saved to <path>` → the path.
pub fn screen_cap(text: &str) -> Result<String, String> {
    saved_path(text, "ScreenCap saved to")
}

/// `success: snapshot display 0 , write to <path> as jpeg, width: W, height: H` → (path, W, H).
///
/// Older builds print `width W, height H` (no colons); both are accepted. `error:` lines and
/// `current mode is not developer mode, just return.` are failures.
pub fn snapshot_display(text: &str) -> Result<(String, u32, u32), String> {
    if let Some(f) = detect_hdc_failure(text) {
        return Err(f.message().to_string());
    }
    if let Some(err) = error_lines(text) {
        return Err(err);
    }
    let Some(line) = super::lines(text).find(|l| l.starts_with("success:")) else {
        return Err(or_no_output(text.trim()));
    };
    parse_snapshot_success(line).ok_or_else(|| line.to_string())
}

fn parse_snapshot_success(line: &str) -> Option<(String, u32, u32)> {
    let (_, rest) = line.split_once("write to ")?;
    // The path is everything up to the last ` as ` (a path may itself contain " as ").
    let (path, tail) = rest.rsplit_once(" as ")?;
    let width = number_after(tail, "width")?;
    let height = number_after(tail, "height")?;
    let path = path.trim();
    (!path.is_empty()).then(|| (path.to_string(), width, height))
}

/// The number after `key`, skipping `:` and spaces (`width: 1260` or `width 1260`).
fn number_after(text: &str, key: &str) -> Option<u32> {
    let (_, rest) = text.split_once(key)?;
    let rest = rest.trim_start_matches([':', ' ']);
    let digits: &str = &rest[..rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len())];
    digits.parse().ok()
}

/// hdc install/uninstall: `[Info]App … path:…, msg:<tool message>` + `AppMod finish`.
fn app_mod(text: &str, success: &str) -> Result<(), String> {
    if let Some(f) = detect_hdc_failure(text) {
        return Err(f.message().to_string());
    }
    // The tool's message: what follows `msg:` on an `[Info]` line, plus continuation lines
    // (multi-line errors such as `code:…` / `PermissionName: …`); `AppMod finish` is hdc's.
    let mut messages: Vec<String> = Vec::new();
    for line in super::lines(text) {
        if line == "AppMod finish" {
            continue;
        }
        if line.starts_with("[Info]") {
            let msg = line.split_once("msg:").map_or(line, |(_, m)| m).trim();
            messages.push(if msg.is_empty() { line } else { msg }.to_string());
        } else if let Some(last) = messages.last_mut() {
            last.push('\n');
            last.push_str(line);
        } else {
            // `bm install` style output without hdc's `[Info]` wrapper.
            messages.push(line.to_string());
        }
    }
    if messages.is_empty() {
        return Err(NO_OUTPUT.to_string());
    }
    let failed: Vec<&str> = messages
        .iter()
        .map(String::as_str)
        .filter(|m| !is_app_mod_success(m, success))
        .collect();
    if failed.is_empty() {
        Ok(())
    } else {
        Err(failed.join("\n"))
    }
}

fn is_app_mod_success(message: &str, success: &str) -> bool {
    let lower = message.to_ascii_lowercase();
    message.contains(success) && !lower.contains("error") && !lower.contains("failed")
}

/// Device tool answering one sentence: success line required, `error:` lines win.
fn tool_status(text: &str, is_success: impl Fn(&str) -> bool) -> Result<(), String> {
    if let Some(f) = detect_hdc_failure(text) {
        return Err(f.message().to_string());
    }
    if let Some(err) = error_lines(text) {
        return Err(err);
    }
    if super::lines(text).any(is_success) {
        Ok(())
    } else {
        Err(or_no_output(text.trim()))
    }
}

/// From the first `error:` line to the end (aa prints `error: failed to start ability.` and the
/// `Error Code:…  Error Message:…` detail on the next line), lines trimmed. `None` without one.
fn error_lines(text: &str) -> Option<String> {
    let all: Vec<&str> = super::lines(text).collect();
    let first = all.iter().position(|l| {
        l.starts_with("error:") || l.starts_with("current mode is not developer mode")
    })?;
    Some(all[first..].join("\n"))
}

fn saved_path(text: &str, marker: &str) -> Result<String, String> {
    if let Some(f) = detect_hdc_failure(text) {
        return Err(f.message().to_string());
    }
    for line in super::lines(text) {
        if let Some(path) = line.strip_prefix(marker) {
            let path = path.trim();
            if path.is_empty() {
                return Err(line.to_string());
            }
            return Ok(path.to_string());
        }
    }
    // `DumpLayout failed:…`, `ScreenCap failed: …`, `The -a and -i options cannot …`: verbatim.
    Err(or_no_output(text.trim()))
}

fn or_no_output(trimmed: &str) -> String {
    if trimmed.is_empty() {
        NO_OUTPUT.to_string()
    } else {
        trimmed.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn install_failure_single_and_multi_line() {
        let one = "[Info]App install path:/x/e.hap, msg:error: failed to install bundle. code:9568320 error: no signature file.\nAppMod finish\n";
        assert_eq!(
            install(one),
            Err("error: failed to install bundle. code:9568320 error: no signature file.".into())
        );
        let multi = "[Info]App install path:/x/e.hap, queuesize:0, msg:error: failed to install bundle.\ncode:9568320\nerror: no signature file.\nAppMod finish\n";
        assert_eq!(
            install(multi),
            Err("error: failed to install bundle.\ncode:9568320\nerror: no signature file.".into())
        );
    }

    #[test]
    fn install_all_packages_must_succeed() {
        let t = "[Info]App install path:/a.hap, queuesize:0, msg:install bundle successfully.\n[Info]App install path:/b.hsp, queuesize:0, msg:error: failed to install bundle. code:9568278 error: install version code not same.\nAppMod finish\n";
        assert_eq!(
            install(t),
            Err("error: failed to install bundle. code:9568278 error: install version code not same.".into())
        );
    }

    #[test]
    fn install_via_bm_and_empty_output() {
        assert_eq!(install("install bundle successfully.\n"), Ok(()));
        assert_eq!(
            install("error: failed to install bundle.\ncode:9568263\nerror: version downgrade.\n"),
            Err("error: failed to install bundle.\ncode:9568263\nerror: version downgrade.".into())
        );
        assert_eq!(install(""), Err("no output".into()));
        assert_eq!(install("AppMod finish\n"), Err("no output".into()));
        assert_eq!(
            install("[Fail]No any connected target"),
            Err("[Fail]No any connected target".into())
        );
    }

    #[test]
    fn uninstall_failure() {
        let t = "[Info]App uninstall path:, queuesize:0, msg:error: failed to uninstall bundle. code:9568386 error: uninstall missing installed bundle.\nAppMod finish";
        assert_eq!(
            uninstall(t),
            Err("error: failed to uninstall bundle. code:9568386 error: uninstall missing installed bundle.".into())
        );
    }

    #[test]
    fn aa_start_failure_forms() {
        let t = "error: failed to start ability.\nError Code:10104001  Error Message:The specified ability does not exist\n";
        assert_eq!(
            aa_start(t),
            Err("error: failed to start ability.\nError Code:10104001  Error Message:The specified ability does not exist".into())
        );
        let old = "error: failed to start ability.\nerror: ability visible false deny request\n";
        assert_eq!(aa_start(old).unwrap_err().lines().count(), 2);
        assert_eq!(aa_start(""), Err("no output".into()));
        assert_eq!(aa_start("something else"), Err("something else".into()));
    }

    #[test]
    fn force_stop_and_bm_clean() {
        assert_eq!(aa_force_stop("force stop process successfully.\n"), Ok(()));
        assert_eq!(
            aa_force_stop("error: failed to force stop process.\n"),
            Err("error: failed to force stop process.".into())
        );
        assert_eq!(bm_clean("clean bundle data files successfully.\n"), Ok(()));
        assert_eq!(bm_clean("clean bundle cache files successfully.\n"), Ok(()));
        assert_eq!(
            bm_clean("error: failed to clean bundle data files.\n"),
            Err("error: failed to clean bundle data files.".into())
        );
    }

    #[test]
    fn file_transfer_failure() {
        let t = "[Fail]Error opening file: no such file or directory, path:/data/local/tmp/x\n";
        assert_eq!(file_transfer(t), Err(t.trim().into()));
        assert_eq!(file_transfer(""), Err("no output".into()));
    }

    #[test]
    fn ui_input_messages_are_failures() {
        for msg in [
            "Please confirm that the coordinate values are correct.",
            "Missing parameter.",
            "Missing parameters.",
            "Too many parameters.",
            "Invalid parameters.",
            "The number of parameters is incorrect.",
        ] {
            let out = format!(
                "{msg} \n\n   The command and default sources are : \n   click/doubleClick/longClick <x> <y> \n\n"
            );
            assert_eq!(ui_input(&out), Err(msg.to_string()), "{msg}");
        }
        assert_eq!(ui_input("\n"), Ok(()));
        assert_eq!(ui_input("No Error\n"), Ok(()));
        assert_eq!(ui_input(""), Ok(()));
        assert_eq!(
            ui_input("The swipe velocity out of range, the default value will be used. \n\n\n"),
            Ok(())
        );
    }

    #[test]
    fn dump_layout_and_screen_cap_failures() {
        assert_eq!(
            dump_layout("DumpLayout failed:Get root node failed\n"),
            Err("DumpLayout failed:Get root node failed".into())
        );
        assert_eq!(
            dump_layout("The -a and -i options cannot be used together.\n"),
            Err("The -a and -i options cannot be used together.".into())
        );
        assert_eq!(dump_layout(""), Err("no output".into()));
        assert_eq!(
            screen_cap("ScreenCap saved to /data/local/tmp/a.png\n"),
            Ok("/data/local/tmp/a.png".into())
        );
        assert_eq!(
            screen_cap("ScreenCap failed: invalid display\n"),
            Err("ScreenCap failed: invalid display".into())
        );
    }

    #[test]
    fn snapshot_display_both_forms_and_errors() {
        let new = "process: display 0, file type: jpeg, width: 1260, height: 2720\nsuccess: snapshot display 0 , write to /data/local/tmp/x.jpeg as jpeg, width: 1260, height: 2720\n";
        assert_eq!(
            snapshot_display(new),
            Ok(("/data/local/tmp/x.jpeg".into(), 1260, 2720))
        );
        let old = "success: snapshot display 0 , write to /data/local/tmp/y.jpeg as jpeg, width 720, height 1280\n";
        assert_eq!(
            snapshot_display(old),
            Ok(("/data/local/tmp/y.jpeg".into(), 720, 1280))
        );
        assert_eq!(
            snapshot_display("error: snapshot display 0 , write to /x.jpeg as jpeg failed!\n"),
            Err("error: snapshot display 0 , write to /x.jpeg as jpeg failed!".into())
        );
        assert_eq!(
            snapshot_display("current mode is not developer mode, just return.\n"),
            Err("current mode is not developer mode, just return.".into())
        );
        assert_eq!(snapshot_display(""), Err("no output".into()));
        let garbled = "success: snapshot display 0 , write to /x.jpeg as jpeg";
        assert_eq!(snapshot_display(garbled), Err(garbled.into()));
    }
}
