// Rule: a placeholder's spec is one `format_args!` can take with fields as its only
// arguments: no `.*` (it reads a positional argument), a known format trait, and fields named
// without `r#`.
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
enum ReportError {
    #[error("overflow")]
    #[category(validation)]
    #[message("ratio {ratio:.*}")]
    #[hint("count {count:z}")]
    Overflow { ratio: f64, count: u32 },

    #[error("unsupported")]
    #[category(validation)]
    #[message("unsupported type {r#type}")]
    Unsupported { r#type: String },
}

fn main() {}
