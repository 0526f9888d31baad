//! The executable mode: a background simulator daemon on a Unix socket, and the client that the
//! generated `DIR/bin/hdc` script runs.
//!
//! Layout of a state directory: `sim.sock` (the socket), `daemon.pid`, `daemon.log` (the
//! daemon's stderr) and `bin/hdc` (a `#!/bin/sh` script exec'ing `tapflow sim hdc --state-dir
//! DIR -- "$@"`; the `--` keeps hdc's own `-v` from being taken for tapflow's global `-v`).
//! Everything lives in the daemon, so state survives across hdc processes, and two state
//! directories never share anything.
//!
//! Wire protocol (one request per connection): the client sends one JSON line
//! (`{"op":"hdc","argv":[…],"cwd":"…"}`, `{"op":"status"}` or `{"op":"stop"}`); the daemon
//! answers with frames: `D` + u32 big-endian length + bytes (output, possibly streamed) and a
//! final `X` + i32 big-endian exit status. A streaming command ends when the client goes away.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::simulator::{DEFAULT_SERVER, Simulator};

/// Failures of the executable mode, each with what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum DaemonError {
    #[error(
        "no simulator is running in {dir} (start one with `tapflow sim start --state-dir {dir}`)"
    )]
    NotRunning { dir: String },
    #[error(
        "a simulator is already running in {dir} (stop it with `tapflow sim stop --state-dir {dir}`)"
    )]
    AlreadyRunning { dir: String },
    #[error("the simulator daemon did not answer within {}s; its log ({log}) says:\n{log_text}", .waited.as_secs())]
    StartTimeout {
        waited: Duration,
        log: String,
        log_text: String,
    },
    #[error("the simulator daemon exited during start-up; its log ({log}) says:\n{log_text}")]
    DaemonDied { log: String, log_text: String },
    #[error(
        "socket path {path} is too long for a Unix socket ({len} bytes, max 100); use a shorter --state-dir"
    )]
    PathTooLong { path: String, len: usize },
    #[error("{what}: {detail}")]
    Io { what: String, detail: String },
    #[error("the simulator daemon sent a malformed answer: {0}")]
    Protocol(String),
    /// Whoever read our output went away (`hdc … | head -1`); like real hdc, stop quietly.
    #[error("output closed by the reader")]
    OutputClosed,
}

fn io_err(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> DaemonError {
    let what = what.into();
    move |e| DaemonError::Io {
        what,
        detail: e.to_string(),
    }
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "lowercase")]
enum Request {
    Hdc { argv: Vec<String>, cwd: PathBuf },
    Status,
    Stop,
}

pub fn socket_path(dir: &Path) -> PathBuf {
    dir.join("sim.sock")
}

pub fn hdc_script_path(dir: &Path) -> PathBuf {
    dir.join("bin").join("hdc")
}

fn log_path(dir: &Path) -> PathBuf {
    dir.join("daemon.log")
}

fn check_socket_len(sock: &Path) -> Result<(), DaemonError> {
    let len = sock.as_os_str().len();
    if len > 100 {
        return Err(DaemonError::PathTooLong {
            path: sock.display().to_string(),
            len,
        });
    }
    Ok(())
}

/// Single-quotes `s` for `sh` (`'` → `'\''`).
pub fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// The `hdc` script: needs no environment variable, only absolute paths.
pub fn hdc_script(tapflow_exe: &Path, dir: &Path) -> String {
    format!(
        "#!/bin/sh\n# hdc of the tapflow simulator in {d}\nexec {exe} sim hdc --state-dir {d} -- \"$@\"\n",
        exe = sh_quote(&tapflow_exe.display().to_string()),
        d = sh_quote(&dir.display().to_string()),
    )
}

fn write_frame(w: &mut impl Write, kind: u8, payload: &[u8]) -> std::io::Result<()> {
    let mut buf = Vec::with_capacity(payload.len() + 5);
    buf.push(kind);
    buf.extend_from_slice(&(payload.len() as u32).to_be_bytes());
    buf.extend_from_slice(payload);
    w.write_all(&buf)?;
    w.flush()
}

// ---------------------------------------------------------------- daemon side

