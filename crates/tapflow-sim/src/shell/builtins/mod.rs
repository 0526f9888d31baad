//! The programs every simulated platform has, with toybox's texts: [`text`] (`echo`, `printf`,
//! `sleep`, `true`, `false`), [`files`] (`cat`, `ls`, `rm` over the phone's files and
//! `/proc`) and [`probe`] (`stat -c`, `test` / `[`). A platform's program table tries its own programs first, then [`run`].

pub mod files;
pub mod probe;
pub mod text;

use super::ctx::{CmdResult, DeviceCtx};

/// Runs `name` when it is one of the shared programs; `None` otherwise (the platform then
/// answers "not found" in its own words).
pub fn run(ctx: &mut DeviceCtx<'_>, name: &str, args: &[String]) -> Option<CmdResult> {
    Some(match name {
        "echo" => text::echo(args),
        "printf" => text::printf(args),
        "true" => CmdResult::ok(Vec::new()),
        "false" => CmdResult::fail_out(Vec::new(), 1),
        "sleep" => text::sleep(ctx, args),
        "cat" => files::cat(ctx, args),
        "ls" => files::ls(ctx, args),
        "rm" => files::rm(ctx, args),
        "stat" => probe::stat(ctx, args),
        "test" | "[" => probe::test(ctx, name, args),
        _ => return None,
    })
}
