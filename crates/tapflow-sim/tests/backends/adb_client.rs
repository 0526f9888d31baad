//! The simulated Android device driven by the real `adb` client (Debian's 29.0.6): attached
//! with `adb connect` to a private server, then every command of issue 14's acceptance list
//! through the client, compared with what a device answers.

use crate::common::adb_env;

use adb_env::AdbEnv;
use tapflow_sim::Latency;
use tapflow_sim::android::{AndroidFarm, FarmOptions};

fn farm(n: usize) -> AndroidFarm {
    AndroidFarm::start(&FarmOptions {
        devices: n,
        latency: Latency::None,
        seed: 3,
        ..Default::default()
    })
    .expect("start the simulated devices")
}

#[test]
fn connect_devices_and_shell() {
    let f = farm(1);
    let env = AdbEnv::start();
    let addr = &f.addresses()[0];
    env.connect(addr);
    let listed = env.run(&["devices", "-l"]).text();
    assert!(listed.starts_with("List of devices attached\n"), "{listed}");
    let line = listed
        .lines()
        .find(|l| l.starts_with(addr.as_str()))
        .expect(&listed);
    assert!(
        line.contains(" device product:panther model:Pixel_7 device:panther transport_id:"),
        "{line}"
    );
    let out = env.on(addr, &["shell", "echo", "hi"]);
    assert_eq!(out.text(), "hi\n");
    assert_eq!(out.status, Some(0));
    let out = env.on(addr, &["shell", "false"]);
    assert_eq!(out.status, Some(1), "shell_v2 carries the exit status");
}

/// The device shell sees exactly what tapflow sends: one argv element after `shell`, every user
/// value single-quoted; adb itself joins several arguments with spaces (so they are re-split).
#[test]
fn shell_quoting_streams_and_exit_status() {
    let f = farm(1);
    let env = AdbEnv::start();
    let addr = &f.addresses()[0];
    env.connect(addr);
    let hostile = [
        "a  b",
        "it's",
        "$HOME",
        "`id`",
        "; rm -rf / #",
        "&& reboot",
        "|",
        "中文 ✓",
        "%s",
    ];
    let line = std::iter::once("echo".to_string())
        .chain(hostile.iter().map(|h| tapflow_device::hdc::quote::quote(h)))
        .collect::<Vec<_>>()
        .join(" ");
    let out = env.on(addr, &["shell", &line]);
    assert_eq!(out.text(), format!("{}\n", hostile.join(" ")));
    // Several arguments are joined by the client and split again by the device's sh.
    let out = env.on(addr, &["shell", "echo", "a  b"]);
    assert_eq!(out.text(), "a b\n");
    // shell_v2: stdout and stderr apart, the remote status is adb's exit status.
    let out = env.on(addr, &["shell", "echo out; echo err 1>&2; false"]);
    assert_eq!(out.text(), "out\n");
    assert_eq!(out.stderr, "err\n");
    assert_eq!(out.status, Some(1));
    let out = env.on(addr, &["shell", "no_such_program"]);
    assert_eq!(out.status, Some(127));
    assert!(
        out.stderr
            .contains("no_such_program: inaccessible or not found"),
        "{out:?}"
    );
    // `-x` turns the shell protocol off: `shell:` v1, merged streams, no exit status.
    let out = env.on(addr, &["shell", "-x", "echo out; echo err 1>&2; false"]);
    assert_eq!(out.text(), "out\nerr\n");
    assert_eq!(out.status, Some(0));
}

fn dump(env: &AdbEnv, addr: &str) -> tapflow_device::UiNode {
    let out = env.on(addr, &["exec-out", "uiautomator", "dump", "/dev/tty"]);
    assert_eq!(out.status, Some(0), "{out:?}");
    let text = out.text();
    let parts = tapflow_device::adb::parse::uiautomator::split_answer(&text);
    assert_eq!(
        tapflow_device::adb::parse::uiautomator::confirmation(parts.after),
        Some("/dev/tty"),
        "{text}"
    );
    let xml = parts.xml.expect("XML in the answer");
    assert!(xml.starts_with(
        "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\"><node "
    ));
    assert!(!xml.contains('\n'), "one line, as uiautomator writes it");
    tapflow_device::adb::parse::uiautomator::parse_dump(xml).expect("a parseable dump")
}

fn find<'a>(t: &'a tapflow_device::UiNode, id: &str) -> &'a tapflow_device::UiNode {
    t.walk()
        .find(|n| n.id() == id)
        .unwrap_or_else(|| panic!("no {id}"))
}

