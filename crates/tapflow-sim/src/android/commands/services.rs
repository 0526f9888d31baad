//! The system services clients read beyond windows, power and packages: `dumpsys
//! input_method` (whether the keyboard shows), `display` (the rotation and screen state),
//! `cpuinfo`, `meminfo PKG` and `gfxinfo PKG [framestats]` (performance), and the services
//! driven through `cmd` and `svc`: `cmd uimode night`, `svc wifi|data enable|disable`.
//!
//! Texts follow AOSP's dumps (`InputMethodManagerService`, `DisplayManagerService` with its
//! `DisplayViewport`, `ProcessCpuTracker`, `ActivityThread`'s meminfo table, `GfxInfo`'s
//! `ProfileData`) in the lines and field names clients parse. Figures are the simulator's own:
//! stable per process, never measured, since no app code runs.

use crate::android::state::state;
use crate::latency::Cost;
use crate::shell::{CmdResult, DeviceCtx};

/// The rotation the device shows: `user_rotation` while auto-rotate is off (what a client
/// sets to rotate, `settings put system user_rotation N`), else natural portrait.
pub fn rotation(ctx: &DeviceCtx<'_>) -> u32 {
    let st = state(ctx);
    if st.setting("system", "accelerometer_rotation") == Some("1") {
        return 0;
    }
    st.setting("system", "user_rotation")
        .and_then(|r| r.parse().ok())
        .filter(|r| *r < 4)
        .unwrap_or(0)
}

fn uptime(ctx: &DeviceCtx<'_>) -> String {
    let ms = ctx.boot.elapsed().as_millis() + 3_600_000;
    format!("Uptime: {ms} Realtime: {ms}\n")
}

/// `dumpsys input_method`: the keyboard's state as `InputMethodManagerService` dumps it.
pub fn input_method(ctx: &mut DeviceCtx<'_>) -> CmdResult {
    let ime = state(ctx).current_ime().to_string();
    let phone = ctx.phone();
    let shown = phone.keyboard_shown();
    let pkg = phone.foreground_bundle().unwrap_or("null").to_string();
    // TYPE_CLASS_TEXT, with TYPE_TEXT_VARIATION_PASSWORD on a password field.
    let input_type = if phone.secure_input_focused() {
        "0x81"
    } else {
        "0x1"
    };
    CmdResult::ok(format!(
        "Current Input Method Manager state:\n  Input Methods: mMethodMapUpdateCount=2 mBindInstantServiceAllowed=false\n  InputMethod #0:\n    mId={ime} mSettingsActivity=null mIsVrIme=false mIsDefaultResourceId=0\n  mCurMethodId={ime}\n  mCurSeq=12 mCurClient=ClientState{{pid=4242 uid=10134}}\n  mCurFocusedWindowSoftInputMode=STATE_UNSPECIFIED|ADJUST_RESIZE|IS_FORWARD_NAVIGATION\n  mCurAttribute=EditorInfo{{packageName={pkg}, inputType={input_type}, inputTypeString=Text, enableStylusHandwriting=false, imeOptions=0x6, privateImeOptions=null, actionName=UNSPECIFIED, actionLabel=null, initialSelStart=0, initialSelEnd=0, initialCapsMode=0x0, hintText=null, label=null, packageName={pkg}, fieldId=0, fieldName=null, extras=null}}\n  mCurId={ime} mHaveConnection=true mBoundToMethod=true mVisibleBound={shown}\n  mCurIntent=Intent {{ act=android.view.InputMethod cmp={ime} }}\n  mShowRequested={shown} mShowExplicitlyRequested=false mShowForced=false mInputShown={shown}\n  mInFullscreenMode=false\n  mSystemReady=true mInteractive={awake}\n",
        awake = phone.power_awake(),
    ))
}

