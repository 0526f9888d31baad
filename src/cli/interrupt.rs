//! Ctrl-C (SIGINT) for commands that run synchronously (`tapflow run`), through tokio's signal
//! handling — the one signal mechanism of the crate (the MCP server runs on tokio anyway).
//! A small thread with its own current-thread runtime waits for the signal and calls the
//! handler once per press. The OS handler is installed before [`on_interrupt`] returns, so no
//! press falls through to the default action (killing the process without a result).

use tokio::signal::unix::{SignalKind, signal};

/// Calls `handler` on every SIGINT from now on.
pub fn on_interrupt(mut handler: impl FnMut() + Send + 'static) -> std::io::Result<()> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    // Registering needs the runtime's context; it takes effect at once.
    let mut sigint = {
        let _context = rt.enter();
        signal(SignalKind::interrupt())?
    };
    std::thread::Builder::new()
        .name("tapflow-sigint".into())
        .spawn(move || {
            rt.block_on(async move {
                while sigint.recv().await.is_some() {
                    handler();
                }
            })
        })?;
    Ok(())
}
