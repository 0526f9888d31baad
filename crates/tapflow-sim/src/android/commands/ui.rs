//! The screen: `uiautomator dump`, `screencap`, `wm size|density`.

use crate::android::state::state;
use crate::android::views;
use crate::faults::DumpFault;
use crate::latency::Cost;
use crate::shell::CmdResult;
use crate::shell::DeviceCtx;
use crate::shell::absolute;
use tapflow_device::model::ImageFormat;

/// Where the shell user may write (`/sdcard` and the temporary directory).
pub fn writable(path: &str) -> bool {
    ["/sdcard/", "/storage/", "/data/local/tmp/"]
        .iter()
        .any(|p| path.starts_with(p))
}

/// `uiautomator dump [--compressed] [FILE]` (AOSP `DumpCommand`): the XML goes to FILE
/// (default `/sdcard/window_dump.xml`; `/dev/tty` writes it to the output stream), then
/// `UI hierchary dumped to: FILE` on stdout. An unwritable FILE still prints the confirmation.
/// With the screen off: `ERROR: null root node returned by UiTestAutomationBridge.` on stderr.
pub fn uiautomator(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    let Some((sub, rest)) = args.split_first() else {
        return CmdResult::fail_err(
            "Usage: uiautomator <subcommand> [options]\n\nAvailable subcommands:\n\nhelp: displays help message\n\nruntest: executes UI automation tests\n\ndump: creates an XML dump of current UI hierarchy\n\nevents: prints out accessibility events until terminated\n",
            1,
        );
    };
    if sub != "dump" {
        return CmdResult::fail_err(
            format!("uiautomator {sub}: not supported by the simulated device (dump only)\n"),
            1,
        );
    }
    let file = rest
        .iter()
        .rfind(|a| !a.starts_with('-'))
        .map(|f| f.to_string())
        .unwrap_or_else(|| "/sdcard/window_dump.xml".to_string());
    ctx.spend(Cost::UiautomatorDump);
    let (fault, extra) = ctx.faults().dump_fault();
    ctx.spent += extra;
    // The display's rotation (`user_rotation` with auto-rotate off) is the hierarchy's
    // `rotation` attribute; the nodes keep their portrait layout (docs/android.md).
    let rotation = super::services::rotation(ctx);
    let xml = {
        let phone = ctx.phone();
        views::dump(&phone).map(|x| {
            x.replacen(
                "<hierarchy rotation=\"0\">",
                &format!("<hierarchy rotation=\"{rotation}\">"),
                1,
            )
        })
    };
    let Some(xml) = xml else {
        return CmdResult::fail_err(
            "ERROR: null root node returned by UiTestAutomationBridge.\n",
            0,
        );
    };
    let bytes = match fault {
        DumpFault::None => xml.into_bytes(),
        DumpFault::Empty => Vec::new(),
        DumpFault::Truncate(per_mille) => {
            let keep = xml.len() * per_mille as usize / 1000;
            let mut cut = keep.min(xml.len());
            while !xml.is_char_boundary(cut) {
                cut -= 1;
            }
            xml.as_bytes()[..cut].to_vec()
        }
    };
    let confirmation = format!("UI hierchary dumped to: {file}\n");
    if file == "/dev/tty" {
        let mut out = bytes;
        out.extend_from_slice(confirmation.as_bytes());
        return CmdResult::ok(out);
    }
    let path = absolute(&file);
    if writable(&path) {
        ctx.phone().fs.write(&path, bytes);
    }
    CmdResult::ok(confirmation)
}

/// `screencap [-p] [-d ID] [FILE]`: the current screen as PNG, to FILE or stdout.
pub fn screencap(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    let mut png = false;
    let mut file = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-p" => png = true,
            "-d" => {
                if it.next().is_none() {
                    return CmdResult::fail_err("screencap: -d needs a display id\n", 1);
                }
            }
            f if !f.starts_with('-') => file = Some(f.to_string()),
            other => {
                return CmdResult::fail_err(format!("screencap: unknown option {other}\n"), 1);
            }
        }
    }
    let png = png || file.as_deref().is_some_and(|f| f.ends_with(".png"));
    if !png {
        return CmdResult::fail_err(
            "screencap: raw output is not supported by the simulated device; use -p\n",
            1,
        );
    }
    ctx.spend(Cost::Screenshot);
    let bytes = ctx.phone().screenshot(ImageFormat::Png);
    match file {
        None => CmdResult::ok(bytes),
        Some(f) => {
            let path = absolute(&f);
            if !writable(&path) {
                return CmdResult::fail_err(
                    format!("Error opening file: {f} (Permission denied)\n"),
                    1,
                );
            }
            ctx.phone().fs.write(&path, bytes);
            CmdResult::ok(Vec::new())
        }
    }
}

/// `wm size` / `wm density`.
pub fn wm(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    let p = state(ctx).profile.clone();
    match args.first().map(String::as_str) {
        Some("size") => CmdResult::ok(format!("Physical size: {}x{}\n", p.screen.0, p.screen.1)),
        Some("density") => CmdResult::ok(format!("Physical density: {}\n", p.density)),
        _ => CmdResult::fail_err(
            "usage: wm [size|density] (the simulated device reports them only)\n",
            1,
        ),
    }
}