/// `dumpsys display`: the default display's viewport (its `orientation=` is what
/// `adbutils.rotation()` reads) and its device, with the screen state.
pub fn display(ctx: &mut DeviceCtx<'_>) -> CmdResult {
    let r = rotation(ctx);
    let p = state(ctx).profile.clone();
    let (w, h) = p.screen;
    let (lw, lh) = if r % 2 == 1 { (h, w) } else { (w, h) };
    let on = if ctx.phone().power_awake() {
        "ON"
    } else {
        "OFF"
    };
    let id = "local:4619827259835644672";
    CmdResult::ok(format!(
        "DISPLAY MANAGER (dumpsys display)\n  mOnlyCore=false\n  mSafeMode=false\n  mPendingTraversal=false\n  mViewports=[DisplayViewport{{type=INTERNAL, valid=true, isActive=true, displayId=0, uniqueId='{id}', physicalPort=0, orientation={r}, logicalFrame=Rect(0, 0 - {lw}, {lh}), physicalFrame=Rect(0, 0 - {lw}, {lh}), deviceWidth={lw}, deviceHeight={lh}}}]\n  mDefaultDisplayDefaultColorMode=0\n\nDisplay Adapters: size=1\n  LocalDisplayAdapter\n\nDisplay Devices: size=1\n  DisplayDeviceInfo{{\"Built-in Screen\": uniqueId=\"{id}\", {w} x {h}, modeId 1, renderFrameRate 60.0, defaultModeId 1, density {d}, {d}.0 x {d}.0 dpi, appVsyncOff 1000000, presDeadline 16666666, touch INTERNAL, rotation 0, type INTERNAL, address {{port=0, model=0x401cec6a7a2b7b}}, deviceProductInfo null, state {on}, committedState {on}, frameRateOverride , brightnessMinimum 0.0, brightnessMaximum 1.0, brightnessDefault 0.39763778, FLAG_ALLOWED_TO_BE_DEFAULT_DISPLAY, FLAG_ROTATES_WITH_CONTENT, FLAG_SECURE, FLAG_SUPPORTS_PROTECTED_BUFFERS}}\n    mAdapter=LocalDisplayAdapter\n    mUniqueId={id}\n    mDisplayToken=android.os.BinderProxy@5a1e2f0\n    mCurrentLayerStack=0\n    mCurrentOrientation={r}\n    mScreenState={on}\n",
        d = p.density,
    ))
}

/// A stable figure in `lo..hi` for `seed` (a process's memory, its CPU share).
fn figure(seed: &str, lo: u64, hi: u64) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in seed.bytes() {
        h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
    }
    lo + h % (hi - lo).max(1)
}

/// `dumpsys cpuinfo`: the load line, then one line per running app and the total.
pub fn cpuinfo(ctx: &mut DeviceCtx<'_>) -> CmdResult {
    let phone = ctx.phone();
    let mut out = String::from(
        "Load: 2.31 / 2.08 / 1.95\nCPU usage from 60013ms to 13ms ago (2026-01-01 00:00:00.000 to 2026-01-01 00:01:00.000):\n  9.1% 542/system_server: 5.8% user + 3.3% kernel / faults: 2100 minor\n  3.4% 410/surfaceflinger: 2.1% user + 1.3% kernel\n",
    );
    for app in phone.installed_apps() {
        let b = &app.spec.bundle;
        if let Some(pid) = phone.pid_of(b) {
            let tenths = figure(b, 5, 80);
            let user = tenths * 2 / 3;
            out.push_str(&format!(
                "  {}.{}% {pid}/{b}: {}.{}% user + {}.{}% kernel\n",
                tenths / 10,
                tenths % 10,
                user / 10,
                user % 10,
                (tenths - user) / 10,
                (tenths - user) % 10
            ));
        }
    }
    out.push_str("18% TOTAL: 11% user + 6.1% kernel + 0.2% iowait + 0.4% irq + 0.3% softirq\n");
    CmdResult::ok(out)
}

