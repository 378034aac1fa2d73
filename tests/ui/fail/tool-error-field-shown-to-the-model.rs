// Rule: a text the model reads (`#[message]`, `#[hint]`, or `Display` of a variant that is not
// masked) does not show a field that is itself a `ToolError`, with `{field}` or `{field:?}`:
// the wrapped error's masked text and `#[sensitive]` fields would reach the model through it.
// Forward to it with `#[transparent]`, or keep it as the `#[source]` out of the text.
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
pub enum StoreError {
    #[error("disk full: {0}")]
    #[category(internal)]
    DiskFull(#[source] std::io::Error),
}

#[derive(Debug, thiserror::Error, ToolError)]
pub enum BookingError {
    #[error("booking failed: {0}")]
    #[category(validation)]
    NotBooked(StoreError),

    #[error("seat taken")]
    #[category(conflict)]
    #[hint("the store said {store:?}")]
    Taken { store: StoreError },
}

fn main() {}
