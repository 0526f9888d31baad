//! Device-layer benchmarks: parse time of every fixture layout (the 1.5 MB one included).
//! Round trips per Device operation against the simulated device are printed by `tapflow sim bench`
//! (see docs/benchmarks.md); they are counts, not timings, so they do not belong in criterion.

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use tapflow::device::hdc::parse::layout::parse_layout;

const LAYOUTS: &[&str] = &[
    "layout_haptest_logindemo_login_pretty.json",
    "layout_haptest_logindemo_save_keyboard_pretty.json",
    "layout_haptest_soundrecorder_modalpage_pretty.json",
    "layout_haptest_vmall_web_keyboard_large_pretty.json",
    "layout_hmdriver2_uitest_demo_mate60pro_pretty.json",
    "layout_ohauto_dayu200_locked_screen_no_window_compact.json",
];

fn layouts(c: &mut Criterion) {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/harmonyos/");
    let mut group = c.benchmark_group("parse_layout");
    for name in LAYOUTS {
        let text = std::fs::read_to_string(format!("{dir}{name}")).expect("fixture");
        group.throughput(criterion::Throughput::Bytes(text.len() as u64));
        group.bench_function(*name, |b| {
            b.iter(|| parse_layout(black_box(&text)).expect("parses"))
        });
    }
    group.finish();
}

criterion_group!(benches, layouts);
criterion_main!(benches);
