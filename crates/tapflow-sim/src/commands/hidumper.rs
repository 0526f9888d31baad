//! `hidumper -s <service> -a <args>` for the services clients read: the WindowManagerService
//! window list (`'-a'`, HarmonyOS NEXT table) and window detail (`'-w <id>'`), RenderService
//! `screen`, PowerManagerService `-s`. Output starts with hidumper's banners, as on a device.

use crate::latency::Cost;
use crate::phone::WindowRow;
use crate::shell::CmdResult;
use crate::shell::DeviceCtx;

/// hidumper's two banner lines before a service's own output. The dash counts follow the real
/// captures: 34 on each side, except one fewer after `RenderService` (Mate 60 Pro capture) and
/// `WindowManagerService` (OpenHarmony docs capture).
pub fn banner(service: &str) -> String {
    let after = match service {
        "RenderService" | "WindowManagerService" => 33,
        _ => 34,
    };
    format!(
        "-------------------------------[ability]-------------------------------\n\n\n{}{service}{}\n",
        "-".repeat(34),
        "-".repeat(after)
    )
}

pub fn run(ctx: &mut DeviceCtx<'_>, args: &[String]) -> CmdResult {
    let mut service = None;
    let mut svc_args: Vec<String> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "-s" if i + 1 < args.len() => {
                service = Some(args[i + 1].clone());
                i += 2;
            }
            "-a" if i + 1 < args.len() => {
                svc_args.extend(args[i + 1].split_whitespace().map(str::to_string));
                i += 2;
            }
            other => {
                return CmdResult::fail_out(
                    format!(
                        "option pid missed. {other}\nthe simulated device supports `hidumper -s <service> -a <args>` only\n"
                    ),
                    1,
                );
            }
        }
    }
    let Some(service) = service else {
        return CmdResult::fail_out(
            "hidumper: -s <service> is required by the simulated device\n",
            1,
        );
    };
    ctx.spend(Cost::Hidumper);
    let a: Vec<&str> = svc_args.iter().map(String::as_str).collect();
    match (service.as_str(), a.as_slice()) {
        ("WindowManagerService", ["-a"]) => CmdResult::ok(window_list(ctx, &service)),
        ("WindowManagerService", ["-w", id]) => CmdResult::ok(window_detail(ctx, &service, id)),
        ("RenderService", ["screen"]) => CmdResult::ok(render_screen(ctx, &service)),
        ("PowerManagerService", ["-s"]) => CmdResult::ok(power_state(ctx, &service)),
        ("DisplayManagerService", ["-a"]) => {
            let (w, h) = ctx.phone().screen_size();
            CmdResult::ok(display_manager(&service, w, h))
        }
        _ => CmdResult::fail_out(
            format!(
                "{}the simulated device cannot dump {service} with arguments {:?}\n",
                banner(&service),
                svc_args
            ),
            1,
        ),
    }
}

fn window_row(w: &WindowRow, background: bool) -> String {
    let name: String = w.name.chars().take(20).collect();
    let (x, y, ww, hh) = w.rect;
    let z = if background { -1 } else { w.z_order };
    format!(
        "{name:<21}{:<10}{:<8}{:<6}{:<5}{:<5}{:<5}{z:<5}{:<12}[ {x:<5}{y:<5}{ww:<5}{hh:<5}] [ {:<8}{:<8}] [ {:<8}{:<8}{:<8}{:<8}]\n",
        w.display_id,
        w.pid,
        w.window_id,
        w.window_type,
        w.mode,
        w.flag,
        w.orientation,
        0,
        0,
        1,
        1,
        0.5,
        0.5
    )
}

