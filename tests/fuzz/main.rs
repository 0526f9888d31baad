//! Acceptance test of issue 9 ("bad input never crashes or explodes"): a bounded, seeded
//! generator mutates the example flows (`flows/`) and the golden inputs (`tests/golden/flow/`)
//! with byte flips, deletions, duplicated lines, invalid UTF-8, alias bombs, deep nesting,
//! very long lines and hostile YAML tokens, and validates each result the way
//! `tapflow validate FILE` does (the registry catalog, `plan::compile`, then the text and JSON
//! rendering the CLI prints). For every case:
//!
//! - nothing panics;
//! - it finishes in time (a hang guard: 2 s per file in a release build, 20 s in a debug build,
//!   whose unoptimised code is several times slower; speed itself is in `docs/benchmarks.md`);
//! - the memory allocated while validating peaks below 200 MB (a counting global allocator);
//! - every diagnostic names a file that was checked and a line:col (and end) inside it, and the
//!   printed text shows that `file:line:col`.
//!
//! `TAPFLOW_FUZZ_CASES=N` runs N cases instead of the default; `TAPFLOW_FUZZ_SEED` changes the
//! seed. A failing case is written to `$CARGO_TARGET_TMPDIR/validate-fuzz/` to be replayed
//! with `tapflow validate`. Invalid UTF-8 is decoded lossily here: reading files (and reporting
//! a non-UTF-8 file) is the file loader's job; this checks that nothing after it breaks.

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tapflow::cli::flow_cmd::{catalog, diagnostics_json, diagnostics_text};
use tapflow_core::flow::{MAX_DIAGNOSTICS_PER_FILE, SourceFile};
use tapflow_core::plan::{Compiled, MapLoader, PlanOptions, compile};

