//! Streamable HTTP: rmcp's [`StreamableHttpService`] mounted at `/mcp` behind axum, with the
//! access rules and limits of `docs/mcp.md`. From the outside in:
//!
//! - the connection ([`listen`]): a header read / keep-alive idle timeout and a connection cap
//!   (503 + `Retry-After` beyond it), below the open-file limit ([`limits`]);
//! - the request line and `Host` ([`host`]): origin-form target, exactly one `Host` naming an
//!   authority only, one of `127.0.0.1:PORT`, `localhost:PORT`, `[::1]:PORT` (plus
//!   `--allow-host`) → else 400 / 403;
//! - with a token (`--token-file`), `Authorization: Bearer <token>` ([`auth`]) → else 401;
//! - a JSON body ([`body`]): size and time limits, JSON-RPC `-32700` / `-32600` for a body that
//!   is not JSON / not JSON-RPC, a session slot for an `initialize` ([`sessions`]: capped,
//!   expiring when idle) → else 503 + `Retry-After`;
//! - rmcp: a present `Origin` must be one of `http://127.0.0.1:PORT`, `http://localhost:PORT`,
//!   `http://[::1]:PORT` or `--allow-origin` → else 403 (rmcp checks `Origin` only when
//!   configured, so it is configured here, always); it checks `Host` again.
//!
//! A bind address that is not loopback is refused unless a token is set. Both protocol eras
//! are served on the one endpoint: handshake-era clients get sessions (`Mcp-Session-Id`),
//! 2026-07-28 clients are stateless (rmcp decides per request).

pub mod auth;
pub mod body;
pub mod host;
pub mod limits;
pub mod listen;
pub mod sessions;

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::extract::Request;
use axum::middleware::{self, Next};
use axum::response::IntoResponse;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};

use crate::mcp::TapflowMcp;
use crate::mcp::call::Core;
use body::BodyGate;
use host::AllowedHosts;
pub use limits::HttpLimits;
use sessions::CappedSessions;

/// How the HTTP listener is set up.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    pub bind: SocketAddr,
    /// The bearer token every request must carry (`None`: no authentication).
    pub token: Option<String>,
    /// Extra `Host` values accepted (`name` or `name:port`).
    pub allow_hosts: Vec<String>,
    /// Extra `Origin` values accepted (`scheme://host[:port]`, `:*` = any port).
    pub allow_origins: Vec<String>,
    /// Connection and session limits.
    pub limits: HttpLimits,
}

/// Refuses a setup that would expose the device to the network without authentication.
pub fn check_exposure(opts: &HttpOptions) -> Result<(), String> {
    if !opts.bind.ip().is_loopback() && opts.token.is_none() {
        return Err(format!(
            "refusing to serve MCP on {} without a token: anyone who can reach this address could drive your devices. Bind to 127.0.0.1 (the default), or pass --token-file FILE",
            opts.bind
        ));
    }
    if opts.token.as_deref().is_some_and(|t| t.trim().is_empty()) {
        return Err("the token file is empty".into());
    }
    Ok(())
}

/// Everything decided before the listener opens: the exposure rule, the `--allow-host`
/// entries, and the limits against the open-file limit, whose soft value is first raised to
/// the hard one (a process-wide change, made once per server). Returns the connection cap.
pub fn prepare(opts: &HttpOptions) -> Result<usize, String> {
    check_exposure(opts)?;
    AllowedHosts::new(&opts.allow_hosts)?;
    opts.limits.connection_cap(limits::raise_nofile())
}

/// The `Host` values accepted for a server bound to `bound` (its actual port).
pub fn allowed_hosts(bound: SocketAddr, extra: &[String]) -> Vec<String> {
    let p = bound.port();
    let mut v = vec![
        format!("127.0.0.1:{p}"),
        format!("localhost:{p}"),
        format!("[::1]:{p}"),
    ];
    if !bound.ip().is_loopback() && !bound.ip().is_unspecified() {
        v.push(bound.to_string());
    }
    v.extend(extra.iter().cloned());
    v
}

/// The `Origin` values accepted for a server bound to `bound`.
pub fn allowed_origins(bound: SocketAddr, extra: &[String]) -> Vec<String> {
    let p = bound.port();
    let mut v = vec![
        format!("http://127.0.0.1:{p}"),
        format!("http://localhost:{p}"),
        format!("http://[::1]:{p}"),
    ];
    v.extend(extra.iter().cloned());
    v
}

