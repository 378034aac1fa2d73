// Rule: every variant is mapped to a channel, by `#[category]` or `#[protocol]` on the
// variant or on the enum. The error names the variant and shows both fixes.
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
enum SearchError {
    #[error("timed out")]
    #[category(transient)]
    Timeout,

    #[error("bad query")]
    BadQuery,
}

fn main() {}
