//! Transfers: file send and recv, install and uninstall texts.

use super::*;
use pretty_assertions::assert_eq;

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
