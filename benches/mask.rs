//! Masking benchmarks: what `run::Masker` costs at the egress points of a run.
//!
//! - `mask/build`: a masker for three secrets (one of them multi-line): every form of each,
//!   one Aho-Corasick automaton (done once per run).
//! - `mask/build_long`: the same plus a 150-character secret (its Android pieces: every prefix
//!   and suffix, every 99- and 100-character window).
//! - `mask/log_lines`: 1 MiB of `-v` log lines of the adb backend (`input text` argv), a secret
//!   typed in every 50th, masked record by record as the log gate does.
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

/// 150 characters with spaces: two `input text` chunks.
fn long_secret() -> String {
    "Lp3Gs Kw5Jv-".repeat(13)[..150].to_string()
}

/// `-v` log records of the adb backend typing text (a secret in every 50th).
fn adb_log(secret: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut bytes = 0;
    let mut n = 0;
    while bytes < 1 << 20 {
        n += 1;
        let typed = if n % 50 == 0 {
            secret.replace(' ', "%s")
        } else {
            format!("user{n}")
        };
        let line = format!(
            "2026-12-02T03:06:39.836408Z DEBUG tapflow::adb: adb round trip argv=[\"-P\", \"5037\", \"-s\", \"emulator-5554\", \"exec-out\", \"echo '==tapflow:0=='; input text '{typed}' 2>&1; echo '==tapflow:1=='; uiautomator dump /dev/tty\"] attempt=1 elapsed_ms=12 ok=true\n"
        );
        bytes += line.len();
        out.push(line);
    }
    out
}

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
    let long = long_secret();
    let with_long = [SECRETS[0], SECRETS[1], SECRETS[2], long.as_str()];
    g.bench_function("build_long", |b| {
        b.iter(|| Masker::new(black_box(with_long)))
    });
    let masker_long = Masker::new(with_long);
    let log = adb_log(SECRETS[0]);
    assert!(masker_long.text(&log[49]).contains("input text '******'"));
    g.throughput(Throughput::Bytes(log.iter().map(|l| l.len() as u64).sum()));
    g.bench_function("log_lines", |b| {
        b.iter(|| {
            log.iter()
                .map(|l| masker_long.bytes(black_box(l.as_bytes())).len())
                .sum::<usize>()
        })
    });
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
