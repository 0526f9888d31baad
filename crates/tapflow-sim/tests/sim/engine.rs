//! The in-process simulator answers hdc argv with real hdc/device texts: client argv and device
//! selection, shell quoting and lists, every device command, transfers, faults, the transport.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use pretty_assertions::assert_eq;
use serde_json::Value;
use tapflow_device::transport::{Transport, TransportError};
use tapflow_sim::{FaultSpec, Latency, SimOptions, SimTransport, Simulator};

fn sim_with(devices: usize, faults: &str, seed: u64) -> Simulator {
    Simulator::new(SimOptions {
        devices,
        seed,
        latency: Latency::None,
        faults: FaultSpec::parse(faults).unwrap(),
        ..Default::default()
    })
}

fn sim() -> Simulator {
    sim_with(1, "", 0)
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/tests/fixtures/harmonyos/{name}",
        concat!(env!("CARGO_MANIFEST_DIR"), "/../..")
    ))
    .unwrap()
}

fn run_in(s: &Simulator, cwd: &Path, args: &[&str]) -> String {
    let argv: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    let out = s.handle(&argv, cwd);
    assert_eq!(out.exit, 0, "hdc always exits 0");
    String::from_utf8(out.stdout).unwrap()
}

fn run(s: &Simulator, args: &[&str]) -> String {
    run_in(s, Path::new("/"), args)
}

/// `hdc shell "<cmd>"` (the whole command as one argv element).
fn sh(s: &Simulator, cmd: &str) -> String {
    run(s, &["shell", cmd])
}

fn dump(s: &Simulator) -> Value {
    let text = sh(
        s,
        "uitest dumpLayout -p /data/local/tmp/t.json >/dev/null 2>&1 && cat /data/local/tmp/t.json; rm -f /data/local/tmp/t.json",
    );
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("bad dump {e}: {text}"))
}

/// Centre of the node whose `id` is `id`.
fn center(tree: &Value, id: &str) -> Option<(i32, i32)> {
    let a = &tree["attributes"];
    if a["id"] == id {
        let b = a["bounds"].as_str()?;
        let n: Vec<i32> = b
            .split(|c: char| !c.is_ascii_digit() && c != '-')
            .filter(|t| !t.is_empty())
            .map(|t| t.parse().unwrap())
            .collect();
        return Some(((n[0] + n[2]) / 2, (n[1] + n[3]) / 2));
    }
    tree["children"]
        .as_array()?
        .iter()
        .find_map(|c| center(c, id))
}

fn text_of(tree: &Value, id: &str) -> Option<String> {
    let a = &tree["attributes"];
    if a["id"] == id {
        return a["text"].as_str().map(str::to_string);
    }
    tree["children"]
        .as_array()?
        .iter()
        .find_map(|c| text_of(c, id))
}

fn start_demo(s: &Simulator) {
    assert_eq!(
        sh(s, "aa start -a EntryAbility -b com.tapflow.demo"),
        "start ability successfully.\n"
    );
}

fn norm_time(s: &str) -> String {
    regex::Regex::new(r"(?m)^\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}")
        .unwrap()
        .replace_all(s, "MM-DD hh:mm:ss.mmm")
        .into_owned()
}

// ------------------------------------------------------------------ hdc client

#[test]
fn list_targets_and_version() {
    let s = sim_with(2, "", 1);
    let keys = s.serials();
    assert_eq!(
        run(&s, &["list", "targets"]),
        format!("{}\n{}\n", keys[0], keys[1])
    );
    assert_eq!(
        run(&s, &["list", "targets", "-v"]),
        format!(
            "{}\t\tUSB\tConnected\tunknown...\n{}\t\tUSB\tConnected\tunknown...\n",
            keys[0], keys[1]
        )
    );
    assert_eq!(run(&s, &["-v"]), "Ver: 3.1.0e\n");
    assert_eq!(run(&s, &["version"]), "Ver: 3.1.0e\n");
    let none = sim_with(0, "", 0);
    assert_eq!(run(&none, &["list", "targets"]), "[Empty]\n");
    assert_eq!(
        run(&none, &["shell", "ls"]),
        "[Fail]No any connected target\n"
    );
}

#[test]
fn emulator_key_and_tcp_row() {
    let s = Simulator::new(SimOptions {
        devices: 2,
        latency: Latency::None,
        emulator: true,
        ..Default::default()
    });
    let v = run(&s, &["list", "targets", "-v"]);
    assert!(
        v.ends_with("127.0.0.1:5555\t\tTCP\tConnected\tlocalhost\n"),
        "{v}"
    );
    assert_eq!(
        run(&s, &["-t", "127.0.0.1:5555", "shell", "echo ok"]),
        "ok\n"
    );
}

