// Rule: `ToolError` derives for enums and structs, never unions. The refusal is the only
// error: stub impls keep the places that convert the union from failing too.
use mcp_errors_core::{ToolError, ToolFailure};

#[derive(ToolError)]
union Raw {
    code: u32,
}

impl std::fmt::Debug for Raw {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Raw")
    }
}

impl std::fmt::Display for Raw {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("raw")
    }
}

impl std::error::Error for Raw {}

fn to_wire(raw: Raw) -> ToolFailure {
    raw.into()
}

fn main() {
    let _ = to_wire(Raw { code: 1 });
}
