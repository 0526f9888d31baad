//! Issue 10: the simulator gaps third-party clients found, each reproduced through the `hdc`
//! executable with the exact argv a peer sends, and compared with the real capture (line for line
//! where one exists, structurally otherwise).

use crate::common::shapes;
use crate::common::sim_daemon;

use shapes::{assert_same_shapes, shape};
use sim_daemon::{SimDaemon, fixture};

use tapflow_sim::DEMO_BUNDLE as DEMO;
const RECORDER: &str = "com.huawei.hmos.screenrecorder";
const RECORDER_ABILITY: &str = "com.huawei.hmos.screenrecorder.ServiceExtAbility";

fn dump(d: &SimDaemon) -> serde_json::Value {
    let out = d
        .sh("uitest dumpLayout -p /data/local/tmp/f.json >/dev/null && cat /data/local/tmp/f.json");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

fn find<'a>(
    n: &'a serde_json::Value,
    pred: &dyn Fn(&serde_json::Value) -> bool,
) -> Option<&'a serde_json::Value> {
    if pred(&n["attributes"]) {
        return Some(n);
    }
    n["children"].as_array()?.iter().find_map(|c| find(c, pred))
}

fn center(n: &serde_json::Value) -> (String, String) {
    let b = n["attributes"]["bounds"].as_str().unwrap();
    let v: Vec<i32> = b
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect();
    (
        ((v[0] + v[2]) / 2).to_string(),
        ((v[1] + v[3]) / 2).to_string(),
    )
}

fn tap_id(d: &SimDaemon, id: &str) {
    let tree = dump(d);
    let n = find(&tree, &|a| a["id"] == id).unwrap_or_else(|| panic!("no #{id}"));
    let (x, y) = center(n);
    assert_eq!(
        d.shell(&["uitest", "uiInput", "click", &x, &y]),
        "No Error\n"
    );
}

// ---------------------------------------------------------------- 1. aa start options

#[test]
fn gap1_aa_start_accepts_the_full_option_grammar() {
    let d = SimDaemon::start(&[]);
    // Before: `error: option --ps is not supported by the simulated device`.
    let started = d.shell(&[
        "aa",
        "start",
        "-b",
        RECORDER,
        "-a",
        RECORDER_ABILITY,
        "--ps",
        "CustomizedFileName",
        "x.mp4",
    ]);
    assert_eq!(started, "start ability successfully.\n");
    // `aa start -U …` succeeds, line for line as in the capture (before: rejected).
    assert_eq!(
        d.shell(&["aa", "start", "-U", "http://www.baidu.com"]),
        fixture("aa_start_U_stdout.txt")
    );
    // The want reached the browser, whose page reads `${want.uri}`.
    let tree = dump(&d);
    let url = find(&tree, &|a| a["id"] == "url").expect("url text");
    assert_eq!(url["attributes"]["text"], "http://www.baidu.com");
    // -A with -U (an implicit view), -e entity, typed parameters, flags.
    assert_eq!(
        d.shell(&[
            "aa",
            "start",
            "-A",
            "ohos.want.action.viewData",
            "-e",
            "entity.system.browsable",
            "-U",
            "https://example.com/x",
            "--pi",
            "n",
            "3",
            "--pb",
            "b",
            "true",
            "--psn",
            "e",
            "-D",
        ]),
        "start ability successfully.\n"
    );
    // -W prints the start report.
    let w = d.shell(&["aa", "start", "-a", "EntryAbility", "-b", DEMO, "-W"]);
    let lines: Vec<&str> = w.lines().collect();
    assert_eq!(lines[0], "StartMode: Cold");
    assert_eq!(lines[1], format!("BundleName: {DEMO}"));
    assert_eq!(lines[2], "AbilityName: EntryAbility");
    assert!(
        lines[3].starts_with("TotalTime: ") && lines[4].starts_with("WaitTime: "),
        "{w}"
    );
    assert_eq!(lines[5], "start ability successfully.");
    // `-b` alone starts the bundle's main ability (implicit within the bundle).
    assert_eq!(
        d.shell(&["aa", "start", "-b", DEMO]),
        "start ability successfully.\n"
    );
}