/// Counts live heap bytes and their peak, so a test can say how much memory a call needed.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size >= layout.size() {
                let grow = new_size - layout.size();
                let now = LIVE.fetch_add(grow, Ordering::Relaxed) + grow;
                PEAK.fetch_max(now, Ordering::Relaxed);
            } else {
                LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        p
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// The tests of this binary measure the one process-wide allocator: one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

const MEMORY_LIMIT: usize = 200 * 1024 * 1024;
const DEFAULT_CASES: usize = 300;
/// Inputs stay around the flow file size cap (1 MiB) the loader enforces.
const MAX_INPUT: usize = 1 << 20;

/// A hang guard, not a speed check (speed is measured in benchmarks): far above what a linear
/// check of the biggest input takes even on a loaded 2-core machine (20 MB of templates: ~8 s
/// in a debug build alone, 23 s with four builds beside it), far below what a quadratic one
/// would need (hours).
fn time_limit() -> Duration {
    if cfg!(debug_assertions) {
        Duration::from_secs(120)
    } else {
        Duration::from_secs(20)
    }
}

/// A seed file: its path (as `tapflow validate` would name it) and text.
struct Seed {
    name: String,
    text: String,
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn seeds() -> Vec<Seed> {
    let mut out = Vec::new();
    for dir in ["flows", "tests/golden/flow"] {
        for entry in walkdir::WalkDir::new(repo().join(dir))
            .sort_by_file_name()
            .into_iter()
            .filter_map(Result::ok)
        {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "yaml") {
                let name = path
                    .strip_prefix(repo())
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.push(Seed {
                    name,
                    text: std::fs::read_to_string(path).unwrap(),
                });
            }
        }
    }
    assert!(out.len() > 50, "only {} seed flows found", out.len());
    out
}

/// What one validation cost and said.
struct Outcome {
    compiled: Compiled,
    text: String,
    json: String,
    elapsed: Duration,
    peak: usize,
}

/// Validates `file` as `tapflow validate FILE` does (sub-flows it calls come from `loader`).
fn validate(name: &str, text: String, loader: &MapLoader) -> Outcome {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let started = Instant::now();
    let src = SourceFile::new(name, text);
    let (flows, subflows) = if tapflow_core::flow::is_subflow_path(name) {
        (vec![], vec![src])
    } else {
        (vec![src], vec![])
    };
    let catalog = catalog();
    let compiled = compile(
        &flows,
        &subflows,
        catalog.as_ref(),
        loader,
        &PlanOptions::default(),
    );
    let text = diagnostics_text(&compiled);
    let json = diagnostics_json(&compiled);
    drop((flows, subflows, catalog));
    Outcome {
        elapsed: started.elapsed(),
        peak: PEAK.load(Ordering::Relaxed).saturating_sub(before),
        compiled,
        text,
        json,
    }
}

/// Everything the acceptance criteria say about one outcome; `Err` says what is wrong.
fn check(o: &Outcome) -> Result<(), String> {
    if o.elapsed > time_limit() {
        return Err(format!("took {:?}", o.elapsed));
    }
    if o.peak > MEMORY_LIMIT {
        return Err(format!("peak memory {} MB", o.peak >> 20));
    }
    let c = &o.compiled;
    for d in &c.diagnostics {
        let src = c
            .sources
            .get(&d.file)
            .ok_or_else(|| format!("diagnostic in a file that was not checked: {d:?}"))?;
        for (line, col) in [(d.line, d.column), (d.end_line, d.end_column)] {
            let max_line = src.last_line_number();
            let max_col = src.line(line).chars().count() + 1;
            if !(1..=max_line).contains(&line) || !(1..=max_col).contains(&col) {
                return Err(format!(
                    "{}:{line}:{col} is outside the file ({max_line} lines, line {line} has {} columns): {d:?}",
                    d.file,
                    max_col - 1
                ));
            }
        }
        if (d.end_line, d.end_column) < (d.line, d.column) {
            return Err(format!("end before start: {d:?}"));
        }
        let locator = format!("{}:{}:{}]", d.file, d.line, d.column);
        if !o.text.contains(&locator) {
            return Err(format!("`{locator}` not printed for {d:?}"));
        }
    }
    for file in c.diagnostics.iter().map(|d| &d.file) {
        let n = c.diagnostics.iter().filter(|d| &d.file == file).count();
        if n > MAX_DIAGNOSTICS_PER_FILE {
            return Err(format!("{n} diagnostics listed for {file}"));
        }
    }
    let json: serde_json::Value =
        serde_json::from_str(&o.json).map_err(|e| format!("JSON output does not parse: {e}"))?;
    let listed = json["diagnostics"].as_array().map_or(0, Vec::len);
    if listed != c.diagnostics.len() {
        return Err(format!("JSON lists {listed} of {}", c.diagnostics.len()));
    }
    let (errors, warnings) = c.counts();
    if json["errors"] != errors || json["warnings"] != warnings {
        return Err(format!("JSON counts differ: {}", o.json));
    }
    Ok(())
}

/// A line (or a few) of hostile YAML.
fn hostile_token(rng: &mut ChaCha8Rng) -> String {
    const TOKENS: &[&str] = &[
        "*a",
        "&a ",
        "!!binary ",
        "? ",
        "---\n",
        "...\n",
        "%YAML 1.2\n",
        "<<: *a\n",
        ".inf",
        "-.Inf",
        ".nan",
        "{{",
        "}}",
        "\t",
        "\r",
        "\u{feff}",
        "\"\\u0000\"",
        "'",
        "\"",
        "[",
        "]",
        "{",
        "}",
        ": ",
        "- ",
        "#",
        "|",
        ">-",
        "!!str ",
        "!!int ",
        "!custom ",
        "~",
        "null",
        "0x1F",
        "1e999",
        "99999999999999999999999",
        "-",
        "\u{2028}",
        "登录",
        "😀",
    ];
    TOKENS[rng.random_range(0..TOKENS.len())].to_string()
}

/// A billion-laughs block: `levels` anchors, each an alias list of the previous one.
fn alias_bomb(rng: &mut ChaCha8Rng) -> String {
    let levels = rng.random_range(4..12);
    let width = rng.random_range(5..12);
    let mut s = String::from("bomb0: &b0 [{click: OK}]\n");
    for i in 1..levels {
        let refs = vec![format!("*b{}", i - 1); width].join(", ");
        s.push_str(&format!("bomb{i}: &b{i} [{refs}]\n"));
    }
    match rng.random_range(0..3) {
        0 => s.push_str(&format!("steps: *b{}\n", levels - 1)),
        1 => s.push_str(&format!("env: {{X: *b{}}}\n", levels - 1)),
        _ => {}
    }
    s
}

fn deep_nesting(rng: &mut ChaCha8Rng) -> String {
    let depth = rng.random_range(30..5_000);
    match rng.random_range(0..4) {
        0 => format!("{}{}\n", "[".repeat(depth), "]".repeat(depth)),
        1 => format!("{}x{}\n", "{a: ".repeat(depth), "}".repeat(depth)),
        2 => "[".repeat(depth),
        _ => {
            let depth = depth.min(80);
            let mut s = String::from("steps:\n");
            let mut indent = String::from("  ");
            for _ in 0..depth {
                s.push_str(&format!(
                    "{indent}- repeat:\n{indent}    times: 1\n{indent}    steps:\n"
                ));
                indent.push_str("      ");
            }
            s.push_str(&format!("{indent}- click: OK\n"));
            s
        }
    }
}

fn long_line(rng: &mut ChaCha8Rng) -> String {
    let n = rng.random_range(65_000..200_000);
    match rng.random_range(0..6) {
        0 => format!(
            "  - input_text: {{text: \"{}\", element_id: a}}\n",
            "a".repeat(n)
        ),
        1 => format!("{}: 1\n", "k".repeat(n)),
        2 => format!("steps: [{}]\n", vec!["{clik: a}"; n / 10].join(", ")),
        3 => format!("  - input_text: \"{}\"\n", "{{ X }}".repeat(n / 7)),
        4 => format!(
            "  - click: {{text: \"{}{{{{ UNDEFINED }}}}\"}}\n",
            "é".repeat(n)
        ),
        _ => format!("name: {}\n", "登".repeat(n / 3)),
    }
}

/// Applies one random mutation to `bytes`; returns its name (for failure reports).
fn mutate(rng: &mut ChaCha8Rng, bytes: &mut Vec<u8>) -> &'static str {
    let at = |rng: &mut ChaCha8Rng, len: usize| rng.random_range(0..=len);
    let line_start = |bytes: &[u8], i: usize| {
        bytes[..i]
            .iter()
            .rposition(|b| *b == b'\n')
            .map_or(0, |p| p + 1)
    };
    match rng.random_range(0..10) {
        0 if !bytes.is_empty() => {
            for _ in 0..rng.random_range(1..8) {
                let i = rng.random_range(0..bytes.len());
                bytes[i] ^= rng.random_range(1..=255u8);
            }
            "byte flips"
        }
        1 if !bytes.is_empty() => {
            let i = rng.random_range(0..bytes.len());
            let n = rng.random_range(1..64).min(bytes.len() - i);
            bytes.drain(i..i + n);
            "deletion"
        }
        2 => {
            // Duplicate a run of lines, up to many times.
            let i = line_start(bytes, at(rng, bytes.len()));
            let mut j = i;
            for _ in 0..rng.random_range(1..5) {
                j = bytes[j..]
                    .iter()
                    .position(|b| *b == b'\n')
                    .map_or(bytes.len(), |p| j + p + 1);
            }
            let chunk = bytes[i..j].to_vec();
            let times = rng.random_range(1..200);
            for _ in 0..times {
                bytes.splice(j..j, chunk.iter().copied());
            }
            "duplicated lines"
        }
        3 => {
            const BAD: &[&[u8]] = &[
                b"\xff",
                b"\xc3",
                b"\xed\xa0\x80",
                b"\xc0\xaf",
                b"\xf4\x90\x80\x80",
                b"\xe2\x82",
                b"\x00",
            ];
            let i = at(rng, bytes.len());
            let bad = BAD[rng.random_range(0..BAD.len())];
            bytes.splice(i..i, bad.iter().copied());
            "invalid UTF-8"
        }
        4 => {
            let bomb = alias_bomb(rng);
            let i = line_start(bytes, at(rng, bytes.len()));
            bytes.splice(i..i, bomb.into_bytes());
            "alias bomb"
        }
        5 => {
            let deep = deep_nesting(rng);
            let i = line_start(bytes, at(rng, bytes.len()));
            bytes.splice(i..i, deep.into_bytes());
            "deep nesting"
        }
        6 => {
            let long = long_line(rng);
            let i = line_start(bytes, at(rng, bytes.len()));
            bytes.splice(i..i, long.into_bytes());
            "long line"
        }
        7 => {
            let i = at(rng, bytes.len());
            for _ in 0..rng.random_range(1..4) {
                let t = hostile_token(rng);
                bytes.splice(i..i, t.into_bytes());
            }
            "hostile tokens"
        }
        8 => {
            let i = at(rng, bytes.len());
            bytes.truncate(i);
            "truncation"
        }
        _ => {
            // A second document, or a document marker in the middle.
            let i = line_start(bytes, at(rng, bytes.len()));
            bytes.splice(i..i, b"---\nsteps: [click: OK]\n".iter().copied());
            "second document"
        }
    }
}

