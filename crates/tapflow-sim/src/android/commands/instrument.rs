//! `am instrument [-w] [-r] [-e KEY VALUE]… PKG/RUNNER`: the simulated device runs no app
//! code, so an instrumentation can never start. A declared one fails as on a device whose
//! instrumentation process crashes at start (AOSP `AppErrors` finishes the instrumentation with
//! `shortMsg` / `longMsg`, which `am` prints as `INSTRUMENTATION_RESULT:` lines, then
//! `INSTRUMENTATION_CODE: 0`), with a `longMsg` naming the simulator's limit; one the
//! installed APKs do not declare fails as `am` reports it (`INSTRUMENTATION_FAILED`, status 1).

use super::pm::code_path;
use crate::android::apk::parse_apk;
use crate::latency::Cost;
use crate::shell::{CmdResult, DeviceCtx};

pub fn run(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    let mut component = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-e" => {
                it.next();
                it.next();
            }
            "-p" | "--user" | "--abi" => {
                it.next();
            }
            s if s.starts_with('-') => {}
            c => component = Some(c.to_string()),
        }
    }
    let Some(component) = component else {
        return CmdResult::fail_err(
            "Error: No instrumentation component supplied (usage: am instrument [-w] [-r] [-e <NAME> <VALUE>] <COMPONENT>)\n",
            1,
        );
    };
    ctx.spend(Cost::AbilityStart);
    let (pkg, runner) = component.split_once('/').unwrap_or((&component, ""));
    let full = if runner.starts_with('.') {
        format!("{pkg}{runner}")
    } else {
        runner.to_string()
    };
    let declared = {
        let phone = ctx.phone();
        phone
            .fs
            .read(&code_path(pkg))
            .and_then(|apk| parse_apk(apk).ok())
            .and_then(|p| p.instrumentations.into_iter().find(|(n, _)| *n == full))
    };
    let Some((_, target)) = declared else {
        return CmdResult {
            out: format!(
                "INSTRUMENTATION_STATUS: Error=Unable to find instrumentation info for: ComponentInfo{{{pkg}/{full}}}\nINSTRUMENTATION_STATUS_CODE: -1\n"
            )
            .into_bytes(),
            err: format!(
                "android.util.AndroidException: INSTRUMENTATION_FAILED: {pkg}/{full}\n"
            )
            .into_bytes(),
            status: 1,
        };
    };
    CmdResult::ok(format!(
        "INSTRUMENTATION_RESULT: longMsg=java.lang.RuntimeException: Unable to instantiate instrumentation ComponentInfo{{{pkg}/{full}}} (target {target}): the simulated device (tapflow-sim) runs no app code, so no instrumentation can start on it\nINSTRUMENTATION_RESULT: shortMsg=Process crashed.\nINSTRUMENTATION_CODE: 0\n"
    ))
}
