//! Success or the device's own words, for commands whose answer is one status message:
//! install/uninstall, `aa start` / `aa force-stop`, `bm clean`, file transfer, uitest uiInput,
//! `uitest dumpLayout` / `screenCap`, `snapshot_display`. `Err` carries the failure text verbatim.

/// `[Info]App install path:…msg:install bundle successfully.` (success ⇔ that text).
pub fn install(text: &str) -> Result<(), String> {
    todo!("parsers helper: {text}")
}
pub fn uninstall(text: &str) -> Result<(), String> {
    todo!("parsers helper: {text}")
}
/// `start ability successfully.`; failure: `error: failed to start ability.` + `Error Code:…  Error Message:…`.
pub fn aa_start(text: &str) -> Result<(), String> {
    todo!("parsers helper: {text}")
}
/// `force stop process successfully.`
pub fn aa_force_stop(text: &str) -> Result<(), String> {
    todo!("parsers helper: {text}")
}
/// `bm clean -n <b> -d|-c`: `clean bundle data files successfully.` / `clean bundle cache files successfully.`
pub fn bm_clean(text: &str) -> Result<(), String> {
    todo!("parsers helper: {text}")
}
/// `FileTransfer finish, Size:…`; failure `[Fail]Error opening file…`.
pub fn file_transfer(text: &str) -> Result<(), String> {
    todo!("parsers helper: {text}")
}
/// uitest uiInput: its parameter messages are failures.
pub fn ui_input(text: &str) -> Result<(), String> {
    todo!("parsers helper: {text}")
}
/// `DumpLayout saved to:<path>` → the path.
pub fn dump_layout(text: &str) -> Result<String, String> {
    todo!("parsers helper: {text}")
}
/// `ScreenCap saved to <path>` → the path.
pub fn screen_cap(text: &str) -> Result<String, String> {
    todo!("parsers helper: {text}")
}
/// `success: snapshot display 0 , write to <path> as jpeg, width: W, height: H` → (path, W, H).
pub fn snapshot_display(text: &str) -> Result<(String, u32, u32), String> {
    todo!("parsers helper: {text}")
}
