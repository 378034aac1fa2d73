//! The caller a request comes from, as the boundary tells callers apart: the scope that
//! idempotency records and tasks are bound to.

use ::rmcp::service::{RequestContext, RoleServer};
use sha2::{Digest, Sha256};

/// The caller's scope for `context`: over Streamable HTTP, the SHA-256 of the request's
/// `Authorization` header when it has one, else its `Mcp-Session-Id` (stateful servers), else
/// one scope shared by every anonymous caller; over stdio (no HTTP request), the process.
///
/// The header is kept only as its hash: a scope lives as long as what it is bound to, and a
/// bearer token must not.
pub(crate) fn caller_scope(context: &RequestContext<RoleServer>) -> String {
    let Some(parts) = context.extensions.get::<http::request::Parts>() else {
        return "process".to_owned();
    };
    if let Some(auth) = parts.headers.get(http::header::AUTHORIZATION) {
        let hash: [u8; 32] = Sha256::digest(auth.as_bytes()).into();
        let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
        return format!("auth:{hex}");
    }
    match parts.headers.get("mcp-session-id") {
        Some(session) => format!("session:{}", String::from_utf8_lossy(session.as_bytes())),
        None => "anonymous".to_owned(),
    }
}
