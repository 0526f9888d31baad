//! The request line and `Host` header, checked strictly before anything else looks at a
//! request: the target must be origin-form (`/mcp`), and there must be exactly one `Host`,
//! naming an authority only (`host[:port]`: no userinfo, no path, not empty) that is one of the
//! allowed hosts. rmcp checks `Host` too, but leniently (the first of several headers, userinfo
//! ignored, an absolute URI's authority accepted); this check runs first, and rmcp's stays as
//! a second line.

use axum::extract::Request;
use axum::http::uri::Authority;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

/// A `host[:port]` allow-list entry or header value, normalized for comparison.
#[derive(Debug, Clone, PartialEq, Eq)]
struct HostPort {
    host: String,
    port: Option<u16>,
}

/// Parses `value` as an authority without userinfo: `name`, `name:port`, `[v6]:port`.
fn parse_authority(value: &str) -> Result<HostPort, &'static str> {
    if value.is_empty() {
        return Err("the Host header is empty");
    }
    if value.contains('@') {
        return Err("the Host header carries userinfo (`user@`)");
    }
    let a: Authority = value
        .parse()
        .map_err(|_| "the Host header is not `host[:port]`")?;
    // `Authority` accepts a trailing `:` and a port it cannot read as u16.
    let port = match a.as_str().strip_prefix(a.host()) {
        Some("") => None,
        Some(_) => Some(
            a.port_u16()
                .ok_or("the Host header's port is not a number")?,
        ),
        None => return Err("the Host header is not `host[:port]`"),
    };
    Ok(HostPort {
        host: a.host().trim_matches(['[', ']']).to_ascii_lowercase(),
        port,
    })
}

/// The compiled allow list: an entry without a port matches any port (as `--allow-host`
/// always has).
#[derive(Debug, Clone)]
pub struct AllowedHosts(Vec<HostPort>);

impl AllowedHosts {
    /// Compiles `--allow-host` and the bound address's names; `Err` names a bad entry.
    pub fn new(entries: &[String]) -> Result<Self, String> {
        entries
            .iter()
            .map(|e| {
                parse_authority(e.trim()).map_err(|why| {
                    format!(
                        "--allow-host `{e}`: {}",
                        why.replace("the Host header", "it")
                    )
                })
            })
            .collect::<Result<_, _>>()
            .map(AllowedHosts)
    }

    fn allows(&self, h: &HostPort) -> bool {
        self.0
            .iter()
            .any(|a| a.host == h.host && a.port.is_none_or(|p| Some(p) == h.port))
    }
}

/// Why a request is refused: 400 for a malformed target or `Host`, 403 for a foreign one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refusal {
    pub status: StatusCode,
    pub why: &'static str,
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        let reason = self.status.canonical_reason().unwrap_or("Refused");
        (self.status, format!("{reason}: {}", self.why)).into_response()
    }
}

fn bad(why: &'static str) -> Refusal {
    Refusal {
        status: StatusCode::BAD_REQUEST,
        why,
    }
}

/// Checks the request target and `Host` of `req`.
pub fn check(req: &Request, allowed: &AllowedHosts) -> Result<(), Refusal> {
    let uri = req.uri();
    if uri.scheme().is_some() || uri.authority().is_some() || !uri.path().starts_with('/') {
        return Err(bad(
            "the request target must be a path (`POST /mcp HTTP/1.1` with a Host header), not an absolute URI or `*`",
        ));
    }
    let mut hosts = req.headers().get_all(header::HOST).iter();
    let Some(value) = hosts.next() else {
        return Err(bad("the Host header is missing"));
    };
    if hosts.next().is_some() {
        return Err(bad("more than one Host header"));
    }
    let value = value
        .to_str()
        .map_err(|_| bad("the Host header is not ASCII"))?;
    let host = parse_authority(value).map_err(bad)?;
    if !allowed.allows(&host) {
        return Err(Refusal {
            status: StatusCode::FORBIDDEN,
            why: "this Host is not one of the server's names (DNS rebinding protection; add it with --allow-host)",
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;

    fn allowed() -> AllowedHosts {
        AllowedHosts::new(&[
            "127.0.0.1:8765".into(),
            "localhost:8765".into(),
            "[::1]:8765".into(),
            "mcp.local".into(),
        ])
        .unwrap()
    }

    fn status(target: &str, hosts: &[&str]) -> u16 {
        let mut b = axum::http::Request::builder().method("POST").uri(target);
        for h in hosts {
            b = b.header(header::HOST, *h);
        }
        let req = b.body(Body::empty()).unwrap();
        match check(&req, &allowed()) {
            Ok(()) => 200,
            Err(r) => r.status.as_u16(),
        }
    }

    #[test]
    fn exactly_one_plain_authority_that_is_allowed() {
        assert_eq!(status("/mcp", &["127.0.0.1:8765"]), 200);
        assert_eq!(status("/mcp", &["LOCALHOST:8765"]), 200);
        assert_eq!(status("/mcp", &["[::1]:8765"]), 200);
        assert_eq!(
            status("/mcp", &["mcp.local:1"]),
            200,
            "a portless entry allows any port"
        );
        assert_eq!(status("/mcp", &[]), 400, "missing");
        assert_eq!(status("/mcp", &[""]), 400, "empty");
        assert_eq!(
            status("/mcp", &["evil.com@127.0.0.1:8765"]),
            400,
            "userinfo"
        );
        assert_eq!(status("/mcp", &["127.0.0.1:8765/x"]), 400, "a path");
        assert_eq!(status("/mcp", &["127.0.0.1:"]), 400, "an empty port");
        assert_eq!(
            status("/mcp", &["127.0.0.1:99999"]),
            400,
            "a port out of range"
        );
        assert_eq!(
            status("/mcp", &["127.0.0.1:8765", "127.0.0.1:8765"]),
            400,
            "duplicate"
        );
        assert_eq!(status("/mcp", &["evil.example:8765"]), 403);
        assert_eq!(status("/mcp", &["127.0.0.1:8766"]), 403, "another port");
        assert_eq!(
            status("/mcp", &["127.0.0.1"]),
            403,
            "no port when one is required"
        );
    }

    #[test]
    fn the_target_must_be_origin_form() {
        assert_eq!(
            status("http://127.0.0.1:8765/mcp", &["127.0.0.1:8765"]),
            400
        );
        assert_eq!(status("*", &["127.0.0.1:8765"]), 400);
    }

    #[test]
    fn bad_allow_host_entries_are_named() {
        let e = AllowedHosts::new(&["user@host".into()]).unwrap_err();
        assert!(
            e.contains("--allow-host `user@host`") && e.contains("userinfo"),
            "{e}"
        );
        assert!(AllowedHosts::new(&["a/b".into()]).is_err());
    }
}
