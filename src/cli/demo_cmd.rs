//! `tapflow sim demo`: the project's demonstration, end to end and self-contained.
//!
//! Starts an in-process simulated phone (realistic latency by default) and drives it through
//! the real hdc backend (`HdcClient` over `SimTransport`: the exact argv a real `hdc` would
//! get): list devices, device info, launch the demo app, dump and summarise the screen, tap the
//! username field, type a name, log in, wait for the greeting (polling dumps against a
//! deadline, no sleep), save a screenshot under `reports/demo/`, and find the app's
//! `LOGIN_SUCCESS` marker in hilog. Each step prints its round trips, UI dumps and wall time.
//! (A later `tapflow run flows/ --sim 1` replaces this with real flows.)

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Args;

use super::exit;
use tapflow_device::hdc::{HdcClient, HdcConfig, HdcDevice, HdcRoute};
use tapflow_device::{
    Cost, Device, DeviceError, DumpScope, ImageFormat, LogQuery, ScreenshotRequest, TapKind,
    TextTarget, UiNode,
};
use tapflow_sim::{Latency, SimOptions, SimTransport, Simulator};

use crate::sim_provider::{DEMO_ABILITY, DEMO_BUNDLE};

/// Arguments of `tapflow sim demo`.
#[derive(Debug, Clone, Args)]
pub struct DemoArgs {
    /// The user name typed into the login form.
    #[arg(long, default_value = "tapflow")]
    pub name: String,
    /// Simulated device time per command: realistic or none.
    #[arg(long, default_value = "realistic")]
    pub latency: Latency,
    /// Seed of the simulated device (serial).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Where the screenshot is written.
    #[arg(long, value_name = "DIR", default_value = "reports/demo")]
    pub out: PathBuf,
    /// How long to wait for the home page after logging in: milliseconds or a duration (`10s`).
    #[arg(long, value_name = "DURATION", default_value = "10000", value_parser = super::duration_arg)]
    pub wait_ms: u64,
}

/// A failed step: what failed and the typed error (or a plain reason).
struct StepError {
    code: tapflow_core::codes::Code,
    message: String,
}

impl From<DeviceError> for StepError {
    fn from(e: DeviceError) -> Self {
        StepError {
            code: e.code(),
            message: e.to_string(),
        }
    }
}

fn fail(code: tapflow_core::codes::Code, message: impl Into<String>) -> StepError {
    StepError {
        code,
        message: message.into(),
    }
}

/// Runs steps in order, printing each with its cost; stops at the first failure.
struct Steps<'a> {
    client: &'a HdcClient,
    device: Option<HdcDevice>,
    n: usize,
    total: Cost,
    started: Instant,
}

impl Steps<'_> {
    fn cost(&self) -> Cost {
        let c = self.client.cost();
        let d = self.device.as_ref().map(|d| d.cost()).unwrap_or_default();
        Cost {
            round_trips: c.round_trips + d.round_trips,
            ui_dumps: c.ui_dumps + d.ui_dumps,
        }
    }

    fn step<T>(
        &mut self,
        title: &str,
        f: impl FnOnce(&mut Self) -> Result<(T, String), StepError>,
    ) -> Result<T, StepError> {
        self.n += 1;
        let before = self.cost();
        let t0 = Instant::now();
        let result = f(self);
        let took = t0.elapsed();
        let spent = self.cost() - before;
        self.total.round_trips += spent.round_trips;
        self.total.ui_dumps += spent.ui_dumps;
        let head = format!(
            "[{:>2}] {title:<28} {:>2} rt {:>2} dump {:>6} ms",
            self.n,
            spent.round_trips,
            spent.ui_dumps,
            took.as_millis()
        );
        match result {
            Ok((value, detail)) => {
                println!("{head}  ok");
                for line in detail.lines() {
                    println!("       {line}");
                }
                Ok(value)
            }
            Err(e) => {
                println!("{head}  FAILED");
                println!("       [{}] {}", e.code, e.message);
                Err(e)
            }
        }
    }

    fn device(&self) -> &HdcDevice {
        self.device.as_ref().expect("connected in an earlier step")
    }
}

fn by_id<'a>(root: &'a UiNode, id: &str) -> Option<&'a UiNode> {
    root.walk().find(|n| n.id() == id)
}