/// The HarmonyOS NEXT (SceneBoard) window table: visible windows by z-order above the
/// separator, the others below, then the focus trailer.
fn window_list(ctx: &mut DeviceCtx<'_>, service: &str) -> String {
    let phone = ctx.phone();
    let mut windows = phone.windows();
    let focus = phone.focus_window();
    drop(phone);
    windows.sort_by(|a, b| {
        b.z_order
            .cmp(&a.z_order)
            .then(a.window_id.cmp(&b.window_id))
    });
    let mut s = banner(service);
    s.push_str(&format!("{d}ScreenGroup 0{d}\n", d = "-".repeat(37)));
    s.push_str("WindowName           DisplayId Pid     WinId Type Mode Flag ZOrd Orientation [ x    y    w    h    ] [ OffsetX OffsetY ] [ ScaleX  ScaleY  PivotX  PivotY  ]\n");
    for w in windows.iter().filter(|w| w.visible) {
        s.push_str(&window_row(w, false));
    }
    s.push_str(&"-".repeat(87));
    s.push('\n');
    for w in windows.iter().filter(|w| !w.visible) {
        s.push_str(&window_row(w, true));
    }
    let focus_txt = focus.map(|f| f.to_string()).unwrap_or_else(|| "-1".into());
    s.push_str(&format!("Focus window: {focus_txt}\n"));
    s.push_str("All Focus window:\n");
    if let Some(f) = focus {
        s.push_str(&format!("DisplayId: 0 WindowId: {f}\n"));
    }
    s.push_str(&format!("Total window num: {}\n", windows.len()));
    s.push_str(&format!("Highlighted windows: {focus_txt}\n"));
    s
}

fn window_detail(ctx: &mut DeviceCtx<'_>, service: &str, id: &str) -> String {
    let phone = ctx.phone();
    let windows = phone.windows();
    let focus = phone.focus_window();
    drop(phone);
    let mut s = banner(service);
    let Some(w) = id
        .parse::<i64>()
        .ok()
        .and_then(|id| windows.iter().find(|w| w.window_id == id))
    else {
        return s;
    };
    let (x, y, ww, hh) = w.rect;
    s.push_str(&format!(
        "WindowName: {}\nDisplayId: {}\nWinId: {}\nPid: {}\nType: {}\nMode: {}\nFlag: {}\nOrientation: {}\n\
FirstFrameCallbackCalled: 1\nIsVisible: {}\nisRSVisible: {}\nFocusable: {}\nDecoStatus: false\nisPrivacyMode: false\n\
WindowRect: [ {x}, {y}, {ww}, {hh} ]\nscaleX: 1\nscaleY: 1\nOffset: [ 0, 0 ]\nScale: [ 1, 1, 0.5, 0.5 ]\nParentWindowId: 0\n",
        w.name,
        w.display_id,
        w.window_id,
        w.pid,
        w.window_type,
        w.mode,
        w.flag,
        w.orientation,
        w.visible,
        w.visible,
        focus == Some(w.window_id) || w.window_type == 1,
    ));
    s
}

fn render_screen(ctx: &mut DeviceCtx<'_>, service: &str) -> String {
    let phone = ctx.phone();
    let (w, h) = phone.screen_size();
    let power = if phone.power_awake() {
        "POWER_STATUS_ON"
    } else {
        "POWER_STATUS_OFF"
    };
    drop(phone);
    let mut s = banner(service);
    s.push_str("-- ScreenInfo\n");
    s.push_str(&format!(
        "screen[0]: id=0, powerstatus={power}, backlight=51, screenType=EXTERNAL_TYPE, render size: {w}x{h}, physical screen resolution: {w}x{h}, isvirtual=false, skipFrameInterval_:1\n\n"
    ));
    for (i, rate) in [120, 90, 60, 30].iter().enumerate() {
        s.push_str(&format!(
            "  supportedMode[{i}]: {w}x{h}, refreshrate={rate}\n"
        ));
    }
    // The Mate 60 Pro capture runs its active mode at 60 Hz (LTPO panel at rest).
    s.push_str(&format!("  activeMode: {w}x{h}, refreshrate=60\n"));
    s.push_str("  capability: name=, phywidth=72, phyheight=156,supportlayers=12, virtualDispCount=0, propCount=0, type=DISP_INTF_HDMI, supportWriteBack=false\n");
    s
}

