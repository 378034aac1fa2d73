// Attributes on the enum set defaults for every variant; a variant's own attributes win.
use mcp_errors_core::{Category, ErrorCode, ToolError};

#[derive(Debug, thiserror::Error, ToolError)]
#[category(transient)]
enum BackendError {
    #[error("backend timed out")]
    Timeout,

    #[error("backend overloaded")]
    #[retryable(false)]
    Overloaded,

    #[error("no such index")]
    #[category(not_found)]
    NoIndex,

    #[error("bad cursor")]
    #[protocol(invalid_params)]
    BadCursor,
}

fn main() {
    let [timeout, overloaded, no_index, bad_cursor] = BackendError::descriptors() else {
        panic!("four variants")
    };
    assert_eq!((timeout.category(), timeout.is_retryable()), (Some(Category::Transient), true));
    assert!(!overloaded.is_retryable());
    assert_eq!(no_index.category(), Some(Category::NotFound));
    assert_eq!(bad_cursor.protocol_code(), Some(ErrorCode::INVALID_PARAMS));
}