fn png_size(bytes: &[u8]) -> (u32, u32) {
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "PNG magic");
    let img = image::load_from_memory_with_format(bytes, image::ImageFormat::Png).expect("decodes");
    (img.width(), img.height())
}

#[test]
fn ui_dump_input_and_screencap_through_exec_out() {
    let f = farm(1);
    let env = AdbEnv::start();
    let addr = &f.addresses()[0];
    env.connect(addr);
    let home = dump(&env, addr);
    assert_eq!(home.children[0].attr("bundleName"), "com.android.launcher3");
    assert!(
        home.walk()
            .any(|n| n.text() == "Tapflow Demo" && n.attr("content-desc") == "Tapflow Demo")
    );
    let home_png = env.on(addr, &["exec-out", "screencap", "-p"]).stdout;
    assert_eq!(png_size(&home_png), (1080, 2400));

    let out = env.on(
        addr,
        &["shell", "am start -n 'com.tapflow.demo/.EntryAbility'"],
    );
    assert_eq!(
        out.text(),
        "Starting: Intent { cmp=com.tapflow.demo/.EntryAbility }\n",
        "{out:?}"
    );
    let login = dump(&env, addr);
    let user = find(&login, "username");
    assert_eq!(user.attr("resource-id"), "com.tapflow.demo:id/username");
    assert_eq!(user.attr("class"), "android.widget.EditText");
    assert_eq!(user.text(), "Username", "an empty field reports its hint");
    let pw = find(&login, "password");
    assert_eq!(pw.attr("password"), "true");
    let c = user.bounds().unwrap().center();
    let out = env.on(
        addr,
        &[
            "shell",
            &format!("input tap {} {} && input text 'Zo%se'", c.x, c.y),
        ],
    );
    assert_eq!(out.status, Some(0), "{out:?}");
    let typed = dump(&env, addr);
    assert_eq!(find(&typed, "username").text(), "Zo e");
    assert_eq!(find(&typed, "username").attr("focused"), "true");
    // Non-ASCII cannot be typed by `input text`: nothing is typed, an exception is printed.
    let out = env.on(addr, &["shell", "input text 'ë'"]);
    assert_eq!(out.status, Some(255));
    assert!(out.text().contains("NullPointerException"), "{out:?}");
    assert_eq!(find(&dump(&env, addr), "username").text(), "Zo e");
    let login_png = env.on(addr, &["exec-out", "screencap", "-p"]).stdout;
    assert_eq!(png_size(&login_png), (1080, 2400));
    assert_ne!(home_png, login_png, "the PNG shows the current screen");
    // The focused window, as dumpsys prints it.
    let out = env.on(addr, &["shell", "dumpsys window displays"]).text();
    assert!(out.contains("mCurrentFocus=Window{"), "{out}");
    assert!(
        out.contains(" u0 com.tapflow.demo/com.tapflow.demo.EntryAbility}"),
        "{out}"
    );
}

