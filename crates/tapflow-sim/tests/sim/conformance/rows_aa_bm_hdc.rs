//! Conformance rows of the `aa` and `bm` captures, the native-crash capture, and the hdc client's
//! own outputs (file transfers, fport, install, targets, uninstall, version).

use super::checks::*;
use super::*;

/// The rows from `aa_…` to `hdc_…`.
pub(super) fn rows() -> Vec<Row> {
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
    ]
}
