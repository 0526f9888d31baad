//! Parsing hvigor's console output: the build verdict, the `COMPILE RESULT` summary, and structured errors.
//!
//! Facts (docs/reference/hdc.md §11; fixture `hvigor_build_failed_arkts_compiler_errors.txt`):
//! success ends with `> hvigor BUILD SUCCESSFUL in 32 s 860 ms`; failure with
//! `> hvigor ERROR: BUILD FAILED in 39 s 5 ms`, often preceded by `COMPILE RESULT:FAIL {ERROR:180 WARN:27}`.
//! Each error is a block: `[<n> ]ERROR: <8-digit code> <title>` then
//! `Error Message: <text> At File: <path>:<line>:<col>` (the `At File:` part may wrap onto the next line,
//! and configuration errors have no file). The failure markers decide, whatever hvigor's exit code says.

use regex::Regex;
use std::sync::LazyLock;

use super::result::CompileError;

/// The verdict hvigor printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// `BUILD SUCCESSFUL` and no failure marker.
    Successful,
    /// `BUILD FAILED` or `COMPILE RESULT:FAIL` (wins over a success line).
    Failed,
    /// Neither marker (hvigor crashed early, or printed something unexpected).
    Unknown,
}

/// `COMPILE RESULT:PASS|FAIL {ERROR:n WARN:m}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompileSummary {
    pub passed: bool,
    pub errors: u32,
    pub warnings: u32,
}

/// Everything we read out of one hvigor run's output.
#[derive(Debug, Clone, PartialEq)]
pub struct HvigorReport {
    pub verdict: Verdict,
    /// `32 s 860 ms` from the verdict line.
    pub elapsed_text: Option<String>,
    pub compile: Option<CompileSummary>,
    pub errors: Vec<CompileError>,
    /// `> hvigor WARN: Will skip sign …`: hvigor produced an unsigned package on purpose.
    pub skipped_signing: bool,
}

static SUCCESS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^>\s*hvigor\s+BUILD SUCCESSFUL(?:\s+in\s+(.+?))?\s*$").unwrap());
static FAILED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:>\s*hvigor\s+)?(?:ERROR:\s*)?BUILD FAILED(?:\s+in\s+(.+?))?\s*$").unwrap()
});
static COMPILE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"COMPILE RESULT:(PASS|FAIL)\s*\{ERROR:(\d+)\s+WARN:(\d+)\}").unwrap()
});
static CODED_HEADER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:\d+\s+)?(?:>\s*hvigor\s+)?ERROR:\s*(\d{8})\s*(.*?)\s*$").unwrap()
});
static HVIGOR_ERROR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^>\s*hvigor\s+ERROR:\s*(.+?)\s*$").unwrap());
static LOCATION: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^(.+?):(\d+):(\d+)$").unwrap());
static ANSI: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\x1b\[[0-9;?]*[A-Za-z]").unwrap());

/// Normalises captured output: drops `\r` (Windows line ends and progress redraws) and ANSI colours.
pub fn clean_output(raw: &str) -> String {
    let no_cr = raw.replace("\r\n", "\n").replace('\r', "\n");
    ANSI.replace_all(&no_cr, "").into_owned()
}

/// Parses one run's (already cleaned) output.
pub fn parse(output: &str) -> HvigorReport {
    let mut success = None;
    let mut failed = None;
    let mut compile = None;
    let mut skipped_signing = false;
    for line in output.lines() {
        let line = line.trim();
        if let Some(c) = SUCCESS.captures(line) {
            success = Some(c.get(1).map(|m| m.as_str().to_string()));
        } else if let Some(c) = FAILED.captures(line) {
            failed = Some(c.get(1).map(|m| m.as_str().to_string()));
        }
        if let Some(c) = COMPILE.captures(line) {
            compile = Some(CompileSummary {
                passed: &c[1] == "PASS",
                errors: c[2].parse().unwrap_or(u32::MAX),
                warnings: c[3].parse().unwrap_or(u32::MAX),
            });
        }
        if line.contains("WARN:") && line.contains("Will skip sign") {
            skipped_signing = true;
        }
    }
    let compile_failed = compile.is_some_and(|c| !c.passed);
    let (verdict, elapsed_text) = match (failed, success) {
        (Some(t), _) => (Verdict::Failed, t),
        (None, _) if compile_failed => (Verdict::Failed, None),
        (None, Some(t)) => (Verdict::Successful, t),
        (None, None) => (Verdict::Unknown, None),
    };
    HvigorReport {
        verdict,
        elapsed_text,
        compile,
        errors: extract_errors(output),
        skipped_signing,
    }
}

/// Extracts structured errors. Coded blocks (`ERROR: 10605008 …`) are preferred; when a failed run has
/// none, the `> hvigor ERROR: …` lines themselves become errors so the caller always has a reason.
pub fn extract_errors(output: &str) -> Vec<CompileError> {
    let lines: Vec<&str> = output.lines().map(str::trim_end).collect();
    let mut errors = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some(c) = CODED_HEADER.captures(lines[i].trim()) else {
            i += 1;
            continue;
        };
        let code = c[1].to_string();
        let kind = Some(c[2].to_string()).filter(|k| !k.is_empty());
        i += 1;
        // The block's text runs until a blank line, a hint section or the next header.
        let mut text = String::new();
        while i < lines.len() {
            let l = lines[i].trim();
            if l.is_empty()
                || l.starts_with("* Try")
                || CODED_HEADER.is_match(l)
                || l.starts_with("> hvigor")
            {
                break;
            }
            if !text.is_empty() {
                text.push(' ');
            }
            text.push_str(l);
            i += 1;
        }
        errors.push(block_to_error(code, kind, &text));
    }
    if errors.is_empty() {
        for line in &lines {
            let Some(c) = HVIGOR_ERROR.captures(line.trim()) else {
                continue;
            };
            let msg = &c[1];
            if FAILED.is_match(line.trim()) || msg.starts_with("BUILD FAILED") {
                continue;
            }
            errors.push(CompileError {
                code: None,
                kind: None,
                message: msg.to_string(),
                file: None,
                line: None,
                column: None,
            });
        }
    }
    errors
}