#[test]
fn push_and_pull_ten_megabytes_byte_exact() {
    let f = farm(1);
    let env = AdbEnv::start();
    let addr = &f.addresses()[0];
    env.connect(addr);
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("big.bin");
    // Every byte value, in a pattern that is not periodic at any WRTE or DATA size.
    let data: Vec<u8> = (0..10 * 1024 * 1024u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(&src, &data).unwrap();
    let out = env.on(addr, &["push", src.to_str().unwrap(), "/sdcard/big.bin"]);
    assert_eq!(out.status, Some(0), "{out:?}");
    assert!(out.text().contains("1 file pushed"), "{out:?}");
    let ls = env.on(addr, &["shell", "ls -l /sdcard/big.bin"]).text();
    assert!(ls.contains(&data.len().to_string()), "{ls}");
    let back = dir.path().join("back.bin");
    let out = env.on(addr, &["pull", "/sdcard/big.bin", back.to_str().unwrap()]);
    assert_eq!(out.status, Some(0), "{out:?}");
    assert!(out.text().contains("1 file pulled"), "{out:?}");
    assert!(
        std::fs::read(&back).unwrap() == data,
        "byte-exact round trip"
    );
    // A directory push and pull.
    let tree = dir.path().join("tree");
    std::fs::create_dir_all(tree.join("sub")).unwrap();
    std::fs::write(tree.join("a.txt"), b"alpha\n").unwrap();
    std::fs::write(tree.join("sub/b.txt"), b"beta\n").unwrap();
    let out = env.on(addr, &["push", tree.to_str().unwrap(), "/sdcard/tree"]);
    assert_eq!(out.status, Some(0), "{out:?}");
    let got = dir.path().join("got");
    let out = env.on(addr, &["pull", "/sdcard/tree", got.to_str().unwrap()]);
    assert_eq!(out.status, Some(0), "{out:?}");
    assert_eq!(std::fs::read(got.join("sub/b.txt")).unwrap(), b"beta\n");
    // Refusals in adb's words.
    let out = env.on(addr, &["pull", "/sdcard/nope.txt", back.to_str().unwrap()]);
    assert_eq!(out.status, Some(1));
    assert!(
        out.text().contains("'/sdcard/nope.txt'")
            && out.text().contains("No such file or directory"),
        "{out:?}"
    );
    let out = env.on(addr, &["push", src.to_str().unwrap(), "/system/x.bin"]);
    assert_eq!(out.status, Some(1));
    assert!(out.text().contains("Permission denied"), "{out:?}");
}

fn farm_with(features: &[&str]) -> AndroidFarm {
    AndroidFarm::start(&FarmOptions {
        devices: 1,
        latency: Latency::None,
        features: features.iter().map(|s| s.to_string()).collect(),
        ..Default::default()
    })
    .unwrap()
}

/// `adb install -r` of an APK the test builds, under each feature set (abb_exec, streamed
/// `exec:cmd`, push install), then the installed app in the package manager, started, and
/// uninstalled with `adb uninstall`.
#[test]
fn install_start_and_uninstall_an_apk_under_every_feature_set() {
    use tapflow_sim::android::apk::{build_apk, manifest};
    let dir = tempfile::tempdir().unwrap();
    let apk = dir.path().join("hello.apk");
    std::fs::write(
        &apk,
        build_apk(
            &manifest("com.example.hello", 7, "1.7", ".MainActivity"),
            None,
        ),
    )
    .unwrap();
    let old = dir.path().join("old.apk");
    std::fs::write(
        &old,
        build_apk(
            &manifest("com.example.hello", 3, "1.3", ".MainActivity"),
            None,
        ),
    )
    .unwrap();
    let bad = dir.path().join("bad.apk");
    std::fs::write(&bad, b"this is not a zip").unwrap();
    let sets: [(&[&str], &str); 3] = [
        (
            tapflow_sim::android::adbd::DEFAULT_FEATURES,
            "Performing Streamed Install",
        ),
        (&["shell_v2", "cmd"], "Performing Streamed Install"),
        (&[], "Performing Push Install"),
    ];
    for (features, banner) in sets {
        let f = farm_with(features);
        let env = AdbEnv::start();
        let addr = &f.addresses()[0];
        env.connect(addr);
        let out = env.on(addr, &["install", "-r", apk.to_str().unwrap()]);
        assert!(out.text().contains(banner), "{features:?}: {out:?}");
        assert!(
            out.text().lines().any(|l| l == "Success"),
            "{features:?}: {out:?}"
        );
        assert_eq!(out.status, Some(0));
        let pkgs = env.on(addr, &["shell", "pm list packages"]).text();
        assert!(
            pkgs.lines().any(|l| l == "package:com.example.hello"),
            "{pkgs}"
        );
        let info = env
            .on(addr, &["shell", "dumpsys package com.example.hello"])
            .text();
        assert!(
            info.contains("versionCode=7 ") && info.contains("versionName=1.7"),
            "{info}"
        );
        let out = env.on(
            addr,
            &[
                "shell",
                "monkey -p com.example.hello -c android.intent.category.LAUNCHER 1",
            ],
        );
        assert!(out.text().contains("Events injected: 1"), "{out:?}");
        let focus = env.on(addr, &["shell", "dumpsys window displays"]).text();
        assert!(
            focus.contains("u0 com.example.hello/com.example.hello.MainActivity}"),
            "{focus}"
        );
        // Downgrade and garbage are refused in the installer's words.
        let out = env.on(addr, &["install", "-r", old.to_str().unwrap()]);
        assert!(
            out.text().contains("INSTALL_FAILED_VERSION_DOWNGRADE")
                || out.stderr.contains("INSTALL_FAILED_VERSION_DOWNGRADE"),
            "{features:?}: {out:?}"
        );
        let out = env.on(addr, &["install", "-r", bad.to_str().unwrap()]);
        let all = format!("{}{}", out.text(), out.stderr);
        assert!(
            all.contains("INSTALL_PARSE_FAILED_NOT_APK"),
            "{features:?}: {out:?}"
        );
        if !features.is_empty() {
            assert_eq!(out.status, Some(1), "streamed installs fail with 1");
        }
        // The push install left no copy behind.
        let tmp = env.on(addr, &["shell", "ls /data/local/tmp"]).text();
        assert!(!tmp.contains(".apk"), "{tmp}");
        let out = env.on(addr, &["uninstall", "com.example.hello"]);
        assert_eq!(out.text(), "Success\n", "{features:?}: {out:?}");
        let out = env.on(addr, &["uninstall", "com.example.hello"]);
        assert!(
            out.text().contains("Failure [not installed for 0]"),
            "{out:?}"
        );
        if features.contains(&"shell_v2") {
            assert_eq!(out.status, Some(1));
        }
    }
}

#[test]
fn logcat_dump_carries_the_apps_lines_and_crashes() {
    let f = farm(1);
    let env = AdbEnv::start();
    let addr = &f.addresses()[0];
    env.connect(addr);
    env.on(
        addr,
        &["shell", "am start -n 'com.tapflow.demo/.EntryAbility'"],
    );
    let t = dump(&env, addr);
    let c = find(&t, "username").bounds().unwrap().center();
    env.on(
        addr,
        &[
            "shell",
            &format!("input tap {} {} && input text 'ann'", c.x, c.y),
        ],
    );
    let login = find(&dump(&env, addr), "login").bounds().unwrap().center();
    env.on(
        addr,
        &["shell", &format!("input tap {} {}", login.x, login.y)],
    );
    // The login completes after the app's 800 ms delay: poll the log for its marker.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let text = loop {
        let out = env.on(addr, &["logcat", "-d"]);
        assert_eq!(out.status, Some(0), "{out:?}");
        let text = out.text();
        if text.contains("LOGIN_SUCCESS user=ann") || std::time::Instant::now() > deadline {
            break text;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    assert!(text.contains("LOGIN_SUCCESS user=ann"), "{text}");
    assert!(text.starts_with("--------- beginning of "), "{text}");
    for l in text.lines().filter(|l| !l.starts_with("---------")) {
        assert!(
            tapflow_device::logs::logcat::parse_line(l).is_some(),
            "not threadtime: {l:?}"
        );
    }
    assert!(text.contains(" I ActivityTaskManager: START u0 {flg=0x10000000 cmp=com.tapflow.demo/.EntryAbility} from uid 2000"), "{text}");
    assert!(
        text.contains(
            " I ActivityTaskManager: Displayed com.tapflow.demo/.EntryAbility for user 0: +"
        ),
        "{text}"
    );
    let marker = text
        .lines()
        .find(|l| l.ends_with("LOGIN_SUCCESS user=ann"))
        .unwrap();
    assert!(marker.contains(" I DemoApp : LOGIN_SUCCESS"), "{marker}");
    // The crash button: an AndroidRuntime block, found by tapflow's crash parser.
    let crash = find(&dump(&env, addr), "crash").bounds().unwrap().center();
    env.on(
        addr,
        &["shell", &format!("input tap {} {}", crash.x, crash.y)],
    );
    let text = env.on(addr, &["logcat", "-d", "-b", "crash"]).text();
    let crashes = tapflow_device::logs::logcat::find_crashes(&text);
    assert_eq!(crashes.len(), 1, "{text}");
    assert_eq!(crashes[0].process.as_deref(), Some("com.tapflow.demo"));
    assert!(
        crashes[0]
            .summary
            .as_deref()
            .unwrap()
            .starts_with("java.lang.RuntimeException: TypeError: Cannot read property"),
        "{crashes:?}"
    );
    let all = env.on(addr, &["logcat", "-d"]).text();
    assert!(
        all.contains("I ActivityManager: Process com.tapflow.demo (pid "),
        "{all}"
    );
    // Filters: tag spec, and clearing.
    let only = env.on(addr, &["logcat", "-d", "DemoApp:I", "*:S"]).text();
    assert!(
        only.lines()
            .filter(|l| !l.starts_with("---"))
            .all(|l| l.contains(" DemoApp : ")),
        "{only}"
    );
    env.on(addr, &["logcat", "-c"]);
    let out = env.on(addr, &["shell", "logcat -d -b crash"]);
    assert_eq!(out.stdout, b"", "an empty read is zero bytes");
}