#[test]
fn device_selection_errors() {
    let s = sim_with(2, "", 3);
    assert_eq!(
        sh(&s, "echo hi"),
        "[Fail]ExecuteCommand need connect-key? please confirm a device by help info\n"
    );
    assert_eq!(
        run(&s, &["-t", "NOPE0000X00000000", "shell", "echo hi"]),
        "[Fail][E001005] Device not found or connected\n"
    );
    let k = s.serials()[1].clone();
    assert_eq!(run(&s, &["-t", &k, "shell", "echo hi"]), "hi\n");
    assert_eq!(
        run(&s, &["-t", &k, "-s", "127.0.0.1:8710", "shell", "echo hi"]),
        "hi\n"
    );
    assert_eq!(
        run(&s, &["-s", "127.0.0.1:9999", "list", "targets"]),
        "[Fail]Connect server failed\n"
    );
    assert_eq!(run(&s, &["frobnicate"]), "[Fail]Unknown command...\n");
}

// ------------------------------------------------------------------ shell quoting

#[test]
fn shell_one_string_vs_tokens() {
    let s = sim();
    // One element: wrapped in quotes by the client, unwrapped by the daemon.
    assert_eq!(run(&s, &["shell", "echo 'a  b'"]), "a  b\n");
    // Tokens: joined with spaces; an element with a space is wrapped in "…".
    assert_eq!(run(&s, &["shell", "echo", "a  b", "c"]), "a  b c\n");
    assert_eq!(run(&s, &["shell", "echo", "x", "y"]), "x y\n");
    // Unquoted tokens lose their inner spacing as in sh.
    assert_eq!(run(&s, &["shell", "echo a   b"]), "a b\n");
    // Single-quote escaping of user text.
    assert_eq!(sh(&s, r"echo 'it'\''s'"), "it's\n");
    assert_eq!(sh(&s, r#"echo "say \"hi\" \$x""#), "say \"hi\" $x\n");
}

#[test]
fn shell_lists_status_and_redirections() {
    let s = sim();
    assert_eq!(
        sh(
            &s,
            "false || echo no; true && echo yes; false && echo never"
        ),
        "no\nyes\n"
    );
    assert_eq!(sh(&s, "false; echo $?; true; echo $?"), "1\n0\n");
    assert_eq!(sh(&s, "echo __RC__$?"), "__RC__0\n");
    assert_eq!(
        sh(&s, "nosuch; echo rc=$?"),
        "sh: nosuch: not found\nrc=127\n"
    );
    assert_eq!(
        sh(
            &s,
            "echo one > /data/local/tmp/f; echo two >> /data/local/tmp/f; cat /data/local/tmp/f"
        ),
        "one\ntwo\n"
    );
    assert_eq!(sh(&s, "echo gone >/dev/null"), "");
    assert_eq!(sh(&s, "cat /nope 2>/dev/null; echo after"), "after\n");
    assert_eq!(
        sh(&s, "cat /nope >/dev/null 2>&1 || echo failed"),
        "failed\n"
    );
    assert_eq!(
        sh(&s, "cat /nope 2>&1 >/dev/null"),
        "cat: /nope: No such file or directory\n"
    );
    assert_eq!(
        sh(
            &s,
            "cat /nope > /data/local/tmp/e 2>&1; cat /data/local/tmp/e"
        ),
        "cat: /nope: No such file or directory\n"
    );
    assert_eq!(sh(&s, "printf '%s-%d\\n' a 1 b 2"), "a-1\nb-2\n");
}

#[test]
fn outside_the_subset_fails_loudly() {
    let s = sim();
    assert_eq!(
        sh(&s, "ls | grep x"),
        "sh: a pipe '|' is not supported by the simulated device\n"
    );
    assert_eq!(
        sh(&s, "echo $HOME"),
        "sh: variable expansion (only $? is) is not supported by the simulated device\n"
    );
    assert_eq!(
        sh(&s, "echo 'open"),
        "sh: syntax error: unterminated quoted string\n"
    );
    assert_eq!(
        sh(&s, "if true; then echo x; fi"),
        "sh: 'if': shell keywords are not supported by the simulated device\n"
    );
    assert_eq!(sh(&s, "vim /x"), "sh: vim: not found\n");
}

// ------------------------------------------------------------------ uitest

#[test]
fn dump_layout_texts_and_file() {
    let s = sim();
    let out = sh(&s, "uitest dumpLayout");
    let re =
        regex::Regex::new(r"^DumpLayout saved to:/data/local/tmp/layout_\d+\.json\n$").unwrap();
    assert!(re.is_match(&out), "{out}");
    assert_eq!(
        sh(&s, "uitest dumpLayout -p /data/local/tmp/x.json"),
        "DumpLayout saved to:/data/local/tmp/x.json\n"
    );
    let raw = sh(&s, "cat /data/local/tmp/x.json");
    assert!(!raw.contains('\n'), "uitest writes one compact line");
    let v: Value = serde_json::from_str(&raw).unwrap();
    assert!(v["children"].as_array().is_some_and(|c| !c.is_empty()));
    assert_eq!(
        sh(&s, "uitest dumpLayout -a -i"),
        "The -a and -i options cannot be used together.\n"
    );
    assert_eq!(
        sh(&s, "uitest dumpLayout -ia"),
        "The -a and -i options cannot be used together.\n"
    );
    assert_eq!(
        sh(&s, "uitest dumpLayout -e color"),
        "Invalid attribute name, currently supported names are 'uniqueId'.\n"
    );
    assert_eq!(
        sh(&s, "uitest dumpLayout -z"),
        "uitest: unrecognized option: z\n"
    );
    let per_window: Value = serde_json::from_str(&sh(
        &s,
        "uitest dumpLayout -i -p /data/local/tmp/i.json >/dev/null; cat /data/local/tmp/i.json",
    ))
    .unwrap();
    assert!(per_window.is_array(), "-i dumps one tree per window");
    assert_eq!(sh(&s, "uitest --version"), "5.0.1.2\n");
}

#[test]
fn ui_input_validation_messages() {
    let s = sim();
    let usage_line = "USAGE : \n";
    let cases = [
        (
            "uitest uiInput click 0 5",
            "Please confirm that the coordinate values are correct. \n\n",
        ),
        (
            "uitest uiInput click abc 5",
            "Please confirm that the coordinate values are correct. \n\n",
        ),
        (
            "uitest uiInput click 5",
            "The number of parameters is incorrect. \n\n",
        ),
        ("uitest uiInput click", "Missing parameter. \n\n"),
        ("uitest uiInput swipe 1 2 3", "Missing parameter. \n\n"),
        (
            "uitest uiInput swipe 1 2 3 4 600 0 9",
            " Too many parameters. \n\n",
        ),
        (
            "uitest uiInput keyEvent Back 0 1",
            " Too many parameters. \n\n",
        ),
        (
            "uitest uiInput keyEvent 2072 2017 2038 2055 0",
            " Too many parameters. \n\n",
        ),
        ("uitest uiInput keyEvent Escape", "Invalid parameters. \n\n"),
        ("uitest uiInput frob 1", "Invalid parameters. \n\n"),
        (
            "uitest uiInput inputText 10 10",
            "The number of parameters is incorrect. \n\n",
        ),
        ("uitest uiInput text", "Missing parameter. \n\n"),
        (
            "uitest uiInput text a b c",
            "The number of parameters is incorrect. \n\n",
        ),
    ];
    for (cmd, want) in cases {
        let out = sh(&s, cmd);
        assert!(out.starts_with(want), "{cmd}: {out:?}");
        assert!(out.contains(usage_line), "{cmd}: usage follows");
    }
    assert_eq!(sh(&s, "uitest uiInput click 100 200"), "No Error\n");
    assert_eq!(sh(&s, "uitest uiInput keyEvent Home"), "No Error\n");
    assert_eq!(sh(&s, "uitest uiInput keyEvent 2072 2017"), "No Error\n");
    assert_eq!(
        sh(&s, "uitest uiInput swipe 600 2000 600 800 1500"),
        "No Error\n"
    );
    assert_eq!(
        sh(&s, "uitest uiInput swipe 600 2000 600 800 50"),
        "The swipe velocity out of range, the default value will be used. \n\nNo Error\n"
    );
    assert_eq!(sh(&s, "uitest uiInput drag 600 2000 600 800"), "No Error\n");
    assert_eq!(
        sh(&s, "uitest uiInput fling 600 2000 600 800 3000"),
        "No Error\n"
    );
    assert_eq!(sh(&s, "uitest uiInput dircFling 2"), "No Error\n");
    assert!(sh(&s, "uitest uiInput dircFling 7").starts_with("Illegal argument: 7\nUSAGE : \n"));
    assert_eq!(
        sh(&s, "uitest uiInput fling 600 2000 600 800 3000 5000"),
        "The stepLen is out of range\nNo Error\n"
    );
}

#[test]
fn typing_into_the_demo_login() {
    let s = sim();
    start_demo(&s);
    let tree = dump(&s);
    let (x, y) = center(&tree, "username").expect("username field");
    assert_eq!(
        sh(
            &s,
            &format!("uitest uiInput inputText {x} {y} 'it'\\''s me'")
        ),
        "No Error\n"
    );
    let tree = dump(&s);
    assert_eq!(text_of(&tree, "username").as_deref(), Some("it's me"));
    // `text` types into the focused field.
    assert_eq!(sh(&s, "uitest uiInput text '!'"), "No Error\n");
    assert_eq!(text_of(&dump(&s), "username").as_deref(), Some("it's me!"));
}

#[test]
fn screenshots() {
    let s = sim();
    assert_eq!(
        sh(&s, "snapshot_display -f /data/local/tmp/s.jpeg"),
        "process: display 0, file type: jpeg, width: 1260, height: 2720\n\
success: snapshot display 0 , write to /data/local/tmp/s.jpeg as jpeg, width: 1260, height: 2720\n"
    );
    let jpeg = s
        .phone(&s.serials()[0])
        .unwrap()
        .fs
        .read("/data/local/tmp/s.jpeg")
        .unwrap()
        .to_vec();
    assert_eq!(&jpeg[..2], &[0xFF, 0xD8]);
    assert_eq!(
        sh(&s, "snapshot_display -f /data/local/tmp/s.png"),
        "error: filename /data/local/tmp/s.png is invalid!\n"
    );
    assert_eq!(
        sh(&s, "uitest screenCap -p /data/local/tmp/c.png"),
        "ScreenCap saved to /data/local/tmp/c.png\n"
    );
    let png = s
        .phone(&s.serials()[0])
        .unwrap()
        .fs
        .read("/data/local/tmp/c.png")
        .unwrap()
        .to_vec();
    assert_eq!(&png[..4], b"\x89PNG");
}

// ------------------------------------------------------------------ aa / bm / param / pidof

#[test]
fn ability_manager_texts() {
    let s = sim();
    start_demo(&s);
    assert_eq!(
        sh(&s, "aa start -a Nope -b com.tapflow.demo"),
        "error: failed to start ability.\n\
Error Code:10104001  Error Message:The specified ability does not exist\n\
Error cause: The specified Ability is not installed\n\
\x20 Try the following:\n\
\x20 > Check if the parameter abilityName of aa -a and the parameter bundleName of -b are correct\n\
\x20 > Check if the application corresponding to the specified bundleName is installed\n\
\x20 > For multi-HAP applications, it is necessary to confirm whether the HAP to which the ability belongs has been installed\n\n"
    );
    let missions = sh(&s, "aa dump -l");
    assert!(missions.starts_with("User ID #100\n  current mission lists:{\n"));
    assert!(
        missions.contains("mission name #[#com.tapflow.demo:entry:EntryAbility]  lockedState #0")
    );
    assert!(missions.contains("        state #FOREGROUND  start time ["));
    assert!(
        missions.contains("\n }\n  ExtensionRecords:\n"),
        "{missions}"
    );
    assert!(missions.contains("\n  AppRunningRecords:\n"), "{missions}");
    assert_eq!(
        sh(&s, "aa force-stop com.tapflow.demo"),
        "force stop process successfully.\n"
    );
    assert!(!sh(&s, "aa dump -l").contains("com.tapflow.demo:entry"));
}

#[test]
fn bundle_manager_texts() {
    let s = sim();
    let all = sh(&s, "bm dump -a");
    assert!(all.starts_with("ID: 100:\n\t"));
    assert!(all.contains("\tcom.tapflow.demo\n"));
    let one = sh(&s, "bm dump -n com.tapflow.demo");
    let (first, json) = one.split_once('\n').unwrap();
    assert_eq!(first, "com.tapflow.demo:");
    let v: Value = serde_json::from_str(json).unwrap();
    assert!(v.is_object());
    assert!(json.starts_with("{\n    \""), "pretty JSON, indent 4");
    assert_eq!(
        sh(&s, "bm dump -n com.nope.app"),
        "error: failed to get information and the parameters may be wrong.\n"
    );
    assert_eq!(
        sh(&s, "bm clean -n com.tapflow.demo -d"),
        "clean bundle data files successfully.\n"
    );
    assert_eq!(
        sh(&s, "bm clean -n com.tapflow.demo -c"),
        "clean bundle cache files successfully.\n"
    );
    assert_eq!(
        sh(&s, "bm clean -n com.nope.app -c"),
        "error: failed to clean bundle cache files.\n"
    );
}

#[test]
fn params_and_processes() {
    let s = sim();
    assert_eq!(sh(&s, "param get const.product.model"), "ALN-AL00\n");
    assert_eq!(
        sh(&s, "param get const.product.name"),
        "HUAWEI Mate 60 Pro\n"
    );
    assert_eq!(sh(&s, "param get const.ohos.apiversion"), "12\n");
    assert_eq!(
        sh(&s, "param get x.y"),
        "Get parameter \"x.y\" fail! errNum is:106!\n"
    );
    assert_eq!(sh(&s, "pidof com.tapflow.demo; echo rc=$?"), "rc=1\n");
    start_demo(&s);
    let pid = sh(&s, "pidof com.tapflow.demo");
    let pid = pid.trim();
    assert!(pid.parse::<u32>().is_ok());
    assert_eq!(
        sh(&s, &format!("cat /proc/{pid}/cmdline")),
        "com.tapflow.demo\0"
    );
}

// ------------------------------------------------------------------ hidumper

#[test]
fn hidumper_outputs() {
    let s = sim();
    start_demo(&s);
    let wms = sh(&s, "hidumper -s WindowManagerService -a '-a'");
    let lines: Vec<&str> = wms.lines().collect();
    assert_eq!(
        lines[0],
        "-------------------------------[ability]-------------------------------"
    );
    assert_eq!(
        lines[3],
        "----------------------------------WindowManagerService---------------------------------"
    );
    assert_eq!(
        lines[4],
        "-------------------------------------ScreenGroup 0-------------------------------------"
    );
    assert_eq!(
        lines[5],
        fixture("hidumper_wms_a_window_list_next_2in1_trimmed_test_embedded.txt")
            .lines()
            .next()
            .unwrap()
    );
    assert!(lines.contains(&"-".repeat(87).as_str()));
    let focus = lines
        .iter()
        .find_map(|l| l.strip_prefix("Focus window: "))
        .unwrap();
    assert!(lines.contains(&format!("Highlighted windows: {focus}").as_str()));
    assert!(lines.contains(&format!("DisplayId: 0 WindowId: {focus}").as_str()));
    assert!(lines.iter().any(|l| l.starts_with("Total window num: ")));
    // The same command given as tokens (the daemon sees `-a -a`).
    assert_eq!(
        run(
            &s,
            &[
                "shell",
                "hidumper",
                "-s",
                "WindowManagerService",
                "-a",
                "-a"
            ]
        ),
        wms
    );
    let detail = sh(
        &s,
        &format!("hidumper -s WindowManagerService -a '-w {focus}'"),
    );
    assert!(detail.contains(&format!("WinId: {focus}\n")));
    assert!(detail.contains("IsVisible: true\n"));
    assert!(
        regex::Regex::new(r"WindowRect: \[ \d+, \d+, \d+, \d+ \]")
            .unwrap()
            .is_match(&detail)
    );

    assert_eq!(sh(&s, "power-shell suspend"), "SuspendDevice is called\n");
    // Screen off, the RenderService dump is the Mate 60 Pro capture byte for byte.
    assert_eq!(
        sh(&s, "hidumper -s RenderService -a screen").trim(),
        fixture("hidumper_renderservice_screen_mate60pro.txt").trim()
    );
    assert!(sh(&s, "hidumper -s PowerManagerService -a -s").contains("Current State: SLEEP"));
    assert!(sh(&s, "hidumper -s RenderService -a screen").contains("powerstatus=POWER_STATUS_OFF"));
    assert_eq!(sh(&s, "power-shell wakeup"), "WakeupDevice is called\n");
    let power = sh(&s, "hidumper -s PowerManagerService -a -s");
    assert_eq!(
        power.trim_end(),
        fixture("hidumper_powermanager_a_s_mate60pro.txt").trim_end()
    );
    let screen = sh(&s, "hidumper -s RenderService -a screen");
    assert!(screen.contains("render size: 1260x2720, physical screen resolution: 1260x2720"));
    assert!(screen.contains("  activeMode: 1260x2720, refreshrate="));
}

// ------------------------------------------------------------------ hilog and files

#[test]
fn hilog_login_marker_and_filters() {
    let s = sim();
    start_demo(&s);
    let tree = dump(&s);
    let (ux, uy) = center(&tree, "username").unwrap();
    let (lx, ly) = center(&tree, "login").unwrap();
    sh(&s, &format!("uitest uiInput inputText {ux} {uy} alice"));
    sh(&s, &format!("uitest uiInput click {lx} {ly}"));
    // The login completes after a delay; poll the log against a deadline.
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    let marker = loop {
        let out = sh(&s, "hilog -x -T DemoApp -e LOGIN_SUCCESS");
        if !out.is_empty() || std::time::Instant::now() > deadline {
            break out;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let line = norm_time(&marker);
    let re = regex::Regex::new(
        r"^MM-DD hh:mm:ss\.mmm +\d+ +\d+ I A0d0d0/DemoApp: LOGIN_SUCCESS user=alice\n$",
    )
    .unwrap();
    assert!(re.is_match(&line), "{line:?}");
    assert_eq!(sh(&s, "hilog -x -T DemoApp -L E"), "");
    assert_eq!(sh(&s, "hilog -x -z 1").lines().count(), 1);
    assert_eq!(
        sh(&s, "hilog -r"),
        "Log type core,app buffer clear successfully\n"
    );
    assert_eq!(sh(&s, "hilog -x"), "");
    assert!(sh(&s, "hilog -x -L X").starts_with("Invalid log level"));
}

#[test]
fn hilog_streams_until_the_reader_leaves() {
    let s = sim();
    let mut seen = Vec::new();
    let mut calls = 0;
    let mut sink = |b: &[u8]| {
        seen.extend_from_slice(b);
        calls += 1;
        calls < 3
    };
    let rest = s.handle_streaming(&["shell".into(), "hilog".into()], Path::new("/"), &mut sink);
    assert!(rest.stdout.is_empty());
    assert!(calls >= 3);
    assert!(!seen.is_empty(), "the buffer is printed first");
    // Buffered callers get the buffer and return.
    assert!(!sh(&s, "hilog").is_empty());
}

#[test]
fn files_ls_cat_rm_and_faultlog() {
    let s = sim();
    assert_eq!(sh(&s, "ls /data/log/faultlog/faultlogger/"), "");
    start_demo(&s);
    let tree = dump(&s);
    let (ux, uy) = center(&tree, "username").unwrap();
    let (lx, ly) = center(&tree, "login").unwrap();
    sh(&s, &format!("uitest uiInput inputText {ux} {uy} bob"));
    sh(&s, &format!("uitest uiInput click {lx} {ly}"));
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    let crash = loop {
        if let Some(c) = center(&dump(&s), "crash") {
            break c;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "home page never appeared"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    sh(&s, &format!("uitest uiInput click {} {}", crash.0, crash.1));
    let listing = sh(&s, "ls /data/log/faultlog/faultlogger/");
    let name = listing.lines().next().expect("a crash file");
    assert!(name.starts_with("jscrash-com.tapflow.demo-"), "{name}");
    let body = sh(&s, &format!("cat /data/log/faultlog/faultlogger/{name}"));
    assert!(body.contains("Module name:com.tapflow.demo"), "{body}");
    let long = sh(&s, "ls -l /data/log/faultlog/faultlogger");
    assert!(long.starts_with("total "));
    assert!(long.contains(&format!(" {name}\n")));
    assert_eq!(
        sh(
            &s,
            "rm /data/log/faultlog/faultlogger/*.log; ls /data/log/faultlog/faultlogger"
        ),
        ""
    );
    assert_eq!(
        sh(&s, "rm /data/x"),
        "rm: /data/x: No such file or directory\n"
    );
    assert_eq!(sh(&s, "rm -f /data/x; echo $?"), "0\n");
    assert_eq!(
        sh(
            &s,
            "echo > /data/local/tmp/d/.hidden; echo > /data/local/tmp/d/shown; ls /data/local/tmp/d; ls -A /data/local/tmp/d"
        ),
        "shown\n.hidden\nshown\n"
    );
    assert_eq!(
        sh(&s, "cat /data/local/tmp"),
        "cat: /data/local/tmp: Is a directory\n"
    );
}

// ------------------------------------------------------------------ transfers

fn build_hap(bundle: &str, signed: bool) -> Vec<u8> {
    let module = serde_json::json!({
        "app": {"bundleName": bundle, "vendor": "t", "versionCode": 1, "versionName": "1.0.0",
                "minAPIVersion": 12, "targetAPIVersion": 12, "label": "Hello"},
        "module": {"name": "entry", "type": "entry", "mainElement": "EntryAbility",
                   "deviceTypes": ["phone"], "abilities": [{"name": "EntryAbility", "exported": true,
                   "skills": [{"entities": ["entity.system.home"], "actions": ["ohos.want.action.home"]}]}]}
    });
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    w.start_file("module.json", zip::write::SimpleFileOptions::default())
        .unwrap();
    w.write_all(module.to_string().as_bytes()).unwrap();
    if signed {
        w.set_comment("HAP Sig Block 42");
    }
    w.finish().unwrap().into_inner()
}

#[test]
fn file_send_and_recv() {
    let s = sim();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), vec![b'x'; 71792]).unwrap();
    assert_eq!(
        run_in(
            &s,
            dir.path(),
            &["file", "send", "a.txt", "/data/local/tmp/"]
        ),
        "FileTransfer finish, Size:71792, File count = 1, time:22ms rate:3263.27kB/s\n"
    );
    assert_eq!(sh(&s, "ls -l /data/local/tmp").contains(" 71792 "), true);
    let recv = run_in(
        &s,
        dir.path(),
        &["file", "recv", "/data/local/tmp/a.txt", "b.txt"],
    );
    let recv = regex::Regex::new(r"^\[I\]\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\] ")
        .unwrap()
        .replace(&recv, "[I][DATE] ");
    assert_eq!(
        recv,
        "[I][DATE] HdcFile::TransferSummary success\nFileTransfer finish, Size:71792, File count = 1, time:22ms rate:3263.27kB/s\n"
    );
    assert_eq!(
        std::fs::read(dir.path().join("b.txt")).unwrap().len(),
        71792
    );
    let out = PathBuf::from(dir.path()).join("out");
    std::fs::create_dir(&out).unwrap();
    run(
        &s,
        &[
            "shell",
            "echo 1 > /data/local/tmp/d/one; echo 2 > /data/local/tmp/d/sub/two",
        ],
    );
    let r = run_in(
        &s,
        dir.path(),
        &["file", "recv", "/data/local/tmp/d", "out"],
    );
    assert!(r.contains("File count = 2"), "{r}");
    assert_eq!(
        std::fs::read_to_string(out.join("d/sub/two")).unwrap(),
        "2\n"
    );
    assert_eq!(
        run_in(&s, dir.path(), &["file", "recv", "/data/none", "x"]),
        "[Fail]Error opening file: no such file or directory, path:/data/none\n"
    );
    let missing = run_in(
        &s,
        dir.path(),
        &["file", "send", "nope.txt", "/data/local/tmp/"],
    );
    assert_eq!(
        missing,
        format!(
            "[Fail]Error opening file: no such file or directory, path:{}\n",
            dir.path().join("nope.txt").display()
        )
    );
}

#[test]
fn install_and_uninstall_texts() {
    let s = sim();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("hello.hap"),
        build_hap("com.example.hello", true),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("unsigned.hap"),
        build_hap("com.example.raw", false),
    )
    .unwrap();
    let abs = dir.path().join("hello.hap").display().to_string();
    assert_eq!(
        run_in(&s, dir.path(), &["install", "hello.hap"]),
        format!(
            "[Info]App install path:{abs}, queuesize:0, msg:install bundle successfully.\nAppMod finish\n"
        )
    );
    assert!(sh(&s, "bm dump -a").contains("\tcom.example.hello\n"));
    assert_eq!(
        run_in(&s, dir.path(), &["install", "-r", &abs]),
        format!(
            "[Info]App install path:{abs}, queuesize:0, msg:install bundle successfully.\nAppMod finish\n"
        )
    );
    let unsigned = run_in(&s, dir.path(), &["install", "unsigned.hap"]);
    assert!(
        unsigned.ends_with("msg:error: failed to install bundle. code:9568320 error: no signature file.\nAppMod finish\n"),
        "{unsigned}"
    );
    assert_eq!(
        run_in(&s, dir.path(), &["install", "missing.hap"]),
        "[Fail][E006001] Not any installation package was found\n"
    );
    assert_eq!(
        run(&s, &["uninstall", "com.example.hello"]),
        "[Info]App uninstall path:, queuesize:0, msg:uninstall bundle successfully.\nAppMod finish\n"
    );
    let again = run(&s, &["uninstall", "com.example.hello"]);
    assert!(
        again.starts_with(
            "[Info]App uninstall path:, queuesize:0, msg:error: failed to uninstall bundle. code:"
        ),
        "{again}"
    );
    assert!(again.ends_with("\nAppMod finish\n"));
}

// ------------------------------------------------------------------ faults

fn scripted_session(s: &Simulator) -> Vec<String> {
    let k = s.serials()[0].clone();
    (0..40)
        .map(|i| match i % 4 {
            0 => run(s, &["-t", &k, "shell", "echo ping"]),
            1 => run(s, &["-t", &k, "shell", "uitest dumpLayout -p /data/local/tmp/f.json >/dev/null; cat /data/local/tmp/f.json"]).len().to_string(),
            2 => run(s, &["-t", &k, "shell", "uitest uiInput keyEvent Home"]),
            _ => run(s, &["list", "targets"]),
        })
        .collect()
}

#[test]
fn faults_are_deterministic_from_the_seed() {
    let spec = "fail=0.2,empty-dump=0.2,truncate-dump=0.2";
    let a = scripted_session(&sim_with(1, spec, 11));
    let b = scripted_session(&sim_with(1, spec, 11));
    let c = scripted_session(&sim_with(1, spec, 12));
    assert_eq!(a, b);
    assert_ne!(a, c);
    assert!(
        a.iter()
            .any(|l| l
                .starts_with("[Fail][E000004]:The communication channel is being established."))
    );
}

#[test]
fn fault_kinds() {
    let s = sim_with(1, "fail=1", 0);
    assert_eq!(
        sh(&s, "echo hi"),
        "[Fail][E000004]:The communication channel is being established.\r\nPlease wait for several seconds and try again.\n"
    );
    assert_eq!(
        run(&s, &["list", "targets"]).lines().count(),
        1,
        "host-side commands never fail"
    );

    let s = sim_with(1, "empty-dump=1", 0);
    assert_eq!(
        sh(
            &s,
            "uitest dumpLayout -p /data/local/tmp/e.json >/dev/null; cat /data/local/tmp/e.json"
        ),
        ""
    );

    let s = sim_with(1, "truncate-dump=1", 0);
    let t = sh(
        &s,
        "uitest dumpLayout -p /data/local/tmp/e.json >/dev/null; cat /data/local/tmp/e.json",
    );
    assert!(!t.is_empty() && serde_json::from_str::<Value>(&t).is_err());

    let s = sim_with(1, "drop-chars=1", 0);
    start_demo(&s);
    let (x, y) = center(&dump(&s), "username").unwrap();
    sh(&s, &format!("uitest uiInput inputText {x} {y} abc"));
    assert_eq!(text_of(&dump(&s), "username").as_deref(), Some(""));

    let s = sim_with(2, "disconnect-after=2", 0);
    let keys = s.serials();
    assert_eq!(run(&s, &["-t", &keys[0], "shell", "echo 1"]), "1\n");
    assert_eq!(run(&s, &["-t", &keys[0], "shell", "echo 2"]), "2\n");
    assert_eq!(
        run(&s, &["-t", &keys[0], "shell", "echo 3"]),
        "[Fail][E001005] Device not found or connected\n"
    );
    assert_eq!(run(&s, &["list", "targets"]), format!("{}\n", keys[1]));
    assert!(
        run(&s, &["list", "targets", "-v"]).starts_with(&format!("{}\t\tUSB\tOffline\t", keys[0]))
    );
    // With one device left, no -t is needed any more.
    assert_eq!(sh(&s, "echo only"), "only\n");
}

// ------------------------------------------------------------------ transport

#[test]
fn transport_runs_argv_and_times_out_on_slow_dumps() {
    let s = Arc::new(sim());
    let t = SimTransport::new(Arc::clone(&s), "/");
    let out = t
        .run(&["list".into(), "targets".into()], Duration::from_secs(5))
        .unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!("{}\n", s.serials()[0])
    );
    assert_eq!(out.status, Some(0));
    assert_eq!(t.program(), "sim:hdc");

    let slow = Arc::new(sim_with(1, "slow-dump=400ms", 0));
    let t = SimTransport::new(slow, "/");
    let dump = vec![
        "shell".to_string(),
        "uitest dumpLayout -p /data/local/tmp/s.json".to_string(),
    ];
    assert!(matches!(
        t.run(&dump, Duration::from_millis(100)),
        Err(TransportError::Timeout(_))
    ));
    let ok = t.run(&dump, Duration::from_secs(5)).unwrap();
    assert_eq!(
        String::from_utf8(ok.stdout).unwrap(),
        "DumpLayout saved to:/data/local/tmp/s.json\n"
    );
    // A stream never ends by itself: the transport reports a timeout.
    assert!(matches!(
        t.run(
            &["shell".into(), "hilog".into()],
            Duration::from_millis(150)
        ),
        Err(TransportError::Timeout(_))
    ));
}

#[test]
fn realistic_latency_costs_device_time() {
    let s = Simulator::new(SimOptions::default());
    let t = std::time::Instant::now();
    run(
        &s,
        &["shell", "uitest dumpLayout -p /data/local/tmp/r.json"],
    );
    let dump_time = t.elapsed();
    assert!(dump_time >= Duration::from_millis(280), "{dump_time:?}");
    let t = std::time::Instant::now();
    run(&s, &["list", "targets"]);
    assert!(t.elapsed() < Duration::from_millis(200));
}

#[test]
fn hdc_hilog_streams_everything() {
    let s = sim();
    let mut got = Vec::new();
    let mut n = 0;
    let mut sink = |b: &[u8]| {
        got.extend_from_slice(b);
        n += 1;
        n < 2
    };
    s.handle_streaming(&["hilog".into(), "-x".into()], Path::new("/"), &mut sink);
    let text = norm_time(&String::from_utf8(got).unwrap());
    let re = regex::Regex::new(r"^MM-DD hh:mm:ss\.mmm +\d+ +\d+ [DIWEF] [ACIK][0-9a-f]{5}/[^:]+: ")
        .unwrap();
    assert!(
        text.lines().count() > 0 && text.lines().all(|l| re.is_match(l)),
        "{text}"
    );
}

#[test]
fn recorded_layout_round_trips_through_hdc() {
    let s = sim();
    let recorded = fixture("layout_hmdriver2_uitest_demo_mate60pro_pretty.json");
    s.phone(&s.serials()[0])
        .unwrap()
        .show_recorded_layout(&recorded)
        .unwrap();
    let want: Value = serde_json::from_str(&recorded).unwrap();
    assert_eq!(dump(&s), want);
}
