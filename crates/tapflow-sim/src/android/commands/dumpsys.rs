//! `dumpsys window [displays|windows]`, `dumpsys power`, `dumpsys package PKG`.

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
        Some("window") => window(ctx),
        Some("power") => {
            let awake = ctx.phone().power_awake();
            CmdResult::ok(format!(
                "POWER MANAGER (dumpsys power)\n\nPower Manager State:\n  mDirty=0x0\n  mWakefulness={}\n  mWakefulnessChanging=false\n  mIsPowered=true\n  mPlugType=2\n  mBatteryLevel=85\n  mDisplayReady=true\n",
                if awake { "Awake" } else { "Asleep" }
            ))
        }
        Some("package") => match args.get(1) {
            Some(p) => CmdResult::ok(dumpsys_package(&ctx.phone(), p)),
            None => CmdResult::fail_err(
                "dumpsys package: the simulated device dumps one package at a time\n",
                1,
            ),
        },
        Some(other) => CmdResult::fail_err(format!("Can't find service: {other}\n"), 0),
        None => CmdResult::fail_err(
            "dumpsys: the simulated device dumps window, power and package\n",
            1,
        ),
    }
}

/// The focus lines (and the display header) of `dumpsys window displays`.
fn window(ctx: &mut DeviceCtx<'_>) -> CmdResult {
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
    CmdResult::ok(format!(
        "WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)\n  Display: mDisplayId=0 rootTasks=3\n    init={w}x{h} {d}dpi cur={w}x{h} app={w}x{app_h} rng={w}x{rng}-{h}x{h2}\n    deferred=false mLayoutNeeded=false mTouchExcludeRegion=SkRegion((0,0,{w},{h}))\n\n  mCurrentFocus={focus}\n  mFocusedApp={app}\n",
        d = p.density,
        app_h = h - 126,
        rng = w - 63,
        h2 = h - 63,
    ))
}