fn block_to_error(code: String, kind: Option<String>, text: &str) -> CompileError {
    let body = text
        .strip_prefix("Error Message:")
        .map(str::trim)
        .unwrap_or(text.trim());
    let (message, location) = match body.rfind("At File:") {
        Some(at) => (
            body[..at].trim(),
            Some(body[at + "At File:".len()..].trim()),
        ),
        None => (body, None),
    };
    let message = if message.is_empty() {
        kind.clone().unwrap_or_default()
    } else {
        message.to_string()
    };
    let (file, line, column) = match location {
        Some(loc) => match LOCATION.captures(loc) {
            Some(c) => (Some(c[1].to_string()), c[2].parse().ok(), c[3].parse().ok()),
            None => (Some(loc.to_string()), None, None),
        },
        None => (None, None, None),
    };
    CompileError {
        code: Some(code),
        kind,
        message,
        file,
        line,
        column,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIXTURE: &str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/harmonyos/hvigor_build_failed_arkts_compiler_errors.txt"
    ));

    #[test]
    fn fixture_is_a_failure_with_summary() {
        let r = parse(&clean_output(FIXTURE));
        assert_eq!(r.verdict, Verdict::Failed);
        assert_eq!(r.elapsed_text.as_deref(), Some("39 s 5 ms"));
        assert_eq!(
            r.compile,
            Some(CompileSummary {
                passed: false,
                errors: 180,
                warnings: 27
            })
        );
        assert!(!r.skipped_signing);
    }

    #[test]
    fn fixture_errors_are_all_extracted() {
        let errors = extract_errors(&clean_output(FIXTURE));
        // 179 numbered blocks; COMPILE RESULT's 180 also counts the `> hvigor ERROR: ArkTS Compiler Error` banner.
        assert_eq!(errors.len(), 179);
        assert_eq!(
            errors
                .iter()
                .filter(|e| e.code.as_deref() == Some("10605008"))
                .count(),
            45
        );
        assert_eq!(
            errors
                .iter()
                .filter(|e| e.code.as_deref() == Some("10505001"))
                .count(),
            134
        );
        assert!(
            errors
                .iter()
                .all(|e| e.file.is_some() && e.line.is_some() && e.column.is_some())
        );
        assert_eq!(
            errors[0],
            CompileError {
                code: Some("10605008".into()),
                kind: Some("ArkTS Compiler Error".into()),
                message:
                    "Use explicit types instead of \"any\", \"unknown\" (arkts-no-any-unknown)"
                        .into(),
                file: Some("C:/Users/15365/NwpuCampus/entry/src/main/ets/pages/Index.ets".into()),
                line: Some(274),
                column: Some(13),
            }
        );
        let e177 = &errors[176];
        assert_eq!(e177.code.as_deref(), Some("10505001"));
        assert_eq!(
            e177.message,
            "Property 'selectedPoint' does not exist on type 'Index'. Did you mean 'getSelectedPoint'?"
        );
        assert_eq!((e177.line, e177.column), (Some(2707), Some(44)));
        let last = errors.last().unwrap();
        assert_eq!(
            last.message,
            "Property 'placeService' does not exist on type 'Index'."
        );
        assert_eq!((last.line, last.column), (Some(2773), Some(16)));
        let e14 = &errors[13];
        assert_eq!((e14.line, e14.column), (Some(911), Some(33)));
    }

    #[test]
    fn crlf_output_parses_the_same() {
        let crlf = FIXTURE.replace('\n', "\r\n");
        let a = parse(&clean_output(&crlf));
        let b = parse(&clean_output(FIXTURE));
        assert_eq!(a, b);
        assert!(!clean_output(&crlf).contains('\r'));
    }

    #[test]
    fn success_line_and_skip_sign_warning() {
        let out = "> hvigor Starting...\n> hvigor WARN: Will skip sign 'hos_hap'. No signingConfigs profile is configured in current project.\n\u{1b}[32m> hvigor BUILD SUCCESSFUL in 32 s 860 ms\u{1b}[39m\n";
        let r = parse(&clean_output(out));
        assert_eq!(r.verdict, Verdict::Successful);
        assert_eq!(r.elapsed_text.as_deref(), Some("32 s 860 ms"));
        assert!(r.skipped_signing);
        assert!(r.errors.is_empty());
    }

    #[test]
    fn compile_fail_wins_over_success_line() {
        let out = "COMPILE RESULT:FAIL {ERROR:1 WARN:0}\n> hvigor BUILD SUCCESSFUL in 1 s\n";
        assert_eq!(parse(out).verdict, Verdict::Failed);
        let pass = "COMPILE RESULT:PASS {ERROR:0 WARN:3}\n> hvigor BUILD SUCCESSFUL in 1 s\n";
        let r = parse(pass);
        assert_eq!(r.verdict, Verdict::Successful);
        assert_eq!(
            r.compile,
            Some(CompileSummary {
                passed: true,
                errors: 0,
                warnings: 3
            })
        );
        assert_eq!(parse("some crash\n").verdict, Verdict::Unknown);
    }

    #[test]
    fn wrapped_location_and_fileless_errors() {
        let out = "ERROR: 10505001 ArkTS Compiler Error\nError Message: Cannot find name 'x'.\n At File: /p/entry/src/main/ets/a.ets:3:5\n\n> hvigor ERROR: 00303038 Configuration Error\nError Message: Schema validate failed.\n\n* Try the following:\n  > Fix it.\n";
        let e = extract_errors(out);
        assert_eq!(e.len(), 2);
        assert_eq!(e[0].message, "Cannot find name 'x'.");
        assert_eq!(e[0].file.as_deref(), Some("/p/entry/src/main/ets/a.ets"));
        assert_eq!((e[0].line, e[0].column), (Some(3), Some(5)));
        assert_eq!(e[1].code.as_deref(), Some("00303038"));
        assert_eq!(e[1].kind.as_deref(), Some("Configuration Error"));
        assert_eq!(e[1].message, "Schema validate failed.");
        assert_eq!(e[1].file, None);
    }

    #[test]
    fn uncoded_hvigor_errors_are_the_fallback() {
        let out = "> hvigor ERROR: Task 'assembleFoo' not found in project.\n> hvigor ERROR: BUILD FAILED in 1 s 2 ms\n";
        let r = parse(out);
        assert_eq!(r.verdict, Verdict::Failed);
        assert_eq!(r.errors.len(), 1);
        assert_eq!(
            r.errors[0].message,
            "Task 'assembleFoo' not found in project."
        );
    }

    mod props {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #[test]
            fn parse_never_panics(text in "\\PC{0,400}") {
                let _ = parse(&clean_output(&text));
            }

            #[test]
            fn generated_blocks_round_trip(
                items in proptest::collection::vec(
                    ("[0-9]{8}", "[A-Za-z][A-Za-z '.()-]{0,40}[A-Za-z.)]", "[A-Za-z]:/[a-z/]{1,20}\\.ets|/[a-z/]{1,20}\\.ets", 1u32..5000, 1u32..200),
                    1..20,
                ),
                crlf in any::<bool>(),
            ) {
                let mut log = String::from("> hvigor ERROR: ArkTS Compiler Error\n");
                for (i, (code, msg, file, line, col)) in items.iter().enumerate() {
                    log.push_str(&format!("{} ERROR: {code} ArkTS Compiler Error\nError Message: {msg} At File: {file}:{line}:{col}\n\n\n", i + 1));
                }
                log.push_str("COMPILE RESULT:FAIL {ERROR:1 WARN:0}\n> hvigor ERROR: BUILD FAILED in 1 s\n");
                if crlf {
                    log = log.replace('\n', "\r\n");
                }
                let r = parse(&clean_output(&log));
                prop_assert_eq!(r.verdict, Verdict::Failed);
                prop_assert_eq!(r.errors.len(), items.len());
                for (e, (code, msg, file, line, col)) in r.errors.iter().zip(&items) {
                    prop_assert_eq!(e.code.as_deref(), Some(code.as_str()));
                    prop_assert_eq!(&e.message, msg.trim());
                    prop_assert_eq!(e.file.as_deref(), Some(file.as_str()));
                    prop_assert_eq!((e.line, e.column), (Some(*line), Some(*col)));
                }
            }
        }
    }
}