/// `dumpsys meminfo PKG`: the process's memory table and App Summary (kilobytes), or `No
/// process found for: PKG` when it does not run.
pub fn meminfo(ctx: &mut DeviceCtx<'_>, pkg: Option<&str>) -> CmdResult {
    let Some(pkg) = pkg else {
        return CmdResult::fail_err(
            "dumpsys meminfo: the simulated device dumps one process at a time (dumpsys meminfo PKG)\n",
            1,
        );
    };
    let head = format!("Applications Memory Usage (in Kilobytes):\n{}", uptime(ctx));
    let Some(pid) = ctx.phone().pid_of(pkg) else {
        return CmdResult::ok(format!("{head}No process found for: {pkg}\n"));
    };
    let native = figure(&format!("{pkg}/n"), 18_000, 30_000);
    let java = figure(&format!("{pkg}/j"), 6_000, 14_000);
    let code = figure(&format!("{pkg}/c"), 9_000, 20_000);
    let graphics = figure(&format!("{pkg}/g"), 4_000, 12_000);
    let total = native + java + code + graphics + 1_800;
    let rss = total * 2;
    let row = |name: &str, pss: u64| {
        format!(
            "{name:>15} {pss:>8} {:>8} {:>8} {:>8} {:>8}\n",
            pss * 9 / 10,
            pss / 10,
            0,
            pss * 2
        )
    };
    let mut out = format!(
        "{head}\n** MEMINFO in pid {pid} [{pkg}] **\n                   Pss  Private  Private  SwapPss      Rss\n                 Total    Dirty    Clean    Dirty    Total\n                ------   ------   ------   ------   ------\n"
    );
    out.push_str(&row("Native Heap", native));
    out.push_str(&row("Dalvik Heap", java));
    out.push_str(&row(".so mmap", code));
    out.push_str(&row("GL mtrack", graphics));
    out.push_str(&row("Unknown", 1_800));
    out.push_str(&row("TOTAL", total));
    out.push_str(&format!(
        "\n App Summary\n                       Pss(KB)                        Rss(KB)\n                        ------                         ------\n           Java Heap:    {java:>6}                         {:>6}\n         Native Heap:    {native:>6}                         {:>6}\n                Code:    {code:>6}                         {:>6}\n            Graphics:    {graphics:>6}                         {:>6}\n       Private Other:      1800\n              System:         0\n             Unknown:                                        1800\n\n           TOTAL PSS:    {total:>6}            TOTAL RSS:   {rss:>6}       TOTAL SWAP PSS:        0\n",
        java * 2,
        native * 2,
        code * 2,
        graphics * 2,
    ));
    CmdResult::ok(out)
}

/// `dumpsys gfxinfo PKG [framestats|reset]`: the janky-frames summary and (framestats) the
/// empty `---PROFILEDATA---` block: the simulator draws no frames of app code, so it
/// reports none rather than invented timings.
pub fn gfxinfo(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    let Some(pkg) = args.first() else {
        return CmdResult::fail_err(
            "dumpsys gfxinfo: the simulated device dumps one process at a time (dumpsys gfxinfo PKG)\n",
            1,
        );
    };
    let head = format!("Applications Graphics Acceleration Info:\n{}", uptime(ctx));
    let Some(pid) = ctx.phone().pid_of(pkg) else {
        return CmdResult::ok(format!("{head}No process found for: {pkg}\n"));
    };
    let mut out = format!(
        "{head}\n** Graphics info for pid {pid} [{pkg}] **\n\nStats since: {}ns\nTotal frames rendered: 0\nJanky frames: 0 (0.00%)\nJanky frames (legacy): 0 (0.00%)\n50th percentile: 0ms\n90th percentile: 0ms\n95th percentile: 0ms\n99th percentile: 0ms\nNumber Missed Vsync: 0\nNumber High input latency: 0\nNumber Slow UI thread: 0\nNumber Slow bitmap uploads: 0\nNumber Slow issue draw commands: 0\nNumber Frame deadline missed: 0\n",
        ctx.boot.elapsed().as_nanos()
    );
    if args.iter().any(|a| a == "framestats") {
        out.push_str("\n---PROFILEDATA---\nFlags,FrameTimelineVsyncId,IntendedVsync,Vsync,InputEventId,HandleInputStart,AnimationStart,PerformTraversalsStart,DrawStart,FrameDeadline,FrameInterval,FrameStartTime,SyncQueued,SyncStart,IssueDrawCommandsStart,SwapBuffers,FrameCompleted,DequeueBufferDuration,QueueBufferDuration,GpuCompleted,SwapBuffersCompleted,DisplayPresentTime,CommandSubmissionCompleted,\n---PROFILEDATA---\n");
    }
    out.push_str("\nView hierarchy:\n\nTotal ViewRootImpl: 1\nTotal attached Views: 24\n");
    CmdResult::ok(out)
}