fn loader_with(seeds: &[Seed], replaced: Option<(&str, &str)>) -> MapLoader {
    let mut loader = MapLoader::new();
    for s in seeds {
        let text = match replaced {
            Some((name, text)) if name == s.name => text,
            _ => s.text.as_str(),
        };
        loader = loader.with(&s.name, text);
    }
    loader
}

fn save_failure(case: usize, name: &str, text: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("validate-fuzz");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!(
        "case-{case}-{}",
        name.rsplit('/').next().unwrap_or("flow.yaml")
    ));
    std::fs::write(&file, text).unwrap();
    file
}

#[test]
fn mutated_flows_never_panic_hang_or_explode() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let seeds = seeds();
    let cases = std::env::var("TAPFLOW_FUZZ_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(DEFAULT_CASES);
    let seed = std::env::var("TAPFLOW_FUZZ_SEED")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0x7A9F_10E5_u64);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut failures = Vec::new();
    let mut slowest = (Duration::ZERO, String::new());
    let mut biggest = (0usize, String::new());
    for case in 0..cases {
        let s = &seeds[rng.random_range(0..seeds.len())];
        let mut bytes = s.text.clone().into_bytes();
        let mut applied = Vec::new();
        for _ in 0..rng.random_range(1..4) {
            applied.push(mutate(&mut rng, &mut bytes));
            if bytes.len() > MAX_INPUT {
                bytes.truncate(MAX_INPUT);
            }
        }
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let loader = loader_with(&seeds, Some((&s.name, &text)));
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            validate(&s.name, text.clone(), &loader)
        }));
        let verdict = match &result {
            Ok(o) => {
                let what = format!(
                    "case {case}: {} ({} bytes): {}",
                    s.name,
                    text.len(),
                    applied.join(", ")
                );
                if o.elapsed > slowest.0 {
                    slowest = (o.elapsed, what.clone());
                }
                if o.peak > biggest.0 {
                    biggest = (o.peak, what);
                }
                check(o)
            }
            Err(_) => Err("panicked".to_string()),
        };
        if let Err(why) = verdict {
            let file = save_failure(case, &s.name, &text);
            failures.push(format!(
                "case {case} (seed {seed:#x}, {} after {}): {why}; input saved to {}",
                s.name,
                applied.join(", "),
                file.display()
            ));
        }
    }
    eprintln!(
        "{cases} cases; slowest {:?} ({}); highest peak {} MB ({})",
        slowest.0,
        slowest.1,
        biggest.0 >> 20,
        biggest.1
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Validates one generated file alone (the counting allocator is process-wide).
fn validate_alone(name: &str, text: String, loader: &MapLoader) -> Outcome {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    validate(name, text, loader)
}

/// Seen (issue 9): 20 MB of `{{ X }}` took 1.8 GB. Every reference was collected as an owned
/// value (170 MB per scan of the string) and, when `X` was undefined, each got a diagnostic
/// (three million, all underlining the first one).
#[test]
fn twenty_megabytes_of_templates_need_memory_linear_in_the_input() {
    let refs = "{{ X }}".repeat(20 * 1024 * 1024 / 7);
    for (env, undefined) in [("env: {X: hi}\n", 0), ("", 1)] {
        let text = format!("{env}steps:\n  - input_text: {{element_id: a, text: \"{refs}\"}}\n");
        let len = text.len();
        let o = validate_alone("flows/templates.yaml", text, &MapLoader::new());
        check(&o).unwrap();
        // Five copies at most: the text, its YAML value, the compiled argument, and the tool
        // rules' check (its stand-in arguments and their typed decode, src/plan/registry_catalog.rs).
        assert!(
            o.peak < 6 * len,
            "peak {} MB for {} MB of input",
            o.peak >> 20,
            len >> 20
        );
        let found: Vec<_> = o
            .compiled
            .diagnostics
            .iter()
            .map(|d| (d.code.as_str(), d.column))
            .collect();
        assert_eq!(found.len(), undefined, "{found:?}");
        if undefined == 1 {
            assert_eq!(found[0], ("undefined-variable", 40));
        }
    }
}

/// A flow of 1 MiB of steps, and sub-flows inlined at every call of many calls (a bomb that
/// grows multiplicatively), compile to a bounded plan with one clear error.
#[test]
fn long_flows_and_sub_flow_bombs_stay_small() {
    let loader = MapLoader::new()
        .with(
            "flows/s.yaml",
            &format!("- run_flow: t.yaml\n{}", "- screenshot\n".repeat(80_000)),
        )
        .with("flows/t.yaml", &"- screenshot\n".repeat(80_000));
    for text in [
        format!(
            "steps: [{}]\n",
            vec!["screenshot"; (1 << 20) / 11].join(",")
        ),
        format!("steps:\n{}", "  - run_flow: s.yaml\n".repeat(30_000)),
    ] {
        let o = validate_alone("flows/long.yaml", text, &loader);
        check(&o).unwrap();
        let codes: Vec<_> = o
            .compiled
            .diagnostics
            .iter()
            .map(|d| d.code.as_str())
            .collect();
        assert_eq!(codes, ["plan-too-large"], "{}", o.text);
        assert!(o.peak < MEMORY_LIMIT, "peak {} MB", o.peak >> 20);
    }
}

/// Every step of a flow's AST and of its plan pays for the largest variant of each enum: keep
/// rare, large parts (conditions) boxed.
#[test]
fn steps_stay_small_in_memory() {
    use std::mem::size_of;
    assert!(size_of::<tapflow_core::flow::ast::Step>() <= 400);
    assert!(size_of::<tapflow_core::plan::PlanStep>() <= 400);
}

/// Found while fuzzing by hand: every `run_flow` call copied its caller's variables, so 20 000
/// variables and 19 000 calls took 147 s (release); a sub-flow's variables were bound again at
/// every call without limit (30 000 calls of a sub-flow with 20 000 variables did not finish
/// in 2 minutes); every undefined reference compared itself with every variable (24 s); a
/// secret's reference was found by trying every earlier value's (18 s for 10 000 calls).
#[test]
fn many_variables_and_many_calls_stay_linear() {
    let vars: String = (0..20_000).map(|i| format!("  V{i}: x\n")).collect();
    let loader = MapLoader::new()
        .with("flows/sub.yaml", "- screenshot\n")
        .with(
            "flows/secret.yaml",
            "env:\n  P: {secret: true}\nsteps:\n  - input_text: {element_id: a, text: \"{{ P }}\"}\n",
        )
        .with(
            "flows/env.yaml",
            &format!(
                "env:\n{}steps:\n  - screenshot\n",
                (0..20_000)
                    .map(|i| format!("  S{i}: x\n"))
                    .collect::<String>()
            ),
        );
    let cases = [
        (
            format!(
                "env:\n{vars}steps:\n{}",
                "  - run_flow: sub.yaml\n".repeat(19_000)
            ),
            vec![],
        ),
        (
            format!("steps:\n{}", "  - run_flow: env.yaml\n".repeat(30_000)),
            vec!["plan-too-large"],
        ),
        (
            format!(
                "env:\n{vars}steps:\n{}",
                (0..8_000)
                    .map(|i| format!(
                        "  - input_text: {{element_id: a, text: \"{{{{ U{i} }}}}\"}}\n"
                    ))
                    .collect::<String>()
            ),
            vec!["undefined-variable"; 100],
        ),
        // A secret sub-flow variable with a new value at every call: each value's reference
        // (`P`, `P__2`, …) was found by trying every earlier one (18 s for 10 000 calls).
        (
            format!(
                "steps:\n{}",
                (0..10_000)
                    .map(|i| format!("  - run_flow: {{file: secret.yaml, env: {{P: v{i}}}}}\n"))
                    .collect::<String>()
            ),
            vec![],
        ),
        // References written with escapes are not found as written: each one searched the
        // rest of the string (23 s for 1 MiB).
        (
            format!(
                "env: {{X: hi}}\nsteps:\n  - input_text: {{element_id: a, text: \"{}\"}}\n",
                r"{{ \x58 }}".repeat(90_000)
            ),
            vec![],
        ),
    ];
    for (text, expected) in cases {
        let o = validate_alone("flows/many.yaml", text, &loader);
        check(&o).unwrap();
        let codes: Vec<_> = o
            .compiled
            .diagnostics
            .iter()
            .map(|d| d.code.as_str())
            .collect();
        assert_eq!(codes, expected);
    }
}
