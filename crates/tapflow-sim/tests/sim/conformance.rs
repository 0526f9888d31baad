//! The conformance table: every real capture under `tests/fixtures/harmonyos/` that is a
//! command's output, next to the simulator's answer to that command in a matching state.
//!
//! Each row says how the two compare and checks it: `same` rows match line for line or
//! structurally (same sections, line shapes and field names, values aside); `differs` rows say
//! why the simulator knowingly answers otherwise and check the documented difference (so a row
//! goes stale loudly); `not modelled` rows check that the simulator refuses loudly; host-tool
//! outputs are listed with where they are tested. Every fixture must have a row.
//!
//! `docs/sim.md`'s "What is modelled and what is not" section is generated from this table; this
//! test fails when it drifts. Regenerate it with `TAPFLOW_BLESS=1 cargo test -p tapflow-sim --test sim`.

use crate::common::shapes;

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;
use shapes::shapes;
use tapflow_sim::{Latency, SimOptions, Simulator};

fn fixture(name: &str) -> String {
    let p = format!(
        "{}/tests/fixtures/harmonyos/{name}",
        concat!(env!("CARGO_MANIFEST_DIR"), "/../..")
    );
    std::fs::read_to_string(&p)
        .unwrap_or_else(|e| panic!("{p}: {e}"))
        .replace('\r', "")
}

/// A fresh simulated phone (two devices, the last an emulator, when `emulator`).
struct Phone {
    sim: Simulator,
    key: String,
    cwd: tempfile::TempDir,
}

impl Phone {
    fn new() -> Phone {
        Self::with(1, false)
    }

    fn with(devices: usize, emulator: bool) -> Phone {
        let sim = Simulator::new(SimOptions {
            devices,
            emulator,
            latency: Latency::None,
            seed: 10,
            ..Default::default()
        });
        let key = sim.serials()[0].clone();
        Phone {
            sim,
            key,
            cwd: tempfile::tempdir().unwrap(),
        }
    }

    fn hdc(&self, args: &[&str]) -> String {
        let argv: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        self.sim.handle(&argv, self.cwd.path()).stdout_text()
    }

    fn sh(&self, cmd: &str) -> String {
        self.hdc(&["-t", &self.key, "shell", cmd])
    }

    fn demo(&self) -> &Self {
        self.sh("aa start -a EntryAbility -b com.tapflow.demo");
        self
    }
}

type Check = fn() -> Result<(), String>;

/// A signed hap of `bundle` with one launcher ability.
fn hap(bundle: &str) -> Vec<u8> {
    use tapflow_sim::phone::hap;
    hap::build_hap(
        &hap::module_json(bundle, 1_000_000, "1.0.0", "EntryAbility"),
        None,
        true,
    )
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    /// Matches the capture (line for line or structurally).
    Same,
    /// Knowingly different; the note says why.
    Differs,
    /// The command is not simulated; the simulator refuses it loudly.
    NotModelled,
    /// Output of a host tool, not of the device.
    Host,
}

impl Status {
    fn word(self) -> &'static str {
        match self {
            Status::Same => "same",
            Status::Differs => "differs",
            Status::NotModelled => "not modelled",
            Status::Host => "host tool",
        }
    }
}

struct Row {
    fixture: &'static str,
    command: &'static str,
    status: Status,
    /// How it is compared, or why it differs.
    note: &'static str,
    check: Option<Check>,
}

fn ensure(ok: bool, msg: impl FnOnce() -> String) -> Result<(), String> {
    if ok { Ok(()) } else { Err(msg()) }
}

/// Set equality of line shapes.
fn same_shapes(ours: &str, real: &str) -> Result<(), String> {
    let (a, b) = (shapes(ours), shapes(real));
    ensure(a == b, || {
        format!(
            "only ours: {:#?}\nonly the capture: {:#?}\n--- ours ---\n{ours}",
            a.difference(&b).collect::<Vec<_>>(),
            b.difference(&a).collect::<Vec<_>>()
        )
    })
}

/// Line for line, trailing whitespace aside (README captures keep stray spaces).
fn same_lines(ours: &str, real: &str) -> Result<(), String> {
    let norm = |t: &str| t.lines().map(str::trim_end).collect::<Vec<_>>().join("\n");
    ensure(norm(ours) == norm(real), || {
        format!("ours:\n{ours}\ncapture:\n{real}")
    })
}

/// Every JSON key path (array elements merged) of a value.
fn key_paths(v: &Value, prefix: &str, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let p = format!("{prefix}/{k}");
                out.insert(p.clone());
                key_paths(x, &p, out);
            }
        }
        Value::Array(a) => a
            .iter()
            .for_each(|x| key_paths(x, &format!("{prefix}[]"), out)),
        _ => {}
    }
}

