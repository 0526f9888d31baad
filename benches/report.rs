//! Rendering every report format for a large run: 200 flows × 20 steps (every tenth flow
//! failed, with a screenshot, a UI tree excerpt, 200 hilog lines and the flow source), from
//! the `RunResult`: `result.json` (serialise), JUnit, HTML, the manifest and the GitHub
//! summary. Target: under 1 s for all of them together, in release.
//!
//! `cargo bench --bench report` (figures in docs/benchmarks.md).

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use tapflow::report::{github, html, junit, manifest};
use tapflow::run::result::*;

fn step(flow: usize, i: usize, failed: bool) -> StepResult {
    let status = if failed {
        Status::Failed
    } else {
        Status::Passed
    };
    let id = format!("flow_{flow:03}.{i}");
    let evidence = if failed {
        let dir = format!("artifacts/SER1/flow_{flow:03}");
        vec![
            EvidenceRef {
                kind: "screenshot".into(),
                path: format!("{dir}/{id}.screenshot.png"),
                sha256: "ab".repeat(32),
                bytes: 120_000,
                pass: None,
                width: Some(1260),
                height: Some(2720),
                excerpt: None,
                lines: None,
            },
            EvidenceRef {
                kind: "ui_tree".into(),
                path: format!("{dir}/{id}.ui_tree.json"),
                sha256: "cd".repeat(32),
                bytes: 80_000,
                pass: None,
                width: None,
                height: None,
                excerpt: Some(
                    (0..40)
                        .map(|n| format!("    Text #t{n} \"Item {n}\" [0,{n}0][1260,{n}9]"))
                        .collect::<Vec<_>>()
                        .join("\n"),
                ),
                lines: Some(3000),
            },
            EvidenceRef {
                kind: "hilog".into(),
                path: format!("{dir}/{id}.hilog.txt"),
                sha256: "ef".repeat(32),
                bytes: 30_000,
                pass: None,
                width: None,
                height: None,
                excerpt: Some(
                    (0..200)
                        .map(|n| {
                            format!(
                                "12-02 10:00:00.{n:03}  4242  4242 E A0d0d0/DemoApp: line {n} \u{1b}[31m]]> <x> &"
                            )
                        })
                        .collect::<Vec<_>>()
                        .join("\n"),
                ),
                lines: Some(200),
            },
        ]
    } else {
        Vec::new()
    };
    StepResult {
        id: id.clone(),
        label: None,
        kind: StepKind::Tool,
        tool: Some("click".into()),
        title: format!("click Button {i}"),
        status,
        reason: None,
        optional: false,
        location: Location {
            file: format!("flows/flow_{flow:03}.yaml"),
            line: 4 + i,
            column: 5,
        },
        started_at: Some("2026-12-02T10:00:00.000Z".into()),
        duration_ms: 120 + i as u64,
        args: Some(json!({"text": format!("Button {i}"), "timeout_ms": 5000, "device_id": "SER1"})),
        attempts: vec![Attempt {
            number: 1,
            status,
            started_at: "2026-12-02T10:00:00.000Z".into(),
            duration_ms: 120,
            result: Some(json!({"clicked": true, "x": 630, "y": 866})),
            error: None,
        }],
        cost: Some(StepCost {
            device_round_trips: 2,
            ui_dumps: 1,
        }),
        result: Some(
            json!({"clicked": true, "x": 630, "y": 866, "element": {"bounds": "[48,801][1212,931]"}}),
        ),
        error: failed.then(|| StepError {
            code: tapflow_core::codes::ELEMENT_NOT_FOUND,
            message: format!("no visible element matches search criteria: text \"Button {i}\""),
            details: json!({"match_count": 0}),
            location: None,
        }),
        source: if failed {
            (i + 1..i + 8)
                .map(|l| SourceLine {
                    line: l,
                    text: format!("  - click: Button {l}"),
                    marked: l == i + 4,
                })
                .collect()
        } else {
            Vec::new()
        },
        bounds: Some("[48,801][1212,931]".into()),
        evidence,
        children: Vec::new(),
    }
}

fn big_run() -> RunResult {
    let flows: Vec<FlowResult> = (0..200)
        .map(|f| {
            let fails = f % 10 == 0;
            let steps: Vec<StepResult> = (0..20).map(|i| step(f, i, fails && i == 19)).collect();
            FlowResult {
                id: format!("flow_{f:03}"),
                run_id: None,
                name: format!("Flow number {f}"),
                file: format!("flows/flow_{f:03}.yaml"),
                tags: vec!["smoke".into()],
                device: Some(format!("SER{}", f % 4)),
                status: if fails {
                    Status::Failed
                } else {
                    Status::Passed
                },
                reason: None,
                started_at: Some("2026-12-02T10:00:00.000Z".into()),
                duration_ms: 2500,
                error: fails.then(|| steps[19].error.clone().unwrap()),
                setup: Vec::new(),
                steps,
                on_failure: Vec::new(),
                finally: Vec::new(),
            }
        })
        .collect();
    let mut r = RunResult {
        schema_version: RESULT_SCHEMA_VERSION,
        run_id: "bench".into(),
        tapflow_version: "0".into(),
        command: Some("tapflow run flows/ --sim 4".into()),
        approval: None,
        started_at: "2026-12-02T10:00:00.000Z".into(),
        finished_at: Some("2026-12-02T10:10:00.000Z".into()),
        updated_at: "2026-12-02T10:10:00.000Z".into(),
        duration_ms: 600_000,
        status: Status::Running,
        complete: true,
        interrupted: false,
        shard: None,
        coverage: Coverage::default(),
        merged_from: Vec::new(),
        devices: (0..4)
            .map(|d| DeviceResult {
                serial: format!("SER{d}"),
                platform: "harmonyos".into(),
                model: Some("ALN-AL00".into()),
                name: None,
                api_level: Some(12),
                software_version: None,
                ready: true,
                error: None,
            })
            .collect(),
        flows,
        totals: Totals::default(),
        artifacts_manifest: "manifest.json".into(),
    };
    r.finish_totals();
    r
}

fn every_format(r: &RunResult) -> usize {
    let json = serde_json::to_vec_pretty(r).unwrap();
    let xml = junit::render(
        r,
        &junit::JunitOptions {
            attachment_prefix: "",
        },
    )
    .unwrap();
    let page = html::render(r, "").unwrap();
    let m = serde_json::to_vec_pretty(&manifest::build(r)).unwrap();
    let md = github::summary(r, Some("report.html"), &tapflow::run::Masker::none());
    let ann = github::annotations(r, &tapflow::run::Masker::none());
    json.len() + xml.len() + page.len() + m.len() + md.len() + ann.len()
}

fn bench(c: &mut Criterion) {
    let r = big_run();
    let mut g = c.benchmark_group("report_200_flows_x_20_steps");
    g.sample_size(10);
    g.bench_function("every_format", |b| b.iter(|| every_format(&r)));
    g.bench_function("result_json", |b| {
        b.iter(|| serde_json::to_vec_pretty(&r).unwrap().len())
    });
    g.bench_function("junit", |b| {
        b.iter(|| {
            junit::render(
                &r,
                &junit::JunitOptions {
                    attachment_prefix: "",
                },
            )
            .unwrap()
            .len()
        })
    });
    g.bench_function("html", |b| b.iter(|| html::render(&r, "").unwrap().len()));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
