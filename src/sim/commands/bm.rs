//! `bm` (bundle manager): `dump -a`, `dump -n <bundle>`, `clean -n <bundle> -d|-c`.

use super::CmdResult;
use crate::sim::latency::Cost;
use crate::sim::shell::DeviceCtx;

pub fn run(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    match args.first().map(String::as_str) {
        Some("dump") => dump(ctx, &args[1..]),
        Some("clean") => clean(ctx, &args[1..]),
        Some("install") => install(ctx, &args[1..]),
        Some("get") if matches!(&args[1..], [a] if a == "--udid" || a == "-u") => {
            // A stable 64-hex-digit UDID per device, derived from its serial.
            use sha2::Digest;
            let serial = ctx.phone().profile().serial.clone();
            let udid = hex::encode_upper(sha2::Sha256::digest(serial.as_bytes()));
            CmdResult::ok(format!("udid of current device is :\n{udid}\n"))
        }
        Some("uninstall") => uninstall(ctx, &args[1..]),
        _ => CmdResult::fail_out(
            "usage: bm <command> <options>\n\
These are common bm commands list:\n\
\x20 help         list available commands\n\
\x20 dump         obtain the bundle info\n\
\x20 clean        clean the bundle data\n\
\x20 install      install a bundle with options\n\
\x20 uninstall    uninstall a bundle with options\n\
(the simulated device supports dump, clean, install and uninstall)\n",
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

/// `bm install -p <file.hap|dir> [-r]` (how DevEco installs from a pushed directory).
fn install(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    let mut path = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-p" => path = it.next().cloned(),
            "-r" => {}
            other => {
                return CmdResult::fail_out(
                    format!("error: unknown option {other} for the simulated device.\n"),
                    1,
                );
            }
        }
    }
    let Some(path) = path else {
        return CmdResult::fail_out("error: you must specify a bundle path with '-p'.\n", 1);
    };
    let path = crate::sim::shell::exec::absolute(&path);
    let mut phone = ctx.phone();
    let haps: Vec<Vec<u8>> = if phone.fs.is_file(&path) {
        phone
            .fs
            .read(&path)
            .map(<[u8]>::to_vec)
            .into_iter()
            .collect()
    } else {
        phone
            .fs
            .files_under(&path)
            .iter()
            .filter(|f| f.ends_with(".hap") || f.ends_with(".hsp"))
            .filter_map(|f| phone.fs.read(f).map(<[u8]>::to_vec))
            .collect()
    };
    if haps.is_empty() {
        return CmdResult::fail_out(
            "error: failed to install bundle.\ncode:9568268\nerror: install file path invalid.\n",
            1,
        );
    }
    let now = std::time::SystemTime::now();
    for hap in &haps {
        // `bm install` always replaces an installed bundle of the same name.
        if let Err(e) = phone.install_hap(hap, true, now) {
            return CmdResult::fail_out(
                format!(
                    "error: failed to install bundle.\ncode:{}\nerror: {}\n",
                    e.code, e.message
                ),
                1,
            );
        }
    }
    drop(phone);
    ctx.spend(Cost::Install);
    CmdResult::ok("install bundle successfully.\n")
}

/// `bm uninstall -n <bundle>`.
fn uninstall(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    let bundle = match args {
        [n, b] if n == "-n" => b,
        _ => {
            return CmdResult::fail_out("error: you must specify a bundle name with '-n'.\n", 1);
        }
    };
    ctx.spend(Cost::Uninstall);
    match ctx.phone().uninstall(bundle) {
        Ok(()) => CmdResult::ok("uninstall bundle successfully.\n"),
        Err(e) => CmdResult::fail_out(
            format!(
                "error: failed to uninstall bundle.\ncode:{}\nerror: {}\n",
                e.code, e.message
            ),
            1,
        ),
    }
}