fn json_after_first_line(t: &str) -> Value {
    let body = &t[t.find('{').expect("JSON object")..];
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"))
}

/// The capture's key paths that our `bm dump -n` lacks, ignoring paths under `skip`.
fn missing_bm_keys(bundle: &str, fixture_name: &str, skip: &[&str]) -> Vec<String> {
    let p = Phone::new();
    let ours = json_after_first_line(&p.sh(&format!("bm dump -n {bundle}")));
    let real = json_after_first_line(&fixture(fixture_name));
    let (mut a, mut b) = (BTreeSet::new(), BTreeSet::new());
    key_paths(&ours, "", &mut a);
    key_paths(&real, "", &mut b);
    b.difference(&a)
        .filter(|k| !skip.iter().any(|s| k.contains(s)))
        .cloned()
        .collect()
}

/// The attribute keys of a layout's nodes at depth 0 (root) and 1 (windows).
fn layout_keys(v: &Value) -> (BTreeSet<String>, BTreeSet<String>) {
    let keys = |n: &Value| -> BTreeSet<String> {
        n["attributes"]
            .as_object()
            .map(|o| o.keys().cloned().collect())
            .unwrap_or_default()
    };
    let win = v["children"]
        .as_array()
        .and_then(|c| c.first())
        .map(keys)
        .unwrap_or_default();
    (keys(v), win)
}

fn dump(p: &Phone) -> Value {
    let t = p
        .sh("uitest dumpLayout -p /data/local/tmp/c.json >/dev/null && cat /data/local/tmp/c.json");
    serde_json::from_str(&t).unwrap_or_else(|e| panic!("{e}: {t}"))
}

/// Our root and window keys contain the capture's.
fn layout_keys_cover(fixture_name: &str) -> Result<(), String> {
    let p = Phone::new();
    p.demo();
    let (our_root, our_win) = layout_keys(&dump(&p));
    let real: Value = serde_json::from_str(&fixture(fixture_name)).unwrap();
    let (root, win) = layout_keys(&real);
    let miss_root: Vec<_> = root.difference(&our_root).collect();
    let miss_win: Vec<_> = win.difference(&our_win).collect();
    ensure(miss_root.is_empty() && miss_win.is_empty(), || {
        format!("root lacks {miss_root:?}, window lacks {miss_win:?}")
    })
}

/// Same root and window key sets as the capture.
fn layout_keys_equal(fixture_name: &str) -> Result<(), String> {
    let p = Phone::new();
    p.demo();
    let ours = layout_keys(&dump(&p));
    let real: Value = serde_json::from_str(&fixture(fixture_name)).unwrap();
    let theirs = layout_keys(&real);
    ensure(ours == theirs, || {
        format!(
            "root: ours-only {:?} capture-only {:?}; window: ours-only {:?} capture-only {:?}",
            ours.0.difference(&theirs.0).collect::<Vec<_>>(),
            theirs.0.difference(&ours.0).collect::<Vec<_>>(),
            ours.1.difference(&theirs.1).collect::<Vec<_>>(),
            theirs.1.difference(&ours.1).collect::<Vec<_>>()
        )
    })
}

/// The `Key:` names of a faultlogger file's header (before the stack trace).
fn crash_header_keys(t: &str) -> BTreeSet<String> {
    let re = regex::Regex::new(r"^([A-Z][A-Za-z ()]*?):").unwrap();
    t.lines()
        .take_while(|l| !l.starts_with("Stacktrace:"))
        .filter_map(|l| re.captures(l).map(|c| c[1].to_string()))
        .collect()
}

fn our_jscrash() -> String {
    let p = Phone::new();
    p.demo();
    let tree = dump(&p);
    let center = |id: &str| -> (i32, i32) {
        fn find<'a>(n: &'a Value, id: &str) -> Option<&'a Value> {
            if n["attributes"]["id"] == id {
                return Some(n);
            }
            n["children"].as_array()?.iter().find_map(|c| find(c, id))
        }
        let b = find(&tree, id).unwrap()["attributes"]["bounds"]
            .as_str()
            .unwrap()
            .to_string();
        let v: Vec<i32> = b
            .split(|c: char| !c.is_ascii_digit())
            .filter(|s| !s.is_empty())
            .map(|s| s.parse().unwrap())
            .collect();
        ((v[0] + v[2]) / 2, (v[1] + v[3]) / 2)
    };
    let (x, y) = center("username");
    p.sh(&format!("uitest uiInput inputText {x} {y} ann"));
    let (x, y) = center("login");
    p.sh(&format!("uitest uiInput click {x} {y}"));
    // The home page appears after 800 ms of device time; poll with a hang guard.
    let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let t = p.sh(
            "uitest dumpLayout -p /data/local/tmp/h.json >/dev/null && cat /data/local/tmp/h.json",
        );
        if t.contains("\"crash\"") {
            break;
        }
        assert!(std::time::Instant::now() < until, "home page never came");
    }
    let tree2 = dump(&p);
    let b = {
        fn find<'a>(n: &'a Value, id: &str) -> Option<&'a Value> {
            if n["attributes"]["id"] == id {
                return Some(n);
            }
            n["children"].as_array()?.iter().find_map(|c| find(c, id))
        }
        find(&tree2, "crash").unwrap()["attributes"]["bounds"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let v: Vec<i32> = b
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect();
    p.sh(&format!(
        "uitest uiInput click {} {}",
        (v[0] + v[2]) / 2,
        (v[1] + v[3]) / 2
    ));
    let ls = p.sh("ls /data/log/faultlog/faultlogger/");
    let name = ls
        .lines()
        .find(|l| l.starts_with("jscrash-"))
        .expect("a jscrash file")
        .to_string();
    p.sh(&format!("cat /data/log/faultlog/faultlogger/{name}"))
}