/// What a daemon serves: hdc argv (the HarmonyOS simulator) and its status text. The Android
/// simulator's devices are reached over TCP by adb instead, so its daemon answers hdc requests
/// with a refusal and only serves `status` and `stop` here.
pub trait DaemonBackend: Send + Sync {
    /// One hdc invocation, streaming to `sink` (see [`Simulator::handle_streaming`]).
    fn hdc(
        &self,
        argv: &[String],
        cwd: &Path,
        sink: &mut dyn FnMut(&[u8]) -> bool,
    ) -> super::SimOutput;
    /// The `status` text (after the `running:` and `state dir:` lines).
    fn status(&self) -> String;
    /// Runs once a `stop` was requested, before the socket goes (so `sim stop` returns when
    /// everything the daemon started has ended).
    fn shutdown(&self) {}
}

impl DaemonBackend for Simulator {
    fn hdc(
        &self,
        argv: &[String],
        cwd: &Path,
        sink: &mut dyn FnMut(&[u8]) -> bool,
    ) -> super::SimOutput {
        self.handle_streaming(argv, cwd, sink)
    }

    fn status(&self) -> String {
        let mut s = format!(
            "server: {DEFAULT_SERVER}\nseed: {}\nlatency: {:?}\ndevices:\n",
            self.options().seed,
            self.options().latency
        );
        let live = self.connected();
        for serial in self.serials() {
            let state = if live.contains(&serial) {
                "Connected"
            } else {
                "Offline"
            };
            s.push_str(&format!("  {serial}\t{state}\n"));
        }
        s
    }
}

/// Runs the daemon in the foreground until a `stop` request. Binds `DIR/sim.sock`, writes
/// `DIR/daemon.pid`, removes both on the way out.
pub fn serve(sim: Simulator, dir: &Path) -> Result<(), DaemonError> {
    serve_backend(Arc::new(sim), dir)
}

/// [`serve`] for any [`DaemonBackend`].
pub fn serve_backend(sim: Arc<dyn DaemonBackend>, dir: &Path) -> Result<(), DaemonError> {
    std::fs::create_dir_all(dir).map_err(io_err(format!("creating {}", dir.display())))?;
    let sock = socket_path(dir);
    check_socket_len(&sock)?;
    if UnixStream::connect(&sock).is_ok() {
        return Err(DaemonError::AlreadyRunning {
            dir: dir.display().to_string(),
        });
    }
    // A socket file nobody answers on is left over from a crashed daemon.
    let _ = std::fs::remove_file(&sock);
    let listener =
        UnixListener::bind(&sock).map_err(io_err(format!("binding {}", sock.display())))?;
    std::fs::write(dir.join("daemon.pid"), format!("{}\n", std::process::id()))
        .map_err(io_err("writing daemon.pid"))?;
    let stop = Arc::new(AtomicBool::new(false));
    let dir_text = dir.display().to_string();
    for conn in listener.incoming() {
        if stop.load(Ordering::SeqCst) {
            break;
        }
        let Ok(stream) = conn else { continue };
        let sim = Arc::clone(&sim);
        let stop = Arc::clone(&stop);
        let sock = sock.clone();
        let dir_text = dir_text.clone();
        std::thread::spawn(move || {
            // A client killed mid-stream (Ctrl-C on `hdc hilog`) is normal, not worth a log line.
            if let Err(e) = serve_one(&sim, stream, &stop, &sock, &dir_text)
                && e.kind() != std::io::ErrorKind::BrokenPipe
                && e.kind() != std::io::ErrorKind::ConnectionReset
            {
                eprintln!("tapflow sim: connection error: {e}");
            }
        });
    }
    sim.shutdown();
    let _ = std::fs::remove_file(&sock);
    let _ = std::fs::remove_file(dir.join("daemon.pid"));
    Ok(())
}

