//! Screen size from the render service and the display manager, and the power state.

use tapflow_device::hdc::parse::{
    power::parse_power_state,
    screen::{parse_display_manager_screen, parse_render_service_screen},
};
use tapflow_device::model::ScreenSize;

use super::cleaned;

fn size(width: u32, height: u32) -> Option<ScreenSize> {
    Some(ScreenSize { width, height })
}

#[test]
fn hidumper_renderservice_screen_mate60pro() {
    // `render size: WxH`, screen reported off: still the phone's only screen.
    let text = cleaned("hidumper_renderservice_screen_mate60pro.txt");
    assert_eq!(parse_render_service_screen(&text), size(1260, 2720));
}

#[test]
fn hidumper_renderservice_screen_1216x2688_midscene_test_embedded() {
    let text = cleaned("hidumper_renderservice_screen_1216x2688_midscene_test_embedded.txt");
    assert_eq!(parse_render_service_screen(&text), size(1216, 2688));
}

#[test]
fn hidumper_renderservice_screen_matex7_foldable_annotated() {
    let text = cleaned("hidumper_renderservice_screen_matex7_foldable_annotated.txt");
    // The file holds two captures, each introduced by a `### === …` annotation line:
    // A = unfolded (inner screen[0] on), B = folded (outer screen[1] on).
    let captures: Vec<&str> = text.split("\n### ===").skip(1).collect();
    assert_eq!(captures.len(), 2);
    assert_eq!(parse_render_service_screen(captures[0]), size(2416, 2210));
    assert_eq!(parse_render_service_screen(captures[1]), size(1080, 2444));
    // Whole file: the first powered-on screen; the annotations (which mention sizes) are ignored.
    assert_eq!(parse_render_service_screen(&text), size(2416, 2210));
}

#[test]
fn hidumper_displaymanager_a_a_mate60pro() {
    let text = cleaned("hidumper_displaymanager_a_a_mate60pro.txt");
    assert_eq!(parse_display_manager_screen(&text), size(1260, 2720));
    // Not a RenderService dump.
    assert_eq!(parse_render_service_screen(&text), None);
}

#[test]
fn hidumper_powermanager_a_s_mate60pro() {
    let p = parse_power_state(&cleaned("hidumper_powermanager_a_s_mate60pro.txt")).unwrap();
    assert_eq!(p.state, "AWAKE");
    assert!(p.awake);
}
