//! Reading: a `tools/call` response to one [`Outcome`], and each failure in it to one
//! description, whatever channel it came on. Nothing here decides what to do next.
//!
//! - `classify`: the entry points, over the envelope and the result.
//! - `lenient`: borrowed views of JSON read member by member.
//! - `described`: the error descriptions an execution error may carry.
//! - `text`: the rules that read a category from plain text; `known`: the texts of a tool
//!   that cannot be called; `unwrap`: the wrappers SDKs put around a tool's message.
//! - `clean`: what is read, cleaned and cut before it is handed on.
//! - `outcome`: the [`Outcome`]; `execution`: an execution error as far as it could be read;
//!   `protocol`: a protocol error read from its `data` and message; `raw`: a result kept as
//!   its JSON text, and what its text reads as.
//! - `failure`: what an outcome comes to for a decision, one description of a failure
//!   whatever its channel, the only thing the policy reads.
//! - `peer`: what one peer's codes and texts mean; `idempotency`: whether an `initialize`
//!   result advertises idempotency keys, and whether a tool's annotations call it idempotent.

pub(crate) mod clean;
mod described;
mod execution;
pub(crate) mod failure;
mod idempotency;
mod known;
mod lenient;
mod outcome;
mod peer;
pub(crate) mod protocol;
mod raw;
pub(crate) mod response;
pub(crate) mod text;
pub(crate) mod unwrap;

pub use execution::{Evidence, ExecutionError};
pub use idempotency::advertises_idempotency;
pub(crate) use idempotency::hints_idempotent;
pub use outcome::{InvalidReason, Outcome, UnknownCause};
pub use peer::{CodeMeaning, PeerProfile};
pub use protocol::ProtocolError;
pub use raw::RawResult;
pub use response::{classify, classify_bytes, classify_result};
