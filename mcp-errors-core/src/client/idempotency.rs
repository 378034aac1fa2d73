//! Whether a server advertises request idempotency keys (the SEP-3182 draft).

use serde_json::Value;

use crate::idempotency::{CAPABILITY, CARRIER_CAPABILITY};

/// Whether a server advertises request idempotency keys (the SEP-3182 draft): its
/// capabilities hold `tools.idempotency` as an object (`{"tools": {"idempotency": {}}}`), or
/// the member this crate's rmcp wire adapters move it to inside a process, since rmcp's
/// `ToolsCapability` has no field for it.
///
/// `server` is the `initialize` response (`{"jsonrpc": "2.0", "id": 0, "result": {...}}`), its
/// result (`{"capabilities": {...}, ...}`), or the capabilities object alone. Anything else,
/// or a capability that is not an object (`"idempotency": true`), is `false`: a client that
/// wrongly takes a server to honor keys would send a call that may have run again.
///
/// Where it is `true`, tell the [`Retrier`](super::Retrier) so
/// ([`with_idempotency_keys`](super::Retrier::with_idempotency_keys)) and send the key
/// [`run_keyed`](super::Retrier::run_keyed) hands each attempt; [`rmcp::call_tool`](crate::rmcp::call_tool) reads rmcp's record of the
/// server's capabilities by itself.
///
/// ```
/// use mcp_errors_core::client::advertises_idempotency;
/// use serde_json::json;
///
/// let initialize = json!({"jsonrpc": "2.0", "id": 0, "result": {
///     "protocolVersion": "2025-11-25",
///     "capabilities": {"tools": {"listChanged": true, "idempotency": {}}},
///     "serverInfo": {"name": "shop", "version": "1.0.0"},
/// }});
/// assert!(advertises_idempotency(&initialize));
/// assert!(advertises_idempotency(&initialize["result"]));
/// assert!(advertises_idempotency(&initialize["result"]["capabilities"]));
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
    declared("tools", CAPABILITY) || declared("experimental", CARRIER_CAPABILITY)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_carrier_counts_and_other_places_do_not() {
        assert!(advertises_idempotency(
            &json!({"experimental": {CARRIER_CAPABILITY: {}}})
        ));
        assert!(advertises_idempotency(
            &json!({"result": {"capabilities": {"experimental": {CARRIER_CAPABILITY: {}}}}})
        ));
        for other in [
            json!({"experimental": {CAPABILITY: {}}}),
            json!({"tools": {"idempotency": null}}),
            json!({"tools": {"idempotency": []}}),
            json!({"experimental": {CARRIER_CAPABILITY: "yes"}}),
            json!({"idempotency": {}}),
            json!({"result": {"tools": {}}, "capabilities": {"tools": {"idempotency": {}}}}),
            json!(null),
            json!("tools"),
            json!({"error": {"code": -32603, "message": "no"}}),
        ] {
            assert!(!advertises_idempotency(&other), "{other}");
        }
    }
}
