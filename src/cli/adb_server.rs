//! The private adb server of the simulated Android devices, owned by tapflow so that it never
//! outlives it, on any exit path.
//!
//! An adb client that finds no server forks one as a daemon (`adb fork-server server`, its own
//! session, reparented to init when the client exits): nothing ties it to tapflow, and a
//! `kill-server` that never runs (SIGKILL, a third Ctrl-C, a panic) leaves it running for good.
//! So the server is started here instead, in the foreground (`adb -P PORT nodaemon server`),
//! as tapflow's own child, and:
//!
//! - stopped by [`PrivateAdbServer::stop`] (and on drop): `adb kill-server`, then SIGKILL if it
//!   has not exited within [`STOP_WITHIN`];
//! - killed by the kernel when tapflow dies, however it dies (Linux): the child asks for SIGKILL
//!   on its parent's death (`prctl(PR_SET_PDEATHSIG)` between fork and exec). Linux sends that
//!   signal when the parent *thread* ends, so the child is spawned by a thread that lives
//!   exactly as long as the child (it waits for it);
//! - never started twice: every client tapflow runs against it addresses `-H 127.0.0.1`, which
//!   makes adb refuse to start a server of its own when none answers (a late command after the
//!   stop fails with `ADB_SERVER_UNREACHABLE` instead of leaving a new daemon behind).

use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long the server may take to answer after it was started.
const READY_WITHIN: Duration = Duration::from_secs(15);
/// How long `kill-server` may take before the server is killed.
pub const STOP_WITHIN: Duration = Duration::from_secs(5);
/// The interval of the readiness poll.
const POLL: Duration = Duration::from_millis(25);

/// A running `adb -P PORT nodaemon server`, child of this process.
pub struct PrivateAdbServer {
    pid: i32,
    port: u16,
    /// Receives the server's exit once it has ended (sent by the thread that waits for it).
    exited: Option<mpsc::Receiver<()>>,
    /// Lets that thread reap the ended server. Until then its pid stays ours (a zombie), so a
    /// SIGKILL sent to it can reach no other process.
    reap: mpsc::Sender<()>,
    /// The server's own log (stderr), kept to explain a server that did not start.
    _log: tempfile::NamedTempFile,
}

impl PrivateAdbServer {
    /// Starts the server on `127.0.0.1:port` and waits (polling, [`READY_WITHIN`]) until it
    /// accepts connections.
    pub fn start(program: &Path, port: u16) -> Result<Self, String> {
        let log = tempfile::Builder::new()
            .prefix("tapflow-adb-server-")
            .suffix(".log")
            .tempfile()
            .map_err(|e| format!("cannot create the adb server's log file: {e}"))?;
        let stderr = log
            .reopen()
            .map_err(|e| format!("cannot open the adb server's log file: {e}"))?;
        let mut command = Command::new(program);
        command
            .args(["-P", &port.to_string(), "nodaemon", "server"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr);
        die_with_parent(&mut command);
        let (started_tx, started_rx) = mpsc::channel();
        let (exited_tx, exited_rx) = mpsc::channel();
        let (reap_tx, reap_rx) = mpsc::channel::<()>();
        // This thread is the server's parent for the kernel (PR_SET_PDEATHSIG): it lives as long
        // as the server, waiting for it.
        std::thread::Builder::new()
            .name("tapflow-adb-server".into())
            .spawn(move || match command.spawn() {
                Ok(mut child) => {
                    let pid = child.id();
                    let _ = started_tx.send(Ok(pid as i32));
                    // SAFETY: waits for our own child without reaping it (WNOWAIT).
                    unsafe {
                        let mut info: libc::siginfo_t = std::mem::zeroed();
                        libc::waitid(libc::P_PID, pid, &mut info, libc::WEXITED | libc::WNOWAIT);
                    }
                    let _ = exited_tx.send(());
                    let _ = reap_rx.recv();
                    let _ = child.wait();
                }
                Err(e) => {
                    let _ = started_tx.send(Err(e));
                }
            })
            .map_err(|e| format!("cannot start a thread for the adb server: {e}"))?;
        let pid = started_rx
            .recv()
            .map_err(|_| "the adb server's thread ended at once".to_string())?
            .map_err(|e| {
                format!(
                    "cannot start `{} -P {port} nodaemon server`: {e}",
                    program.display()
                )
            })?;
        let mut server = PrivateAdbServer {
            pid,
            port,
            exited: Some(exited_rx),
            reap: reap_tx,
            _log: log,
        };
        server.wait_ready(program)?;
        Ok(server)
    }

    /// The server's process id.
    pub fn pid(&self) -> i32 {
        self.pid
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Polls until the port accepts connections; the server ending first, or the deadline
    /// passing, is an error naming what the server logged.
    fn wait_ready(&mut self, program: &Path) -> Result<(), String> {
        let addr = SocketAddr::from(([127, 0, 0, 1], self.port));
        let deadline = Instant::now() + READY_WITHIN;
        loop {
            if TcpStream::connect_timeout(&addr, POLL).is_ok() {
                return Ok(());
            }
            let ended = self
                .exited
                .as_ref()
                .is_some_and(|rx| rx.recv_timeout(POLL).is_ok());
            if ended || Instant::now() >= deadline {
                if ended {
                    self.exited = None;
                    let _ = self.reap.send(());
                } else {
                    self.stop_now();
                }
                let said = std::fs::read_to_string(self._log.path()).unwrap_or_default();
                let tail: Vec<&str> = said.lines().rev().take(5).collect();
                return Err(format!(
                    "the private adb server (`{} -P {} nodaemon server`) {} (it said: {})",
                    program.display(),
                    self.port,
                    if ended {
                        "exited at once"
                    } else {
                        "never accepted connections"
                    },
                    tail.into_iter().rev().collect::<Vec<_>>().join(" | ")
                ));
            }
        }
    }

    /// Stops the server: `kill_server` (the client's `adb kill-server`, so adb closes its
    /// transports itself), then SIGKILL when it has not exited within [`STOP_WITHIN`]. Waits
    /// until it has exited. Calling it again does nothing.
    pub fn stop(&mut self, kill_server: impl FnOnce()) {
        let Some(exited) = self.exited.take() else {
            return;
        };
        kill_server();
        if exited.recv_timeout(STOP_WITHIN).is_err() {
            // SAFETY: `pid` is our child, not reaped before `reap` is sent below.
            unsafe {
                libc::kill(self.pid, libc::SIGKILL);
            }
            let _ = exited.recv();
        }
        let _ = self.reap.send(());
    }

    /// SIGKILL, and the wait for the end.
    fn stop_now(&mut self) {
        let pid = self.pid;
        self.stop(|| {
            // SAFETY: as in `stop`.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        });
    }
}

impl Drop for PrivateAdbServer {
    fn drop(&mut self) {
        self.stop_now();
    }
}

/// Linux: the child gets SIGKILL when the thread that spawned it ends (the whole process
/// included). Other systems have no such request: there the server is stopped on every orderly
/// exit and on SIGINT/SIGTERM, not when tapflow is killed outright (docs/android.md).
#[cfg(target_os = "linux")]
fn die_with_parent(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    let parent = std::process::id() as i32;
    // SAFETY: between fork and exec only async-signal-safe calls (prctl, getppid, _exit).
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // The parent may have died before the request took effect.
            if libc::getppid() != parent {
                libc::_exit(1);
            }
            Ok(())
        });
    }
}

#[cfg(not(target_os = "linux"))]
fn die_with_parent(_command: &mut Command) {}
