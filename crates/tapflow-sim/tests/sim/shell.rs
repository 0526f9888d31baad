//! Properties of the simulated device shell: single-quoted user text always reaches the device
//! program byte for byte, and no input makes the parser or executor panic.

use std::path::Path;

use proptest::prelude::*;
use tapflow_sim::shell::parse::parse;
use tapflow_sim::{Latency, SimOptions, Simulator};

fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn single_quoted_text_arrives_intact(text in "[ -~\u{e9}\u{4e2d}\t]{0,40}") {
        let sim = Simulator::new(SimOptions { latency: Latency::None, ..Default::default() });
        let cmd = format!("printf '%s' {}", sh_quote(&text));
        let out = sim.handle(&["shell".to_string(), cmd], Path::new("/"));
        prop_assert_eq!(String::from_utf8(out.stdout).unwrap(), text);
    }

    #[test]
    fn parser_never_panics(script in "\\PC{0,60}") {
        let _ = parse(&script);
    }

    #[test]
    fn executor_never_panics(script in "[a-z0-9 ;&|'\"$?<>/*.-]{0,40}") {
        let sim = Simulator::new(SimOptions { latency: Latency::None, ..Default::default() });
        let out = sim.handle(&["shell".to_string(), script], Path::new("/"));
        prop_assert_eq!(out.exit, 0);
    }
}
