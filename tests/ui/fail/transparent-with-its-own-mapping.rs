// Rule: a `#[transparent]` variant says nothing of its own: the error it wraps decides the
// channel, code, retry advice, text, details and masking.
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
#[error("store failed")]
#[category(transient)]
pub struct StoreError;

#[derive(Debug, thiserror::Error, ToolError)]
pub enum ToolErr {
    #[error(transparent)]
    #[transparent]
    #[category(internal)]
    #[hint("try again")]
    Store(#[detail] StoreError),
}

fn main() {}
