//! The official MCP JSON schemas, read from `MCP_SCHEMA_DIR` (CI sets it to
//! `../shared/mcp-schema`), and validation of our wire output against their definitions.

use std::io::Write as _;
use std::path::PathBuf;

use serde_json::Value;

/// The protocol versions whose schemas every wire test validates against.
pub const VERSIONS: [&str; 3] = ["2025-06-18", "2025-11-25", "2026-07-28"];

/// One version's schema document.
pub struct McpSchema {
    /// The protocol version, e.g. `2025-11-25`.
    pub version: &'static str,
    document: Value,
}

impl McpSchema {
    /// Validates `instance` against the definition `name`, or, when the version names it
    /// differently, the first of `names` it has (`JSONRPCError` became `JSONRPCErrorResponse`).
    /// Returns every validation error as text; empty when valid.
    pub fn errors(&self, names: &[&str], instance: &Value) -> Vec<String> {
        let definitions_key = if self.document.get("$defs").is_some() {
            "$defs"
        } else {
            "definitions"
        };
        let Some(name) = names
            .iter()
            .find(|name| self.document[definitions_key].get(**name).is_some())
        else {
            return vec![format!("schema {} defines none of {names:?}", self.version)];
        };
        let mut schema = self.document.clone();
        schema["$ref"] = Value::from(format!("#/{definitions_key}/{name}"));
        let validator = match jsonschema::validator_for(&schema) {
            Ok(validator) => validator,
            Err(error) => {
                return vec![format!("schema {} does not compile: {error}", self.version)];
            }
        };
        validator
            .iter_errors(instance)
            .map(|error| {
                format!(
                    "{} {name}: {error} at {}",
                    self.version,
                    error.instance_path()
                )
            })
            .collect()
    }

    /// Panics with every validation error unless `instance` is a valid `CallToolResult`.
    pub fn assert_call_tool_result(&self, instance: &Value) {
        let errors = self.errors(&["CallToolResult"], instance);
        assert!(errors.is_empty(), "{errors:#?}\ninstance: {instance:#}");
    }

    /// Panics with every validation error unless `instance` is a valid JSON-RPC error response.
    pub fn assert_error_response(&self, instance: &Value) {
        let errors = self.errors(&["JSONRPCErrorResponse", "JSONRPCError"], instance);
        assert!(errors.is_empty(), "{errors:#?}\ninstance: {instance:#}");
    }
}

/// The schemas of all three versions, or `None` (said loudly on the terminal, past the test
/// harness's capture) when `MCP_SCHEMA_DIR` is not set.
///
/// # Panics
/// When `MCP_SCHEMA_DIR` is set but a schema is missing or unreadable: a CI
/// misconfiguration must not pass as a skip.
pub fn load() -> Option<Vec<McpSchema>> {
    let Some(dir) = std::env::var_os("MCP_SCHEMA_DIR").map(PathBuf::from) else {
        // Written to the stream directly: libtest captures `eprintln!`, not this.
        let _ = writeln!(
            std::io::stderr(),
            "\n*** SKIPPED: MCP schema validation: MCP_SCHEMA_DIR is not set. \
             Set it to the folder holding 2025-06-18/, 2025-11-25/ and 2026-07-28/ \
             (CI: ../shared/mcp-schema). ***\n"
        );
        return None;
    };
    let schemas = VERSIONS
        .into_iter()
        .map(|version| {
            let path = dir.join(version).join("schema.json");
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|error| panic!("MCP_SCHEMA_DIR is set but {path:?}: {error}"));
            let document = serde_json::from_str(&text)
                .unwrap_or_else(|error| panic!("{path:?} is not JSON: {error}"));
            McpSchema { version, document }
        })
        .collect();
    Some(schemas)
}
