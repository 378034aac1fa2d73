//! The demo of mcp-errors: an rmcp server whose tools fail the ways real tools fail
//! ([`demo`], binary `demo-server`), and the client side that reads those failures back
//! ([`tour`], binary `tour`).
//!
//! ```sh
//! cargo run -p mcp-errors-examples --bin tour          # one call per case, as a table
//! cargo run -p mcp-errors-examples --bin demo-server   # the server over stdio
//! cargo run -p mcp-errors-examples --bin demo-server -- --http 127.0.0.1:8080   # Streamable HTTP at /mcp
//! ```

pub mod cases;
pub mod demo;
pub mod tour;

/// The Rust examples of `docs/SERVER.md` (a server over Streamable HTTP, a panic hook),
/// compiled and run as doctests here, where rmcp's Streamable HTTP server and axum are.
#[cfg(doctest)]
#[doc = include_str!("../../docs/SERVER.md")]
pub struct ServerGuideDoctests;
