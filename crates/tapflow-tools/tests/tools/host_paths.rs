//! Issue 9, items 1 and 2, through `Engine::call` as an agent or a flow makes the calls: every host
//! path a tool takes goes through the one host-path policy, and no chain of tools that need no
//! approval executes host code.
//!
//! Reproduced "Seen" cases: `screenshot` over a final symlink, through a symlinked directory and
//! to a dangling symlink (each overwrote or created a file outside the roots); the same for
//! `logs_query` `save_path`; `logs_query {"logs":["id > /out/RCE"],"save_path":"<dir>/hvigorw"}`
//! then `build_app {"project_path":"<dir>"}` (ran the planted file with `sh`).
//!
//! Issue 18: tools write only under the output roots (the project is read, not written), and
//! never trusted configuration: `logs_query {"save_path": "tapflow.toml"}` created the project
//! file the next `tapflow mcp` trusted (`allowed_roots = ["/"]`).

#![cfg(unix)]

use crate::common::envelope;
use crate::common::fake_device;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use fake_device::{FakeDevice, FakeProvider};
use serde_json::{Value, json};
use tapflow_tools::{Engine, Envelope, ToolConfig, ToolContext};

struct Env {
    engine: Engine,
    ctx: ToolContext,
    dev: Arc<FakeDevice>,
    /// The project directory (the working directory and a root).
    project: PathBuf,
    /// In no root: the victim's directory.
    outside: PathBuf,
    _tmp: tempfile::TempDir,
}

/// The configuration as the CLI builds it for a project in `<tmp>/project` (no `tapflow.toml`,
/// `HOME` under the temp dir), with a fake device. The project itself is named an output root
/// (`TAPFLOW_OUTPUT_ROOTS`), the widest a configuration gets, so the write rules are exercised
/// where files may be written at all.
fn env() -> Env {
    env_with(&[])
}

fn env_with(more: &[(&str, &str)]) -> Env {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("project");
    let outside = tmp.path().join("outside");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    let mut vars: HashMap<String, String> = [
        ("HOME", tmp.path().join("home")),
        ("TAPFLOW_OUTPUT_ROOTS", project.clone()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.display().to_string()))
    .collect();
    for (k, v) in more {
        vars.insert(k.to_string(), v.to_string());
    }
    let config = ToolConfig::from_env_map(&vars, &project).unwrap();
    let dev = FakeDevice::new("FAKE0001");
    Env {
        engine: Engine::new(),
        ctx: ToolContext::new(FakeProvider::new(vec![dev.clone()]), config),
        dev,
        project,
        outside,
        _tmp: tmp,
    }
}

impl Env {
    fn call(&self, tool: &str, args: Value) -> Envelope {
        self.engine.call(tool, args, &self.ctx)
    }

    /// The error code and details of a call that must fail.
    fn err(&self, tool: &str, args: Value) -> (String, Value) {
        envelope::expect_err(self.call(tool, args.clone()), tool, &args)
    }

    fn victim(&self) -> PathBuf {
        let v = self.outside.join("victim.txt");
        std::fs::write(&v, "keep me").unwrap();
        v
    }

    fn link(&self, target: &Path, name: &str) {
        std::os::unix::fs::symlink(target, self.project.join(name)).unwrap();
    }

    fn outside_entries(&self) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(&self.outside)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }
}

// ---------- screenshot ----------

#[test]
fn screenshot_refuses_a_final_symlink_and_leaves_the_victim_untouched() {
    let e = env();
    let victim = e.victim();
    e.link(&victim, "shot.png");
    let (code, d) = e.err("screenshot", json!({"local_path": "shot.png"}));
    assert_eq!(code, "PATH_NOT_ALLOWED");
    assert_eq!(d["reason"], "PATH_IS_SYMLINK");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");
    // Refused before the device was asked for anything.
    assert!(e.dev.actions.lock().unwrap().is_empty());
}

#[test]
fn screenshot_refuses_a_symlinked_directory_leading_out() {
    let e = env();
    e.victim();
    e.link(&e.outside, "linkdir");
    for path in [
        "linkdir/shot.png",
        "linkdir/victim.txt.png",
        "linkdir/new/deeper.png",
    ] {
        let (code, d) = e.err("screenshot", json!({ "local_path": path }));
        assert_eq!(code, "PATH_NOT_ALLOWED", "{path}");
        assert_eq!(d["reason"], "PATH_NOT_ALLOWED", "{path}");
    }
    assert_eq!(
        e.outside_entries(),
        ["victim.txt"],
        "nothing written outside"
    );
}

