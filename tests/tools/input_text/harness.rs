//! The environment a rule calls `input_text` in ([`Env`]: a fresh [`FormPhone`], the engine, a
//! context with short deadlines), handles as find_elements mints them, and views of the action
//! log.

use super::*;

pub(super) struct Env {
    pub(super) phone: Arc<FormPhone>,
    ctx: ToolContext,
    pub(super) engine: Engine,
}

/// Short deadlines so that the failing cases end quickly; successes never wait for them.
pub(super) fn env() -> Env {
    env_with(400, 400)
}

pub(super) fn env_with(focus_ms: u64, verify_ms: u64) -> Env {
    let phone = FormPhone::new();
    let config = ToolConfig {
        input_focus_timeout_ms: focus_ms,
        input_verify_timeout_ms: verify_ms,
        ..ToolConfig::default()
    };
    Env {
        ctx: ToolContext::new(Arc::new(OnePhone(phone.clone())), config),
        phone,
        engine: Engine::new(),
    }
}

/// A handle as find_elements mints it (the contract's own example shape, plus a hint).
pub(super) fn handle(aid: u32, id: &str) -> Value {
    json!({
        "window_id": APP,
        "id": aid.to_string(),
        "compid": format!("{APP}:{aid}"),
        "type": "TextInput",
        "lookup_hint": { "element_id": id }
    })
}

impl Env {
    pub(super) fn call(&self, args: Value) -> Envelope {
        let env = self.engine.call("input_text", args, &self.ctx);
        let v = env.to_value();
        let def = self
            .engine
            .get("input_text")
            .expect("input_text is registered");
        envelope::assert_matches_schema(
            "input_text",
            &def.output_schema(),
            &v["structuredContent"],
        );
        assert_eq!(v["isError"], json!(!env.ok()));
        env
    }

    pub(super) fn ok(&self, args: Value) -> Value {
        let r = envelope::expect_ok(&self.call(args.clone()), "input_text", &args);
        assert_eq!(
            r["effect_verified"], false,
            "effect_verified is always false"
        );
        r
    }

    /// The error code and details; details must carry a schema-valid partial result unless the
    /// call failed validation (then nothing was attempted and there is no partial result).
    pub(super) fn err(&self, args: Value) -> (String, Value) {
        envelope::expect_err(self.call(args.clone()), "input_text", &args)
    }

    pub(super) fn err_with_partial(&self, args: Value) -> (String, Value) {
        let (code, details) = self.err(args);
        let def = self.engine.get("input_text").unwrap();
        if let Err(e) = jsonschema::validate(def.result_schema(), &details) {
            panic!("{code}: details are not a partial result: {e}\n{details:#}");
        }
        assert_eq!(details["verified"], false, "{code}");
        assert_eq!(details["effect_verified"], false, "{code}");
        (code, details)
    }

    pub(super) fn trips(&self) -> u64 {
        self.phone.cost().round_trips
    }
}

pub(super) fn keys(acts: &[Act]) -> Vec<Vec<u32>> {
    acts.iter()
        .filter_map(|a| match a {
            Act::Key(k) => Some(k.clone()),
            _ => None,
        })
        .collect()
}

pub(super) fn texts(acts: &[Act]) -> Vec<String> {
    acts.iter()
        .filter_map(|a| match a {
            Act::Text(_, t) => Some(t.clone()),
            _ => None,
        })
        .collect()
}

/// Shapes of the action log: `D` dump, `T` tap, `K` key, `X` text.
pub(super) fn shape(acts: &[Act]) -> String {
    acts.iter()
        .map(|a| match a {
            Act::Dump { .. } => 'D',
            Act::Tap(_) => 'T',
            Act::Key(_) => 'K',
            Act::Text(..) => 'X',
        })
        .collect()
}
