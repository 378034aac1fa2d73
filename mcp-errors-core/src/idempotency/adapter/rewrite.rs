//! The JSON rewrite rules of the transport adapters: which member of a JSON-RPC message moves
//! where, for a server and for a client, each way.

use serde_json::{Map, Value};

use super::unreadable;
use crate::idempotency::{
    CAPABILITY, CARRIER_CAPABILITY, CARRIER_META, KEY_PARAM, TOOLS_CAPABILITY,
};

/// The longest line (or SSE `data:` line) the adapters read as JSON: 16 MiB, rmcp's own limit
/// for a line of its stdio codec. A longer line passes unchanged.
pub(super) const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// Which side of the connection an adapter stands on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Role {
    Server,
    Client,
}

/// Which way a message goes, seen from rmcp.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Way {
    /// From the peer to rmcp.
    In,
    /// From rmcp to the peer.
    Out,
}

/// Rewrites one JSON-RPC message (or each of a batch); `true` when anything changed.
pub(super) fn rewrite(role: Role, way: Way, message: &mut Value) -> bool {
    if let Value::Array(batch) = message {
        let mut changed = false;
        for message in batch {
            changed |= rewrite(role, way, message);
        }
        return changed;
    }
    let Value::Object(message) = message else {
        return false;
    };
    match (role, way) {
        (Role::Server, Way::In) => key_into_meta(message),
        (Role::Server, Way::Out) => {
            capability_onto_wire(message) | unreadable::null_id_onto_error(message)
        }
        (Role::Client, Way::In) => draft_capability_into_experimental(message),
        (Role::Client, Way::Out) => key_onto_wire(message),
    }
}

/// The `params` of a `tools/call` request.
fn tool_call_params(message: &mut Map<String, Value>) -> Option<&mut Map<String, Value>> {
    if message.get("method").and_then(Value::as_str) != Some("tools/call") {
        return None;
    }
    message.get_mut("params")?.as_object_mut()
}

/// The `capabilities` of a result.
fn result_capabilities(message: &mut Map<String, Value>) -> Option<&mut Map<String, Value>> {
    message
        .get_mut("result")?
        .as_object_mut()?
        .get_mut("capabilities")?
        .as_object_mut()
}

/// Server, inbound: `params.idempotencyKey` into `params._meta`, under the carrier's name.
fn key_into_meta(message: &mut Map<String, Value>) -> bool {
    let Some(params) = tool_call_params(message) else {
        return false;
    };
    let mut changed = false;
    if let Some(meta) = params.get_mut("_meta").and_then(Value::as_object_mut) {
        changed |= meta.remove(CARRIER_META).is_some();
    }
    let Some(key) = params.remove(KEY_PARAM) else {
        return changed;
    };
    let meta = params
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(meta) = meta {
        meta.insert(CARRIER_META.to_owned(), key);
    }
    // A `_meta` that is not an object fails rmcp's parse with or without the key.
    true
}

/// Client, outbound: the carrier in `params._meta` onto `params.idempotencyKey`.
fn key_onto_wire(message: &mut Map<String, Value>) -> bool {
    let Some(params) = tool_call_params(message) else {
        return false;
    };
    let Some(meta) = params.get_mut("_meta").and_then(Value::as_object_mut) else {
        return false;
    };
    let Some(key) = meta.remove(CARRIER_META) else {
        return false;
    };
    if meta.is_empty() {
        params.remove("_meta");
    }
    params.entry(KEY_PARAM).or_insert(key);
    true
}

/// Server, outbound: the carrier in `capabilities.experimental` renamed [`CAPABILITY`].
fn capability_onto_wire(message: &mut Map<String, Value>) -> bool {
    let Some(experimental) = result_capabilities(message)
        .and_then(|capabilities| capabilities.get_mut("experimental"))
        .and_then(Value::as_object_mut)
    else {
        return false;
    };
    let Some(capability) = experimental.remove(CARRIER_CAPABILITY) else {
        return false;
    };
    experimental.insert(CAPABILITY.to_owned(), capability);
    true
}

