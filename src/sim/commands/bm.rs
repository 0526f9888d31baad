//! `bm` (bundle manager): `dump -a`, `dump -n <bundle>`, `clean -n <bundle> -d|-c`.

use super::CmdResult;
use crate::sim::latency::Cost;
use crate::sim::shell::DeviceCtx;

pub fn run(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    match args.first().map(String::as_str) {
        Some("dump") => dump(ctx, &args[1..]),
        Some("clean") => clean(ctx, &args[1..]),
        _ => CmdResult::fail_out(
            "usage: bm <command> <options>\n\
These are common bm commands list:\n\
\x20 help         list available commands\n\
\x20 dump         obtain the bundle info\n\
\x20 clean        clean the bundle data\n\
(the simulated device supports dump and clean)\n",
            1,
        ),
    }
}

fn dump(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    ctx.spend(Cost::BundleDump);
    match args {
        [a] if a == "-a" || a == "--all" => {
            let phone = ctx.phone();
            let mut s = String::from("ID: 100:\n");
            for b in phone.bundles() {
                s.push('\t');
                s.push_str(&b);
                s.push('\n');
            }
            CmdResult::ok(s)
        }
        [n, bundle] if n == "-n" || n == "--bundle-name" => {
            let phone = ctx.phone();
            match phone.bundle_dump(bundle) {
                Some(v) => {
                    // Two-space pretty JSON, as in the captured `bm dump -n` outputs.
                    let Ok(buf) = serde_json::to_vec_pretty(&v) else {
                        return CmdResult::fail_out(
                            "error: failed to get information and the parameters may be wrong.\n",
                            1,
                        );
                    };
                    let mut s = format!("{bundle}:\n").into_bytes();
                    s.extend_from_slice(&buf);
                    s.push(b'\n');
                    CmdResult::ok(s)
                }
                None => CmdResult::fail_out(
                    "error: failed to get information and the parameters may be wrong.\n",
                    1,
                ),
            }
        }
        _ => CmdResult::fail_out(
            "error: the simulated device supports `bm dump -a` and `bm dump -n <bundle>`.\n",
            1,
        ),
    }
}

fn clean(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    let mut bundle = None;
    let mut data = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-n" => bundle = it.next().cloned(),
            "-d" => data = Some(true),
            "-c" => data = Some(false),
            _ => {}
        }
    }
    let (Some(bundle), Some(data)) = (bundle, data) else {
        return CmdResult::fail_out(
            "error: you must specify a bundle name with '-n' and one of '-c' or '-d'.\n",
            1,
        );
    };
    let what = if data { "data" } else { "cache" };
    ctx.spend(Cost::BundleDump);
    match ctx.phone().clean(&bundle, data) {
        Ok(()) => CmdResult::ok(format!("clean bundle {what} files successfully.\n")),
        Err(_) => CmdResult::fail_out(format!("error: failed to clean bundle {what} files.\n"), 1),
    }
}