fn power_state(ctx: &mut DeviceCtx<'_>, service: &str) -> String {
    let awake = ctx.phone().power_awake();
    let (state, reason) = if awake {
        ("AWAKE", "20")
    } else {
        ("SLEEP", "4")
    };
    let mut s = banner(service);
    s.push_str(&format!(
        "POWER STATE DUMP:\nCurrent State: {state}  Reason: {reason}  Time: 521085695\nScreenOffTime: Timeout=600000ms\n\
DUMP DETAILS:\nLast Screen On: 521248337\nLast Screen Off: 467804783\nLast SuspendDevice: 0\nLast WakeupDevice: 464729447\nLast Refresh: 521248337\n\
DUMP EACH STATES:\n"
    ));
    for (st, why, t) in [
        ("AWAKE", "POWER_KEY", "521085695"),
        ("FREEZE", "INIT", "0"),
        ("INACTIVE", "TIMEOUT", "467805109"),
        ("STAND_BY", "INIT", "0"),
        ("DOZE", "INIT", "0"),
        ("SLEEP", "TIMEOUT", "467810120"),
        ("HIBERNATE", "INIT", "0"),
        ("SHUTDOWN", "INIT", "0"),
    ] {
        s.push_str(&format!(
            "State: {st}   Reason: {why}   Time: {t}\n   Failure: INIT   Reason:    From: AWAKE   Time: 0\n\n"
        ));
    }
    s.push_str("State: DIM   Reason: TIMEOUT   Time: 467797280\n   Failure: TIMEOUT   Reason: Blocked by running lock   From: AWAKE   Time: 447180354\n");
    s
}

