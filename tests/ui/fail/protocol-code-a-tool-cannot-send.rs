// Rule: a tool error cannot be a parse error (-32700), an invalid request (-32600) or a
// method not found (-32601), by name or by number: the tool runs only once its `tools/call`
// request was parsed, found valid and routed to it.
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
enum QueryError {
    #[error("query is not JSON")]
    #[protocol(parse_error)]
    NotJson,

    #[error("bad request")]
    #[protocol(-32600)]
    BadRequest,

    #[error("no such report")]
    #[protocol(method_not_found)]
    NoSuchReport,
}

fn main() {}
