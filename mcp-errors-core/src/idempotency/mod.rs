//! Request idempotency keys for `tools/call`, as the SEP-3182 draft proposes (draft: off unless
//! a server opts in, and the wire may still change).
//!
//! A client sends `params.idempotencyKey` (an opaque string made once per logical call and
//! kept on every attempt). A server that advertises [`CAPABILITY`] among its experimental
//! capabilities runs a call with a new key once and records its outcome (a result or an
//! error); the same key again with equivalent arguments gets the recorded outcome replayed
//! without running the tool, the same key while the first call still runs is refused with
//! `error.data.type` [`IN_PROGRESS`], and the same key with other arguments is refused with
//! [`CONFLICT`]. A key whose call started and whose outcome was never recorded (its server
//! stopped, or the store lost the record) is refused with [`OUTCOME_UNKNOWN`]: the call may
//! have run, so it never runs again. Records are scoped to the caller, so one caller's key
//! never replays another's outcome, and kept for a bounded time.
//!
//! The capability sits in `capabilities.experimental`, where the SDKs' typed parsing keeps
//! it: with the Python SDK (`mcp` 2.3.0) and the TypeScript SDK (`@modelcontextprotocol/sdk`
//! 1.32.2), measured by the end-to-end checks, a server's `experimental` and `extensions`
//! members reach the SDK's user and `capabilities.tools.idempotency`, the place the draft
//! names, is dropped; rmcp 3.11's `ServerCapabilities` has fields for the first two and none
//! for the third. `extensions` is in the schema of 2026-07-28 only, `experimental` in every
//! version. Clients read the draft's place too.
//!
//! This module holds what both sides and every store share: the names the protocol uses (with
//! feature `client` or `idempotency`), and, with feature `idempotency`, the [`Fingerprint`]
//! that decides whether two calls are equivalent and the [`IdempotencyStore`] a server keeps
//! its records in (`MemoryStore`; `RedisStore` with feature `redis`). With features
//! `idempotency` and `rmcp`: `Idempotency`, the settings of `rmcp::ErrorBoundary`'s record and
//! replay, and `adapter`, the transport adapters that bring rmcp the keys it drops.

#[cfg(all(feature = "idempotency", feature = "rmcp"))]
#[cfg_attr(docsrs, doc(cfg(all(feature = "idempotency", feature = "rmcp"))))]
pub mod adapter;
#[cfg(feature = "idempotency")]
mod memory;
#[cfg(all(feature = "idempotency", feature = "rmcp"))]
mod refusal;
#[cfg(all(feature = "idempotency", feature = "rmcp"))]
mod server;
#[cfg(feature = "idempotency")]
mod store;

#[cfg(feature = "idempotency")]
pub use memory::MemoryStore;
#[cfg(all(feature = "idempotency", feature = "rmcp"))]
#[cfg_attr(docsrs, doc(cfg(all(feature = "idempotency", feature = "rmcp"))))]
pub use server::Idempotency;
#[cfg(all(feature = "idempotency", feature = "rmcp"))]
pub(crate) use server::{advertise, take_key};
#[cfg(feature = "idempotency")]
pub use store::*;
#[cfg(feature = "redis")]
#[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
mod redis;
#[cfg(feature = "redis")]
pub use self::redis::RedisStore;
#[cfg(feature = "redis")]
mod redis_lua;

/// The `tools/call` parameter that carries the key: `params.idempotencyKey`.
pub const KEY_PARAM: &str = "idempotencyKey";

/// The member of `capabilities.experimental` a server advertises the feature with:
/// `{"capabilities": {"experimental": {"rs.mcp-errors/idempotency": {}}}}`.
pub const CAPABILITY: &str = "rs.mcp-errors/idempotency";

/// The member of `capabilities.tools` the SEP-3182 draft advertises the feature with
/// (`{"tools": {"idempotency": {}}}`): clients read it as well, servers write [`CAPABILITY`],
/// since the SDKs' typed parsing drops it.
#[allow(dead_code)] // used by the client and the rmcp client adapter
pub(crate) const TOOLS_CAPABILITY: &str = "idempotency";

/// `error.data.type` of the refusal of a key whose first call still runs: retry after a
/// short delay.
pub const IN_PROGRESS: &str = "idempotency_key_in_progress";

/// `error.data.type` of the refusal of a key whose call started and has no known outcome (its
/// lease ran out before its outcome was recorded, or the store lost its record): the call may
/// have run, so the client checks its effect before calling again with a new key.
pub const OUTCOME_UNKNOWN: &str = "idempotency_outcome_unknown";

/// `error.data.type` of the refusal of a key used before with other arguments (or another
/// tool): a client bug, fixed by a new key.
pub const CONFLICT: &str = "idempotency_key_conflict";

/// The longest key a server accepts, in bytes; a longer one is refused as invalid params.
pub const MAX_KEY_BYTES: usize = 255;

/// Inside one process only, never on the wire: the request `_meta` member a transport adapter
/// moves `params.idempotencyKey` into, since rmcp's `CallToolRequestParams` has no field for it.
#[allow(dead_code)] // used by the transport adapters and the client
pub(crate) const CARRIER_META: &str = "dev.mcp-errors/idempotencyKey";

/// Meant for one process: the `capabilities.experimental` member the boundary advertises keys
/// with, renamed to [`CAPABILITY`] by a server's transport adapter, the one that brings the keys
/// rmcp drops. A server without the adapter sends it under this name, which no client reads,
/// so it does not advertise keys it never gets.
#[allow(dead_code)] // used by the transport adapters and the boundary
pub(crate) const CARRIER_CAPABILITY: &str = "dev.mcp-errors/idempotency";
