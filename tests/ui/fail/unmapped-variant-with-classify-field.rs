// Rule: every variant is mapped to a channel. When a field's type says what went wrong
// (`io::Error`, `io::ErrorKind`, `StatusCode`, `reqwest::Error`, `sqlx::Error`), the error
// also shows that `#[classify]` on that field maps the variant by the value at run time.
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
enum FileError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
}

fn main() {}
