//! Robustness: no parser panics, over every fixture and over arbitrary and table-shaped Unicode
//! text (proptest).

use std::fs;
use std::path::PathBuf;

use tapflow_device::hdc::parse::{
    aa::parse_missions,
    bm::{parse_bundle_info, parse_bundle_list},
    clean_output,
    failure::detect_hdc_failure,
    faultlog::{parse_crash_file_name, parse_crash_listing},
    layout, outcome,
    param::parse_param,
    power::parse_power_state,
    screen::{parse_display_manager_screen, parse_render_service_screen},
    targets::parse_targets,
    windows::{parse_window_detail, parse_window_table},
};

/// Every parser over every fixture: never a panic, whatever it is fed.
#[test]
fn every_parser_over_every_fixture_never_panics() {
    let dir: PathBuf = [
        concat!(env!("CARGO_MANIFEST_DIR"), "/../.."),
        "tests",
        "fixtures",
        "harmonyos",
    ]
    .iter()
    .collect();
    let mut count = 0;
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let Ok(text) = fs::read_to_string(&path) else {
            continue;
        };
        let text = clean_output(&text);
        let _ = detect_hdc_failure(&text);
        let _ = parse_targets(&text);
        let _ = parse_param(&text);
        let _ = parse_bundle_list(&text);
        let _ = parse_bundle_info(&text);
        let _ = parse_missions(&text);
        let _ = parse_window_table(&text);
        let _ = parse_window_detail(&text);
        let _ = parse_render_service_screen(&text);
        let _ = parse_display_manager_screen(&text);
        let _ = parse_power_state(&text);
        let _ = parse_crash_listing(&text);
        let _ = layout::parse_layout(&text);
        let _ = outcome::install(&text);
        let _ = outcome::snapshot_display(&text);
        let _ = outcome::ui_input(&text);
        count += 1;
    }
    assert!(count >= 45, "read {count} fixtures");
}

proptest::proptest! {
    /// Arbitrary text (any Unicode, multi-byte characters at every cut) never panics a parser.
    #[test]
    fn every_parser_on_arbitrary_text_never_panics(s in "(\\PC|[\\[\\]{}:#\\-\\n\\t x0-9])*") {
        let _ = clean_output(&s);
        let _ = detect_hdc_failure(&s);
        let _ = parse_targets(&s);
        let _ = parse_param(&s);
        let _ = parse_bundle_list(&s);
        let _ = parse_bundle_info(&s);
        let _ = parse_missions(&s);
        let _ = parse_window_table(&s);
        let _ = parse_window_detail(&s);
        let _ = parse_render_service_screen(&s);
        let _ = parse_display_manager_screen(&s);
        let _ = parse_power_state(&s);
        let _ = parse_crash_listing(&s);
        let _ = layout::parse_layout(&s);
        let _ = outcome::install(&s);
        let _ = outcome::uninstall(&s);
        let _ = outcome::aa_start(&s);
        let _ = outcome::file_transfer(&s);
        let _ = outcome::snapshot_display(&s);
        let _ = outcome::ui_input(&s);
        let _ = outcome::dump_layout(&s);
        let _ = outcome::screen_cap(&s);
    }

    /// Table-shaped lines with multi-byte text in every column.
    #[test]
    fn line_parsers_on_prefixed_unicode_never_panic(
        prefix in proptest::sample::select(vec![
            "Mission ID #", "screen[0]: ", "total window num:", "Total window num:", "Focus window:",
            "WindowName DisplayId Pid WinId\n", "Bounds<L,T,W,H>:", "activeModes<id, W, H, RS>:",
            "Current State:", "success: snapshot display 0 , write to ", "ID: ", "cppcrash-",
            "WindowRect: [", "{", "[",
        ]),
        body in "\\PC{0,40}",
    ) {
        let s = format!("{prefix}{body}");
        let _ = parse_missions(&s);
        let _ = parse_window_table(&s);
        let _ = parse_window_detail(&s);
        let _ = parse_render_service_screen(&s);
        let _ = parse_display_manager_screen(&s);
        let _ = parse_power_state(&s);
        let _ = parse_bundle_list(&s);
        let _ = parse_bundle_info(&s);
        let _ = parse_crash_file_name(&s);
        let _ = outcome::snapshot_display(&s);
        let _ = layout::parse_layout(&s);
    }
}