#[test]
fn gap1_aa_start_errors_are_the_tools_own() {
    let d = SimDaemon::start(&[]);
    let usage_first = "usage: aa start <options>";
    let unknown = d.shell(&["aa", "start", "-b", DEMO, "-x"]);
    assert!(
        unknown.starts_with(&format!("fail: unknown option.\n{usage_first}\n")),
        "{unknown}"
    );
    let missing = d.shell(&["aa", "start", "-b"]);
    assert!(missing.starts_with(&format!("error: option requires a value.\n{usage_first}\n")));
    let count = d.shell(&["aa", "start", "-b", DEMO, "--ps", "k"]);
    assert!(count.starts_with("invalid number of parameters for option --ps\nusage: aa start"));
    let int = d.shell(&["aa", "start", "-b", DEMO, "--pi", "k", "x"]);
    assert!(int.starts_with("invalid parameter x for integer option\nusage: aa start"));
    let no_b = d.shell(&["aa", "start", "-a", "EntryAbility"]);
    assert!(no_b.starts_with("error: -b <bundle-name> is expected\nusage: aa start"));
    let none = d.shell(&["aa", "start"]);
    assert!(none.starts_with("error: you must specify an option at least.\nusage: aa start"));
    let implicit = d.shell(&["aa", "start", "-A", "com.example.no.such.action"]);
    assert!(
        implicit.starts_with(
            "error: failed to start ability.\nError Code:10103101  Error Message:Failed to find a matching application for implicit launch.\nError cause: "
        ),
        "{implicit}"
    );
    let hidden = d.shell(&[
        "aa",
        "start",
        "-b",
        "com.huawei.hmos.camera",
        "-a",
        "com.huawei.hmos.camera.CollaborationAbility",
    ]);
    assert!(hidden.contains("Error Code:10103001  Error Message:Failed to verify the visibility of the target ability.\n"), "{hidden}");
}

// ---------------------------------------------------------------- 2. /proc status and stat

#[test]
fn gap2_proc_status_and_stat_for_app_processes() {
    let d = SimDaemon::start(&[]);
    d.shell(&["aa", "start", "-a", "EntryAbility", "-b", DEMO]);
    let pid = d.shell(&["pidof", DEMO]).trim().to_string();
    assert!(pid.parse::<u32>().is_ok(), "{pid}");
    // Before: `cat: /proc/<pid>/status: No such file or directory`.
    let status = d.shell(&["cat", &format!("/proc/{pid}/status")]);
    let fields: Vec<(&str, &str)> = status
        .lines()
        .map(|l| {
            l.split_once(":\t")
                .unwrap_or_else(|| panic!("not `Key:\\tvalue`: {l:?}"))
        })
        .collect();
    let get = |k: &str| fields.iter().find(|(f, _)| *f == k).map(|(_, v)| *v);
    assert_eq!(get("Name"), Some("com.tapflow.dem"), "comm keeps 15 bytes");
    assert_eq!(get("Pid"), Some(pid.as_str()));
    assert!(get("State").unwrap().starts_with(['R', 'S']));
    assert!(get("PPid").unwrap().parse::<u32>().is_ok());
    assert!(get("Threads").unwrap().parse::<u32>().unwrap() > 0);
    let rss = get("VmRSS").unwrap();
    assert!(
        regex::Regex::new(r"^ *\d+ kB$").unwrap().is_match(rss),
        "{rss:?}"
    );
    let rss_kb: u64 = rss.trim().trim_end_matches(" kB").parse().unwrap();
    let stat = d.shell(&["cat", &format!("/proc/{pid}/stat")]);
    let f: Vec<&str> = stat.trim_end().split(' ').collect();
    assert_eq!(f.len(), 52, "{stat}");
    assert_eq!(f[0], pid);
    assert_eq!(f[1], "(com.tapflow.dem)");
    assert_eq!(
        f[23].parse::<u64>().unwrap() * 4,
        rss_kb,
        "rss pages × 4 kB = VmRSS"
    );
    // Memory moves with what the app holds: a deeper page stack costs more.
    tap_id(&d, "username");
    d.shell(&["uitest", "uiInput", "text", "ann"]);
    tap_id(&d, "login");
    let home = shapes_wait(&d, "greeting");
    assert!(home);
    let after = d.shell(&["cat", &format!("/proc/{pid}/status")]);
    assert!(after.contains("\nVmRSS:\t"));
    // A process that is gone has no /proc entry.
    d.shell(&["aa", "force-stop", DEMO]);
    assert_eq!(
        d.shell(&["cat", &format!("/proc/{pid}/status")]),
        format!("cat: /proc/{pid}/status: No such file or directory\n")
    );
}

