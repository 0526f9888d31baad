//! `bm` (bundle manager): `dump -a`, `dump -n <bundle>`, `clean -n <bundle> -d|-c`.

use super::getopt::{Getopt, HasArg, LongOpt, Opt};
use crate::latency::Cost;
use crate::shell::CmdResult;
use crate::shell::DeviceCtx;

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
                    // Four-space pretty JSON: the bundle manager dumps with `DUMP_INDENT` 4, as the
                    // verbatim capture (`bm_dump_n_kuaishou_abridged_readme.txt`) shows.
                    let mut buf = Vec::new();
                    let fmt = serde_json::ser::PrettyFormatter::with_indent(b"    ");
                    let mut ser = serde_json::Serializer::with_formatter(&mut buf, fmt);
                    let Ok(()) = serde::Serialize::serialize(&v, &mut ser) else {
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

/// `bm clean`'s usage, printed after every option error.
const HELP_CLEAN: &str = "usage: bm clean <options>\n\
options list:\n\
\x20 -h, --help                                      list available commands\n\
\x20 -n, --bundle-name  <bundle-name>                bundle name\n\
\x20 -c, --cache                                     clean bundle cache files by bundle name\n\
\x20 -d, --data                                      clean bundle data files by bundle name\n\
\x20 -u, --user-id <user-id>                         specify a user id,only supports current user or userId is 0\n\
\x20 -i, --app-index <app-index>                     specify a app index\n";

const CLEAN_LONG: &[LongOpt] = &[
    LongOpt {
        name: "help",
        has_arg: HasArg::No,
        id: 'h' as i32,
    },
    LongOpt {
        name: "bundle-name",
        has_arg: HasArg::Required,
        id: 'n' as i32,
    },
    LongOpt {
        name: "cache",
        has_arg: HasArg::No,
        id: 'c' as i32,
    },
    LongOpt {
        name: "data",
        has_arg: HasArg::No,
        id: 'd' as i32,
    },
    LongOpt {
        name: "user-id",
        has_arg: HasArg::Required,
        id: 'u' as i32,
    },
    LongOpt {
        name: "app-index",
        has_arg: HasArg::Required,
        id: 'i' as i32,
    },
];

const REQUIRE_VALUE: &str = "error: option requires a correct value.\n";

/// `bm clean -n B -c|-d [-u U] [-i I]`, parsed as `RunAsCleanCommand` does: whichever of `-c`
/// and `-d` comes first wins (the other is then ignored), so `-d -c` cleans data.
fn clean(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    let mut argv = vec!["bm".to_string(), "clean".to_string()];
    argv.extend(args.iter().cloned());
    let mut g = Getopt::new(argv);
    let mut out = String::new();
    let mut ok = true;
    let (mut bundle, mut cache, mut data) = (String::new(), false, false);
    let mut first = true;
    loop {
        let next = g.next("hn:cdu:i:", CLEAN_LONG);
        let counter_one = std::mem::replace(&mut first, false);
        let Some(opt) = next else {
            // `bm clean` or `bm clean xxx`: no option at all.
            if counter_one && g.args.get(g.optind).is_some_and(|a| a == "clean") {
                out.push_str("error: you must specify an option at least.\n");
                ok = false;
            }
            break;
        };
        match opt {
            Opt::Missing(_) => {
                out.push_str(REQUIRE_VALUE);
                ok = false;
                break;
            }
            Opt::Unknown(_) => {
                out.push_str("error: unknown option.\n");
                ok = false;
                break;
            }
            Opt::Found(c, v) => match char::from_u32(c as u32).unwrap_or('?') {
                'n' => bundle = v.unwrap_or_default(),
                'c' => cache = !data,
                'd' => data = !cache,
                'u' => {
                    if v.as_deref()
                        .and_then(|u| u.parse::<i32>().ok())
                        .is_none_or(|u| u < 0)
                    {
                        return CmdResult::fail_out(REQUIRE_VALUE, 1);
                    }
                }
                'i' => {
                    if v.as_deref()
                        .and_then(|i| i.parse::<i32>().ok())
                        .is_none_or(|i| !(0..=1000).contains(&i))
                    {
                        return CmdResult::fail_out(REQUIRE_VALUE, 1);
                    }
                }
                _ => ok = false,
            },
        }
    }
    if ok {
        if out.is_empty() && bundle.is_empty() {
            out.push_str("error: you must specify a bundle name with '-n' or '--bundle-name'.\n");
            ok = false;
        }
        if !cache && !data {
            out.push_str("error: you must specify '-c' or '-d' for 'bm clean' option.\n");
            ok = false;
        }
    }
    if !ok {
        out.push_str(HELP_CLEAN);
        return CmdResult::fail_out(out, 1);
    }
    ctx.spend(Cost::BundleDump);
    let what = if data { "data" } else { "cache" };
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
    let path = crate::shell::absolute(&path);
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
