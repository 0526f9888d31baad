//! Host ↔ device transfers of the simulated hdc: `file send`, `file recv` (files and whole
//! directories), `install [-r]` and `uninstall`, with hdc's own success and failure texts.
//! Host paths are relative to the client's working directory.

use std::path::{Path, PathBuf};

use super::latency::{Cost, Latency};
use super::output::SimOutput;
use super::shell::DeviceCtx;
use super::shell::absolute;

fn out(s: String) -> SimOutput {
    SimOutput {
        stdout: s.into_bytes(),
        exit: 0,
    }
}

fn host_path(cwd: &Path, p: &str) -> PathBuf {
    let p = Path::new(p);
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        cwd.join(p)
    }
}

fn basename(p: &str) -> &str {
    p.trim_end_matches('/').rsplit('/').next().unwrap_or(p)
}

/// hdc's transfer summary; time and rate follow the realistic USB model so the text looks the
/// same whatever the latency setting.
fn summary(bytes: u64, files: usize) -> String {
    let ms = Latency::Realistic
        .cost(Cost::Transfer(bytes))
        .as_millis()
        .max(1) as u64;
    let rate = bytes as f64 / ms as f64;
    format!(
        "FileTransfer finish, Size:{bytes}, File count = {files}, time:{ms}ms rate:{rate:.2}kB/s\n"
    )
}

fn open_error(path: &str) -> SimOutput {
    out(format!(
        "[Fail]Error opening file: no such file or directory, path:{path}\n"
    ))
}

pub fn send(ctx: &mut DeviceCtx<'_>, cwd: &Path, local: &str, remote: &str) -> SimOutput {
    let src = host_path(cwd, local);
    if src.is_dir() {
        return out(format!(
            "[Fail]the simulated hdc sends single files only, path:{}\n",
            src.display()
        ));
    }
    let bytes = match std::fs::read(&src) {
        Ok(b) => b,
        Err(_) => return open_error(&src.display().to_string()),
    };
    let n = bytes.len() as u64;
    let mut phone = ctx.phone();
    let mut dest = absolute(remote);
    if remote.ends_with('/') || phone.fs.is_dir(&dest) {
        let name = src
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        dest = format!("{}/{name}", dest.trim_end_matches('/'));
    }
    phone.fs.write(&dest, bytes);
    drop(phone);
    ctx.spend(Cost::Transfer(n));
    out(summary(n, 1))
}

pub fn recv(ctx: &mut DeviceCtx<'_>, cwd: &Path, remote: &str, local: &str) -> SimOutput {
    let src = absolute(remote);
    let phone = ctx.phone();
    // (device path, relative host path) pairs.
    let files: Vec<(String, PathBuf)> = if phone.fs.is_file(&src) {
        vec![(src.clone(), PathBuf::from(basename(&src)))]
    } else if phone.fs.is_dir(&src) {
        let root = basename(&src).to_string();
        phone
            .fs
            .files_under(&src)
            .into_iter()
            .map(|f| {
                let rel = f[src.trim_end_matches('/').len()..]
                    .trim_start_matches('/')
                    .to_string();
                (f, Path::new(&root).join(rel))
            })
            .collect()
    } else {
        return open_error(remote);
    };
    let is_dir = !phone.fs.is_file(&src);
    let contents: Vec<(PathBuf, Vec<u8>)> = files
        .into_iter()
        .map(|(dev, rel)| {
            (
                rel,
                phone.fs.read(&dev).map(<[u8]>::to_vec).unwrap_or_default(),
            )
        })
        .collect();
    drop(phone);
    let dest = host_path(cwd, local);
    let mut total = 0u64;
    for (rel, bytes) in &contents {
        // A file lands at `local` unless `local` is an existing directory; a directory lands
        // inside an existing `local` directory, or becomes `local`.
        let target = if !is_dir {
            if dest.is_dir() {
                dest.join(rel)
            } else {
                dest.clone()
            }
        } else if dest.is_dir() {
            dest.join(rel)
        } else {
            dest.join(rel.iter().skip(1).collect::<PathBuf>())
        };
        if let Some(parent) = target.parent()
            && std::fs::create_dir_all(parent).is_err()
        {
            return open_error(&target.display().to_string());
        }
        if std::fs::write(&target, bytes).is_err() {
            return open_error(&target.display().to_string());
        }
        total += bytes.len() as u64;
    }
    ctx.spend(Cost::Transfer(total));
    // The recv side of hdc also logs its transfer summary into stdout (fixture
    // `hdc_file_recv_success.txt`); clients must skip such `[I][date] …` lines.
    out(format!(
        "[I][{}] HdcFile::TransferSummary success\n{}",
        chrono::Local::now().format("%Y-%m-%d %H:%M:%S"),
        summary(total, contents.len())
    ))
}

pub fn install(
    ctx: &mut DeviceCtx<'_>,
    cwd: &Path,
    replace: bool,
    packages: &[String],
) -> SimOutput {
    let mut s = String::new();
    for p in packages {
        let path = host_path(cwd, p);
        // hdc 3.1.0e queues `.hap`/`.hsp` files (and packs directories); anything else leaves
        // the queue empty.
        let ok_ext = matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("hap" | "hsp")
        );
        let bytes = match std::fs::read(&path) {
            Ok(b) if ok_ext => b,
            _ => {
                return out("[Fail][E006001] Not any installation package was found\n".into());
            }
        };
        ctx.spend(Cost::Install);
        let now = std::time::SystemTime::now();
        let res = ctx.phone().install_hap(&bytes, replace, now);
        let msg = match res {
            Ok(_) => "install bundle successfully.".to_string(),
            Err(e) => format!(
                "error: failed to install bundle. code:{} error: {}",
                e.code, e.message
            ),
        };
        s.push_str(&format!(
            "[Info]App install path:{}, queuesize:0, msg:{msg}\n",
            path.display()
        ));
    }
    s.push_str("AppMod finish\n");
    out(s)
}

pub fn uninstall(ctx: &mut DeviceCtx<'_>, bundle: &str) -> SimOutput {
    ctx.spend(Cost::Uninstall);
    let msg = match ctx.phone().uninstall(bundle) {
        Ok(()) => "uninstall bundle successfully.".to_string(),
        Err(e) => format!(
            "error: failed to uninstall bundle. code:{} error: {}",
            e.code, e.message
        ),
    };
    out(format!(
        "[Info]App uninstall path:, queuesize:0, msg:{msg}\nAppMod finish\n"
    ))
}
