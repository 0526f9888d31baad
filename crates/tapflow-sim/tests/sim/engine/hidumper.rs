//! hidumper: the services' outputs.

use super::*;
use pretty_assertions::assert_eq;

#[test]
fn hidumper_outputs() {
    let s = sim();
    start_demo(&s);
    let wms = sh(&s, "hidumper -s WindowManagerService -a '-a'");
    let lines: Vec<&str> = wms.lines().collect();
    assert_eq!(
        lines[0],
        "-------------------------------[ability]-------------------------------"
    );
    assert_eq!(
        lines[3],
        "----------------------------------WindowManagerService---------------------------------"
    );
    assert_eq!(
        lines[4],
        "-------------------------------------ScreenGroup 0-------------------------------------"
    );
    assert_eq!(
        lines[5],
        fixture("hidumper_wms_a_window_list_next_2in1_trimmed_test_embedded.txt")
            .lines()
            .next()
            .unwrap()
    );
    assert!(lines.contains(&"-".repeat(87).as_str()));
    let focus = lines
        .iter()
        .find_map(|l| l.strip_prefix("Focus window: "))
        .unwrap();
    assert!(lines.contains(&format!("Highlighted windows: {focus}").as_str()));
    assert!(lines.contains(&format!("DisplayId: 0 WindowId: {focus}").as_str()));
    assert!(lines.iter().any(|l| l.starts_with("Total window num: ")));
    // The same command given as tokens (the daemon sees `-a -a`).
    assert_eq!(
        run(
            &s,
            &[
                "shell",
                "hidumper",
                "-s",
                "WindowManagerService",
                "-a",
                "-a"
            ]
        ),
        wms
    );
    let detail = sh(
        &s,
        &format!("hidumper -s WindowManagerService -a '-w {focus}'"),
    );
    assert!(detail.contains(&format!("WinId: {focus}\n")));
    assert!(detail.contains("IsVisible: true\n"));
    assert!(
        regex::Regex::new(r"WindowRect: \[ \d+, \d+, \d+, \d+ \]")
            .unwrap()
            .is_match(&detail)
    );

    assert_eq!(sh(&s, "power-shell suspend"), "SuspendDevice is called\n");
    // Screen off, the RenderService dump is the Mate 60 Pro capture byte for byte.
    assert_eq!(
        sh(&s, "hidumper -s RenderService -a screen").trim(),
        fixture("hidumper_renderservice_screen_mate60pro.txt").trim()
    );
    assert!(sh(&s, "hidumper -s PowerManagerService -a -s").contains("Current State: SLEEP"));
    assert!(sh(&s, "hidumper -s RenderService -a screen").contains("powerstatus=POWER_STATUS_OFF"));
    assert_eq!(sh(&s, "power-shell wakeup"), "WakeupDevice is called\n");
    let power = sh(&s, "hidumper -s PowerManagerService -a -s");
    assert_eq!(
        power.trim_end(),
        fixture("hidumper_powermanager_a_s_mate60pro.txt").trim_end()
    );
    let screen = sh(&s, "hidumper -s RenderService -a screen");
    assert!(screen.contains("render size: 1260x2720, physical screen resolution: 1260x2720"));
    assert!(screen.contains("  activeMode: 1260x2720, refreshrate="));
}
