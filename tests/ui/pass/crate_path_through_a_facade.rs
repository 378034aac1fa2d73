// `#[tool_error(crate = "...")]` on the type names the core crate when the generated code
// cannot reach it as `::mcp_errors_core`: a renamed dependency
// (`errs = { package = "mcp-errors-core", ... }` and `crate = "errs"`), or a facade crate
// that re-exports the core and its derive. Every path the generated code uses goes through
// it. Here the facade is a module, and nothing else names `mcp_errors_core`.
mod facade {
    pub use mcp_errors_core as errors;
}

use facade::errors::{ToolError, ToolFailure};
use std::time::Duration;

#[derive(Debug, thiserror::Error, facade::errors::ToolError)]
#[tool_error(crate = "facade::errors")]
#[category(transient)]
enum FetchError<K: std::fmt::Debug> {
    #[error("backend busy")]
    #[hint("retry {key:?} later")]
    Busy { #[detail] key: K, #[retry_after] wait: Duration },

    #[error("bad cursor")]
    #[protocol(invalid_params)]
    BadCursor,
}

#[derive(Debug, thiserror::Error, facade::errors::ToolError)]
#[tool_error(crate = "crate::facade::errors")]
#[error("seat taken")]
#[category(conflict)]
struct SeatTaken;

fn main() {
    let busy = FetchError::Busy { key: 7_u32, wait: Duration::from_secs(1) };
    let payload = ToolFailure::from(busy).as_execution().unwrap().error_payload().unwrap();
    assert_eq!(payload.retry_after_ms, Some(1000));
    assert!(FetchError::<u32>::BadCursor.to_failure().as_protocol().is_some());
    assert_eq!(SeatTaken::descriptors()[0].code(), "SEAT_TAKEN");
}