/// Polls dumps until an element with `id` shows (the login completes after 800 ms of device
/// time); a generous hang guard, not a timing assertion.
fn shapes_wait(d: &SimDaemon, id: &str) -> bool {
    let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while std::time::Instant::now() < until {
        if find(&dump(d), &|a| a["id"] == id).is_some() {
            return true;
        }
    }
    false
}

// ---------------------------------------------------------------- 3. bm clean -d -c

#[test]
fn gap3_bm_clean_first_flag_wins_and_data_goes() {
    let d = SimDaemon::start(&[]);
    d.shell(&["aa", "start", "-a", "EntryAbility", "-b", DEMO]);
    let file = "/data/app/el2/100/base/com.tapflow.demo/files/note.txt";
    d.sh(&format!("echo kept > {file}"));
    tap_id(&d, "username");
    d.shell(&["uitest", "uiInput", "text", "alice"]);
    // Before: `clean bundle cache files successfully.` and the data survived.
    assert_eq!(
        d.shell(&["bm", "clean", "-n", DEMO, "-d", "-c"]),
        "clean bundle data files successfully.\n"
    );
    assert_eq!(
        d.shell(&["cat", file]),
        format!("cat: {file}: No such file or directory\n")
    );
    assert_eq!(d.shell(&["pidof", DEMO]), "", "clearing data stops the app");
    d.shell(&["aa", "start", "-a", "EntryAbility", "-b", DEMO]);
    let tree = dump(&d);
    let field = find(&tree, &|a| a["id"] == "username").unwrap();
    assert_eq!(field["attributes"]["text"], "", "the typed state is gone");
    // The other order cleans the cache; the grammar's errors are bm's own.
    assert_eq!(
        d.shell(&["bm", "clean", "-n", DEMO, "-c", "-d"]),
        "clean bundle cache files successfully.\n"
    );
    let none = d.shell(&["bm", "clean", "-n", DEMO]);
    assert!(none.starts_with("error: you must specify '-c' or '-d' for 'bm clean' option.\nusage: bm clean <options>\n"), "{none}");
}

// ---------------------------------------------------------------- 4. aa dump -l sections

#[test]
fn gap4_aa_dump_l_has_every_section_of_the_capture() {
    let d = SimDaemon::start(&[]);
    d.shell(&["aa", "start", "-a", "EntryAbility", "-b", DEMO]);
    let fg = d.shell(&["aa", "dump", "-l"]);
    let real = fixture("aa_dump_l_mission_list.txt");
    let top = |t: &str| -> Vec<String> {
        t.lines()
            .filter(|l| {
                let indent = l.len() - l.trim_start().len();
                indent <= 4 && (l.trim_end().ends_with(':') || l.trim_end().ends_with('{'))
            })
            .map(shape)
            .collect()
    };
    assert_eq!(top(&fg), top(&real), "same sections in the same order");
    assert_same_shapes("aa dump -l", &fg, &real);
    // The app goes to the background: its mission says so, yet the first `state #FOREGROUND`
    // line of the dump (SceneBoard's engine extension) still fools a first-match parser.
    assert_eq!(
        d.shell(&["uitest", "uiInput", "keyEvent", "Home"]),
        "No Error\n"
    );
    let bg = d.shell(&["aa", "dump", "-l"]);
    let missions = tapflow_device::hdc::parse::aa::parse_missions(&bg);
    assert_eq!(missions.len(), 1);
    assert_eq!(missions[0].state, "BACKGROUND");
    let first_fg = bg
        .lines()
        .position(|l| l.contains("state #FOREGROUND"))
        .unwrap();
    let ext = bg
        .lines()
        .position(|l| l.trim() == "ExtensionRecords:")
        .unwrap();
    assert!(
        first_fg > ext,
        "first #FOREGROUND is a system record:\n{bg}"
    );
}

// ---------------------------------------------------------------- 5. screen recording