/// Client, inbound: `capabilities.tools.idempotency` copied into `capabilities.experimental`
/// as [`CAPABILITY`], unless the server put one there itself.
fn draft_capability_into_experimental(message: &mut Map<String, Value>) -> bool {
    let Some(capabilities) = result_capabilities(message) else {
        return false;
    };
    let advertised = capabilities
        .get("tools")
        .and_then(|tools| tools.get(TOOLS_CAPABILITY))
        .filter(|capability| capability.is_object())
        .cloned();
    let Some(capability) = advertised else {
        return false;
    };
    let experimental = capabilities
        .entry("experimental")
        .or_insert_with(|| Value::Object(Map::new()));
    match experimental {
        Value::Object(experimental) if !experimental.contains_key(CAPABILITY) => {
            experimental.insert(CAPABILITY.to_owned(), capability);
            true
        }
        _ => false,
    }
}

/// `line` (without its line end) rewritten, or `None` when it stays as it is.
pub(super) fn rewrite_json(role: Role, way: Way, line: &[u8]) -> Option<Vec<u8>> {
    try_rewrite_json(role, way, line).ok().flatten()
}

/// [`rewrite_json`], with serde_json's error for a line it cannot read as a `Value`.
pub(super) fn try_rewrite_json(
    role: Role,
    way: Way,
    line: &[u8],
) -> Result<Option<Vec<u8>>, serde_json::Error> {
    if line.len() > MAX_LINE_BYTES {
        return Ok(None);
    }
    let mut message: Value = serde_json::from_slice(line)?;
    if !rewrite(role, way, &mut message) {
        return Ok(None);
    }
    Ok(serde_json::to_vec(&message).ok())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rewritten(role: Role, way: Way, message: Value) -> Value {
        let line = serde_json::to_vec(&message).unwrap();
        match rewrite_json(role, way, &line) {
            Some(line) => serde_json::from_slice(&line).unwrap(),
            None => message,
        }
    }

    fn call(params: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
    }

    #[test]
    fn the_server_moves_a_calls_key_into_meta_and_drops_a_forged_carrier() {
        let moved = rewritten(
            Role::Server,
            Way::In,
            call(json!({"name": "refund", "arguments": {}, "idempotencyKey": "k1"})),
        );
        assert_eq!(
            moved["params"],
            json!({"name": "refund", "arguments": {}, "_meta": {CARRIER_META: "k1"}})
        );
        let kept = rewritten(
            Role::Server,
            Way::In,
            call(
                json!({"name": "r", "idempotencyKey": 7, "_meta": {"traceparent": "t", CARRIER_META: "forged"}}),
            ),
        );
        assert_eq!(
            kept["params"]["_meta"],
            json!({"traceparent": "t", CARRIER_META: 7})
        );
        let forged = rewritten(
            Role::Server,
            Way::In,
            call(json!({"name": "r", "_meta": {CARRIER_META: "forged"}})),
        );
        assert_eq!(forged["params"], json!({"name": "r", "_meta": {}}));
    }

    #[test]
    fn the_server_leaves_every_other_message_alone() {
        for message in [
            call(json!({"name": "r", "arguments": {"idempotencyKey": "an argument"}})),
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"idempotencyKey": "k"}}),
            json!({"jsonrpc": "2.0", "method": "tools/call", "params": "not an object"}),
            json!({"jsonrpc": "2.0", "id": 1, "result": {"capabilities": {"tools": {"idempotency": {}}}}}),
            json!([1, "two"]),
            json!("text"),
        ] {
            let line = serde_json::to_vec(&message).unwrap();
            assert_eq!(
                rewrite_json(Role::Server, Way::In, &line),
                None,
                "{message}"
            );
        }
        let no_carrier = json!({"jsonrpc": "2.0", "id": 1, "result": {"capabilities": {"experimental": {"x": {}}}}});
        let line = serde_json::to_vec(&no_carrier).unwrap();
        assert_eq!(rewrite_json(Role::Server, Way::Out, &line), None);
    }

    #[test]
    fn the_server_puts_the_capability_on_the_wire() {
        let only = json!({"jsonrpc": "2.0", "id": 0, "result": {"capabilities": {"experimental": {CARRIER_CAPABILITY: {}}}}});
        assert_eq!(
            rewritten(Role::Server, Way::Out, only)["result"]["capabilities"],
            json!({"experimental": {CAPABILITY: {}}})
        );
        let with_others = json!({"jsonrpc": "2.0", "id": 0, "result": {"capabilities": {
            "experimental": {CARRIER_CAPABILITY: {}, "other": {"a": 1}},
            "tools": {"listChanged": true},
        }}});
        assert_eq!(
            rewritten(Role::Server, Way::Out, with_others)["result"]["capabilities"],
            json!({"experimental": {"other": {"a": 1}, CAPABILITY: {}}, "tools": {"listChanged": true}})
        );
        let not_an_object =
            json!({"jsonrpc": "2.0", "id": 0, "result": {"capabilities": {"experimental": []}}});
        let line = serde_json::to_vec(&not_an_object).unwrap();
        assert_eq!(rewrite_json(Role::Server, Way::Out, &line), None);
    }

    #[test]
    fn the_client_keeps_the_capability_and_sends_the_key_on_the_wire() {
        let draft = json!({"jsonrpc": "2.0", "id": 0, "result": {"capabilities": {"tools": {"idempotency": {"a": 1}}}}});
        assert_eq!(
            rewritten(Role::Client, Way::In, draft)["result"]["capabilities"],
            json!({"tools": {"idempotency": {"a": 1}}, "experimental": {CAPABILITY: {"a": 1}}})
        );
        for unchanged in [
            // Already where rmcp keeps it: the server's own settings stay.
            json!({"tools": {"idempotency": {"a": 1}}, "experimental": {CAPABILITY: {"b": 2}}}),
            json!({"experimental": {CAPABILITY: {}}}),
            json!({"experimental": {CARRIER_CAPABILITY: {}}}),
            json!({"tools": {"idempotency": true}}),
            json!({"tools": {"idempotency": {}}, "experimental": []}),
        ] {
            let message = json!({"jsonrpc": "2.0", "id": 0, "result": {"capabilities": unchanged}});
            let line = serde_json::to_vec(&message).unwrap();
            assert_eq!(
                rewrite_json(Role::Client, Way::In, &line),
                None,
                "{message}"
            );
        }

        let sent = rewritten(
            Role::Client,
            Way::Out,
            call(json!({"name": "r", "_meta": {CARRIER_META: "k1"}})),
        );
        assert_eq!(sent["params"], json!({"name": "r", "idempotencyKey": "k1"}));
        let with_meta = rewritten(
            Role::Client,
            Way::Out,
            call(json!({"name": "r", "_meta": {CARRIER_META: "k1", "progressToken": 1}})),
        );
        assert_eq!(
            with_meta["params"],
            json!({"name": "r", "idempotencyKey": "k1", "_meta": {"progressToken": 1}})
        );
        let plain = serde_json::to_vec(&call(json!({"name": "r", "idempotencyKey": "k"}))).unwrap();
        assert_eq!(rewrite_json(Role::Client, Way::Out, &plain), None);
    }

    #[test]
    fn batches_are_rewritten_message_by_message() {
        let batch = json!([
            call(json!({"name": "a", "idempotencyKey": "k1"})),
            {"jsonrpc": "2.0", "id": 2, "method": "ping"},
            call(json!({"name": "b"})),
        ]);
        let out = rewritten(Role::Server, Way::In, batch);
        assert_eq!(out[0]["params"]["_meta"][CARRIER_META], "k1");
        assert_eq!(out[1], json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}));
        assert_eq!(out[2]["params"], json!({"name": "b"}));
    }
}
