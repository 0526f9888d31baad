//! `dumpsys window [displays|windows]`, `dumpsys power`, `dumpsys package PKG`; the other
//! services clients read are in [`super::services`].

use super::services;
use crate::android::commands::am::launcher_of;
use crate::android::commands::pm::dumpsys_package;
use crate::android::component::{activity_class, short_class};
use crate::android::state::state;
use crate::android::views::LAUNCHER;
use crate::latency::Cost;
use crate::shell::CmdResult;
use crate::shell::DeviceCtx;

const LAUNCHER_ACTIVITY: &str = "com.android.launcher3.uioverlay.QuickstepLauncher";

/// A window hash as Android prints it (`5c4591`), stable per window.
fn hash(seed: &str) -> String {
    let mut h: u32 = 0x811c_9dc5;
    for b in seed.bytes() {
        h = (h ^ b as u32).wrapping_mul(0x0100_0193);
    }
    format!("{:x}", h >> 4)
}

pub fn run(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    ctx.spend(if args.first().is_some_and(|a| a == "package") {
        Cost::PackageManager
    } else {
        Cost::Hidumper
    });
    match args.first().map(String::as_str) {
        Some("window") => window(ctx, args.get(1).is_some_and(|a| a == "windows")),
        Some("power") => {
            let awake = ctx.phone().power_awake();
            // The display suspend blocker is held while the screen is on (adbutils'
            // `is_screen_on()` reads it).
            CmdResult::ok(format!(
                "POWER MANAGER (dumpsys power)\n\nPower Manager State:\n  mDirty=0x0\n  mWakefulness={}\n  mWakefulnessChanging=false\n  mIsPowered=true\n  mPlugType=2\n  mBatteryLevel=85\n  mDisplayReady=true\n  mHoldingWakeLockSuspendBlocker=false\n  mHoldingDisplaySuspendBlocker={awake}\n",
                if awake { "Awake" } else { "Asleep" }
            ))
        }
        Some("input_method") => services::input_method(ctx),
        Some("display") => services::display(ctx),
        Some("cpuinfo") => services::cpuinfo(ctx),
        Some("meminfo") => services::meminfo(ctx, args.get(1).map(String::as_str)),
        Some("gfxinfo") => services::gfxinfo(ctx, &args[1..]),
        Some("package") => match args.get(1) {
            Some(p) => CmdResult::ok(dumpsys_package(&ctx.phone(), p)),
            None => CmdResult::fail_err(
                "dumpsys package: the simulated device dumps one package at a time\n",
                1,
            ),
        },
        Some(other) => CmdResult::fail_err(format!("Can't find service: {other}\n"), 0),
        None => CmdResult::fail_err(
            "dumpsys: the simulated device dumps window, power, package, input_method, display, cpuinfo, meminfo and gfxinfo\n",
            1,
        ),
    }
}

/// The focus lines of `dumpsys window`, under the `displays` section header, or with
/// `windows` under its own header after the focused window's entry.
fn window(ctx: &mut DeviceCtx<'_>, windows: bool) -> CmdResult {
    let p = state(ctx).profile.clone();
    let phone = ctx.phone();
    let (focus, app) = if !phone.power_awake() {
        (
            format!("Window{{{} u0 NotificationShade}}", hash("shade")),
            "null".to_string(),
        )
    } else {
        let (pkg, class) = match phone.foreground_bundle() {
            Some(b) => {
                let class = launcher_of(&phone, b)
                    .map(|(_, c)| c)
                    .unwrap_or_else(|| activity_class(b, "MainActivity"));
                (b.to_string(), class)
            }
            None => (LAUNCHER.to_string(), LAUNCHER_ACTIVITY.to_string()),
        };
        (
            format!("Window{{{} u0 {pkg}/{class}}}", hash(&format!("{pkg}/w"))),
            format!(
                "ActivityRecord{{{} u0 {pkg}/{} t{}}}",
                hash(&format!("{pkg}/a")),
                short_class(&pkg, &class),
                phone.pid_of(&pkg).map(|x| x % 97 + 1).unwrap_or(1)
            ),
        )
    };
    let (w, h) = p.screen;
    if windows {
        return CmdResult::ok(format!(
            "WINDOW MANAGER WINDOWS (dumpsys window windows)\n  Window #0 {focus}:\n    mDisplayId=0 rootTaskId=1 mSession=Session{{{} 4242:u0a10134}} mClient=android.os.BinderProxy@{}\n    mHasSurface=true isReadyForDisplay()=true mWindowRemovalAllowed=false\n\n  mGlobalConfiguration={{1.0 ?mcc?mnc [en_US] ldltr sw411dp w411dp h{}dp {d}dpi nrml long port finger -keyb/v/h -nav/h winConfig={{ mBounds=Rect(0, 0 - {w}, {h}) }} s.1}}\n  mHasPermanentDpad=false\n  mTopFocusedDisplayId=0\n  mCurrentFocus={focus}\n  mFocusedApp={app}\n",
            hash("session"),
            hash(&focus),
            h * 160 / p.density,
            d = p.density,
        ));
    }
    CmdResult::ok(format!(
        "WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)\n  Display: mDisplayId=0 rootTasks=3\n    init={w}x{h} {d}dpi cur={w}x{h} app={w}x{app_h} rng={w}x{rng}-{h}x{h2}\n    deferred=false mLayoutNeeded=false mTouchExcludeRegion=SkRegion((0,0,{w},{h}))\n\n  mCurrentFocus={focus}\n  mFocusedApp={app}\n",
        d = p.density,
        app_h = h - 126,
        rng = w - 63,
        h2 = h - 63,
    ))
}