#[test]
fn screenshot_refuses_a_dangling_symlink() {
    let e = env();
    let target = e.outside.join("created.png");
    e.link(&target, "dangling.png");
    let (code, d) = e.err("screenshot", json!({"local_path": "dangling.png"}));
    assert_eq!(code, "PATH_NOT_ALLOWED");
    assert_eq!(d["reason"], "PATH_IS_SYMLINK");
    assert!(!target.exists(), "the link's target was not created");
}

#[test]
fn screenshot_writes_under_the_roots_and_refuses_the_rest() {
    let e = env();
    let r = e.call("screenshot", json!({"local_path": "shots/a.png"}));
    assert!(r.ok(), "{:?}", r.structured.error);
    assert!(e.project.join("shots/a.png").is_file());
    // The default directory is a root of its own (created on first use).
    let r = e.call("screenshot", json!({}));
    assert!(r.ok(), "{:?}", r.structured.error);
    let path = PathBuf::from(r.result()["local_path"].as_str().unwrap());
    assert!(path.starts_with(&e.ctx.config.screenshots_dir), "{path:?}");
    for refused in [
        "../outside/x.png".to_string(),
        e.outside.join("x.png").display().to_string(),
        // The system temp directory is not a root (any local user can write there).
        std::env::temp_dir()
            .join(format!("tapflow-{}.png", std::process::id()))
            .display()
            .to_string(),
    ] {
        assert_eq!(
            e.err("screenshot", json!({ "local_path": refused })).0,
            "PATH_NOT_ALLOWED",
            "{refused}"
        );
    }
}

// ---------- logs_query save_path ----------

fn save(e: &Env, path: &str) -> (String, Value) {
    e.err(
        "logs_query",
        json!({"logs": ["01-23 21:05:00.000  1  1 E A0/t: boom"], "save_path": path}),
    )
}

#[test]
fn save_path_refuses_a_final_symlink_a_linked_directory_and_a_dangling_link() {
    let e = env();
    let victim = e.victim();
    e.link(&victim, "snap.log");
    e.link(&e.outside, "linkdir");
    e.link(&e.outside.join("created.log"), "dangling.log");
    let (code, d) = save(&e, "snap.log");
    assert_eq!(
        (code.as_str(), &d["reason"]),
        ("PATH_NOT_ALLOWED", &json!("PATH_IS_SYMLINK"))
    );
    let (code, d) = save(&e, "linkdir/snap.log");
    assert_eq!(
        (code.as_str(), &d["reason"]),
        ("PATH_NOT_ALLOWED", &json!("PATH_NOT_ALLOWED"))
    );
    let (code, d) = save(&e, "dangling.log");
    assert_eq!(
        (code.as_str(), &d["reason"]),
        ("PATH_NOT_ALLOWED", &json!("PATH_IS_SYMLINK"))
    );
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");
    assert_eq!(e.outside_entries(), ["victim.txt"]);
}

