// Rule: a protocol error's `#[detail]` fields share JSON-RPC `data` with the stable code
// (`code`) and the correlation id (`correlationId`), so no detail takes those keys, nor
// `correlation_id`, which clients converting snake_case to camelCase read as `correlationId`.
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
#[allow(non_snake_case)]
enum QueryError {
    #[error("unknown country")]
    #[protocol(invalid_params)]
    UnknownCountry {
        #[detail]
        code: String,
    },

    #[error("stale cursor")]
    #[protocol(invalid_params)]
    StaleCursor {
        #[detail]
        correlationId: String,
        #[detail]
        correlation_id: String,
    },
}

fn main() {}
