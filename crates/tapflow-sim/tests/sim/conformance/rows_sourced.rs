//! The second conformance table: commands third-party clients (agent-device, adbutils,
//! harmonyos-dev-mcp) send that have no capture under `tests/fixtures/`, each checked against
//! what its source (AOSP's code, a client's parser, an OpenHarmony capture or document) says a
//! device answers. One row per command: its platform, the source, and a check of the
//! simulator's answer (status and the lines or fields clients read).
//!
//! Generated into `docs/sim.md` between its own markers, like the capture table.

use super::Phone;
use super::checks::ensure;
use tapflow_sim::Latency;
use tapflow_sim::android::AndroidDevice;
use tapflow_sim::android::profile::AndroidProfile;
use tapflow_sim::faults::FaultSpec;

pub(super) struct Sourced {
    pub platform: &'static str,
    pub command: &'static str,
    pub source: &'static str,
    pub check: fn() -> Result<(), String>,
}

/// A fresh simulated Android phone.
fn android() -> AndroidDevice {
    AndroidDevice::new(
        AndroidProfile::default_for("SIM", 0),
        0,
        1,
        FaultSpec::none(),
        Latency::None,
    )
}

/// Runs `cmd` (stderr apart): `(stdout, stderr, status)`.
fn sh(d: &AndroidDevice, cmd: &str) -> (String, String, i32) {
    let r = d.run(cmd, true);
    (
        String::from_utf8_lossy(&r.out).into_owned(),
        String::from_utf8_lossy(&r.err).into_owned(),
        r.status,
    )
}

fn ok_with(d: &AndroidDevice, cmd: &str, want: &[&str]) -> Result<(), String> {
    let (out, err, st) = sh(d, cmd);
    ensure(st == 0, || format!("{cmd}: status {st}\n{out}{err}"))?;
    for w in want {
        ensure(out.contains(w), || format!("{cmd}: lacks {w:?}:\n{out}"))?;
    }
    Ok(())
}

fn demo(d: &AndroidDevice) {
    sh(d, "am start -n com.tapflow.demo/.EntryAbility");
}

