//! What a server says of itself that decides how its calls may be repeated: whether its
//! `initialize` result advertises idempotency keys (the SEP-3182 draft), and whether a tool's
//! annotations call it idempotent.

use serde_json::Value;

use crate::idempotency::{CAPABILITY, TOOLS_CAPABILITY};

/// Whether a server advertises request idempotency keys (the SEP-3182 draft): its
/// capabilities hold [`CAPABILITY`](crate::idempotency::CAPABILITY) among the experimental
/// ones as an object (`{"experimental": {"rs.mcp-errors/idempotency": {}}}`, where this
/// crate's servers put it), or `tools.idempotency` as an object (`{"tools": {"idempotency":
/// {}}}`, the place the draft names).
///
/// `server` is the `initialize` response (`{"jsonrpc": "2.0", "id": 0, "result": {...}}`), its
/// result (`{"capabilities": {...}, ...}`), or the capabilities object alone. Anything else,
/// or a capability that is not an object (`"idempotency": true`), is `false`: a client that
/// wrongly takes a server to honor keys would send a call that may have run again.
///
/// Where it is `true`, tell the [`Retrier`](crate::client::Retrier) so
/// ([`with_idempotency_keys`](crate::client::Retrier::with_idempotency_keys)) and send the key
/// [`run`](crate::client::Retrier::run) hands each attempt; [`rmcp::call_tool`](crate::rmcp::call_tool) reads rmcp's record of the
/// server's capabilities by itself.
///
/// ```
/// use mcp_errors_core::client::advertises_idempotency;
/// use serde_json::json;
///
/// let initialize = json!({"jsonrpc": "2.0", "id": 0, "result": {
///     "protocolVersion": "2025-11-25",
///     "capabilities": {"tools": {}, "experimental": {"rs.mcp-errors/idempotency": {}}},
///     "serverInfo": {"name": "shop", "version": "1.0.0"},
/// }});
/// assert!(advertises_idempotency(&initialize));
/// assert!(advertises_idempotency(&initialize["result"]));
/// assert!(advertises_idempotency(&initialize["result"]["capabilities"]));
/// assert!(advertises_idempotency(&json!({"tools": {"listChanged": true, "idempotency": {}}})));
/// assert!(!advertises_idempotency(&json!({"capabilities": {"tools": {}}})));
/// assert!(!advertises_idempotency(&json!({"tools": {"idempotency": true}})));
/// ```
pub fn advertises_idempotency(server: &Value) -> bool {
    let server = server.get("result").unwrap_or(server);
    let capabilities = server.get("capabilities").unwrap_or(server);
    let declared = |parent: &str, member: &str| {
        capabilities
            .get(parent)
            .and_then(|p| p.get(member))
            .is_some_and(Value::is_object)
    };
    declared("experimental", CAPABILITY) || declared("tools", TOOLS_CAPABILITY)
}

/// Whether a `Tool` object from `tools/list` says `readOnlyHint: true` or
/// `idempotentHint: true` in its `annotations`.
pub(crate) fn hints_idempotent(tool: &Value) -> bool {
    let hint = |key: &str| tool.get("annotations")?.get(key)?.as_bool();
    hint("readOnlyHint") == Some(true) || hint("idempotentHint") == Some(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::idempotency::CARRIER_CAPABILITY;
    use serde_json::json;

    #[test]
    fn both_places_count_and_no_other() {
        for advertised in [
            json!({"experimental": {CAPABILITY: {}}}),
            json!({"experimental": {CAPABILITY: {"since": 1}}, "tools": {}}),
            json!({"result": {"capabilities": {"experimental": {CAPABILITY: {}}}}}),
            json!({"tools": {"idempotency": {}}}),
            json!({"capabilities": {"tools": {"idempotency": {}}}}),
        ] {
            assert!(advertises_idempotency(&advertised), "{advertised}");
        }
        for other in [
            // The boundary's stand-in reaches the wire only from a server without the wire
            // adapter, which never gets the keys.
            json!({"experimental": {CARRIER_CAPABILITY: {}}}),
            json!({"experimental": {TOOLS_CAPABILITY: {}}}),
            json!({"extensions": {CAPABILITY: {}}}),
            json!({"tools": {CAPABILITY: {}}}),
            json!({"tools": {"idempotency": null}}),
            json!({"tools": {"idempotency": []}}),
            json!({"experimental": {CAPABILITY: "yes"}}),
            json!({"experimental": {CAPABILITY: true}}),
            json!({"idempotency": {}}),
            json!({CAPABILITY: {}}),
            json!({"result": {"tools": {}}, "capabilities": {"tools": {"idempotency": {}}}}),
            json!(null),
            json!("tools"),
            json!({"error": {"code": -32603, "message": "no"}}),
        ] {
            assert!(!advertises_idempotency(&other), "{other}");
        }
    }
}
