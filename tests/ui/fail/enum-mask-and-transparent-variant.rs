// Rule: `#[mask]` on the enum masks every variant it reaches, and a `#[transparent]` variant
// is not one of them (the error it wraps decides its masking), so the two do not go together.
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
#[error("store busy: {0}")]
#[category(transient)]
pub struct StoreError(String);

#[derive(Debug, thiserror::Error, ToolError)]
#[category(validation)]
#[mask]
pub enum ToolErr {
    #[error("bad input")]
    BadInput,

    #[error(transparent)]
    #[transparent]
    Store(StoreError),
}

fn main() {}
