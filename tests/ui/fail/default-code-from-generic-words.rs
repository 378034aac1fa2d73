// Rule (a warning): without `#[code]`, a name made only of generic words (`Other`, `Api`,
// `Io`, `Database`, `RequestError`) gives a stable code that says nothing an agent can act on:
// the derive warns at the name (here the warning is denied to show it). `#[code("...")]` names
// what failed, or keeps the generic code on purpose.
#![deny(deprecated)]

use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
pub enum BookingError {
    #[error("the upstream API failed: {0}")]
    #[category(transient)]
    ApiError(String),

    #[error("the ledger is down")]
    #[category(internal)]
    #[code("LEDGER_UNAVAILABLE")]
    Ledger,

    #[error("seat taken")]
    #[category(conflict)]
    SeatTaken,
}

fn main() {}