#[test]
fn save_path_never_replaces_a_file_and_is_never_executable() {
    let e = env();
    let theirs = e.project.join("notes.log");
    std::fs::write(&theirs, "theirs").unwrap();
    let (code, d) = save(&e, "notes.log");
    assert_eq!(
        (code.as_str(), &d["reason"]),
        ("PATH_NOT_ALLOWED", &json!("FILE_EXISTS"))
    );
    assert_eq!(std::fs::read_to_string(&theirs).unwrap(), "theirs");
    let r = e.call(
        "logs_query",
        json!({"logs": ["x"], "save_path": "out/snap.log"}),
    );
    assert!(r.ok(), "{:?}", r.structured.error);
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(e.project.join("out/snap.log"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o111, 0, "{mode:o}");
    // Its own earlier snapshot is not replaced either: a new name is needed.
    assert_eq!(save(&e, "out/snap.log").1["reason"], "FILE_EXISTS");
}

#[test]
fn save_path_never_takes_a_name_a_build_tool_would_run() {
    let e = env();
    for name in [
        "hvigorw",
        "HVIGORW",
        "hvigorw.bat",
        "hvigorw.js",
        "sub/../hvigorw",
        "hvigorfile.ts",
        "gradlew",
        "Makefile",
        "build.sh",
        "entry/src/main/ets/pages/Index.ets",
        ".envrc",
        ".git/hooks/pre-commit.log",
    ] {
        let (code, d) = save(&e, name);
        assert_eq!(code, "PATH_NOT_ALLOWED", "{name}");
        assert_eq!(d["reason"], "RUNNABLE_NAME", "{name}");
    }
    assert_eq!(
        std::fs::read_dir(&e.project).unwrap().count(),
        0,
        "nothing was written"
    );
}

// ---------- output roots and trusted configuration (issue 18) ----------

#[test]
fn by_default_the_project_is_read_and_only_the_output_roots_are_written() {
    let e = env_with(&[("TAPFLOW_OUTPUT_ROOTS", "")]);
    std::fs::write(e.project.join("app.log"), "x\n").unwrap();
    let (code, d) = save(&e, "snap.log");
    assert_eq!(code, "PATH_NOT_ALLOWED");
    let roots = d["allowed_roots"].as_array().unwrap();
    assert!(
        roots
            .iter()
            .all(|r| r.as_str().unwrap() != e.project.to_str().unwrap()),
        "the project is no output root: {roots:?}"
    );
    let (code, _) = e.err("screenshot", json!({"local_path": "shot.png"}));
    assert_eq!(code, "PATH_NOT_ALLOWED");
    assert!(!e.project.join("snap.log").exists() && !e.project.join("shot.png").exists());
    // The output directories take them; project files are still read.
    let r = e.call(
        "logs_query",
        json!({"input_file": "app.log", "save_path": "logs/snap.log"}),
    );
    assert!(r.ok(), "{:?}", r.structured.error);
    let r = e.call("screenshot", json!({"local_path": "screenshots/a.png"}));
    assert!(r.ok(), "{:?}", r.structured.error);
}

#[test]
fn no_tool_writes_trusted_configuration() {
    let e = env();
    std::fs::create_dir_all(e.project.join("other")).unwrap();
    for (path, why) in [
        ("tapflow.toml", "a project file"),
        ("./TAPFLOW.toml", "case"),
        ("sub/../tapflow.toml", "dot-dot"),
        ("other/tapflow.toml", "another project's file"),
        (".tapflow/state.log", "the state directory"),
    ] {
        let (code, d) = e.err(
            "logs_query",
            json!({"logs": ["[paths]", "allowed_roots = [\"/\"]"], "save_path": path}),
        );
        assert_eq!(
            (code.as_str(), &d["reason"]),
            ("PATH_NOT_ALLOWED", &json!("TRUSTED_CONFIG")),
            "{why}"
        );
    }
    for path in [
        ".tapflow/x.png",
        "tapflow.toml/x.png",
        "other/TapFlow.Toml/x.png",
    ] {
        let (code, d) = e.err("screenshot", json!({ "local_path": path }));
        assert_eq!(
            (code.as_str(), &d["reason"]),
            ("PATH_NOT_ALLOWED", &json!("TRUSTED_CONFIG")),
            "{path}"
        );
    }
    assert!(!e.project.join("tapflow.toml").exists());
    assert!(!e.project.join("other/tapflow.toml").exists());
    assert!(!e.project.join(".tapflow").exists());
}

// ---------- the logs_query → build_app chain ----------

#[test]
fn logs_query_then_build_app_executes_nothing() {
    let e = env();
    let rce = e.outside.join("RCE");
    let payload = format!("id > {}", rce.display());
    // The directory is a hvigor project (the attack's best case).
    std::fs::write(
        e.project.join("build-profile.json5"),
        "{app: {}, modules: []}",
    )
    .unwrap();
    std::fs::write(e.project.join("hvigorfile.ts"), "export default {}\n").unwrap();
    let project = e.project.display().to_string();

    // 1. The wrapper cannot be planted.
    let (code, d) = e.err(
        "logs_query",
        json!({"logs": [payload], "save_path": format!("{project}/hvigorw")}),
    );
    assert_eq!(
        (code.as_str(), &d["reason"]),
        ("PATH_NOT_ALLOWED", &json!("RUNNABLE_NAME"))
    );
    assert!(!e.project.join("hvigorw").exists());
    let (code, _) = e.err("build_app", json!({ "project_path": project }));
    assert_eq!(code, "HVIGOR_NOT_FOUND");

    // 2. A file tapflow wrote under another name is not executable, so even renamed into place
    //    it is refused, never run through sh.
    let r = e.call(
        "logs_query",
        json!({"logs": [payload], "save_path": "snap.log"}),
    );
    assert!(r.ok(), "{:?}", r.structured.error);
    std::fs::rename(e.project.join("snap.log"), e.project.join("hvigorw")).unwrap();
    let (code, d) = e.err("build_app", json!({ "project_path": project }));
    assert_eq!(
        (code.as_str(), &d["reason"]),
        ("HVIGOR_NOT_FOUND", &json!("not_executable"))
    );
    assert!(!rce.exists(), "nothing ran");

    // 3. Outside the roots (the original used the system temp directory) nothing is written.
    let tmp_target = std::env::temp_dir().join(format!("tapflow-chain-{}", std::process::id()));
    let (code, _) = e.err(
        "logs_query",
        json!({"logs": [payload], "save_path": tmp_target.join("x.log").display().to_string()}),
    );
    assert_eq!(code, "PATH_NOT_ALLOWED");
    assert!(!tmp_target.exists());

    // Control: the same project with an executable wrapper the project ships does run, so
    // this test would see an execution.
    use std::os::unix::fs::PermissionsExt;
    let wrapper = e.project.join("hvigorw");
    std::fs::write(&wrapper, format!("#!/bin/sh\n{payload}\nexit 3\n")).unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (code, _) = e.err("build_app", json!({ "project_path": project }));
    assert_eq!(code, "BUILD_FAILED");
    assert!(rce.exists(), "the control build ran the wrapper");
}

#[test]
fn build_app_publishes_that_it_executes_host_code_and_needs_approval() {
    let e = env();
    let tools: Vec<Value> = e.engine.mcp_tools();
    let build = tools.iter().find(|t| t["name"] == "build_app").unwrap();
    let policy = &build["_meta"]["policy"];
    assert_eq!(policy["executes_host_code"], true);
    assert_eq!(policy["needs_approval"], true);
    // Every tool that executes host code needs approval; no other tool executes any.
    for t in &tools {
        let p = &t["_meta"]["policy"];
        if p["executes_host_code"] == true {
            assert_eq!(p["needs_approval"], true, "{}", t["name"]);
        }
        assert_eq!(
            p["executes_host_code"] == true,
            t["name"] == "build_app",
            "{}",
            t["name"]
        );
    }
}

#[test]
fn build_app_project_path_goes_through_the_policy() {
    let e = env();
    std::fs::write(e.outside.join("build-profile.json5"), "{}").unwrap();
    std::fs::write(e.outside.join("hvigorfile.ts"), "").unwrap();
    let (code, _) = e.err(
        "build_app",
        json!({"project_path": e.outside.display().to_string()}),
    );
    assert_eq!(code, "PATH_NOT_ALLOWED");
    e.link(&e.outside, "linked-project");
    let (code, _) = e.err("build_app", json!({"project_path": "linked-project"}));
    assert_eq!(code, "PATH_NOT_ALLOWED");
    std::fs::create_dir(e.project.join("plain")).unwrap();
    let (code, d) = e.err("build_app", json!({"project_path": "plain"}));
    assert_eq!(code, "INVALID_PROJECT_PATH");
    assert_eq!(
        d["missing"],
        json!(["build-profile.json5", "hvigorfile.ts"])
    );
}

// ---------- install_app ----------

#[test]
fn install_app_reads_packages_under_the_roots_only() {
    let e = env();
    std::fs::write(e.outside.join("app.hap"), "PK").unwrap();
    std::fs::write(e.project.join("ok.hap"), "PK").unwrap();
    e.link(&e.outside.join("app.hap"), "linked.hap");
    let (code, _) = e.err(
        "install_app",
        json!({"hap_path": e.outside.join("app.hap").display().to_string()}),
    );
    assert_eq!(code, "PATH_NOT_ALLOWED");
    assert_eq!(
        e.err("install_app", json!({"hap_path": "linked.hap"})).0,
        "PATH_NOT_ALLOWED"
    );
    assert_eq!(
        e.err("install_app", json!({"hap_path": "missing.hap"})).0,
        "FILE_NOT_FOUND"
    );
    std::fs::create_dir(e.project.join("dir.hap")).unwrap();
    assert_eq!(
        e.err("install_app", json!({"hap_path": "dir.hap"})).0,
        "FILE_NOT_FOUND"
    );
    assert!(
        e.dev.actions.lock().unwrap().is_empty(),
        "nothing reached the device"
    );
    let r = e.call("install_app", json!({"hap_path": "ok.hap"}));
    assert!(r.ok(), "{:?}", r.structured.error);
}
