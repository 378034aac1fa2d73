// Rule: a `#[detail]` is sent to the client as JSON, so its type implements `serde::Serialize`.
// A foreign error (`std::io::Error`, `sqlx::Error`) is not: keep it as the `#[source]`, or
// format what the client needs into a `String` field.
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
enum ExportError {
    #[error("export failed")]
    #[category(transient)]
    WriteFailed { #[detail] cause: std::io::Error },
}

fn main() {}
