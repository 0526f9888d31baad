//! Running one external tool (hvigor, node, java) with a wall-clock deadline and captured output.
//!
//! The child gets its own process group on Unix so that, on expiry, the whole tree (a shell wrapper,
//! node, java daemons it started) is killed; otherwise a grandchild would keep our pipes open.
//! Output is read by two threads into shared buffers, so a kill never loses what was already printed.

use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use wait_timeout::ChildExt;

use super::hvigor_output::clean_output;

/// One command line to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invocation {
    pub program: PathBuf,
    pub args: Vec<OsString>,
    pub cwd: PathBuf,
    pub env: Vec<(OsString, OsString)>,
}

impl Invocation {
    pub fn new(program: impl Into<PathBuf>, cwd: &Path) -> Self {
        Self {
            program: program.into(),
            args: Vec::new(),
            cwd: cwd.to_path_buf(),
            env: Vec::new(),
        }
    }

    pub fn arg(mut self, a: impl Into<OsString>) -> Self {
        self.args.push(a.into());
        self
    }

    pub fn args<I, S>(mut self, items: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        self.args.extend(items.into_iter().map(Into::into));
        self
    }

    /// The argv as display strings (for logs, errors and tests).
    pub fn argv(&self) -> Vec<String> {
        std::iter::once(self.program.to_string_lossy().into_owned())
            .chain(self.args.iter().map(|a| a.to_string_lossy().into_owned()))
            .collect()
    }
}

/// What came back from a finished (or killed) process. Output is cleaned (`\r` and ANSI removed).
#[derive(Debug, Clone)]
pub struct Finished {
    /// `None` when the process was killed at the deadline.
    pub status: Option<ExitStatus>,
    pub stdout: String,
    pub stderr: String,
}

impl Finished {
    pub fn timed_out(&self) -> bool {
        self.status.is_none()
    }

    pub fn success(&self) -> bool {
        self.status.is_some_and(|s| s.success())
    }

    /// stdout then stderr, as one text for parsing.
    pub fn combined(&self) -> String {
        match (self.stdout.is_empty(), self.stderr.is_empty()) {
            (_, true) => self.stdout.clone(),
            (true, false) => self.stderr.clone(),
            (false, false) => format!("{}\n{}", self.stdout.trim_end_matches('\n'), self.stderr),
        }
    }
}

/// Runs `inv` until it exits or `deadline` passes (then the process tree is killed).
/// Errors only when the program cannot be started.
pub fn run(inv: &Invocation, deadline: Instant) -> std::io::Result<Finished> {
    let mut cmd = Command::new(&inv.program);
    cmd.args(&inv.args)
        .current_dir(&inv.cwd)
        .envs(inv.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    let mut child = cmd.spawn()?;
    let out_buf = Arc::new(Mutex::new(Vec::new()));
    let err_buf = Arc::new(Mutex::new(Vec::new()));
    let readers = [
        child.stdout.take().map(|s| pump(s, Arc::clone(&out_buf))),
        child.stderr.take().map(|s| pump(s, Arc::clone(&err_buf))),
    ];
    let status = wait_until(&mut child, deadline)?;
    if status.is_none() {
        kill_tree(&mut child);
    }
    // After a normal exit the pipes close at once; after a kill a stray grandchild might keep them open,
    // so the readers get a short grace period and we then take whatever was captured.
    let grace = Instant::now() + Duration::from_secs(2);
    for r in readers.into_iter().flatten() {
        while !r.is_finished() && Instant::now() < grace {
            std::thread::sleep(Duration::from_millis(10));
        }
        if r.is_finished() {
            let _ = r.join();
        }
    }
    let text = |b: &Arc<Mutex<Vec<u8>>>| {
        clean_output(&String::from_utf8_lossy(
            &b.lock().map(|g| g.clone()).unwrap_or_default(),
        ))
    };
    Ok(Finished {
        status,
        stdout: text(&out_buf),
        stderr: text(&err_buf),
    })
}

fn pump(mut src: impl Read + Send + 'static, buf: Arc<Mutex<Vec<u8>>>) -> JoinHandle<()> {
    std::thread::spawn(move || {
        let mut chunk = [0u8; 8192];
        loop {
            match src.read(&mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if let Ok(mut b) = buf.lock() {
                        b.extend_from_slice(&chunk[..n]);
                    }
                }
            }
        }
    })
}

fn wait_until(child: &mut Child, deadline: Instant) -> std::io::Result<Option<ExitStatus>> {
    // A tool call its caller cancelled (MCP) ends the build as the deadline does: killed.
    let signals = crate::context::signals::current();
    loop {
        let remaining = deadline.saturating_duration_since(Instant::now());
        let slice = remaining.min(Duration::from_millis(50));
        if let Some(status) = child.wait_timeout(slice)? {
            return Ok(Some(status));
        }
        if remaining <= slice || signals.is_cancelled() {
            return Ok(None);
        }
    }
}

fn kill_tree(child: &mut Child) {
    #[cfg(unix)]
    {
        // The child leads its own group (process_group(0)), so -pid names the whole tree.
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", child.id())])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
    #[cfg(windows)]
    {
        let _ = Command::new("taskkill")
            .args(["/T", "/F", "/PID", &child.id().to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
    let _ = child.kill();
    let _ = child.wait();
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn sh(script: &str) -> Invocation {
        Invocation::new("/bin/sh", Path::new("/"))
            .arg("-c")
            .arg(script)
    }

    #[test]
    fn captures_both_streams_and_strips_cr() {
        let f = run(
            &sh("printf 'a\\r\\nb\\n'; printf 'err\\n' >&2; exit 3"),
            Instant::now() + Duration::from_secs(10),
        )
        .unwrap();
        assert_eq!(f.stdout, "a\nb\n");
        assert_eq!(f.stderr, "err\n");
        assert_eq!(f.status.unwrap().code(), Some(3));
        assert_eq!(f.combined(), "a\nb\nerr\n");
    }

    #[test]
    fn kills_the_whole_tree_at_the_deadline() {
        let t0 = Instant::now();
        let f = run(
            &sh("echo started; sleep 30 & sleep 30; echo never"),
            Instant::now() + Duration::from_millis(300),
        )
        .unwrap();
        assert!(f.timed_out());
        assert_eq!(f.stdout, "started\n");
        assert!(
            t0.elapsed() < Duration::from_secs(5),
            "took {:?}",
            t0.elapsed()
        );
    }

    #[test]
    fn missing_program_is_an_io_error() {
        let inv = Invocation::new("/no/such/tool", Path::new("/"));
        assert!(run(&inv, Instant::now() + Duration::from_secs(1)).is_err());
    }
}
