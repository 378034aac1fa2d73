//! Shared helpers of the mcp-errors test suite: the official MCP schemas, a sample enum that
//! covers every category and every protocol code a tool error can have, and what tracing
//! records during a test.
#![deny(missing_docs)]

pub mod capture;
pub mod sample;
pub mod schema;

/// The README's Rust examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;

/// The Rust examples of the guides under `docs/` that the README links to.
#[cfg(doctest)]
#[doc = include_str!("../../docs/IDEMPOTENCY.md")]
#[doc = include_str!("../../docs/RUNTIME-KINDS.md")]
pub struct GuideDoctests;
