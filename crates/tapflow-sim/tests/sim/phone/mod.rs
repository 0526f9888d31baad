//! The simulated phone through its public API: the demo app's flows, lists, dialogs, crashes,
//! password masking, exact text input, screenshots, hap installation and recorded layouts.
//!
//! Here: a fresh phone and the helpers that read its dumps and tap what they find. The cases,
//! one module per subject: `demo` (the demo app's flows, lists and dialogs), `text` (exact text
//! input, editing keys, password masking), `crashes`, `apps` (hap installation and `bm dump`),
//! `layouts` (dump shape, recorded layouts, the keyboard, the screen, screenshots, windows and
//! missions, random sessions).

use proptest::prelude::*;
use serde_json::Value;
use std::time::{Duration, SystemTime};
use tapflow_device::model::{ImageFormat, UiNode};
use tapflow_sim::phone::{KeyPress, LayoutOptions, Phone, PhoneProfile, keycode};

use tapflow_sim::DEMO_BUNDLE as DEMO;

mod apps;
mod crashes;
mod demo;
mod layouts;
mod text;

fn phone() -> (Phone, SystemTime) {
    (
        Phone::new(PhoneProfile::default_for("SIM-0001", 0)),
        SystemTime::now(),
    )
}

fn dump(p: &Phone) -> Value {
    p.layout(&LayoutOptions::default()).expect("dump")
}

/// Every node (depth first) of a dump.
fn nodes(v: &Value) -> Vec<&Value> {
    let mut out = vec![v];
    for c in v["children"].as_array().into_iter().flatten() {
        out.extend(nodes(c));
    }
    out
}

fn attr<'a>(n: &'a Value, k: &str) -> &'a str {
    n["attributes"][k].as_str().unwrap_or("")
}

fn by_id<'a>(v: &'a Value, id: &str) -> Option<&'a Value> {
    nodes(v).into_iter().find(|n| attr(n, "id") == id)
}

fn by_text<'a>(v: &'a Value, text: &str) -> Option<&'a Value> {
    nodes(v).into_iter().find(|n| attr(n, "text") == text)
}

fn center(n: &Value) -> (i32, i32) {
    let b = tapflow_device::model::Bounds::parse(attr(n, "bounds")).expect("bounds");
    let c = b.center();
    (c.x, c.y)
}

fn tap_id(p: &mut Phone, id: &str, now: SystemTime) {
    let d = dump(p);
    let n = by_id(&d, id).unwrap_or_else(|| panic!("no node {id} in {d:#}"));
    let (x, y) = center(n);
    p.click(x, y, now);
}

fn no_drop(_: char) -> bool {
    false
}

fn start_demo(p: &mut Phone, now: SystemTime) {
    p.start_ability(DEMO, "EntryAbility", None, now).unwrap();
}

fn login(p: &mut Phone, user: &str, now: SystemTime) -> SystemTime {
    start_demo(p, now);
    tap_id(p, "username", now);
    p.type_text(user, &mut no_drop, now).unwrap();
    tap_id(p, "login", now);
    let later = now + Duration::from_millis(800);
    p.tick(later);
    later
}
