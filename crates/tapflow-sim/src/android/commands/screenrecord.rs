//! `screenrecord [--time-limit SEC] [--size WxH] [--bit-rate N] [--verbose] FILE.mp4`: records
//! the screen until killed (the reader goes away) or the time limit (180 s, the most AOSP's
//! `screenrecord` allows), then writes the MP4 to FILE, as the device's recorder finalises its
//! file on SIGINT/SIGHUP. Frames are the phone model's (every screen change, see
//! `phone::recording`), drawn at half resolution in Motion JPEG; `--size` and `--bit-rate` are
//! accepted and not applied.

use std::time::{Duration, Instant, SystemTime};

use crate::shell::{CmdResult, DeviceCtx, absolute};

const MAX_SECONDS: u64 = 180;

struct Options {
    limit: Duration,
    file: String,
}

fn parse(args: &[String]) -> Result<Options, CmdResult> {
    let mut limit = MAX_SECONDS;
    let mut file = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--time-limit" => {
                limit = it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .filter(|s| (1..=MAX_SECONDS).contains(s))
                    .ok_or_else(|| {
                        CmdResult::fail_err(
                            format!("Invalid time limit (must be 1-{MAX_SECONDS} seconds)\n"),
                            2,
                        )
                    })?;
            }
            "--size" | "--bit-rate" | "--bugreport" | "--display-id" => {
                if a != "--bugreport" {
                    it.next();
                }
            }
            "--verbose" | "-v" => {}
            s if s.starts_with('-') => {
                return Err(CmdResult::fail_err(format!("Unknown option '{s}'\n"), 2));
            }
            f => file = Some(f.to_string()),
        }
    }
    let file =
        file.ok_or_else(|| CmdResult::fail_err("Must specify output file (see --help).\n", 2))?;
    Ok(Options {
        limit: Duration::from_secs(limit),
        file,
    })
}

/// True for a `screenrecord` that records (not a usage error, which answers at once).
pub fn is_streaming(argv: &[String]) -> bool {
    let name = argv[0].rsplit('/').next().unwrap_or(&argv[0]);
    name == "screenrecord" && parse(&argv[1..]).is_ok()
}

/// A usage error (a recording always streams).
pub fn run(_ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    match parse(args) {
        Err(e) => e,
        Ok(_) => CmdResult::fail_err(
            "screenrecord: records until killed: it cannot be redirected\n",
            1,
        ),
    }
}

/// Records until the reader goes away or the limit passes, then writes the file. Without a
/// reader (buffered callers) it stops at once: a one-frame video.
pub fn stream(ctx: &mut DeviceCtx<'_>, argv: &[String]) -> i32 {
    let Ok(o) = parse(&argv[1..]) else { return 2 };
    let path = absolute(&o.file);
    if !ctx
        .phone()
        .start_recording("screenrecord", SystemTime::now())
    {
        let msg = b"ERROR: unable to start recording: the screen is being recorded\n";
        if ctx.split_stderr {
            ctx.err.extend_from_slice(msg);
        } else {
            ctx.out.extend_from_slice(msg);
        }
        return 1;
    }
    let deadline = Instant::now() + o.limit;
    if let Some(sink) = ctx.sink.as_mut() {
        // Polls the reader against the wall-clock limit; frames come from the commands
        // other clients run meanwhile.
        while Instant::now() < deadline && sink(&[]) {
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    let mut phone = ctx.phone();
    match phone.finish_recording_bytes(SystemTime::now()) {
        Some(mp4) => {
            phone.fs.write(&path, mp4);
            0
        }
        None => 1,
    }
}