fn serve_one(
    sim: &Arc<dyn DaemonBackend>,
    stream: UnixStream,
    stop: &AtomicBool,
    sock: &Path,
    dir: &str,
) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut w = stream;
    let req: Request = match serde_json::from_str(&line) {
        Ok(r) => r,
        Err(e) => {
            write_frame(
                &mut w,
                b'D',
                format!("[Fail]bad request to the simulator: {e}\n").as_bytes(),
            )?;
            return write_frame(&mut w, b'X', &1i32.to_be_bytes());
        }
    };
    match req {
        Request::Hdc { argv, cwd } => {
            let mut writer = w.try_clone()?;
            let mut sink = |b: &[u8]| write_frame(&mut writer, b'D', b).is_ok();
            let out = sim.hdc(&argv, &cwd, &mut sink);
            if !out.stdout.is_empty() {
                write_frame(&mut w, b'D', &out.stdout)?;
            }
            write_frame(&mut w, b'X', &out.exit.to_be_bytes())
        }
        Request::Status => {
            let s = format!(
                "running: pid {}\nstate dir: {dir}\n{}",
                std::process::id(),
                sim.status()
            );
            write_frame(&mut w, b'D', s.as_bytes())?;
            write_frame(&mut w, b'X', &0i32.to_be_bytes())
        }
        Request::Stop => {
            stop.store(true, Ordering::SeqCst);
            write_frame(&mut w, b'D', b"simulator stopped\n")?;
            write_frame(&mut w, b'X', &0i32.to_be_bytes())?;
            // Wake the accept loop so it sees the flag.
            let _ = UnixStream::connect(sock);
            Ok(())
        }
    }
}

// ---------------------------------------------------------------- client side

/// Sends one request and copies `D` frames to `out` as they arrive; returns the exit status.
fn request(dir: &Path, req: &Request, out: &mut dyn Write) -> Result<i32, DaemonError> {
    let sock = socket_path(dir);
    let mut stream = UnixStream::connect(&sock).map_err(|_| DaemonError::NotRunning {
        dir: dir.display().to_string(),
    })?;
    let mut line = serde_json::to_string(req).map_err(|e| DaemonError::Protocol(e.to_string()))?;
    line.push('\n');
    stream
        .write_all(line.as_bytes())
        .map_err(io_err("sending to the simulator"))?;
    loop {
        let mut head = [0u8; 5];
        if let Err(e) = stream.read_exact(&mut head) {
            return Err(DaemonError::Protocol(format!(
                "connection closed early: {e}"
            )));
        }
        let len = u32::from_be_bytes([head[1], head[2], head[3], head[4]]) as usize;
        match head[0] {
            b'D' => {
                let mut buf = vec![0u8; len];
                stream
                    .read_exact(&mut buf)
                    .map_err(|e| DaemonError::Protocol(e.to_string()))?;
                if out.write_all(&buf).and_then(|()| out.flush()).is_err() {
                    return Err(DaemonError::OutputClosed);
                }
            }
            b'X' if len == 4 => {
                let mut code = [0u8; 4];
                stream
                    .read_exact(&mut code)
                    .map_err(|e| DaemonError::Protocol(e.to_string()))?;
                return Ok(i32::from_be_bytes(code));
            }
            other => return Err(DaemonError::Protocol(format!("unknown frame {other}"))),
        }
    }
}

/// The `hdc` client: forwards argv and cwd, streams the answer to `out`.
pub fn run_hdc(
    dir: &Path,
    argv: &[String],
    cwd: &Path,
    out: &mut dyn Write,
) -> Result<i32, DaemonError> {
    request(
        dir,
        &Request::Hdc {
            argv: argv.to_vec(),
            cwd: cwd.to_path_buf(),
        },
        out,
    )
}

/// The daemon's status text, or `NotRunning`.
pub fn status(dir: &Path) -> Result<String, DaemonError> {
    let mut buf = Vec::new();
    request(dir, &Request::Status, &mut buf)?;
    Ok(String::from_utf8_lossy(&buf).into_owned())
}

/// Stops the daemon and waits (against a deadline) until its socket is gone.
pub fn stop(dir: &Path, wait: Duration) -> Result<(), DaemonError> {
    let mut sink = Vec::new();
    request(dir, &Request::Stop, &mut sink)?;
    let deadline = Instant::now() + wait;
    while socket_path(dir).exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    Ok(())
}