/// `hidumper -s DisplayManagerService -a -a` (the screen-size fallback of some clients): a
/// Mate-60-class panel (3.25 density, 72x156 mm) at the phone's resolution.
fn display_manager(service: &str, w: u32, h: u32) -> String {
    let density = 3.25_f64;
    let vw = (w as f64 / density) as u32;
    let vh = (h as f64 / density) as u32;
    // The front-camera cutout stays centred at the top.
    let cut_x = (w as f64 - 273.0) / 2.0;
    let cut_x = cut_x.round() as u32;
    let row = |k: &str, v: &str| format!("{k:<30}{v}\n");
    let mut s = banner(service);
    s.push_str("-------------- DMS Multi User Info --------------\n[oldScbPid:]\n[userId:] 100\n[ScbPid:] 4438\n");
    s.push_str("---------------- Screen ID: 0 ----------------\n");
    s.push_str(&row("FoldStatus:", "UNKNOWN"));
    s.push_str("[SCREEN SESSION]\n");
    s.push_str(&row("Name:", "UNKNOWN"));
    s.push_str(&row("RSScreenId:", "0"));
    s.push_str(&row(
        "activeModes<id, W, H, RS>:",
        &format!("0, {w}, {h}, 120"),
    ));
    for k in [
        "SourceMode:",
        "ScreenCombination:",
        "Orientation:",
        "Rotation:",
        "ScreenRequestedOrientation:",
    ] {
        s.push_str(&row(k, "0"));
    }
    s.push_str("[RS INFO]\n");
    for (k, v) in [
        ("SupportedColorGamuts:", "0, 4, 6"),
        ("ScreenColorGamut:", "4"),
        ("GraphicPixelFormat:", "0"),
        ("SupportedScreenHDRFormat:", "2, 1, 3"),
        ("ScreenHDRFormat:", "2"),
        ("SupportedColorSpaces:", "0, 2294273, 2294278"),
        ("ScreenColorSpace:", "2294273"),
    ] {
        s.push_str(&row(k, v));
    }
    s.push_str("[CUTOUT INFO]\n");
    for side in ["L", "T", "R", "B"] {
        s.push_str(&row(&format!("WaterFall_{side}<X,Y,W,H>:"), "0, 0, 0, 0"));
    }
    s.push_str(&row(
        "BoundingRects<X,Y,W,H>:",
        &format!("[{cut_x}, 36, 273, 72]"),
    ));
    s.push_str("[SCREEN INFO]\n");
    for (k, v) in [
        ("VirtualWidth:", vw.to_string()),
        ("VirtualHeight:", vh.to_string()),
        ("LastParentId:", "18446744073709551615".to_string()),
        ("ParentId:", "1".to_string()),
        ("IsScreenGroup:", "0".to_string()),
        ("VirtualPixelRatio:", "3.25".to_string()),
        ("Rotation:", "0".to_string()),
        ("Orientation:", "0".to_string()),
        ("SourceMode:", "0".to_string()),
        ("ScreenType:", "1".to_string()),
    ] {
        s.push_str(&row(k, &v));
    }
    s.push_str("[SCREEN PROPERTY]\n");
    let bounds = format!("0, 0, {w}, {h},");
    for (k, v) in [
        ("Rotation:", "0"),
        ("Density:", "3.25"),
        ("DensityInCurResolution:", "3.25"),
        ("PhyWidth:", "72"),
        ("PhyHeight:", "156"),
        ("RefreshRate:", "60"),
        ("VirtualPixelRatio:", "3.25"),
        ("ScreenRotation:", "0"),
        ("Orientation:", "0"),
        ("DisplayOrientation:", "0"),
        ("GetScreenType:", "1"),
        ("ReqOrientation:", "0"),
        ("DPI<X, Y>:", "444.5, 442.871"),
        ("Offset<X, Y>:", "0, 0"),
        ("Bounds<L,T,W,H>:", &bounds),
        ("PhyBounds<L,T,W,H>:", &bounds),
        ("AvailableArea<X,Y,W,H>", &bounds),
        ("DefaultDeviceRotationOffset", "0"),
    ] {
        s.push_str(&row(k, v));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> String {
        std::fs::read_to_string(format!(
            "{}/../../tests/fixtures/harmonyos/{name}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap()
    }

    #[test]
    fn window_rows_match_the_next_fixture_columns() {
        let fx = fixture("hidumper_wms_a_window_list_next_2in1_trimmed_test_embedded.txt");
        let row = WindowRow {
            name: "installer0".into(),
            display_id: 0,
            pid: 54500,
            window_id: 225,
            window_type: 1,
            mode: 102,
            flag: 0,
            z_order: 114,
            orientation: 0,
            rect: (584, 732, 1600, 1065),
            visible: true,
        };
        let line = window_row(&row, false);
        assert_eq!(line.trim_end(), fx.lines().nth(1).unwrap());
    }

    #[test]
    fn display_manager_matches_the_mate60_fixture() {
        let fx = fixture("hidumper_displaymanager_a_a_mate60pro.txt");
        assert_eq!(
            display_manager("DisplayManagerService", 1260, 2720).trim_end(),
            fx.trim_end()
        );
    }

    #[test]
    fn banners_match_the_fixtures() {
        for (name, service) in [
            (
                "hidumper_powermanager_a_s_mate60pro.txt",
                "PowerManagerService",
            ),
            (
                "hidumper_displaymanager_a_a_mate60pro.txt",
                "DisplayManagerService",
            ),
            (
                "hidumper_wms_a_window_list_openharmony_docs_720x1280.txt",
                "WindowManagerService",
            ),
        ] {
            assert!(fixture(name).starts_with(&banner(service)), "{name}");
        }
        let rs = fixture("hidumper_renderservice_screen_mate60pro.txt");
        assert!(
            rs.trim_start()
                .starts_with(banner("RenderService").as_str())
        );
    }
}
