//! The tool contract, table-driven: each case names the section of
//! `docs/reference/tool-contract.md` (or of docs/tools.md for our own decisions) it checks.
//! Every envelope is validated against the tool's published output schema; round trips are
//! asserted by count through `Device::cost`, never by time.
//!
//! [`Env`] (a fake device, its provider, the engine, a scratch directory) is here; the cases, one
//! module per group: `errors` (every error rule of `error_cases`' table, and how validation
//! errors look), `general` (the general tools), `ui_input` and `ui_observe` (the UI tools that
//! act and that observe), `beyond` (tapflow's own additions beyond the reference).

use crate::common::envelope;
use crate::common::fake_device;
use tapflow::sim_provider;

use std::sync::Arc;
use std::time::Duration;

use fake_device::{APP_WINDOW, Action, BUNDLE, FakeDevice, FakeProvider, Screen};
use serde_json::{Value, json};
use tapflow_device::{Device, Gesture, KeyInput, Point, TapKind};
use tapflow_tools::{Engine, Envelope, ToolConfig, ToolContext};

struct Env {
    dev: Arc<FakeDevice>,
    provider: Arc<FakeProvider>,
    ctx: ToolContext,
    engine: Engine,
    tmp: tempfile::TempDir,
}

fn env() -> Env {
    let dev = FakeDevice::new("FAKE0001");
    let provider = FakeProvider::new(vec![dev.clone()]);
    let tmp = tempfile::tempdir().unwrap();
    let config = ToolConfig {
        screenshots_dir: tmp.path().join("shots"),
        launch_verify_timeout_ms: 1000,
        ..ToolConfig::rooted_at(tmp.path())
    };
    Env {
        ctx: ToolContext::new(provider.clone(), config),
        dev,
        provider,
        engine: Engine::new(),
        tmp,
    }
}

impl Env {
    /// Calls a tool, checks the envelope shape and validates structuredContent against the
    /// tool's published output schema.
    fn call(&self, tool: &str, args: Value) -> Envelope {
        let env = self.engine.call(tool, args, &self.ctx);
        let v = env.to_value();
        assert_eq!(v["isError"], json!(!env.ok()));
        assert_eq!(v["content"][0]["type"], "text");
        if let Some(def) = self.engine.get(tool) {
            envelope::assert_matches_schema(tool, &def.output_schema(), &v["structuredContent"]);
        }
        env
    }

    fn ok(&self, tool: &str, args: Value) -> Value {
        envelope::expect_ok(&self.call(tool, args.clone()), tool, &args)
    }

    fn err(&self, tool: &str, args: Value) -> (String, Value) {
        envelope::expect_err(self.call(tool, args.clone()), tool, &args)
    }

    fn cost(&self) -> tapflow_device::Cost {
        self.dev.cost()
    }
}

mod beyond;
mod error_cases;
mod errors;
mod general;
mod ui_input;
mod ui_observe;
