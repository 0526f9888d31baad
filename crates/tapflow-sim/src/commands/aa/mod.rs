//! `aa` (ability assistant): `start` with its whole option grammar ([`start`]), `force-stop`,
//! `dump -l` with every section a device prints ([`dump`]), `help`; texts in [`texts`].

pub mod dump;
pub mod start;
pub mod texts;

use crate::latency::Cost;
use crate::shell::CmdResult;
use crate::shell::DeviceCtx;

pub fn run(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    match args.first().map(String::as_str) {
        Some("start") => start::run(ctx, &args[1..]),
        Some("force-stop") => force_stop(ctx, &args[1..]),
        Some("dump") => dump::run(ctx, &args[1..]),
        Some("help") | None => CmdResult::ok(texts::HELP),
        Some("test") => CmdResult::fail_out(
            "error: failed to start user test.\n(the simulated device has no test runner)\n",
            1,
        ),
        Some(other) => CmdResult::fail_out(
            format!(
                "aa: '{other}' is not a valid aa command. See 'aa help'.\n{}",
                texts::HELP
            ),
            1,
        ),
    }
}

/// `aa force-stop <bundle> [-p pid] [-r reason]`.
fn force_stop(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    let Some(bundle) = args.first() else {
        return CmdResult::fail_out(texts::HELP_FORCE_STOP, 1);
    };
    ctx.spend(Cost::ForceStop);
    let now = std::time::SystemTime::now();
    match ctx.phone().force_stop(bundle, now) {
        Ok(()) => CmdResult::ok("force stop process successfully.\n"),
        Err(_) => CmdResult::fail_out("error: failed to force stop process.\n", 1),
    }
}
