//! Transport adapters: rmcp 3.11 has no field for `params.idempotencyKey` (serde drops it) nor for
//! `capabilities.tools.idempotency`, so these rewrite the raw JSON-RPC messages between the
//! transport and rmcp.
//!
//! - Server role, inbound: a `tools/call` request's `params.idempotencyKey` moves into its
//!   `_meta`, under a name of this crate's, where [`ErrorBoundary`] finds it (a value a client
//!   put under that name itself is removed first). Outbound: the stand-in of the capability
//!   that [`ErrorBoundary::with_idempotency`] puts in `capabilities.experimental` is renamed
//!   [`CAPABILITY`] (in an `initialize` or `server/discover` result). So the capability is on
//!   the wire only when the boundary has keys on and an adapter brings it the keys.
//! - Client role, inbound: a result's `capabilities.tools.idempotency` (the place the draft
//!   names) is copied into `capabilities.experimental` as [`CAPABILITY`], so rmcp's typed
//!   `peer_info()` keeps it. Outbound: a key a `tools/call` carries in its `_meta` under this
//!   crate's name moves to `params.idempotencyKey`. rmcp keeps `capabilities.experimental`
//!   itself, so a client without the adapter (rmcp's HTTP client) sees the capability of a
//!   server of this crate, but not one at the draft's place.
//!
//! Everything else passes unchanged, byte for byte: other messages, a line that is not JSON
//! (except into a server, below), a line longer than 16 MiB (rmcp's own limit, which drops
//! it), so memory per line stays bounded.
//!
//! A server's byte stream ([`server_stream`]) also answers what rmcp's stdio transport leaves
//! unanswered, as JSON-RPC 2.0 asks, and reads on: a line that is not JSON (nor UTF-8) gets
//! -32700 Parse error with `"id": null`; JSON that serde_json cannot hold (a number beyond
//! `f64` such as `1e400`, a lone surrogate such as `"\ud800"`) gets -32600 Invalid Request,
//! with the message's id when that reads, else `null`. Such a line never reaches rmcp. JSON
//! that rmcp cannot read as a message (a bad id type, no method, an array, a number) rmcp
//! answers with -32600 itself, without an id: that answer goes out with `"id": null`.
//!
//! [`server_stream`] and [`client_stream`] wrap a byte stream of newline-delimited JSON-RPC
//! (stdio, a child process, a socket; batches too); [`HttpLayer`] wraps rmcp's
//! `StreamableHttpService`. Both apply the same rewrite rules.
//!
//! [`CAPABILITY`]: super::CAPABILITY
//! [`ErrorBoundary`]: crate::rmcp::ErrorBoundary
//! [`ErrorBoundary::with_idempotency`]: crate::rmcp::ErrorBoundary::with_idempotency

mod http;
mod rewrite;
mod stream;
mod unreadable;

pub use self::http::{HttpLayer, HttpService};
pub use self::stream::{client_stream, server_stream};
