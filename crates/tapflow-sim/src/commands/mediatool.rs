//! `mediatool`, the media library's command-line tool, with the texts of OpenHarmony's
//! `medialibrary_tool`: `query <display-name> [-p|-u]` (`find N result`, then `path` or `uri`
//! and one line per asset), `recv <uri|path|all> <dest>` (`Table Name: Photos`, then the written
//! path), `list <uri|all>` (CSV) and `delete <uri|all>`. Screen recordings are found and fetched
//! this way: `mediatool query x.mp4 -u`, then `mediatool recv <uri> /data/local/tmp`.

use crate::phone::media::{MediaAsset, table_of};
use crate::shell::CmdResult;
use crate::shell::DeviceCtx;
use crate::shell::absolute;

const FAIL: &str = "[FAIL]";

fn usage() -> String {
    "usage:\n\
\x20 receive file from medialibrary to path\n\
\x20   command: mediatool recv <src-media> <dest-path>\n\
\x20 delete media assets in medialibrary\n\
\x20   command: mediatool delete <media-uri>\n\
\x20 query path or uri by displayname in medialibrary\n\
\x20   command: mediatool query <display-name> [-p] [-u]\n\
\x20 execute ls -l in system media directory\n\
\x20   command: mediatool ls -l <media-directory>\n"
        .to_string()
}

pub fn run(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    // The tool needs a command and at least one operand.
    if args.len() < 2 {
        return CmdResult::fail_out(usage(), 1);
    }
    match args[0].as_str() {
        "query" => query(ctx, &args[1..]),
        "recv" => recv(ctx, &args[1], args.get(2).map(String::as_str).unwrap_or("")),
        "list" => list(ctx, &args[1]),
        "delete" => delete(ctx, &args[1]),
        _ => CmdResult::fail_out(usage(), 1),
    }
}

fn query(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    let (mut path_flag, mut uri_flag, mut name) = (false, false, String::new());
    for a in args {
        match a.as_str() {
            "-p" => path_flag = true,
            "-u" => uri_flag = true,
            other if name.is_empty() => name = other.to_string(),
            _ => {}
        }
    }
    if (path_flag && uri_flag) || name.is_empty() {
        return CmdResult::fail_out(
            format!(
                "The command is not a valid query command. See 'mediatool -h'\n{}",
                usage()
            ),
            1,
        );
    }
    if table_of(&name).is_none() {
        return CmdResult::fail_out("find 0 result\nThe displayName format is not correct!\n", 1);
    }
    let hits: Vec<MediaAsset> = ctx
        .phone()
        .media()
        .iter()
        .filter(|a| a.display_name == name)
        .cloned()
        .collect();
    if hits.is_empty() {
        return CmdResult::fail_out("find 0 result\n", 1);
    }
    let mut s = format!("find {} result\n", hits.len());
    if uri_flag {
        s.push_str("uri\n");
        for a in &hits {
            s.push_str(&format!("\"{}\"\n", a.uri()));
        }
    } else {
        s.push_str("path\n");
        for a in &hits {
            s.push_str(&a.path);
            s.push('\n');
        }
    }
    CmdResult::ok(s)
}

/// The asset a `recv`/`list`/`delete` operand names: a `file://media/Photo/<id>/…` URI, or the
/// asset's file path.
fn find(assets: &[MediaAsset], target: &str) -> Option<MediaAsset> {
    if let Some(rest) = target.strip_prefix("file://media/Photo/") {
        let id: u32 = rest.split('/').next()?.parse().ok()?;
        return assets.iter().find(|a| a.id == id).cloned();
    }
    assets.iter().find(|a| a.path == target).cloned()
}

fn recv(ctx: &mut DeviceCtx<'_>, target: &str, dest: &str) -> CmdResult {
    if dest.is_empty() {
        return CmdResult::fail_out(format!("{FAIL} recv path empty.\n"), 1);
    }
    let dest = absolute(dest);
    let mut phone = ctx.phone();
    let assets: Vec<MediaAsset> = if target == "all" {
        phone.media().to_vec()
    } else {
        let valid = target.starts_with("file://media/") || target.starts_with('/');
        if !valid {
            return CmdResult::fail_out(format!("{FAIL} recv target invalid: {target}\n"), 1);
        }
        match find(phone.media(), target) {
            Some(a) => vec![a],
            None => {
                let what = if target.starts_with('/') {
                    "path"
                } else {
                    "uri"
                };
                return CmdResult::fail_out(
                    format!(
                        "Table Name: Photos\n{FAIL} This {what} does not refer to a valid media asset \n"
                    ),
                    1,
                );
            }
        }
    };
    // A destination without a dot in its last segment is a directory (created when missing).
    let last = dest.rsplit('/').next().unwrap_or("");
    let is_dir = !last.contains('.') || last == "." || last == "..";
    if !is_dir && phone.fs.is_file(&dest) {
        return CmdResult::fail_out(format!("{FAIL} file has exist. file:{dest}\n"), 1);
    }
    let mut s = String::from("Table Name: Photos\n");
    for a in assets {
        let Some(bytes) = phone.fs.read(&a.path).map(<[u8]>::to_vec) else {
            s.push_str(&format!("{FAIL} open source media file failed.\n"));
            continue;
        };
        let to = if is_dir {
            format!("{}/{}", dest.trim_end_matches('/'), a.display_name)
        } else {
            dest.clone()
        };
        phone.fs.write(&to, bytes);
        s.push_str(&to);
        s.push('\n');
    }
    CmdResult::ok(s)
}

fn list(ctx: &mut DeviceCtx<'_>, target: &str) -> CmdResult {
    let phone = ctx.phone();
    let assets: Vec<MediaAsset> = if target == "all" {
        phone.media().to_vec()
    } else if let Some(rest) = target.strip_prefix("file://media/Photo/") {
        let id = rest.split('/').next().and_then(|i| i.parse::<u32>().ok());
        let Some(id) = id else {
            return CmdResult::fail_out(format!("{FAIL} uri invalid. uri:{target}\n"), 1);
        };
        phone
            .media()
            .iter()
            .filter(|a| a.id == id)
            .cloned()
            .collect()
    } else {
        return CmdResult::fail_out(format!("{FAIL} uri invalid. uri:{target}\n"), 1);
    };
    let mut s = String::from("Table Name: Photos\nuri, display_name, data\n");
    for a in assets {
        s.push_str(&format!(
            "\"{}\", \"{}\", \"{}\"\n",
            a.uri(),
            a.display_name,
            a.path
        ));
    }
    CmdResult::ok(s)
}

fn delete(ctx: &mut DeviceCtx<'_>, target: &str) -> CmdResult {
    let mut phone = ctx.phone();
    if target == "all" {
        let ids: Vec<u32> = phone.media().iter().map(|a| a.id).collect();
        for id in ids {
            phone.delete_media(id);
        }
        return CmdResult::ok(Vec::new());
    }
    let Some(a) = target
        .starts_with("file://media/Photo/")
        .then(|| find(phone.media(), target))
        .flatten()
    else {
        return CmdResult::fail_out(format!("{FAIL} uri invalid. uri:{target}\n"), 1);
    };
    phone.delete_media(a.id);
    CmdResult::ok("[SUCCESS] delete success.\n")
}
