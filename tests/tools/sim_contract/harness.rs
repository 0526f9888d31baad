//! What every case runs in: [`Env`] (a fresh simulated phone, the engine, a scratch directory)
//! with its helpers, [`Given`] (the screen a case starts from) and [`bring`], and the [`Case`]
//! type with its constructors.

use super::*;

/// A fresh simulated phone, the engine, and a scratch directory.
pub(super) struct Env {
    pub(super) provider: Arc<SimProvider>,
    pub(super) ctx: ToolContext,
    pub(super) engine: Engine,
    pub(super) tmp: tempfile::TempDir,
}

pub(super) fn env() -> Env {
    let tmp = tempfile::tempdir().unwrap();
    let provider = SimProvider::single(Latency::None, FaultSpec::none(), 7, tmp.path());
    let config = ToolConfig {
        screenshots_dir: tmp.path().join("shots"),
        launch_verify_timeout_ms: 2000,
        ..ToolConfig::rooted_at(tmp.path())
    };
    Env {
        ctx: ToolContext::new(provider.clone(), config),
        provider,
        engine: Engine::new(),
        tmp,
    }
}

impl Env {
    /// Calls a tool; checks the envelope and validates structuredContent against the tool's
    /// published output schema.
    fn call(&self, tool: &str, args: Value) -> Envelope {
        let env = self.engine.call(tool, args, &self.ctx);
        let v = env.to_value();
        assert_eq!(v["isError"], json!(!env.ok()));
        assert_eq!(v["structuredContent"]["tool"], tool);
        let def = self.engine.get(tool).expect("registered tool");
        envelope::assert_matches_schema(tool, &def.output_schema(), &v["structuredContent"]);
        env
    }

    pub(super) fn ok(&self, tool: &str, args: Value) -> Value {
        envelope::expect_ok(&self.call(tool, args.clone()), tool, &args)
    }

    pub(super) fn err(&self, tool: &str, args: Value) -> (String, Value) {
        envelope::expect_err(self.call(tool, args.clone()), tool, &args)
    }

    pub(super) fn device(&self) -> Arc<tapflow_device::hdc::HdcDevice> {
        self.provider.device()
    }

    /// Applies the phone's delayed transitions as if `by` had passed.
    fn fast_forward(&self, by: Duration) {
        let serial = self.provider.serial();
        let mut phone = self.provider.simulator().phone(&serial).unwrap();
        phone.tick(SystemTime::now() + by);
    }

    /// The centre of the one element matching `args` (through find_elements).
    pub(super) fn center(&self, args: Value) -> Point {
        let r = self.ok("find_elements", args.clone());
        assert_eq!(r["count"], 1, "{args}");
        let c = &r["elements"][0]["center"];
        Point::new(
            c["x"].as_i64().unwrap() as i32,
            c["y"].as_i64().unwrap() as i32,
        )
    }

    pub(super) fn visible(&self, args: Value) -> bool {
        self.call("find_elements", args).ok()
    }

    /// Texts of the visible list items, in reading order.
    pub(super) fn item_texts(&self) -> Vec<String> {
        let r = self.ok(
            "find_elements",
            json!({"text": "^Item \\d+$", "match_mode": "regex"}),
        );
        r["elements"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["text"].as_str().unwrap().to_string())
            .collect()
    }

    pub(super) fn foreground_bundle(&self) -> Option<String> {
        let r = self.ok("list_windows", json!({}));
        r["windows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|w| w["is_foreground"] == true)
            .map(|w| w["bundle_name"].as_str().unwrap_or("").to_string())
    }

    /// A signed test package (real `module.json`, signing block) written into the scratch dir.
    pub(super) fn hap(&self, name: &str, bundle: &str, signed: bool) -> String {
        let bytes = build_hap(
            &module_json(bundle, 1, "1.0.0", "MainAbility"),
            None,
            signed,
        );
        let path = self.tmp.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        path.to_string_lossy().into_owned()
    }
}

/// Where a case starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Given {
    /// Fresh phone: launcher in front, demo app installed but not running.
    Launcher,
    /// Demo app launched: login page.
    Login,
    /// Logged in as `alice`: home page.
    Home,
    Items,
    Settings,
    /// Settings with the reset dialog open.
    Dialog,
}

pub(super) fn bring(e: &Env, given: Given) {
    if given == Given::Launcher {
        return;
    }
    e.device().start_app(DEMO, "EntryAbility", None).unwrap();
    if given == Given::Login {
        return;
    }
    let at = e.center(json!({"element_id": "username"}));
    e.device().input_text(TextTarget::At(at), "alice").unwrap();
    e.ok("click", json!({"element_id": "login"}));
    e.fast_forward(Duration::from_secs(1));
    assert!(e.visible(json!({"text": "Hello, alice!"})), "logged in");
    match given {
        Given::Items => {
            e.ok("click", json!({"element_id": "open_items"}));
        }
        Given::Settings | Given::Dialog => {
            e.ok("click", json!({"element_id": "open_settings"}));
            if given == Given::Dialog {
                e.ok("click", json!({"element_id": "reset"}));
                assert!(e.visible(json!({"text": "Reset all data?"})));
            }
        }
        _ => {}
    }
}

type Check = Box<dyn Fn(&Env)>;

pub(super) struct Case {
    pub(super) section: &'static str,
    /// The tool under test (coverage is checked against the registry).
    pub(super) tool: &'static str,
    pub(super) given: Given,
    pub(super) check: Check,
}

pub(super) fn case(
    section: &'static str,
    tool: &'static str,
    given: Given,
    check: impl Fn(&Env) + 'static,
) -> Case {
    Case {
        section,
        tool,
        given,
        check: Box::new(check),
    }
}

/// A case that expects one error code.
pub(super) fn fails(
    section: &'static str,
    tool: &'static str,
    given: Given,
    args: Value,
    code: &'static str,
) -> Case {
    case(section, tool, given, move |e| {
        let (got, details) = e.err(tool, args.clone());
        assert_eq!(got, code, "{args}: {details}");
    })
}

pub(super) fn cost(r: &Value) -> (u64, u64) {
    let c = &r["cost"];
    (
        c["device_round_trips"].as_u64().unwrap(),
        c["ui_dumps"].as_u64().unwrap(),
    )
}
