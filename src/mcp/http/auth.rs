//! The bearer token (`--token-file`): every request must carry `Authorization: Bearer <token>`,
//! else 401 with `WWW-Authenticate: Bearer`.

use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};

/// The digest a request's token is compared with.
pub fn digest(token: &str) -> Vec<u8> {
    Sha256::digest(token.trim().as_bytes()).to_vec()
}

/// Lets a request through only with the right bearer token. The comparison is of SHA-256
/// digests, so its timing says nothing about the token.
pub async fn bearer(req: Request, next: Next, want: &[u8]) -> Response {
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
