//! A synthetic, realistic corpus of flows for benchmarks and load tests: `n` flows that each use
//! tool steps with shorthands and mappings, variables (one secret), options, a repeat block, a
//! retry block, conditions, hooks and a shared sub-flow.
//!
//! `tapflow_tools::RegistryCatalog`'s docs compile a sample against the tool registry.

use super::loader::MapLoader;
use crate::flow::SourceFile;

const SUBFLOW: &str = "env:
  BUTTON: OK
steps:
  - click: \"{{ BUTTON }}\"
    optional: true
    when: {visible: \"{{ BUTTON }}\"}
";

/// `n` flows named `flows/flow_<i>.yaml` and the loader holding their sub-flow.
pub fn sample(n: usize) -> (Vec<SourceFile>, MapLoader) {
    let loader = MapLoader::new().with("flows/subflows/accept.yaml", SUBFLOW);
    let flows = (0..n)
        .map(|i| {
            let text = format!(
                "name: Checkout {i}
app: com.example.shop{i}
tags: [smoke, shard-{shard}]
clean_state: true
env:
  USER: user{i}@example.com
  PASSWORD: {{default: pw-{i}, secret: true}}
on_failure:
  - screenshot: failure-{i}.png
finally:
  - press_key: Home
steps:
  - click: Login
    retries: {{count: 2, delay: 500ms}}
  - input_text: {{element_id: user, text: \"{{{{ USER }}}}\"}}
    keep: user
    expect: {{verified: true}}
  - input_text: {{element_id: pass, text: \"{{{{ PASSWORD }}}}\"}}
  - run_flow: {{file: subflows/accept.yaml, env: {{BUTTON: Allow}}}}
  - assert_visible: {{text: Welcome, timeout_ms: 10000}}
  - repeat:
      times: 3
      while: {{not_visible: Checkout}}
      steps:
        - swipe: up
  - retry:
      times: 2
      steps:
        - click: {{element_id: checkout}}
        - wait_for_element: {{text: Paid, timeout_ms: 8000}}
  - logs_query: {{mode: markers, marker_keywords: [order_ok], seconds: 30}}
    expect: {{match_count: {{gte: 1}}}}
    when: {{var: steps.user.result.verified, equals: true}}
",
                shard = i % 4
            );
            SourceFile::new(format!("flows/flow_{i}.yaml"), text)
        })
        .collect();
    (flows, loader)
}
