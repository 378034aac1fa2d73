// `#[protocol(CODE)]` or `#[protocol(name)]` sends a variant to the JSON-RPC channel; `data`
// carries the stable code and the `#[detail]` fields.
use mcp_errors_core::{ErrorCode, ToolError, ToolFailure};

#[derive(Debug, thiserror::Error, ToolError)]
enum QueryError {
    #[error("start_time is after end_time")]
    #[protocol(-32602)]
    BadRange { #[detail] start: String, #[detail] end: String },

    #[error("no resource at {uri}")]
    #[protocol(resource_not_found)]
    NoResource { #[detail] uri: String },

    #[error("application-specific refusal")]
    #[protocol(-4001)]
    Refused,
}

fn main() {
    let bad = QueryError::BadRange { start: "b".into(), end: "a".into() };
    let ToolFailure::Protocol(error) = ToolFailure::from(bad) else { panic!("not protocol") };
    assert_eq!(error.code, -32602);
    assert_eq!(
        error.data.unwrap(),
        serde_json::json!({"code": "BAD_RANGE", "start": "b", "end": "a"})
    );
    let missing = QueryError::NoResource { uri: "file:///x".into() };
    assert_eq!(missing.to_failure().as_protocol().unwrap().code, -32002);
    assert_eq!(QueryError::descriptors()[2].protocol_code(), Some(ErrorCode(-4001)));
}
