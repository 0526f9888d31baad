//! Start-up of `tapflow mcp` as an MCP client sees it: spawn the process → `initialize` answered
//! → `notifications/initialized` → `tools/list` answered, over stdio, repeated; prints the
//! median, p90 and max. (The Python HarmonyOS MCP server takes about 2.2 s to a completed
//! `initialize`; the target here is ≤ 50 ms in release.) Run: `cargo bench --bench mcp_startup`.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const RUNS: usize = 30;

fn once(args: &[&str]) -> (Duration, Duration, usize) {
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_tapflow"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("tapflow mcp starts");
    let mut stdin = child.stdin.take().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2025-11-25","capabilities":{{}},"clientInfo":{{"name":"bench","version":"1"}}}}}}"#
    )
    .unwrap();
    out.read_line(&mut line).unwrap();
    assert!(
        line.contains("\"id\":1") && line.contains("protocolVersion"),
        "{line}"
    );
    let initialized = started.elapsed();
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
    )
    .unwrap();
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":2,"method":"tools/list"}}"#).unwrap();
    line.clear();
    out.read_line(&mut line).unwrap();
    let listed = started.elapsed();
    let v: serde_json::Value = serde_json::from_str(&line).expect("a JSON-RPC answer");
    let tools = v["result"]["tools"].as_array().map_or(0, Vec::len);
    assert!(tools > 20, "{line}");
    drop(stdin);
    let _ = child.wait();
    (initialized, listed, tools)
}

fn report(label: &str, args: &[&str]) {
    once(args); // warm the page cache
    let mut init = Vec::new();
    let mut list = Vec::new();
    let mut tools = 0;
    for _ in 0..RUNS {
        let (i, l, t) = once(args);
        init.push(i);
        list.push(l);
        tools = t;
    }
    init.sort();
    list.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let p = |v: &[Duration], q: f64| ms(v[((v.len() - 1) as f64 * q).round() as usize]);
    println!(
        "mcp_startup/{label}: spawn→initialize median {:.1} ms (p90 {:.1}); spawn→tools/list ({tools} tools) median {:.1} ms, p90 {:.1} ms, max {:.1} ms ({RUNS} runs)",
        p(&init, 0.5),
        p(&init, 0.9),
        p(&list, 0.5),
        p(&list, 0.9),
        ms(*list.last().unwrap())
    );
}

fn main() {
    // `cargo test --benches` runs this with --bench absent: keep that quick.
    if !std::env::args().any(|a| a == "--bench") {
        once(&["mcp", "--tools", "all"]);
        return;
    }
    // Every tool (`--tools all`): the figures stay comparable with those measured before the
    // default became the smaller `core` profile.
    report("hdc", &["mcp", "--tools", "all"]);
    report("sim", &["mcp", "--sim", "1", "--tools", "all"]);
}
