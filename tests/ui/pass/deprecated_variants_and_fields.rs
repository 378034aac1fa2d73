// Deprecated variants and fields derive under `#![deny(deprecated)]`: the generated code that
// names them allows it.
#![deny(deprecated)]
use mcp_errors_core::{ToolError, ToolFailure};

#[derive(Debug, thiserror::Error, ToolError)]
enum SearchError {
    #[error("timed out")]
    #[category(transient)]
    #[deprecated(note = "use `Overloaded`")]
    Timeout,

    #[error("overloaded")]
    #[category(transient)]
    #[message("shard {shard} overloaded")]
    Overloaded {
        #[detail]
        #[deprecated(note = "shards are gone")]
        shard: u32,
    },
}

#[allow(deprecated)]
fn main() {
    assert_eq!(SearchError::Timeout.descriptor().code(), "TIMEOUT");
    let failure = ToolFailure::from(SearchError::Overloaded { shard: 3 });
    assert_eq!(failure.as_execution().unwrap().error_payload().unwrap().message, "shard 3 overloaded");
}
