//! Ctrl-C (SIGINT) and SIGTERM for commands that run synchronously (`tapflow run`), through
//! tokio's signal handling — the one signal mechanism of the crate (the MCP server runs on
//! tokio anyway). A small thread with its own current-thread runtime waits for both signals and
//! calls the handler once per signal received, saying which. The OS handlers are installed
//! before [`on_interrupt`] returns, so no signal falls through to the default action (ending the
//! process without a result, without `finally` hooks, and leaving child processes behind).
//!
//! SIGTERM is what a CI runner, `timeout(1)`, systemd or `docker stop` sends to stop a job: it is
//! handled as a Ctrl-C press, so the run stops the same clean way (see `run_cmd`).

use tokio::signal::unix::{SignalKind, signal};

/// Which signal arrived.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// SIGINT (Ctrl-C).
    Interrupt,
    /// SIGTERM.
    Terminate,
}

impl Stop {
    /// The exit code of a process this signal stopped: 128 + the signal's number, as a shell
    /// reports a process the signal killed (130, 143).
    pub fn exit_code(self) -> i32 {
        match self {
            Stop::Interrupt => super::exit::INTERRUPTED,
            Stop::Terminate => super::exit::TERMINATED,
        }
    }
}

/// Calls `handler` on every SIGINT and SIGTERM from now on.
pub fn on_interrupt(mut handler: impl FnMut(Stop) + Send + 'static) -> std::io::Result<()> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    // Registering needs the runtime's context; it takes effect at once.
    let (mut sigint, mut sigterm) = {
        let _context = rt.enter();
        (
            signal(SignalKind::interrupt())?,
            signal(SignalKind::terminate())?,
        )
    };
    std::thread::Builder::new()
        .name("tapflow-signals".into())
        .spawn(move || {
            rt.block_on(async move {
                loop {
                    let stop = tokio::select! {
                        s = sigint.recv() => s.map(|_| Stop::Interrupt),
                        s = sigterm.recv() => s.map(|_| Stop::Terminate),
                    };
                    match stop {
                        Some(stop) => handler(stop),
                        None => break,
                    }
                }
            })
        })?;
    Ok(())
}