fn crash_keys_cover(fixture_name: &str) -> Result<(), String> {
    let ours = crash_header_keys(&our_jscrash());
    let real = crash_header_keys(&fixture(fixture_name));
    let missing: Vec<_> = real.difference(&ours).collect();
    ensure(missing.is_empty(), || {
        format!("our jscrash lacks {missing:?}")
    })
}

fn param(key: &str, fixture_name: &str) -> Result<(), String> {
    same_lines(
        &Phone::new().sh(&format!("param get {key}")),
        &fixture(fixture_name),
    )
}

fn refused(cmd_answer: String, marker: &str) -> Result<(), String> {
    ensure(cmd_answer.contains(marker), || {
        format!("expected a loud refusal containing {marker:?}, got {cmd_answer:?}")
    })
}

/// Rewrites an hdc list to one line per device with whitespace-separated fields, USB serials
/// (`FMR0223C13000649` shape) replaced by `SERIAL`.
fn fields(t: &str) -> String {
    let serial = regex::Regex::new(r"^[A-Z]{3}\d{4}[A-Z]\d{8}$").unwrap();
    t.lines()
        .map(|l| {
            l.split_whitespace()
                .map(|w| if serial.is_match(w) { "SERIAL" } else { w })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn rows() -> Vec<Row> {
    vec![
        Row {
            fixture: "aa_dump_l_kuaishou.txt",
            command: "aa dump -l",
            status: Status::Same,
            note: "mission list line shapes (the README shows only the mission list, so the comparison stops at its ` }`)",
            check: Some(|| {
                let t = Phone::new().demo().sh("aa dump -l");
                let missions = &t[..t.find("\n }\n").unwrap() + 4];
                same_shapes(missions, &fixture("aa_dump_l_kuaishou.txt"))
            }),
        },
        Row {
            fixture: "aa_dump_l_mission_list.txt",
            command: "aa dump -l",
            status: Status::Same,
            note: "every section (missions, `ExtensionRecords:`, `PendingWantRecords:`, `AppRunningRecords:`) with the same line shapes",
            check: Some(|| {
                same_shapes(
                    &Phone::new().demo().sh("aa dump -l"),
                    &fixture("aa_dump_l_mission_list.txt"),
                )
            }),
        },
        Row {
            fixture: "aa_start_U_stdout.txt",
            command: "aa start -U http://www.baidu.com",
            status: Status::Same,
            note: "line for line (the browser answers the implicit want)",
            check: Some(|| {
                same_lines(
                    &Phone::new().sh("aa start -U http://www.baidu.com"),
                    &fixture("aa_start_U_stdout.txt"),
                )
            }),
        },
        Row {
            fixture: "aa_test_ohos_report_tail.txt",
            command: "aa test -b B -m M -s unittest R",
            status: Status::NotModelled,
            note: "no test runner (arkxtest) on the simulated phone; `aa test` fails with an `error:` line",
            check: Some(|| {
                refused(
                    Phone::new()
                        .sh("aa test -b com.tapflow.demo -s unittest OpenHarmonyTestRunner"),
                    "error:",
                )
            }),
        },
        Row {
            fixture: "bm_dump_a_truncated.txt",
            command: "bm dump -a",
            status: Status::Same,
            note: "`ID: 100:` then one tab-indented bundle per line, sorted; every bundle of the capture is installed (its `...` is the README's cut)",
            check: Some(|| {
                let ours = Phone::new().sh("bm dump -a");
                let real = fixture("bm_dump_a_truncated.txt");
                ensure(ours.starts_with("ID: 100:\n"), || ours.clone())?;
                let names: Vec<&str> = ours
                    .lines()
                    .skip(1)
                    .map(|l| l.strip_prefix('\t').unwrap_or("!"))
                    .collect();
                for b in real.lines().skip(1).map(str::trim).filter(|l| *l != "...") {
                    ensure(names.contains(&b), || format!("{b} not installed"))?;
                }
                ensure(names.windows(2).all(|w| w[0] < w[1]), || {
                    "not sorted".into()
                })
            }),
        },
        Row {
            fixture: "bm_dump_n_camera_abridged.txt",
            command: "bm dump -n com.huawei.hmos.camera",
            status: Status::Same,
            note: "`<bundle>:` then pretty JSON; every key path of the (abridged) capture is present",
            check: Some(|| {
                let m = missing_bm_keys(
                    "com.huawei.hmos.camera",
                    "bm_dump_n_camera_abridged.txt",
                    &[],
                );
                ensure(m.is_empty(), || format!("missing {m:?}"))
            }),
        },
        Row {
            fixture: "bm_dump_n_himovie_abridged.txt",
            command: "bm dump -n com.huawei.hmsapp.himovie",
            status: Status::Differs,
            note: "every key path is present except `extensionInfos` entries: the simulator models service extensions only, Huawei Video's are a form and a commonUI extension",
            check: Some(|| {
                let m = missing_bm_keys(
                    "com.huawei.hmsapp.himovie",
                    "bm_dump_n_himovie_abridged.txt",
                    &["extensionInfos"],
                );
                ensure(m.is_empty(), || format!("missing {m:?}"))
            }),
        },
        Row {
            fixture: "bm_dump_n_kuaishou_abridged_readme.txt",
            command: "bm dump -n com.tapflow.demo",
            status: Status::Same,
            note: "not JSON (the README elides parts with `...`), so compared by key names: every `\"key\":` of the capture appears in the demo app's dump",
            check: Some(|| {
                let re = regex::Regex::new(r#""([A-Za-z]+)":"#).unwrap();
                let ours = Phone::new().sh("bm dump -n com.tapflow.demo");
                let have: BTreeSet<String> =
                    re.captures_iter(&ours).map(|c| c[1].to_string()).collect();
                let real = fixture("bm_dump_n_kuaishou_abridged_readme.txt");
                let want: BTreeSet<String> =
                    re.captures_iter(&real).map(|c| c[1].to_string()).collect();
                let missing: Vec<_> = want.difference(&have).collect();
                ensure(missing.is_empty(), || format!("missing {missing:?}"))
            }),
        },
        Row {
            fixture: "bm_get_udid.txt",
            command: "bm get --udid",
            status: Status::Same,
            note: "line shapes (the UDID is 64 upper-case hex digits derived from the serial)",
            check: Some(|| {
                let ours = Phone::new().sh("bm get --udid");
                let real = fixture("bm_get_udid.txt");
                let re =
                    regex::Regex::new(r"^udid of current device is :\n[0-9A-F]{64}\n$").unwrap();
                ensure(re.is_match(&ours) && re.is_match(&real), || ours.clone())
            }),
        },
        Row {
            fixture: "cppcrash_faultlogger_com_ohos_note_dayu200_head.txt",
            command: "(a native crash's faultlogger file)",
            status: Status::NotModelled,
            note: "simulated apps crash with JS errors only (`jscrash-…` files); no native (`cppcrash`) crashes",
            check: None,
        },
        Row {
            fixture: "hdc_file_recv_success.txt",
            command: "hdc file recv REMOTE LOCAL",
            status: Status::Same,
            note: "line shapes, hdc's own `[I][…]` log line included",
            check: Some(|| {
                let p = Phone::new();
                p.sh("echo hi > /data/local/tmp/x.txt");
                same_shapes(
                    &p.hdc(&["file", "recv", "/data/local/tmp/x.txt", "x.txt"]),
                    &fixture("hdc_file_recv_success.txt"),
                )
            }),
        },
        Row {
            fixture: "hdc_file_send_success.txt",
            command: "hdc file send LOCAL REMOTE",
            status: Status::Same,
            note: "line shapes",
            check: Some(|| {
                let p = Phone::new();
                std::fs::write(p.cwd.path().join("a.txt"), b"abc").unwrap();
                same_shapes(
                    &p.hdc(&["file", "send", "a.txt", "/data/local/tmp/a.txt"]),
                    &fixture("hdc_file_send_success.txt"),
                )
            }),
        },
        Row {
            fixture: "hdc_fport_ls.txt",
            command: "hdc fport ls",
            status: Status::NotModelled,
            note: "port forwarding is not simulated: `[Fail]Unknown command...`",
            check: Some(|| refused(Phone::new().hdc(&["fport", "ls"]), "[Fail]")),
        },
        Row {
            fixture: "hdc_install_success.txt",
            command: "hdc -t KEY install entry-default-signed.hap",
            status: Status::Same,
            note: "line shapes (the path is the host's)",
            check: Some(|| {
                let p = Phone::new();
                let hap = hap("com.example.conf");
                std::fs::write(p.cwd.path().join("entry-default-signed.hap"), hap).unwrap();
                let key = p.key.clone();
                // The host path is the client's own.
                let re = regex::Regex::new(r"path:[^,]*,").unwrap();
                let ours = p.hdc(&["-t", &key, "install", "entry-default-signed.hap"]);
                let real = fixture("hdc_install_success.txt");
                same_shapes(&re.replace(&ours, "path:P,"), &re.replace(&real, "path:P,"))
            }),
        },
        Row {
            fixture: "hdc_list_targets.txt",
            command: "hdc list targets",
            status: Status::Same,
            note: "the same keys' shapes (a USB serial and the emulator's `127.0.0.1:5555`), as a set",
            check: Some(|| {
                let ours = Phone::with(2, true).hdc(&["list", "targets"]);
                same_shapes(&fields(&ours), &fields(&fixture("hdc_list_targets.txt")))
            }),
        },
        Row {
            fixture: "hdc_list_targets_v.txt",
            command: "hdc list targets -v",
            status: Status::Same,
            note: "the same fields per device, split on whitespace (the README padded the tabs)",
            check: Some(|| {
                let ours = Phone::with(2, true).hdc(&["list", "targets", "-v"]);
                same_shapes(&fields(&ours), &fields(&fixture("hdc_list_targets_v.txt")))
            }),
        },
        Row {
            fixture: "hdc_uninstall_success.txt",
            command: "hdc uninstall BUNDLE",
            status: Status::Same,
            note: "line for line",
            check: Some(|| {
                let p = Phone::new();
                let hap = hap("com.example.gone");
                std::fs::write(p.cwd.path().join("g.hap"), hap).unwrap();
                p.hdc(&["install", "g.hap"]);
                same_lines(
                    &p.hdc(&["uninstall", "com.example.gone"]),
                    &fixture("hdc_uninstall_success.txt"),
                )
            }),
        },
        Row {
            fixture: "hdc_version_v.txt",
            command: "hdc -v",
            status: Status::Differs,
            note: "same shape, another version: the capture's client is 2.0.0a, the simulator claims 3.1.0e, whose coded failures (`[E001005]`, `[E000004]`, `[E006001]`) it prints",
            check: Some(|| {
                let re = regex::Regex::new(r"^Ver: \d+\.\d+\.\d+[a-z]\n$").unwrap();
                let ours = Phone::new().hdc(&["-v"]);
                ensure(
                    re.is_match(&ours)
                        && re.is_match(&fixture("hdc_version_v.txt"))
                        && ours == "Ver: 3.1.0e\n",
                    || ours.clone(),
                )
            }),
        },
        Row {
            fixture: "hidumper_displaymanager_a_a_mate60pro.txt",
            command: "hidumper -s DisplayManagerService -a -a",
            status: Status::Same,
            note: "line shapes",
            check: Some(|| {
                same_shapes(
                    &Phone::new().sh("hidumper -s DisplayManagerService -a -a"),
                    &fixture("hidumper_displaymanager_a_a_mate60pro.txt"),
                )
            }),
        },
        Row {
            fixture: "hidumper_powermanager_a_s_mate60pro.txt",
            command: "hidumper -s PowerManagerService -a -s",
            status: Status::Same,
            note: "line shapes",
            check: Some(|| {
                same_shapes(
                    &Phone::new().sh("hidumper -s PowerManagerService -a -s"),
                    &fixture("hidumper_powermanager_a_s_mate60pro.txt"),
                )
            }),
        },
        Row {
            fixture: "hidumper_renderservice_screen_1216x2688_midscene_test_embedded.txt",
            command: "hidumper -s RenderService -a screen",
            status: Status::Differs,
            note: "a newer RenderService format (`render resolution=WxH`); the simulator prints the Mate 60 Pro capture's (`render size: WxH`), which clients parse alike",
            check: Some(|| {
                let ours = Phone::new().sh("hidumper -s RenderService -a screen");
                ensure(
                    ours.contains("render size: 1260x2720") && !ours.contains("render resolution="),
                    || ours.clone(),
                )
            }),
        },
        Row {
            fixture: "hidumper_renderservice_screen_mate60pro.txt",
            command: "hidumper -s RenderService -a screen",
            status: Status::Same,
            note: "line shapes, with the screen off as in the capture (`powerstatus=POWER_STATUS_OFF`)",
            check: Some(|| {
                let p = Phone::new();
                p.sh("power-shell suspend");
                same_shapes(
                    &p.sh("hidumper -s RenderService -a screen"),
                    &fixture("hidumper_renderservice_screen_mate60pro.txt"),
                )
            }),
        },
        Row {
            fixture: "hidumper_renderservice_screen_matex7_foldable_annotated.txt",
            command: "hidumper -s RenderService -a screen",
            status: Status::Differs,
            note: "a foldable with two screens; simulated phones have one screen",
            check: Some(|| {
                let ours = Phone::new().sh("hidumper -s RenderService -a screen");
                ensure(
                    ours.contains("screen[0]") && !ours.contains("screen[1]"),
                    || ours.clone(),
                )
            }),
        },
        Row {
            fixture: "hidumper_wms_a_window_list_next_2in1_trimmed_test_embedded.txt",
            command: "hidumper -s WindowManagerService -a '-a'",
            status: Status::Same,
            note: "the same header line, rows of 9 columns and three `[ … ]` groups, and the `Focus window:`, `Total window num:`, `Highlighted windows:` trailer (the capture is trimmed to two rows; banners and a phone's other trailer lines are ours only)",
            check: Some(|| {
                let ours = Phone::new()
                    .demo()
                    .sh("hidumper -s WindowManagerService -a '-a'");
                let real =
                    fixture("hidumper_wms_a_window_list_next_2in1_trimmed_test_embedded.txt");
                let row = regex::Regex::new(
                    r"^\S+ +\d+ +\d+ +\d+ +\d+ +\d+ +\d+ +-?\d+ +\d+ +\[ [^\]]+\] \[ [^\]]+\] \[ [^\]]+\]$",
                )
                .unwrap();
                let header = real.lines().next().unwrap();
                ensure(ours.lines().any(|l| l == header), || {
                    format!("no header {header:?} in\n{ours}")
                })?;
                for t in [ours.as_str(), real.as_str()] {
                    let rows = t.lines().filter(|l| row.is_match(l)).count();
                    ensure(rows >= 2, || format!("fewer than 2 rows in\n{t}"))?;
                    for k in [
                        "Focus window: ",
                        "Total window num: ",
                        "Highlighted windows: ",
                    ] {
                        ensure(t.lines().any(|l| l.starts_with(k)), || {
                            format!("no {k:?} in\n{t}")
                        })?;
                    }
                }
                Ok(())
            }),
        },
        Row {
            fixture: "hidumper_wms_a_window_list_openharmony_docs_720x1280.txt",
            command: "hidumper -s WindowManagerService -a '-a'",
            status: Status::Differs,
            note: "the pre-SceneBoard OpenHarmony format (lowercase `total window num:`, no Offset/Scale); the simulator is a HarmonyOS NEXT phone",
            check: Some(|| {
                let ours = Phone::new().sh("hidumper -s WindowManagerService -a '-a'");
                ensure(
                    ours.contains("Total window num:") && ours.contains("[ OffsetX OffsetY ]"),
                    || ours.clone(),
                )
            }),
        },
        Row {
            fixture: "hidumper_wms_w_window_detail_2in1_test_embedded.txt",
            command: "hidumper -s WindowManagerService -a '-w ID'",
            status: Status::Same,
            note: "every `Key:` of the capture (a trimmed sample) appears, in the same value shapes",
            check: Some(|| {
                let p = Phone::new();
                p.demo();
                let list = p.sh("hidumper -s WindowManagerService -a '-a'");
                let id = list
                    .lines()
                    .find(|l| l.starts_with("Focus window: "))
                    .map(|l| l.trim_start_matches("Focus window: ").trim().to_string())
                    .unwrap();
                let ours = shapes(&p.sh(&format!("hidumper -s WindowManagerService -a '-w {id}'")));
                let real = shapes(&fixture(
                    "hidumper_wms_w_window_detail_2in1_test_embedded.txt",
                ));
                let key = |s: &String| s.split(':').next().unwrap_or("").to_string();
                let ours_keys: BTreeSet<String> = ours.iter().map(key).collect();
                let missing: Vec<String> = real
                    .iter()
                    .map(key)
                    .filter(|k| !ours_keys.contains(k))
                    .collect();
                ensure(missing.is_empty(), || format!("missing keys {missing:?}"))
            }),
        },
        Row {
            fixture: "hilog_excerpt_emulator6_nwpucampus_webview.txt",
            command: "hilog -x",
            status: Status::Same,
            note: "every line has the capture's line format (`MM-DD HH:MM:SS.mmm pid tid L Tdomain/tag: msg`, pid and tid right-aligned)",
            check: Some(|| {
                let re = regex::Regex::new(
                    r"^\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} +\d+ +\d+ [DIWEF] [ACIKP][0-9a-f]{5}/\S*: ",
                )
                .unwrap();
                let ours = Phone::new().demo().sh("hilog -x");
                for t in [
                    ours.as_str(),
                    &fixture("hilog_excerpt_emulator6_nwpucampus_webview.txt"),
                ] {
                    if let Some(bad) = t.lines().find(|l| !re.is_match(l)) {
                        return Err(format!("line out of format: {bad:?}"));
                    }
                }
                Ok(())
            }),
        },
        Row {
            fixture: "hilog_help_older_version.txt",
            command: "hilog -h",
            status: Status::NotModelled,
            note: "hilog's help text is not reproduced (the capture is an older build's); the simulator refuses `-h`",
            check: Some(|| refused(Phone::new().sh("hilog -h"), "Unsupported option")),
        },
        Row {
            fixture: "hvigor_build_failed_arkts_compiler_errors.txt",
            command: "hvigorw assembleHap",
            status: Status::Host,
            note: "a host build tool's output, parsed by the build_app tool (crates/tapflow-tools/tests/tools/build_app*.rs)",
            check: None,
        },
        Row {
            fixture: "jscrash_with_hilog_emulator6_illegal_prop.txt",
            command: "cat /data/log/faultlog/faultlogger/jscrash-…",
            status: Status::Same,
            note: "the demo app's crash file has every header field of the capture",
            check: Some(|| crash_keys_cover("jscrash_with_hilog_emulator6_illegal_prop.txt")),
        },
        Row {
            fixture: "jscrash_with_hilog_emulator6_typeerror_web.txt",
            command: "cat /data/log/faultlog/faultlogger/jscrash-…",
            status: Status::Same,
            note: "the demo app's crash file has every header field of the capture",
            check: Some(|| crash_keys_cover("jscrash_with_hilog_emulator6_typeerror_web.txt")),
        },
        Row {
            fixture: "layout_haptest_logindemo_login_pretty.json",
            command: "uitest dumpLayout",
            status: Status::Differs,
            note: "an older uitest (17 attributes on the root); the simulator writes the newer set, a superset",
            check: Some(|| layout_keys_cover("layout_haptest_logindemo_login_pretty.json")),
        },
        Row {
            fixture: "layout_haptest_logindemo_save_keyboard_pretty.json",
            command: "uitest dumpLayout",
            status: Status::Differs,
            note: "older attribute set, as above; its secure keyboard's nodes are reproduced exactly (tests/e2e/sim_fidelity.rs)",
            check: Some(|| layout_keys_cover("layout_haptest_logindemo_save_keyboard_pretty.json")),
        },
        Row {
            fixture: "layout_haptest_soundrecorder_modalpage_pretty.json",
            command: "uitest dumpLayout",
            status: Status::Differs,
            note: "older attribute set, as above",
            check: Some(|| layout_keys_cover("layout_haptest_soundrecorder_modalpage_pretty.json")),
        },
        Row {
            fixture: "layout_haptest_vmall_web_keyboard_large_pretty.json",
            command: "uitest dumpLayout",
            status: Status::Same,
            note: "the same attribute names on the root and window nodes",
            check: Some(|| {
                layout_keys_cover("layout_haptest_vmall_web_keyboard_large_pretty.json")
            }),
        },
        Row {
            fixture: "layout_hmdriver2_uitest_demo_mate60pro_pretty.json",
            command: "uitest dumpLayout",
            status: Status::Same,
            note: "the same attribute names on the root and window nodes",
            check: Some(|| layout_keys_equal("layout_hmdriver2_uitest_demo_mate60pro_pretty.json")),
        },
        Row {
            fixture: "layout_ohauto_dayu200_locked_screen_no_window_compact.json",
            command: "power-shell suspend; uitest dumpLayout",
            status: Status::Same,
            note: "screen off: the compact root alone, bounds `[0,0][0,0]`, no children, same attribute names",
            check: Some(|| {
                let p = Phone::new();
                p.sh("power-shell suspend");
                let ours = p.sh("uitest dumpLayout -p /data/local/tmp/l.json >/dev/null && cat /data/local/tmp/l.json");
                let v: Value = serde_json::from_str(&ours).map_err(|e| e.to_string())?;
                let real: Value = serde_json::from_str(&fixture(
                    "layout_ohauto_dayu200_locked_screen_no_window_compact.json",
                ))
                .unwrap();
                ensure(
                    !ours.contains('\n')
                        && v["attributes"]["bounds"] == "[0,0][0,0]"
                        && v["children"] == serde_json::json!([]),
                    || ours.clone(),
                )?;
                ensure(layout_keys(&v).0 == layout_keys(&real).0, || {
                    "root attribute names differ".into()
                })
            }),
        },
        Row {
            fixture: "param_get_const_ohos_apiversion.txt",
            command: "param get const.ohos.apiversion",
            status: Status::Same,
            note: "line for line",
            check: Some(|| {
                param(
                    "const.ohos.apiversion",
                    "param_get_const_ohos_apiversion.txt",
                )
            }),
        },
        Row {
            fixture: "param_get_const_product_brand.txt",
            command: "param get const.product.brand",
            status: Status::Same,
            note: "line for line",
            check: Some(|| param("const.product.brand", "param_get_const_product_brand.txt")),
        },
        Row {
            fixture: "param_get_const_product_cpu_abilist.txt",
            command: "param get const.product.cpu.abilist",
            status: Status::Same,
            note: "line for line",
            check: Some(|| {
                param(
                    "const.product.cpu.abilist",
                    "param_get_const_product_cpu_abilist.txt",
                )
            }),
        },
        Row {
            fixture: "param_get_const_product_model.txt",
            command: "param get const.product.model",
            status: Status::Same,
            note: "line for line",
            check: Some(|| param("const.product.model", "param_get_const_product_model.txt")),
        },
        Row {
            fixture: "param_get_const_product_name.txt",
            command: "param get const.product.name",
            status: Status::Same,
            note: "line for line",
            check: Some(|| param("const.product.name", "param_get_const_product_name.txt")),
        },
        Row {
            fixture: "param_get_const_product_software_version.txt",
            command: "param get const.product.software.version",
            status: Status::Differs,
            note: "the same model on a later build (`5.0.0.60` vs the capture's `5.0.0.22`)",
            check: Some(|| {
                let ours = Phone::new().sh("param get const.product.software.version");
                ensure(
                    ours.starts_with("ALN-AL00 5.0.0.")
                        && fixture("param_get_const_product_software_version.txt")
                            .starts_with("ALN-AL00 5.0.0."),
                    || ours.clone(),
                )
            }),
        },
        Row {
            fixture: "uitest_dumplayout_stdout.txt",
            command: "uitest dumpLayout -p /data/local/tmp/layout_407568854.json",
            status: Status::Same,
            note: "line for line",
            check: Some(|| {
                same_lines(
                    &Phone::new().sh("uitest dumpLayout -p /data/local/tmp/layout_407568854.json"),
                    &fixture("uitest_dumplayout_stdout.txt"),
                )
            }),
        },
        Row {
            fixture: "uitest_uirecord_record_stdout.txt",
            command: "uitest uiRecord record",
            status: Status::NotModelled,
            note: "recording a person's touches is not simulated; uitest answers `Illegal argument: uiRecord`",
            check: Some(|| {
                refused(
                    Phone::new().sh("uitest uiRecord record"),
                    "Illegal argument: uiRecord",
                )
            }),
        },
    ]
}

/// The generated docs section.
fn table_markdown(rows: &[Row]) -> String {
    let mut s = String::from(
        "| Capture (`tests/fixtures/harmonyos/`) | Command | Simulator | How compared / why it differs |\n|---|---|---|---|\n",
    );
    for r in rows {
        s.push_str(&format!(
            "| `{}` | `{}` | {} | {} |\n",
            r.fixture,
            r.command,
            r.status.word(),
            r.note.replace('|', "\\|")
        ));
    }
    s
}

const BEGIN: &str =
    "<!-- conformance table: generated by crates/tapflow-sim/tests/sim/conformance.rs -->\n";
const END: &str = "<!-- end of conformance table -->\n";

#[test]
fn every_capture_has_a_row_and_every_row_holds() {
    let rows = rows();
    let dir =
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("tests/fixtures/harmonyos");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "SOURCES.md")
        .collect();
    files.sort();
    let covered: Vec<String> = rows.iter().map(|r| r.fixture.to_string()).collect();
    let missing: Vec<&String> = files.iter().filter(|f| !covered.contains(f)).collect();
    assert!(
        missing.is_empty(),
        "captures without a conformance row: {missing:?}"
    );
    let mut failures = Vec::new();
    for r in &rows {
        assert!(
            files.contains(&r.fixture.to_string()),
            "row for a missing file {}",
            r.fixture
        );
        match (r.status, r.check) {
            (Status::Host, None) | (Status::NotModelled, None) => {}
            (_, Some(check)) => {
                if let Err(e) = check() {
                    failures.push(format!("{} ({}): {e}", r.fixture, r.status.word()));
                }
            }
            (s, None) => panic!("{}: a `{}` row needs a check", r.fixture, s.word()),
        }
    }
    assert!(
        failures.is_empty(),
        "{} rows do not hold:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn docs_sim_md_table_is_generated_from_the_rows() {
    let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("docs/sim.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let table = table_markdown(&rows());
    let (start, end) = (
        doc.find(BEGIN)
            .expect("docs/sim.md lacks the conformance table markers"),
        doc.find(END).expect("docs/sim.md lacks the end marker"),
    );
    let current = &doc[start + BEGIN.len()..end];
    if current != table {
        if std::env::var_os("TAPFLOW_BLESS").is_some() {
            let new = format!("{}{BEGIN}{table}{}", &doc[..start], &doc[end..]);
            std::fs::write(&path, new).unwrap();
            return;
        }
        panic!(
            "docs/sim.md's conformance table is stale: regenerate it with TAPFLOW_BLESS=1 cargo test -p tapflow-sim --test sim"
        );
    }
}
