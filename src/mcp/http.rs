//! Streamable HTTP: rmcp's [`StreamableHttpService`] mounted at `/mcp` behind axum, with the
//! DNS-rebinding and access rules of `docs/mcp.md`:
//!
//! - `Host` must name this server (`127.0.0.1:PORT`, `localhost:PORT`, `[::1]:PORT`, plus
//!   `--allow-host`); anything else → 403 (rmcp's check);
//! - a present `Origin` must be one of `http://127.0.0.1:PORT`, `http://localhost:PORT`,
//!   `http://[::1]:PORT` or `--allow-origin`; anything else → 403 (rmcp checks `Origin` only
//!   when configured, so it is configured here, always);
//! - with a token (`--token-file`), every request needs `Authorization: Bearer <token>` → else
//!   401 with `WWW-Authenticate: Bearer`;
//! - a bind address that is not loopback is refused unless a token is set.
//!
//! Both protocol eras are served on the one endpoint: handshake-era clients get sessions
//! (`Mcp-Session-Id`), 2026-07-28 clients are stateless (rmcp decides per request).

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use sha2::{Digest, Sha256};

use crate::mcp::TapflowMcp;
use crate::mcp::call::Core;

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

/// The axum app for a listener bound to `bound`.
pub fn router(core: Arc<Core>, opts: &HttpOptions, bound: SocketAddr) -> Router {
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(allowed_hosts(bound, &opts.allow_hosts))
        .with_allowed_origins(allowed_origins(bound, &opts.allow_origins))
        .enforce_origin_validation();
    let service = StreamableHttpService::new(
        move || Ok(TapflowMcp::new(core.clone())),
        LocalSessionManager::default().into(),
        config,
    );
    let app = Router::new().nest_service("/mcp", service);
    match &opts.token {
        None => app,
        Some(token) => {
            let want: Arc<[u8]> = Sha256::digest(token.trim().as_bytes()).to_vec().into();
            app.layer(middleware::from_fn(move |req: Request, next: Next| {
                let want = want.clone();
                async move { bearer(req, next, &want).await }
            }))
        }
    }
}

/// Lets a request through only with the right bearer token. The comparison is of SHA-256
/// digests, so its timing says nothing about the token.
async fn bearer(req: Request, next: Next, want: &[u8]) -> Response {
    let given = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            let (scheme, rest) = v.split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then(|| rest.trim())
        });
    match given {
        Some(t) if Sha256::digest(t.as_bytes()).as_slice() == want => next.run(req).await,
        _ => {
            let mut r = (
                StatusCode::UNAUTHORIZED,
                "Unauthorized: this MCP server needs `Authorization: Bearer <token>` (the content of its --token-file)",
            )
                .into_response();
            r.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"tapflow-mcp\""),
            );
            r
        }
    }
}

/// Binds and serves until `shutdown` resolves. `on_bound` hears the actual address (port 0
/// picks a free one) before the first request is accepted.
pub async fn serve(
    core: Arc<Core>,
    opts: HttpOptions,
    on_bound: impl FnOnce(SocketAddr),
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), String> {
    check_exposure(&opts)?;
    let listener = tokio::net::TcpListener::bind(opts.bind)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", opts.bind))?;
    let bound = listener
        .local_addr()
        .map_err(|e| format!("cannot read the bound address: {e}"))?;
    let app = router(core, &opts, bound);
    on_bound(bound);
    axum::serve(listener, app.into_make_service())
        .with_graceful_shutdown(shutdown)
        .await
        .map_err(|e| format!("HTTP server failed: {e}"))
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
