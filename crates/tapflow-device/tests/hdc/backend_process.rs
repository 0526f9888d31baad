//! The hdc backend through a real process: `ProcessTransport` spawns a stand-in `hdc` script that
//! does what hdcd does with `shell` (runs the one command string with `sh -c`) and a stand-in
//! `uitest` that records the arguments it received. So user text travels the whole real path —
//! argv → process → `sh -c` → device tool — and must arrive byte-exact.

#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use proptest::prelude::*;
use tapflow_device::hdc::{HdcClient, HdcConfig, HdcDevice};
use tapflow_device::{Device, KeyInput, Point, TapKind, TextTarget};

struct FakeHdc {
    dir: tempfile::TempDir,
}

fn write_exec(path: &Path, body: &str) {
    std::fs::write(path, body).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

impl FakeHdc {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().display().to_string();
        std::fs::create_dir(dir.path().join("bin")).unwrap();
        // Records its argv (NUL-separated), skips the routing flags like hdc, and runs `shell`
        // commands with sh -c, as the device daemon does.
        write_exec(
            &dir.path().join("hdc"),
            &format!(
                r#"#!/bin/sh
for a in "$@"; do printf '%s\0' "$a"; done > '{d}/hdc_argv'
while [ "$1" = "-t" ] || [ "$1" = "-s" ]; do shift 2; done
case "$1" in
  shell) PATH='{d}/bin':"$PATH" exec sh -c "$2" ;;
  list) printf 'SER1\t\tUSB\tConnected\tlocalhost\n' ;;
  *) echo "[Fail]ExecuteCommand unsupported by the fake" ;;
esac
"#
            ),
        );
        // uitest: records its argv; `keyEvent Power` hangs (for the deadline test).
        write_exec(
            &dir.path().join("bin/uitest"),
            &format!(
                r#"#!/bin/sh
for a in "$@"; do printf '%s\0' "$a"; done > '{d}/uitest_argv'
if [ "$2" = keyEvent ] && [ "$3" = Power ]; then exec sleep 5; fi
echo
"#
            ),
        );
        Self { dir }
    }

    fn program(&self) -> PathBuf {
        self.dir.path().join("hdc")
    }

    fn argv(&self, file: &str) -> Vec<String> {
        self.argv_exact(file)
            .into_iter()
            .map(|a| String::from_utf8(a).unwrap())
            .collect()
    }

    fn argv_exact(&self, file: &str) -> Vec<Vec<u8>> {
        let raw = std::fs::read(self.dir.path().join(file)).unwrap();
        let mut parts: Vec<Vec<u8>> = raw.split(|b| *b == 0).map(<[u8]>::to_vec).collect();
        parts.pop(); // after the final NUL
        parts
    }

    fn client(&self, timeout: Duration) -> HdcClient {
        HdcClient::with_process(HdcConfig {
            program: self.program(),
            command_timeout: timeout,
            ..HdcConfig::default()
        })
    }

    fn device(&self) -> HdcDevice {
        let client = self.client(Duration::from_secs(10));
        client.connect(client.route(Some("SER1"), None)).unwrap()
    }
}

#[test]
fn connect_and_tap_through_a_real_process() {
    let hdc = FakeHdc::new();
    let d = hdc.device();
    d.tap(Point::new(540, 1200), TapKind::Double).unwrap();
    assert_eq!(
        hdc.argv("hdc_argv"),
        ["-t", "SER1", "shell", "uitest uiInput doubleClick 540 1200"]
    );
    assert_eq!(
        hdc.argv("uitest_argv"),
        ["uiInput", "doubleClick", "540", "1200"]
    );
}

#[test]
fn server_routing_reaches_the_process() {
    let hdc = FakeHdc::new();
    let client = hdc.client(Duration::from_secs(10));
    let d = client
        .connect(client.route(Some("SER1"), Some("127.0.0.1:8710")))
        .unwrap();
    d.key_event(&KeyInput::Back).unwrap();
    assert_eq!(
        hdc.argv("hdc_argv"),
        [
            "-t",
            "SER1",
            "-s",
            "127.0.0.1:8710",
            "shell",
            "uitest uiInput keyEvent Back"
        ]
    );
}

#[test]
fn hostile_text_arrives_as_one_exact_argument() {
    let hdc = FakeHdc::new();
    let d = hdc.device();
    let text = "it's \"$(reboot)\" `id` ; rm -rf / # \\n\n中文 😀 שלום";
    d.input_text(TextTarget::At(Point::new(10, 20)), text)
        .unwrap();
    let argv = hdc.argv_exact("uitest_argv");
    assert_eq!(argv.len(), 5, "{argv:?}");
    assert_eq!(argv[0], b"uiInput");
    assert_eq!(argv[1], b"inputText");
    assert_eq!(argv[4], text.as_bytes());
}

#[test]
fn a_hanging_command_hits_its_deadline() {
    let hdc = FakeHdc::new();
    let client = hdc.client(Duration::from_millis(400));
    let d = client.device("SER1", client.route(Some("SER1"), None));
    let started = std::time::Instant::now();
    let e = d.key_event(&KeyInput::Power).unwrap_err();
    assert_eq!(e.code(), "HDC_TIMEOUT");
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "killed at the deadline"
    );
    assert!(
        e.to_string().contains("uitest uiInput keyEvent Power"),
        "{e}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn any_text_survives_the_process_path(text in "[^\u{0}]{0,30}") {
        let hdc = FakeHdc::new();
        let client = hdc.client(Duration::from_secs(10));
        let d = client.device("SER1", client.route(Some("SER1"), None));
        d.input_text(TextTarget::Focused, &text).unwrap();
        let argv = hdc.argv_exact("uitest_argv");
        prop_assert_eq!(argv.len(), 3);
        prop_assert_eq!(&argv[2], &text.as_bytes().to_vec());
    }
}
