// Rule: a protocol variant gives retry advice only when it says `#[retryable]`, so a
// `#[retry_after]` field on one needs it.
use std::time::Duration;
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
enum LedgerError {
    #[error("the ledger is rebuilding its index")]
    #[protocol(-32001)]
    Rebuilding { #[retry_after] wait: Duration },
}

fn main() {}
