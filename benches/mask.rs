//! Masking benchmarks: what `run::Masker` costs at the egress points of a run.
//!
//! - `mask/build`: a masker for three secrets (one of them multi-line): every form of each,
//!   one Aho-Corasick automaton (done once per run).
//! - `mask/text_*`: 1 MiB of hilog-like text (an evidence excerpt): without secrets in the plan
//!   (the fast path), with secrets but none in the text, and with a secret on every 50th line.
//! - `mask/value`: a `result.json`-sized value (1000 steps with arguments and results), masked
//!   as JSON values before serialisation.
//!
//! Run: `cargo bench --bench mask -- --quick` (figures in docs/benchmarks.md, "## Masking").

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::{Value, json};
use tapflow::run::Masker;

const SECRETS: [&str; 3] = [
    "hunter2-secret",
    "O'Brien \"pa55\\word\"",
    "first-line-secret\nsecond-line-secret",
];

fn hilog(with_secret: bool) -> String {
    let mut out = String::new();
    let mut n = 0;
    while out.len() < 1 << 20 {
        n += 1;
        let msg = if with_secret && n % 50 == 0 {
            format!("LOGIN_SUCCESS user={}", SECRETS[n % 3])
        } else {
            format!("PAGE_SHOWN page=LoginPage n={n} some ordinary text of a log line")
        };
        out.push_str(&format!(
            "12-02 01:21:31.144 12071 12071 I A0d0d0/DemoApp: {msg}\n"
        ));
    }
    out
}

fn result_value() -> Value {
    let steps: Vec<Value> = (0..1000)
        .map(|i| {
            json!({
                "id": format!("flow.{i}"),
                "tool": "input_text",
                "status": "passed",
                "args": {"element_id": "username", "text": if i % 100 == 0 { SECRETS[1] } else { "demo" }},
                "result": {"text": "demo", "verified": true, "x": 630, "y": 385,
                           "element_handle": {"window_id": 61, "id": "3", "type": "TextInput"}},
            })
        })
        .collect();
    json!({"run_id": "bench", "flows": [{"id": "flow", "steps": steps}]})
}

fn mask(c: &mut Criterion) {
    let mut g = c.benchmark_group("mask");
    g.bench_function("build", |b| b.iter(|| Masker::new(black_box(SECRETS))));
    let masker = Masker::new(SECRETS);
    let none = Masker::none();
    let clean = hilog(false);
    let dirty = hilog(true);
    assert!(masker.text(&dirty).contains("user=******"));
    g.throughput(Throughput::Bytes(clean.len() as u64));
    g.bench_function("text_no_secrets", |b| {
        b.iter(|| none.text(black_box(&clean)).len())
    });
    g.bench_function("text_no_match", |b| {
        b.iter(|| masker.text(black_box(&clean)).len())
    });
    g.bench_function("text_matches", |b| {
        b.iter(|| masker.text(black_box(&dirty)).len())
    });
    let v = result_value();
    g.throughput(Throughput::Bytes(v.to_string().len() as u64));
    g.bench_function("value", |b| b.iter(|| masker.value(black_box(&v))));
    g.finish();
}

criterion_group!(benches, mask);
criterion_main!(benches);