pub(super) fn rows() -> Vec<Sourced> {
    vec![
        Sourced {
            platform: "Android",
            command: "logcat -v time --pid N (streams until killed)",
            source: "AOSP logcat (`logprint.cpp` FORMAT_TIME `%s %c/%-8s(%5d): `); `docs/reference/adb.md` §4",
            check: || {
                let d = android();
                demo(&d);
                let pid = sh(&d, "pidof com.tapflow.demo").0.trim().to_string();
                // Buffered, a stream shows its snapshot; the streaming itself is tested through adb.
                let (out, _, st) = sh(&d, &format!("logcat -v time --pid {pid}"));
                let line = out
                    .lines()
                    .find(|l| !l.starts_with("---------"))
                    .unwrap_or("");
                let re = regex::Regex::new(&format!(
                    r"^\d\d-\d\d \d\d:\d\d:\d\d\.\d{{3}} [VDIWEF]/.{{8,}}\(\s*{pid}\): "
                ))
                .unwrap();
                ensure(st == 0 && re.is_match(line), || format!("{st}: {out}"))
            },
        },
        Sourced {
            platform: "Android",
            command: "logcat -d --pid N",
            source: "AOSP logcat's getopt_long: `--pid` takes its value after `=` or a space",
            check: || {
                let d = android();
                demo(&d);
                let pid = sh(&d, "pidof com.tapflow.demo").0.trim().to_string();
                let (a, _, s1) = sh(&d, &format!("logcat -d --pid {pid}"));
                let (b, _, s2) = sh(&d, &format!("logcat -d --pid={pid}"));
                ensure(
                    s1 == 0 && s2 == 0 && a == b && a.contains(&format!(" {pid} ")),
                    || format!("space: {a}\nequals: {b}"),
                )
            },
        },
        Sourced {
            platform: "Android",
            command: "cmd package query-activities --brief -a android.intent.action.MAIN -c android.intent.category.LAUNCHER",
            source: "AOSP `PackageManagerShellCommand.runQueryIntentActivities` / `printResolveInfo` (brief)",
            check: || {
                ok_with(
                    &android(),
                    "cmd package query-activities --brief -a android.intent.action.MAIN -c android.intent.category.LAUNCHER",
                    &[
                        " activities found:\n  Activity #0:\n    priority=0 preferredOrder=0 match=0x108000",
                        "    com.tapflow.demo/.EntryAbility\n",
                    ],
                )
            },
        },
        Sourced {
            platform: "Android",
            command: "cmd package has-feature X",
            source: "AOSP `runHasFeature`: prints the boolean, status 0 when true, 1 when false",
            check: || {
                let d = android();
                ok_with(
                    &d,
                    "cmd package has-feature android.hardware.touchscreen",
                    &["true\n"],
                )?;
                let (out, _, st) = sh(&d, "cmd package has-feature com.example.none");
                ensure(out == "false\n" && st == 1, || format!("{st}: {out}"))
            },
        },
        Sourced {
            platform: "Android",
            command: "pm list features",
            source: "AOSP `runListFeatures`: `feature:NAME` lines and `feature:reqGlEsVersion=0x…`",
            check: || {
                ok_with(
                    &android(),
                    "pm list features",
                    &[
                        "feature:android.hardware.touchscreen\n",
                        "feature:reqGlEsVersion=0x30002\n",
                    ],
                )
            },
        },
        Sourced {
            platform: "Android",
            command: "am start -W -a ACTION [-c CATEGORY] -p PKG",
            source: "AOSP `ActivityManagerShellCommand.runStartActivity`: an intent is resolved; `-W` prints `Status: ok` and the activity",
            check: || {
                let d = android();
                ok_with(
                    &d,
                    "am start -W -a android.intent.action.MAIN -c android.intent.category.LAUNCHER -p com.tapflow.demo",
                    &[
                        "Starting: Intent { act=android.intent.action.MAIN cat=[android.intent.category.LAUNCHER] pkg=com.tapflow.demo }\n",
                        "Status: ok\n",
                        "Activity: com.tapflow.demo/.EntryAbility\n",
                    ],
                )?;
                let (_, err, st) = sh(&d, "am start -W -a com.example.NOTHING -p com.tapflow.demo");
                ensure(st != 0 && err.contains("unable to resolve Intent"), || {
                    format!("{st}: {err}")
                })
            },
        },
        Sourced {
            platform: "Android",
            command: "am get-current-user",
            source: "AOSP `runGetCurrentUser`: the user id alone",
            check: || {
                let (out, _, st) = sh(&android(), "am get-current-user");
                ensure(out == "0\n" && st == 0, || out.clone())
            },
        },
        Sourced {
            platform: "Android",
            command: "dumpsys input_method",
            source: "AOSP `InputMethodManagerService.dump`: `mInputShown=` (agent-device's keyboard state)",
            check: || {
                let d = android();
                ok_with(
                    &d,
                    "dumpsys input_method",
                    &["mInputShown=false", "mCurMethodId="],
                )?;
                demo(&d);
                // The demo's first field: a tap focuses it and the keyboard shows.
                let xml = sh(
                    &d,
                    "uiautomator dump /sdcard/w.xml >/dev/null; cat /sdcard/w.xml",
                )
                .0;
                let at = xml
                    .find("class=\"android.widget.EditText\"")
                    .ok_or("no EditText")?;
                let b = &xml[at..];
                let b = &b[b.find("bounds=\"[").unwrap() + 9..];
                let nums: Vec<i32> = b[..b.find('"').unwrap()]
                    .split(|c: char| !c.is_ascii_digit())
                    .filter_map(|n| n.parse().ok())
                    .collect();
                sh(
                    &d,
                    &format!(
                        "input tap {} {}",
                        (nums[0] + nums[2]) / 2,
                        (nums[1] + nums[3]) / 2
                    ),
                );
                ok_with(&d, "dumpsys input_method", &["mInputShown=true"])
            },
        },
        Sourced {
            platform: "Android",
            command: "dumpsys display",
            source: "AOSP `DisplayViewport.toString` (`orientation=`, adbutils `rotation()`), `DisplayDevice` `mCurrentOrientation`; uiautomator's `<hierarchy rotation=>`",
            check: || {
                let d = android();
                ok_with(
                    &d,
                    "dumpsys display",
                    &["orientation=0,", "mScreenState=ON"],
                )?;
                sh(
                    &d,
                    "settings put system accelerometer_rotation 0; settings put system user_rotation 1",
                );
                ok_with(
                    &d,
                    "dumpsys display",
                    &["orientation=1,", "deviceWidth=2400"],
                )?;
                // agent-device confirms a rotation from the dump's hierarchy.
                ok_with(
                    &d,
                    "uiautomator dump /sdcard/w.xml >/dev/null; cat /sdcard/w.xml",
                    &["<hierarchy rotation=\"1\">"],
                )
            },
        },
        Sourced {
            platform: "Android",
            command: "dumpsys gfxinfo PKG framestats",
            source: "AOSP `GfxInfo` dump: `** Graphics info for pid P [PKG] **`, `---PROFILEDATA---`",
            check: || {
                let d = android();
                demo(&d);
                ok_with(
                    &d,
                    "dumpsys gfxinfo com.tapflow.demo framestats",
                    &[
                        "** Graphics info for pid ",
                        "Total frames rendered: ",
                        "---PROFILEDATA---\n",
                    ],
                )
            },
        },
        Sourced {
            platform: "Android",
            command: "dumpsys meminfo PKG",
            source: "AOSP `ActivityThread` meminfo: `** MEMINFO in pid P [PKG] **`, `TOTAL PSS:` (agent-device's perf)",
            check: || {
                let d = android();
                ok_with(
                    &d,
                    "dumpsys meminfo com.tapflow.demo",
                    &["No process found for: com.tapflow.demo\n"],
                )?;
                demo(&d);
                ok_with(
                    &d,
                    "dumpsys meminfo com.tapflow.demo",
                    &["** MEMINFO in pid ", "TOTAL PSS:", "TOTAL RSS:"],
                )
            },
        },
        Sourced {
            platform: "Android",
            command: "dumpsys cpuinfo",
            source: "AOSP `ProcessCpuTracker.printCurrentState`: `N% PID/NAME: N% user + N% kernel`",
            check: || {
                let d = android();
                demo(&d);
                let pid = sh(&d, "pidof com.tapflow.demo").0.trim().to_string();
                ok_with(
                    &d,
                    "dumpsys cpuinfo",
                    &[&format!("% {pid}/com.tapflow.demo: "), "% TOTAL: "],
                )
            },
        },
        Sourced {
            platform: "Android",
            command: "dumpsys window windows",
            source: "AOSP `WindowManagerService.dumpWindowsLocked` header; adbutils `app_current()` reads `mCurrentFocus`",
            check: || {
                let d = android();
                demo(&d);
                ok_with(
                    &d,
                    "dumpsys window windows",
                    &[
                        "WINDOW MANAGER WINDOWS (dumpsys window windows)\n",
                        "mCurrentFocus=Window{",
                        "com.tapflow.demo/com.tapflow.demo.EntryAbility}",
                    ],
                )
            },
        },
        Sourced {
            platform: "Android",
            command: "dumpsys power",
            source: "AOSP `PowerManagerService.dumpInternal`: `mHoldingDisplaySuspendBlocker` (adbutils `is_screen_on()`)",
            check: || {
                let d = android();
                ok_with(
                    &d,
                    "dumpsys power",
                    &["mHoldingDisplaySuspendBlocker=true\n"],
                )?;
                sh(&d, "input keyevent KEYCODE_POWER");
                ok_with(
                    &d,
                    "dumpsys power",
                    &["mHoldingDisplaySuspendBlocker=false\n"],
                )
            },
        },
        Sourced {
            platform: "Android",
            command: "cmd uimode night yes",
            source: "AOSP `UiModeManagerService.Shell.handleNightMode`: sets, then prints `Night mode: yes`",
            check: || {
                let d = android();
                ok_with(&d, "cmd uimode night yes", &["Night mode: yes\n"])?;
                ok_with(&d, "cmd uimode night", &["Night mode: yes\n"])
            },
        },
        Sourced {
            platform: "Android",
            command: "svc wifi disable",
            source: "AOSP `svc` (`WifiCommand`): silent, status 0; `settings get global wifi_on` follows",
            check: || {
                let d = android();
                let (out, _, st) = sh(&d, "svc wifi disable");
                ensure(out.is_empty() && st == 0, || out.clone())?;
                ok_with(&d, "settings get global wifi_on", &["0\n"])
            },
        },
        Sourced {
            platform: "Android",
            command: "test -e FILE; command -v NAME; which NAME",
            source: "toybox `test`, `which`; mksh `command -v`",
            check: || {
                let d = android();
                sh(&d, "echo x > /sdcard/t.txt");
                ok_with(&d, "test -e /sdcard/t.txt && echo yes", &["yes\n"])?;
                let (_, _, st) = sh(&d, "test -e /sdcard/none");
                ensure(st == 1, || format!("test -e missing: {st}"))?;
                ok_with(&d, "command -v screencap", &["/system/bin/screencap\n"])?;
                ok_with(&d, "which logcat", &["/system/bin/logcat\n"])?;
                let (out, _, st) = sh(&d, "which nosuch");
                ensure(out.is_empty() && st == 1, || {
                    format!("which nosuch: {st} {out}")
                })
            },
        },
        Sourced {
            platform: "Android",
            command: "screenrecord [--time-limit N] FILE.mp4",
            source: "AOSP `screenrecord`: records until SIGINT/SIGHUP or the limit, then finalises the MP4",
            check: || {
                let d = android();
                // Buffered (no reader to wait for) it stops at once: a one-frame MP4.
                sh(&d, "screenrecord --time-limit 3 /sdcard/r.mp4");
                let (out, _, st) = sh(&d, "stat -c %s /sdcard/r.mp4");
                let n: u64 = out.trim().parse().unwrap_or(0);
                ensure(st == 0 && n > 1000, || format!("{st}: {out}"))?;
                let (_, err, st) = sh(&d, "screenrecord");
                ensure(st != 0 && err.contains("output file"), || err.clone())
            },
        },
        Sourced {
            platform: "Android",
            command: "am broadcast -a ACTION -p PKG",
            source: "AOSP `Intent.toShortString`: `act=… flg=… pkg=…`",
            check: || {
                ok_with(
                    &android(),
                    "am broadcast -a com.example.PING -p com.tapflow.demo",
                    &[
                        "Broadcasting: Intent { act=com.example.PING flg=0x400000 pkg=com.tapflow.demo }\n",
                    ],
                )
            },
        },
        Sourced {
            platform: "Android",
            command: "settings list|reset NS; settings --user 0 get NS KEY",
            source: "AOSP `SettingsService.MyShellCommand`: `list` prints `key=value`, `reset NS MODE`",
            check: || {
                let d = android();
                sh(&d, "settings put global tapflow_key 7");
                ok_with(
                    &d,
                    "settings list global",
                    &["tapflow_key=7\n", "adb_enabled=1\n"],
                )?;
                ok_with(&d, "settings --user 0 get global tapflow_key", &["7\n"])?;
                ok_with(&d, "settings reset global trusted_defaults", &[])?;
                ok_with(&d, "settings get global tapflow_key", &["null\n"])
            },
        },
        Sourced {
            platform: "Android",
            command: "am instrument -w PKG/RUNNER",
            source: "AOSP `AppErrors` (a crashed instrumentation finishes with `shortMsg`/`longMsg`), `Instrument` (`INSTRUMENTATION_RESULT:`, `INSTRUMENTATION_FAILED`)",
            check: || {
                let d = android();
                let manifest = r#"<?xml version="1.0" encoding="utf-8"?>
<manifest xmlns:android="http://schemas.android.com/apk/res/android" package="com.example.app.test" android:versionCode="1" android:versionName="1.0">
    <application android:testOnly="true" />
    <instrumentation android:name="androidx.test.runner.AndroidJUnitRunner" android:targetPackage="com.tapflow.demo" />
</manifest>
"#;
                let apk = tapflow_sim::android::apk::build_apk(manifest, None);
                d.phone().fs.write("/data/local/tmp/t.apk", apk);
                ok_with(&d, "pm install -t /data/local/tmp/t.apk", &["Success\n"])?;
                ok_with(
                    &d,
                    "am instrument -w -r -e class com.example.T com.example.app.test/androidx.test.runner.AndroidJUnitRunner",
                    &[
                        "INSTRUMENTATION_RESULT: shortMsg=Process crashed.\n",
                        "runs no app code",
                        "INSTRUMENTATION_CODE: 0\n",
                    ],
                )?;
                let (out, err, st) = sh(&d, "am instrument -w com.example.app.test/.Missing");
                ensure(
                    st == 1 && err.contains("INSTRUMENTATION_FAILED: com.example.app.test/com.example.app.test.Missing"),
                    || format!("{st}: {out}{err}"),
                )
            },
        },
        Sourced {
            platform: "Android",
            command: "pm install REAL.apk (binary AXML manifest); monkey -p PKG 1",
            source: "AOSP `ResourceTypes.h` (the AXML chunks); a built APK: io.appium.settings 8.0.10's `settings_apk-debug.apk` (npm, scripts/test-deps.d/46-real-apk.sh; through `adb install` in tests/backends/adb_real_apk.rs)",
            check: || {
                let p = concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/../../.test-deps/io.appium.settings-8.0.10/settings_apk-debug.apk"
                );
                let apk = std::fs::read(p)
                    .map_err(|e| format!("{p}: {e}: run scripts/test-deps.d/46-real-apk.sh"))?;
                let d = android();
                d.phone().fs.write("/data/local/tmp/real.apk", apk);
                ok_with(&d, "pm install /data/local/tmp/real.apk", &["Success\n"])?;
                ok_with(
                    &d,
                    "monkey -p io.appium.settings 1",
                    &["Events injected: 1\n"],
                )?;
                ok_with(&d, "dumpsys window windows", &[" io.appium.settings/"])
            },
        },
        Sourced {
            platform: "HarmonyOS",
            command: "stat -c %s FILE",
            source: "toybox `stat` (`%s` the size in bytes)",
            check: || {
                let p = Phone::new();
                p.sh("echo hello > /data/local/tmp/s.txt");
                let out = p.sh("stat -c %s /data/local/tmp/s.txt");
                ensure(out == "6\n", || out.clone())?;
                let out = p.sh("stat -c %s /data/local/tmp/none; echo rc=$?");
                ensure(
                    out.contains("No such file or directory") && out.ends_with("rc=1\n"),
                    || out.clone(),
                )
            },
        },
        Sourced {
            platform: "HarmonyOS",
            command: "param get const.ohos.fullname",
            source: "OpenHarmony devices answer `OpenHarmony-<release>.<build>` (API 12 is release 5.0.0; the build number is the simulator's)",
            check: || {
                let out = Phone::new().sh("param get const.ohos.fullname");
                ensure(out == "OpenHarmony-5.0.0.60\n", || out.clone())
            },
        },
        Sourced {
            platform: "HarmonyOS",
            command: "param get const.build.characteristics",
            source: "`phone`, as an app's configuration logs it (`tests/fixtures/harmonyos/jscrash_with_hilog_emulator6_illegal_prop.txt`)",
            check: || {
                let out = Phone::new().sh("param get const.build.characteristics");
                ensure(out == "phone\n", || out.clone())
            },
        },
    ]
}

/// The generated docs section.
pub(super) fn table_markdown(rows: &[Sourced]) -> String {
    let mut s =
        String::from("| Platform | Command | Source of the expected answer |\n|---|---|---|\n");
    for r in rows {
        s.push_str(&format!(
            "| {} | `{}` | {} |\n",
            r.platform,
            r.command.replace('|', "\\|"),
            r.source.replace('|', "\\|")
        ));
    }
    s
}