/// `cmd uimode night [yes|no|auto]`: sets night mode (kept as `secure ui_night_mode`, 1 no,
/// 2 yes, 0 auto) and prints the current one, as `UiModeManagerService`'s shell does.
pub fn uimode(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    // `cmd` is native: one binder call, a builtin's cost.
    ctx.spend(Cost::Builtin);
    match args {
        [night, rest @ ..] if night == "night" && rest.len() <= 1 => {
            let mut st = state(ctx);
            if let Some(v) = rest.first() {
                let code = match v.as_str() {
                    "yes" => "2",
                    "no" => "1",
                    "auto" => "0",
                    other => {
                        return CmdResult::fail_err(
                            format!("Error: mode must be 'yes', 'no', or 'auto'; was {other}\n"),
                            255,
                        );
                    }
                };
                st.put_setting("secure", "ui_night_mode", code);
            }
            let word = match st.setting("secure", "ui_night_mode").unwrap_or("1") {
                "2" => "yes",
                "0" => "auto",
                _ => "no",
            };
            CmdResult::ok(format!("Night mode: {word}\n"))
        }
        _ => CmdResult::fail_err(
            "UiModeManager service (uimode) commands:\n  night [yes|no|auto]\n(the simulated device supports night only)\n",
            255,
        ),
    }
}

/// `svc wifi|data enable|disable` (kept as `global wifi_on` / `mobile_data`), `svc power
/// stayon true|false|usb|ac|wireless`; silent, as on a device.
pub fn svc(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    // `svc` is a script starting `app_process`: a JVM start, as `input` costs.
    ctx.spend(Cost::AndroidInput);
    let on = |v: &str| match v {
        "enable" => Some("1"),
        "disable" => Some("0"),
        _ => None,
    };
    let key = match args.first().map(String::as_str) {
        Some("wifi") => "wifi_on",
        Some("data") => "mobile_data",
        Some("power") if args.len() == 3 && args[1] == "stayon" => {
            state(ctx).put_setting("global", "stay_on_while_plugged_in", &args[2]);
            return CmdResult::ok(Vec::new());
        }
        _ => {
            return CmdResult::fail_out(
                "Available commands:\n    help     Show information about the subcommands\n    power    Control the power manager\n    data     Control mobile data connectivity\n    wifi     Control the Wi-Fi manager\n(the simulated device runs wifi, data and power stayon)\n",
                1,
            );
        }
    };
    match args.get(1).and_then(|v| on(v)) {
        Some(v) if args.len() == 2 => {
            state(ctx).put_setting("global", key, v);
            CmdResult::ok(Vec::new())
        }
        _ => CmdResult::fail_out(
            format!(
                "Control the {} manager\n\nusage: svc {} [enable|disable]\n",
                if key == "wifi_on" {
                    "Wi-Fi"
                } else {
                    "mobile data"
                },
                args[0]
            ),
            1,
        ),
    }
}
