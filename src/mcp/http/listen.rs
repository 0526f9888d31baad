//! The accept loop: hyper's HTTP/1 connections driven directly (axum's `serve` exposes neither
//! of the two settings below), so limits hold at the connection level, before any request is
//! routed, authenticated or parsed:
//!
//! - **header timeout** (hyper's `header_read_timeout`, on hyper-util's Tokio timer): its clock
//!   starts whenever a connection waits for a request head — when it opens, and again after
//!   each response — so a client that connects and sends nothing, sends its headers slowly, or
//!   leaves a keep-alive connection idle, is closed once it runs out. A connection with a
//!   request in progress (a tool call, an SSE stream) is not waiting for a head and is not cut.
//! - **connection cap**: a semaphore with one permit per connection. A connection beyond the
//!   cap is still accepted and answered 503 with `Retry-After` (its request read under a short
//!   timeout, then closed) rather than left in the kernel's backlog, where a client would wait
//!   for its own timeout with no answer; at most [`REFUSAL_SLOTS`] such refusals run at once,
//!   and past those a connection is closed as soon as it is accepted. The cap is below the
//!   open-file limit ([`super::limits`]), so `accept` itself does not run out of descriptors.
//!
//! On shutdown the loop stops accepting, rmcp's cancellation token ends sessions and SSE
//! streams, and open connections get a bounded grace period to finish (hyper-util's graceful
//! shutdown).

use std::convert::Infallible;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderValue, Response, StatusCode, header};
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tokio::sync::Semaphore;

use super::limits::REFUSAL_SLOTS;

/// Connections the kernel completes and queues for `accept`. Binding through std or tokio
/// asks for 128, and a burst of connections (a client pool warming up, a probe) overflows
/// that while the accept loop waits for a CPU: the kernel then drops the handshake and the
/// client retries after a second. The kernel caps it at `net.core.somaxconn`.
const BACKLOG: u32 = 1024;
/// How long connections may take to finish once the server is stopping.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);
/// How long a refused connection has to send the request it gets its 503 for.
const REFUSAL_READ: Duration = Duration::from_secs(2);

/// A listening socket on `addr` with a [`BACKLOG`]-deep accept queue (and `SO_REUSEADDR`, as
/// std sets it on Unix, so a restarted server can bind its port again at once).
pub fn bind(addr: SocketAddr) -> io::Result<TcpListener> {
    let socket = if addr.is_ipv4() {
        TcpSocket::new_v4()?
    } else {
        TcpSocket::new_v6()?
    };
    #[cfg(unix)]
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(BACKLOG)
}

/// What the accept loop enforces.
#[derive(Debug, Clone)]
pub struct ConnLimits {
    pub max_connections: usize,
    pub header_timeout: Duration,
    pub retry_after_secs: u64,
}

/// Serves `app` on `listener` until `shutdown` resolves; then `on_stop` (cancels rmcp's
/// sessions and streams) and a grace period for open connections.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: ConnLimits,
    shutdown: impl Future<Output = ()>,
    on_stop: impl FnOnce(),
) {
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let refusals = Arc::new(Semaphore::new(REFUSAL_SLOTS));
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .keep_alive(true);
    let refusal = refusal_response(&limits);
    let graceful = GracefulShutdown::new();
    tokio::pin!(shutdown);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _peer)) => stream,
                Err(e) => {
                    accept_error(e).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        if let Ok(permit) = slots.clone().try_acquire_owned() {
            let service = TowerToHyperService::new(app.clone());
            let conn = http.serve_connection(TokioIo::new(stream), service);
            let conn = graceful.watch(conn);
            tokio::spawn(async move {
                // A connection that ends in an error (a header timeout, a reset) is simply
                // closed; there is no one to tell.
                let _ = conn.await;
                drop(permit);
            });
        } else if let Ok(permit) = refusals.clone().try_acquire_owned() {
            let refusal = refusal.clone();
            tokio::spawn(async move {
                refuse(stream, refusal).await;
                drop(permit);
            });
        } else {
            drop(stream);
        }
    }
    drop(listener);
    on_stop();
    let _ = tokio::time::timeout(SHUTDOWN_GRACE, graceful.shutdown()).await;
}

/// The 503 every refused connection gets: status line, `Retry-After`, a sentence.
fn refusal_response(limits: &ConnLimits) -> Arc<(HeaderValue, String)> {
    Arc::new((
        HeaderValue::from(limits.retry_after_secs),
        format!(
            "Service Unavailable: this MCP server holds its maximum of {} connections (--http-max-connections); retry after {} s",
            limits.max_connections, limits.retry_after_secs
        ),
    ))
}

/// Reads one request from `stream` (with a short header timeout), answers 503 and closes.
/// Reading the request first matters: closing a socket with unread input resets it, and the
/// client would see a reset instead of the 503.
async fn refuse(stream: TcpStream, refusal: Arc<(HeaderValue, String)>) {
    let service = hyper::service::service_fn(move |_req| {
        let refusal = refusal.clone();
        async move {
            let mut r = Response::new(Body::from(refusal.1.clone()));
            *r.status_mut() = StatusCode::SERVICE_UNAVAILABLE;
            r.headers_mut()
                .insert(header::RETRY_AFTER, refusal.0.clone());
            r.headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
            Ok::<_, Infallible>(r)
        }
    });
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(REFUSAL_READ)
        .keep_alive(false);
    let conn = http.serve_connection(TokioIo::new(stream), service);
    let _ = tokio::time::timeout(REFUSAL_READ * 2, conn).await;
}

/// As hyper 0.14 and axum do: a failed handshake is the client's problem; anything else
/// (running out of descriptors: EMFILE, ENFILE) is waited out briefly rather than spun on.
async fn accept_error(e: io::Error) {
    if matches!(
        e.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    ) {
        return;
    }
    tracing::error!("tapflow mcp: accept failed: {e}");
    tokio::time::sleep(Duration::from_millis(100)).await;
}
