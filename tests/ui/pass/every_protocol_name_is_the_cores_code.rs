// Every name `#[protocol(...)]` accepts is the code the core names the same way
// (`ErrorCode::DEFINED`), in the same order; the derive and the core keep one table each and
// this pins them together. The core's table also holds the three codes no tool error can have
// (parse error, invalid request, method not found), which the derive refuses with a message
// naming them (`fail/protocol-code-a-tool-cannot-send.rs`). -32019..=-32000 is
// implementation-defined and accepted as a number.
use mcp_errors_core::{ErrorCode, ToolError};

#[derive(Debug, thiserror::Error, ToolError)]
#[error("failed")]
enum Every {
    #[protocol(invalid_params)] InvalidParams,
    #[protocol(internal_error)] InternalError,
    #[protocol(resource_not_found)] ResourceNotFound,
    #[protocol(header_mismatch)] HeaderMismatch,
    #[protocol(missing_required_client_capability)] MissingRequiredClientCapability,
    #[protocol(unsupported_protocol_version)] UnsupportedProtocolVersion,
    #[protocol(url_elicitation_required)] UrlElicitationRequired,
    #[protocol(-32005)] SessionNotFound,
}

const NO_TOOL_ERROR: [ErrorCode; 3] =
    [ErrorCode::PARSE_ERROR, ErrorCode::INVALID_REQUEST, ErrorCode::METHOD_NOT_FOUND];

fn main() {
    let answerable: Vec<(ErrorCode, &str)> = ErrorCode::DEFINED
        .into_iter()
        .filter(|(code, _)| !NO_TOOL_ERROR.contains(code))
        .collect();
    let catalog = Every::descriptors();
    assert_eq!(catalog.len(), answerable.len() + 1);
    for (descriptor, (code, name)) in catalog.iter().zip(answerable) {
        assert_eq!(descriptor.protocol_code(), Some(code), "{name}");
        assert_eq!(descriptor.code(), name.to_uppercase(), "{name}");
        assert_eq!(descriptor.is_masked(), code == ErrorCode::INTERNAL_ERROR, "{name}");
        assert!(!descriptor.is_retryable());
    }
    let session = Every::SessionNotFound.descriptor();
    assert_eq!(session.protocol_code(), Some(ErrorCode(-32005)));
    assert!(ErrorCode(-32005).is_implementation_defined());
}
