//! A private adb server for one test, and the real `adb` client run against it: its own port
//! (never the default 5037, so the user's server is untouched), a scratch `HOME` (no
//! `~/.android/adbkey` in the real home), no inherited `ANDROID_SERIAL` / `ADB_SERVER_SOCKET`,
//! the emulator port probe off, every call under a hang guard, and `adb kill-server` on drop.
//! Used as `crate::common::adb_env` (here, in tapflow-tools' and the root package's tests).

#![allow(dead_code)]

use std::io::Read;
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use wait_timeout::ChildExt;

/// No single adb call in the tests may take longer (a hang guard, not a performance bound).
pub const HANG_GUARD: Duration = Duration::from_secs(60);

/// The adb executable: `TAPFLOW_ADB`, else `adb` on `PATH`. Fails (never skips) when missing.
pub fn adb_path() -> PathBuf {
    if let Ok(p) = std::env::var("TAPFLOW_ADB") {
        return PathBuf::from(p);
    }
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("adb"))
            .find(|p| p.is_file())
    });
    found.unwrap_or_else(|| {
        panic!("the real `adb` client is needed: run scripts/test-deps.d/40-adb.sh (installs Debian's adb) or set TAPFLOW_ADB")
    })
}

/// What one adb call printed.
#[derive(Debug, Clone)]
pub struct Out {
    pub stdout: Vec<u8>,
    pub stderr: String,
    pub status: Option<i32>,
}

impl Out {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }
}

pub struct AdbEnv {
    pub adb: PathBuf,
    pub port: u16,
    pub home: tempfile::TempDir,
}

/// A free loopback port outside the emulator range (the server binds it right after).
pub fn free_port() -> u16 {
    loop {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let p = l.local_addr().unwrap().port();
        if !(5554..=5585).contains(&p) {
            return p;
        }
    }
}

impl AdbEnv {
    /// Starts a private server.
    pub fn start() -> AdbEnv {
        let env = AdbEnv {
            adb: adb_path(),
            port: free_port(),
            home: tempfile::tempdir().unwrap(),
        };
        let out = env.run(&["start-server"]);
        assert_eq!(out.status, Some(0), "adb start-server: {out:?}");
        env
    }

    /// The command line `adb -P PORT ARGS…` with the test environment.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(&self.adb);
        c.arg("-P")
            .arg(self.port.to_string())
            .args(args)
            .env("HOME", self.home.path())
            .env("ADB_EMU", "0")
            .env_remove("ANDROID_SERIAL")
            .env_remove("ADB_SERVER_SOCKET")
            .env_remove("ANDROID_ADB_SERVER_PORT")
            .stdin(Stdio::null());
        c
    }

    /// Runs `adb -P PORT ARGS…` to completion under the hang guard.
    pub fn run(&self, args: &[&str]) -> Out {
        self.run_with(self.command(args), &format!("adb {}", args.join(" ")))
    }

    pub fn run_with(&self, mut c: Command, what: &str) -> Out {
        let started = Instant::now();
        let mut child = c
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        let mut so = child.stdout.take().unwrap();
        let mut se = child.stderr.take().unwrap();
        let t1 = std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = so.read_to_end(&mut v);
            v
        });
        let t2 = std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = se.read_to_end(&mut v);
            v
        });
        let status = match child.wait_timeout(HANG_GUARD).unwrap() {
            Some(s) => s,
            None => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("{what} hung for {:?}", started.elapsed());
            }
        };
        Out {
            stdout: t1.join().unwrap(),
            stderr: String::from_utf8_lossy(&t2.join().unwrap()).into_owned(),
            status: status.code(),
        }
    }

    /// `adb connect ADDR`, checked by its words (adb exits 0 either way).
    pub fn connect(&self, addr: &str) {
        let out = self.run(&["connect", addr]);
        let text = out.text();
        assert!(
            text.contains(&format!("connected to {addr}")),
            "adb connect {addr}: {text} {}",
            out.stderr
        );
    }

    /// `adb -s SERIAL ARGS…`.
    pub fn on(&self, serial: &str, args: &[&str]) -> Out {
        let mut all = vec!["-s", serial];
        all.extend_from_slice(args);
        self.run(&all)
    }

    /// Polls `adb devices` until `serial` shows `state` (or the deadline passes).
    pub fn wait_state(&self, serial: &str, state: &str, within: Duration) -> bool {
        let deadline = Instant::now() + within;
        while Instant::now() < deadline {
            let listed = self.run(&["devices"]).text();
            if listed
                .lines()
                .any(|l| l.split('\t').collect::<Vec<_>>() == [serial, state])
            {
                return true;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        false
    }

    /// The tapflow adb backend's configuration for this server.
    pub fn config(&self) -> tapflow_device::adb::AdbConfig {
        tapflow_device::adb::AdbConfig {
            program: self.adb.clone(),
            server_port: Some(self.port),
            ..Default::default()
        }
    }
}

impl Drop for AdbEnv {
    fn drop(&mut self) {
        let _ = self.run_with(self.command(&["kill-server"]), "adb kill-server");
    }
}