/// One line per window (bundle, node count) and the app's identified elements.
pub fn summarize(root: &UiNode, bundle: &str) -> String {
    let mut out = Vec::new();
    for window in &root.children {
        let name = match window.attr("bundleName") {
            "" => "(unnamed window)",
            b => b,
        };
        let page = window.attr("pagePath");
        let page = if page.is_empty() {
            String::new()
        } else {
            format!(" {page}")
        };
        out.push(format!(
            "window {}: {name}{page}, {} nodes",
            window.attr("hostWindowId"),
            window.node_count()
        ));
        if window.attr("bundleName") != bundle {
            continue;
        }
        for n in window.walk().filter(|n| !n.id().is_empty()) {
            let shown = match (n.text(), n.attr("hint")) {
                ("", "") => String::new(),
                ("", hint) => format!(" (hint {hint:?})"),
                (text, _) => format!(" {text:?}"),
            };
            out.push(format!("  {} #{}{shown}", n.node_type(), n.id()));
        }
    }
    out.join("\n")
}

fn element_center(tree: &UiNode, id: &str) -> Result<tapflow_device::Point, StepError> {
    by_id(tree, id)
        .and_then(UiNode::bounds)
        .map(|b| b.center())
        .ok_or_else(|| {
            fail(
                tapflow_core::codes::ELEMENT_NOT_FOUND,
                format!("no element #{id} on screen"),
            )
        })
}

pub fn run(args: DemoArgs) -> i32 {
    let sim = Arc::new(Simulator::new(SimOptions {
        devices: 1,
        seed: args.seed,
        latency: args.latency,
        ..Default::default()
    }));
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let client = HdcClient::new(HdcConfig::default(), Arc::new(SimTransport::new(sim, cwd)));
    println!(
        "tapflow demo: one simulated HarmonyOS phone ({:?} latency), driven through the hdc backend",
        args.latency
    );
    let mut steps = Steps {
        client: &client,
        device: None,
        n: 0,
        total: Cost::default(),
        started: Instant::now(),
    };
    match scenario(&mut steps, &args) {
        Ok(()) => {
            println!(
                "demo passed: {} steps, {} round trips, {} UI dumps, {} ms",
                steps.n,
                steps.total.round_trips,
                steps.total.ui_dumps,
                steps.started.elapsed().as_millis()
            );
            exit::SUCCESS
        }
        Err(e) => {
            eprintln!("demo failed: [{}] {}", e.code, e.message);
            exit::FAILURE
        }
    }
}