/// The axum app for a listener bound to `bound`: rmcp inside the layers of the module docs.
fn router(
    core: Arc<Core>,
    opts: &HttpOptions,
    bound: SocketAddr,
    config: StreamableHttpServerConfig,
) -> Result<Router, String> {
    let hosts = allowed_hosts(bound, &opts.allow_hosts);
    let allowed = AllowedHosts::new(&hosts)?;
    let sessions = Arc::new(CappedSessions::new(
        opts.limits.max_sessions,
        opts.limits.session_idle,
    ));
    let config = config
        .with_allowed_hosts(hosts)
        .with_allowed_origins(allowed_origins(bound, &opts.allow_origins))
        .enforce_origin_validation()
        .with_max_request_body_bytes(limits::MAX_BODY_BYTES);
    let service = StreamableHttpService::new(
        move || Ok(TapflowMcp::new(core.clone())),
        sessions.clone(),
        config,
    );
    let gate = BodyGate {
        sessions,
        timeout: opts.limits.header_timeout,
        max_sessions: opts.limits.max_sessions,
    };
    // Layers run outside in, the last added first: Host, then the token, then the body.
    let mut app = Router::new()
        .nest_service("/mcp", service)
        .layer(middleware::from_fn(move |req: Request, next: Next| {
            body::check(gate.clone(), req, next)
        }));
    if let Some(token) = &opts.token {
        let want: Arc<[u8]> = auth::digest(token).into();
        app = app.layer(middleware::from_fn(move |req: Request, next: Next| {
            let want = want.clone();
            async move { auth::bearer(req, next, &want).await }
        }));
    }
    Ok(
        app.layer(middleware::from_fn(move |req: Request, next: Next| {
            let checked = host::check(&req, &allowed);
            async move {
                match checked {
                    Ok(()) => next.run(req).await,
                    Err(refusal) => refusal.into_response(),
                }
            }
        })),
    )
}

/// Binds and serves until `shutdown` resolves. `on_bound` hears the actual address (port 0
/// picks a free one) before the first request is accepted.
pub async fn serve(
    core: Arc<Core>,
    opts: HttpOptions,
    on_bound: impl FnOnce(SocketAddr),
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), String> {
    let max_connections = prepare(&opts)?;
    let listener =
        listen::bind(opts.bind).map_err(|e| format!("cannot listen on {}: {e}", opts.bind))?;
    let bound = listener
        .local_addr()
        .map_err(|e| format!("cannot read the bound address: {e}"))?;
    let config = StreamableHttpServerConfig::default();
    let stop = config.cancellation_token.clone();
    let app = router(core, &opts, bound, config)?;
    let conn_limits = listen::ConnLimits {
        max_connections,
        header_timeout: opts.limits.header_timeout,
        retry_after_secs: opts.limits.connection_retry_after_secs(),
    };
    on_bound(bound);
    listen::serve(listener, app, conn_limits, shutdown, move || stop.cancel()).await;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(bind: &str, token: Option<&str>) -> HttpOptions {
        HttpOptions {
            bind: bind.parse().unwrap(),
            token: token.map(str::to_string),
            allow_hosts: Vec::new(),
            allow_origins: Vec::new(),
            limits: HttpLimits::default(),
        }
    }

    #[test]
    fn exposure_needs_a_token_off_loopback() {
        assert!(check_exposure(&opts("127.0.0.1:0", None)).is_ok());
        assert!(check_exposure(&opts("[::1]:8765", None)).is_ok());
        let e = check_exposure(&opts("0.0.0.0:8765", None)).unwrap_err();
        assert!(e.contains("--token-file"), "{e}");
        assert!(check_exposure(&opts("192.168.1.5:8765", None)).is_err());
        assert!(check_exposure(&opts("0.0.0.0:8765", Some("t0k"))).is_ok());
        assert!(check_exposure(&opts("0.0.0.0:8765", Some("  "))).is_err());
    }

    #[test]
    fn allowlists_name_the_bound_port_only() {
        let bound: SocketAddr = "127.0.0.1:8765".parse().unwrap();
        let hosts = allowed_hosts(bound, &["mcp.local:8765".into()]);
        assert_eq!(
            hosts,
            [
                "127.0.0.1:8765",
                "localhost:8765",
                "[::1]:8765",
                "mcp.local:8765"
            ]
        );
        let lan: SocketAddr = "192.168.1.5:9000".parse().unwrap();
        assert!(allowed_hosts(lan, &[]).contains(&"192.168.1.5:9000".to_string()));
        let origins = allowed_origins(bound, &[]);
        assert!(
            origins
                .iter()
                .all(|o| o.starts_with("http://") && o.ends_with(":8765"))
        );
    }
}
