// Rule: a protocol error's `#[detail]` fields share JSON-RPC `data` with the stable code
// (`code`), the retry advice (`retryable`, `retryAfterMs`), the hint (`hint`) and the
// correlation id (`correlationId`), so no detail takes those keys, nor their snake_case
// spellings (`correlation_id`), which clients converting to camelCase read as the same key.
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

    #[error("ledger busy")]
    #[protocol(invalid_params)]
    Busy {
        #[detail]
        retryable: bool,
        #[detail]
        hint: String,
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