fn scenario(s: &mut Steps<'_>, args: &DemoArgs) -> Result<(), StepError> {
    let serial = s.step("list devices", |s| {
        let targets = s.client.list_targets()?;
        let listed: Vec<String> = targets
            .iter()
            .map(|t| format!("{} {:?}", t.serial, t.state))
            .collect();
        let serial = targets
            .first()
            .map(|t| t.serial.clone())
            .ok_or_else(|| fail(tapflow_core::codes::DEVICE_NOT_FOUND, "hdc lists no device"))?;
        let device = s.client.connect(HdcRoute::target(&serial))?;
        s.device = Some(device);
        Ok((serial, listed.join("\n")))
    })?;
    let _ = serial;

    s.step("device info", |s| {
        let info = s.device().info()?;
        let screen = info
            .screen
            .map(|x| format!("{}x{}", x.width, x.height))
            .unwrap_or_else(|| "?".into());
        let detail = format!(
            "{} ({}), API {}, screen {screen}",
            info.name.as_deref().unwrap_or("?"),
            info.model.as_deref().unwrap_or("?"),
            info.api_level.map(|a| a.to_string()).unwrap_or("?".into())
        );
        Ok(((), detail))
    })?;

    s.step("launch the demo app", |s| {
        s.device().start_app(DEMO_BUNDLE, DEMO_ABILITY, None)?;
        Ok(((), format!("{DEMO_BUNDLE}/{DEMO_ABILITY}")))
    })?;

    let login = s.step("dump the UI", |s| {
        let tree = s.device().ui_tree(&DumpScope::default())?;
        let summary = summarize(&tree, DEMO_BUNDLE);
        Ok((tree, summary))
    })?;

    let field = element_center(&login, "username")?;
    let button = element_center(&login, "login")?;
    s.step("tap the username field", |s| {
        s.device().tap(field, TapKind::Single)?;
        Ok(((), format!("at ({}, {})", field.x, field.y)))
    })?;

    s.step("type the user name", |s| {
        s.device().input_text(TextTarget::Focused, &args.name)?;
        let tree = s.device().ui_tree(&DumpScope::default())?;
        let typed = by_id(&tree, "username").map(|n| n.text().to_string());
        if typed.as_deref() != Some(args.name.as_str()) {
            return Err(fail(
                tapflow_core::codes::INPUT_FAILED,
                format!("the field shows {typed:?}, expected {:?}", args.name),
            ));
        }
        Ok(((), format!("{:?} (read back from the dump)", args.name)))
    })?;

    s.step("tap Login", |s| {
        s.device().tap(button, TapKind::Single)?;
        Ok(((), format!("at ({}, {})", button.x, button.y)))
    })?;

    let greeting = format!("Hello, {}!", args.name);
    s.step("wait for the greeting", |s| {
        let deadline = Instant::now() + Duration::from_millis(args.wait_ms);
        let mut polls = 0;
        loop {
            polls += 1;
            let tree = s.device().ui_tree(&DumpScope::default())?;
            if by_id(&tree, "greeting").is_some_and(|g| g.text() == greeting) {
                return Ok(((), format!("{greeting:?} after {polls} dump(s)")));
            }
            if Instant::now() >= deadline {
                return Err(fail(
                    tapflow_core::codes::WAIT_TIMEOUT,
                    format!("{greeting:?} did not appear within {} ms", args.wait_ms),
                ));
            }
        }
    })?;

    s.step("screenshot", |s| {
        let shot = s.device().screenshot(&ScreenshotRequest {
            format: ImageFormat::Jpeg,
            display_id: None,
            region: None,
        })?;
        std::fs::create_dir_all(&args.out).map_err(|e| {
            fail(
                tapflow_core::codes::HOST_IO_ERROR,
                format!("cannot create {}: {e}", args.out.display()),
            )
        })?;
        let path = args.out.join(format!(
            "home-{}.jpeg",
            chrono::Local::now().format("%Y%m%d-%H%M%S")
        ));
        std::fs::write(&path, &shot.bytes).map_err(|e| {
            fail(
                tapflow_core::codes::HOST_IO_ERROR,
                format!("cannot write {}: {e}", path.display()),
            )
        })?;
        Ok((
            (),
            format!(
                "{} ({}x{}, {} bytes)",
                path.display(),
                shot.width,
                shot.height,
                shot.bytes.len()
            ),
        ))
    })?;

    let marker = format!("LOGIN_SUCCESS user={}", args.name);
    s.step("find the hilog marker", |s| {
        let logs = s.device().logs(&LogQuery {
            regex: Some("LOGIN_SUCCESS".into()),
            ..Default::default()
        })?;
        let line = logs.lines().find(|l| l.ends_with(&marker)).ok_or_else(|| {
            fail(
                tapflow_core::codes::LOG_MARKER_NOT_FOUND,
                format!("no {marker:?} in hilog"),
            )
        })?;
        Ok(((), line.to_string()))
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_lists_windows_and_app_elements() {
        let json = r#"{"attributes":{},"children":[
            {"attributes":{"bundleName":"com.tapflow.demo","hostWindowId":"61","pagePath":"pages/LoginPage","id":""},
             "children":[{"attributes":{"type":"TextInput","id":"username","text":"","hint":"Username"}},
                         {"attributes":{"type":"Button","id":"login","text":"Login"}},
                         {"attributes":{"type":"Column","id":"","text":""}}]},
            {"attributes":{"bundleName":"com.ohos.sceneboard","hostWindowId":"33","id":"session33"},"children":[]}]}"#;
        let root: UiNode = serde_json::from_str(json).unwrap();
        assert_eq!(
            summarize(&root, "com.tapflow.demo"),
            "window 61: com.tapflow.demo pages/LoginPage, 4 nodes\n  \
             TextInput #username (hint \"Username\")\n  Button #login \"Login\"\n\
             window 33: com.ohos.sceneboard, 1 nodes"
        );
    }
}