/// Records the demo's login on the phone and fetches the MP4 as a peer does; returns its bytes.
fn record_login(d: &SimDaemon) -> Vec<u8> {
    let start = [
        "aa",
        "start",
        "-b",
        RECORDER,
        "-a",
        RECORDER_ABILITY,
        "--ps",
        "CustomizedFileName",
        "x.mp4",
    ];
    assert_eq!(d.shell(&start), "start ability successfully.\n");
    // While recording, the recorder's service is an extension record.
    assert!(
        d.shell(&["aa", "dump", "-l"])
            .contains(&format!("uri [/{RECORDER}/entry/{RECORDER_ABILITY}]"))
    );
    d.shell(&["aa", "start", "-a", "EntryAbility", "-b", DEMO]);
    tap_id(d, "username");
    d.shell(&["uitest", "uiInput", "text", "bob"]);
    assert_eq!(
        d.shell(&["aa", "start", "-b", RECORDER, "-a", RECORDER_ABILITY]),
        "start ability successfully.\n"
    );
    assert!(
        !d.shell(&["aa", "dump", "-l"]).contains(RECORDER_ABILITY),
        "the recorder stopped"
    );
    let q = d.shell(&["mediatool", "query", "x.mp4", "-u"]);
    let lines: Vec<&str> = q.lines().collect();
    assert_eq!(&lines[..2], ["find 1 result", "uri"], "{q}");
    let uri = lines[2].trim_matches('"');
    assert!(
        regex::Regex::new(r"^file://media/Photo/\d+/VID_\d+_\d{3}/x\.mp4$")
            .unwrap()
            .is_match(uri),
        "{uri}"
    );
    let recv = d.shell(&["mediatool", "recv", uri, "/data/local/tmp"]);
    assert_eq!(recv, "Table Name: Photos\n/data/local/tmp/x.mp4\n");
    let got = d.hdc(&["file", "recv", "/data/local/tmp/x.mp4", "x.mp4"]);
    assert!(got.contains("FileTransfer finish"), "{got}");
    std::fs::read(d.host("x.mp4")).unwrap()
}

#[test]
fn gap5_screen_recording_makes_a_real_mp4_of_the_screen() {
    let d = SimDaemon::start(&[]);
    let bytes = record_login(&d);
    // An independent MP4 parser reads it back: one video track of JPEG frames.
    let size = bytes.len() as u64;
    let mut r = mp4::Mp4Reader::read_header(std::io::Cursor::new(&bytes), size).unwrap();
    assert_eq!(r.tracks().len(), 1);
    let (&id, track) = r.tracks().iter().next().unwrap();
    assert_eq!(track.track_type().unwrap(), mp4::TrackType::Video);
    let (w, h) = (track.width() as u32, track.height() as u32);
    assert_eq!((w, h), (630, 1360), "half of the 1260x2720 screen");
    let n = r.sample_count(id).unwrap();
    assert!(
        n >= 3,
        "launcher, login page, typed text, keyboard: {n} frames"
    );
    let mut frames = Vec::new();
    for i in 1..=n {
        let s = r.read_sample(id, i).unwrap().unwrap();
        let img = image::load_from_memory_with_format(&s.bytes, image::ImageFormat::Jpeg).unwrap();
        assert_eq!((img.width(), img.height()), (w, h));
        frames.push(s.bytes.to_vec());
    }
    frames.dedup();
    assert_eq!(
        frames.len() as u32,
        n,
        "every frame shows a different screen"
    );
}

#[test]
fn gap5_ffprobe_reads_the_recording() {
    let d = SimDaemon::start(&[]);
    record_login(&d);
    let probe = std::process::Command::new("ffprobe")
        .args([
            "-v",
            "error",
            "-count_frames",
            "-show_streams",
            "-of",
            "json",
        ])
        .arg(d.host("x.mp4"))
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "ffprobe not found ({e}): run scripts/test-deps.d/20-ffmpeg.sh (or scripts/test)"
            )
        });
    assert!(
        probe.status.success(),
        "{}",
        String::from_utf8_lossy(&probe.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&probe.stdout).unwrap();
    let s = &v["streams"][0];
    assert_eq!(s["codec_type"], "video");
    assert_eq!(s["codec_name"], "mjpeg");
    assert_eq!(
        (s["width"].as_u64(), s["height"].as_u64()),
        (Some(630), Some(1360))
    );
    let frames: u64 = s["nb_read_frames"].as_str().unwrap().parse().unwrap();
    assert!(frames >= 3, "{s}");
}

// ---------------------------------------------------------------- 6. minor gaps

#[test]
fn gap6_coded_hdc_failures_for_the_claimed_version() {
    let d = SimDaemon::start(&[]);
    assert_eq!(d.hdc(&["-v"]), "Ver: 3.1.0e\n");
    // Before: `[Fail]Not any installation package was found`.
    assert_eq!(
        d.hdc(&["install", "missing.hap"]),
        "[Fail][E006001] Not any installation package was found\n"
    );
    assert_eq!(
        d.hdc(&["-t", "NOPE0000X00000000", "shell", "ls"]),
        "[Fail][E001005] Device not found or connected\n"
    );
}