/// Starts `tapflow sim serve …` detached, writes `DIR/bin/hdc`, and waits until the socket
/// answers. `serve_args` are the arguments after the executable (built by the CLI).
pub fn start(
    tapflow_exe: &Path,
    dir: &Path,
    serve_args: &[String],
    wait: Duration,
) -> Result<PathBuf, DaemonError> {
    let sock = socket_path(dir);
    check_socket_len(&sock)?;
    std::fs::create_dir_all(dir.join("bin"))
        .map_err(io_err(format!("creating {}", dir.display())))?;
    if status(dir).is_ok() {
        return Err(DaemonError::AlreadyRunning {
            dir: dir.display().to_string(),
        });
    }
    let script = hdc_script_path(dir);
    std::fs::write(&script, hdc_script(tapflow_exe, dir))
        .map_err(io_err(format!("writing {}", script.display())))?;
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755))
            .map_err(io_err(format!("making {} executable", script.display())))?;
    }
    let log = log_path(dir);
    let log_file =
        std::fs::File::create(&log).map_err(io_err(format!("creating {}", log.display())))?;
    let mut child = {
        use std::os::unix::process::CommandExt;
        Command::new(tapflow_exe)
            .args(serve_args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::from(log_file))
            // Own process group: a Ctrl-C in the starting terminal does not reach the daemon.
            .process_group(0)
            .spawn()
            .map_err(io_err(format!("starting {}", tapflow_exe.display())))?
    };
    let started = Instant::now();
    let deadline = started + wait;
    let read_log = || std::fs::read_to_string(&log).unwrap_or_default();
    loop {
        if status(dir).is_ok() {
            return Ok(script);
        }
        if let Ok(Some(_)) = child.try_wait() {
            return Err(DaemonError::DaemonDied {
                log: log.display().to_string(),
                log_text: read_log(),
            });
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            return Err(DaemonError::StartTimeout {
                waited: started.elapsed(),
                log: log.display().to_string(),
                log_text: read_log(),
            });
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_quotes_paths() {
        let s = hdc_script(Path::new("/opt/it's/tapflow"), Path::new("/tmp/a b"));
        assert!(s.starts_with("#!/bin/sh\n"));
        assert!(
            s.contains("exec '/opt/it'\\''s/tapflow' sim hdc --state-dir '/tmp/a b' -- \"$@\"")
        );
    }

    #[test]
    fn start_reports_a_daemon_that_dies() {
        let dir = tempfile::tempdir().unwrap();
        let err = start(
            Path::new("/bin/false"),
            dir.path(),
            &[],
            Duration::from_secs(10),
        )
        .unwrap_err();
        assert!(matches!(err, DaemonError::DaemonDied { .. }), "{err}");
        // The hdc script was written anyway and points at the given executable.
        let script = std::fs::read_to_string(hdc_script_path(dir.path())).unwrap();
        assert!(script.contains("exec '/bin/false' sim hdc --state-dir"));
    }

    #[test]
    fn socket_path_length_is_checked() {
        let long = PathBuf::from(format!("/tmp/{}", "x".repeat(120)));
        assert!(matches!(
            start(Path::new("/bin/false"), &long, &[], Duration::from_secs(1)),
            Err(DaemonError::PathTooLong { .. })
        ));
        assert!(
            !long.exists(),
            "nothing is created for a rejected state dir"
        );
    }

    #[test]
    fn in_process_daemon_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().to_path_buf();
        let sim = Simulator::new(super::super::SimOptions {
            devices: 2,
            latency: super::super::Latency::None,
            ..Default::default()
        });
        let serials = sim.serials();
        let p2 = path.clone();
        let t = std::thread::spawn(move || serve(sim, &p2));
        let deadline = Instant::now() + Duration::from_secs(5);
        while status(&path).is_err() {
            assert!(Instant::now() < deadline, "daemon did not come up");
            std::thread::sleep(Duration::from_millis(5));
        }
        let mut out = Vec::new();
        let code = run_hdc(&path, &["list".into(), "targets".into()], &path, &mut out).unwrap();
        assert_eq!(code, 0);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            format!("{}\n{}\n", serials[0], serials[1])
        );
        assert!(status(&path).unwrap().contains(&serials[0]));
        stop(&path, Duration::from_secs(5)).unwrap();
        t.join().unwrap().unwrap();
        assert!(matches!(status(&path), Err(DaemonError::NotRunning { .. })));
    }
}