/// The IME window's node skeleton: (depth, type, id) of every node.
fn skeleton(n: &serde_json::Value, depth: usize, out: &mut Vec<(usize, String, String)>) {
    let a = &n["attributes"];
    out.push((
        depth,
        a["type"].as_str().unwrap_or("").to_string(),
        a["id"].as_str().unwrap_or("").to_string(),
    ));
    for c in n["children"].as_array().into_iter().flatten() {
        skeleton(c, depth + 1, out);
    }
}

#[test]
fn gap6_password_field_raises_the_secure_keyboard() {
    let d = SimDaemon::start(&[]);
    d.shell(&["aa", "start", "-a", "EntryAbility", "-b", DEMO]);
    tap_id(&d, "password");
    let tree = dump(&d);
    let ime = find(&tree, &|a| {
        a["type"] == "root" && a["bundleName"] == "com.huawei.hmos.inputmethod"
    })
    .expect("IME window");
    let real: serde_json::Value = serde_json::from_str(&fixture(
        "layout_haptest_logindemo_save_keyboard_pretty.json",
    ))
    .unwrap();
    let real_ime = &real["children"][2];
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    skeleton(ime, 0, &mut ours);
    skeleton(real_ime, 0, &mut theirs);
    assert_eq!(ours, theirs, "the secure keyboard's nodes, as captured");
    assert!(find(ime, &|a| a["text"] == "华为安全键盘").is_some());
    // Its keys are drawn: tapping the canvas still types into the field.
    let canvas = find(ime, &|a| a["id"] == "CanvasKeyboard").unwrap();
    let b: Vec<i32> = canvas["attributes"]["bounds"]
        .as_str()
        .unwrap()
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect();
    let (x, y) = (b[0] + (b[2] - b[0]) / 20, b[1] + (b[3] - b[1]) / 8);
    d.shell(&["uitest", "uiInput", "click", &x.to_string(), &y.to_string()]);
    d.shell(&["uitest", "uiInput", "keyEvent", "Back"]);
    // The username field still raises the normal keyboard.
    tap_id(&d, "username");
    let tree = dump(&d);
    assert!(find(&tree, &|a| a["text"] == "华为安全键盘").is_none());
    assert!(find(&tree, &|a| a["type"] == "Button" && a["text"] == "q").is_some());
}

#[test]
fn gap6_bm_dump_a_lists_the_system_bundles_of_a_phone() {
    let d = SimDaemon::start(&[]);
    let all = d.shell(&["bm", "dump", "-a"]);
    let ours: Vec<&str> = all
        .lines()
        .skip(1)
        .map(|l| l.trim_start_matches('\t'))
        .collect();
    assert!(all.starts_with("ID: 100:\n\t"));
    let mut sorted = ours.clone();
    sorted.sort();
    assert_eq!(ours, sorted, "sorted as the bundle manager's map");
    let real = fixture("bm_dump_a_truncated.txt");
    for b in real.lines().skip(1).map(str::trim).filter(|l| *l != "...") {
        assert!(ours.contains(&b), "{b} missing from {ours:?}");
    }
    assert!(ours.len() >= 28, "{}", ours.len());
    assert!(ours.contains(&DEMO) && ours.contains(&RECORDER));
}

/// `--latency none` answers a slow swipe at once; `realistic` spends its distance / velocity
/// (2300 px at 200 px/s = 11.5 s of device time). Checked against the transport's deadline, as a
/// killed process would be, not by timing the test.
#[test]
fn gap6_latency_none_skips_a_swipes_duration() {
    use std::time::Duration;
    use tapflow_sim::{Latency, SimOptions, Simulator};
    let swipe: Vec<String> = ["shell", "uitest uiInput swipe 600 2500 600 200 200"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let cwd = tempfile::tempdir().unwrap();
    let run = |latency| {
        let sim = Simulator::new(SimOptions {
            latency,
            ..Default::default()
        });
        sim.handle_with_timeout(&swipe, cwd.path(), Duration::from_secs(3))
    };
    assert_eq!(run(Latency::None).unwrap().stdout_text(), "No Error\n");
    assert!(
        run(Latency::Realistic).is_err(),
        "a realistic 11.5 s swipe outlives a 3 s deadline"
    );
}
