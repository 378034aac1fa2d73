//! Tests of the wire types.

use super::*;
use crate::category::Category;
use serde_json::Value;
use serde_json::json;

fn payload() -> ErrorPayload {
    ErrorPayload::new(
        "UNKNOWN_DEPARTMENT",
        Category::Validation,
        "unknown department \"finace\"",
    )
    .with_hint("use one of: finance, hr")
}

#[test]
fn text_reads_code_message_retry_advice_and_hint() {
    assert_eq!(
        payload().to_text(),
        "Error UNKNOWN_DEPARTMENT: unknown department \"finace\". Not retryable. Hint: use one of: finance, hr"
    );
}

#[test]
fn text_writes_the_code_once_when_the_message_starts_with_its_words() {
    let p = ErrorPayload::new(
        "INVALID_SQL",
        Category::Validation,
        "Invalid SQL: near \"x\"",
    );
    assert_eq!(p.to_text(), "Error INVALID_SQL: near \"x\". Not retryable.");
    assert_eq!(p.message, "Invalid SQL: near \"x\"");
    let p = ErrorPayload::new("INVALID_SQL", Category::Validation, "Invalid SQL");
    assert_eq!(
        p.to_text(),
        "Error INVALID_SQL: Invalid SQL. Not retryable."
    );
}

#[test]
fn text_does_not_double_the_full_stop_and_names_the_unit() {
    let mut p = payload();
    p.message = "seat taken.".into();
    p.hint = None;
    p.retryable = true;
    p.retry_after_ms = Some(90_000);
    assert_eq!(
        p.to_text(),
        "Error UNKNOWN_DEPARTMENT: seat taken. Retryable after 90s."
    );
    p.retry_after_ms = Some(1_500);
    assert!(p.to_text().ends_with("Retryable after 1500ms."));
    p.retry_after_ms = Some(7_200_000);
    assert!(p.to_text().ends_with("Retryable after 2h."));
    p.retry_after_ms = Some(300_000);
    assert!(p.to_text().ends_with("Retryable after 5min."));
    p.retry_after_ms = Some(0);
    assert!(p.to_text().ends_with("Retryable after 0s."));
}

#[test]
fn payload_is_camel_case_and_omits_absent_fields() {
    let mut p = payload();
    p.retry_after_ms = Some(5);
    p.correlation_id = Some("abc".into());
    assert_eq!(
        serde_json::to_value(&p).unwrap(),
        json!({
            "code": "UNKNOWN_DEPARTMENT",
            "category": "validation",
            "retryable": false,
            "message": "unknown department \"finace\"",
            "hint": "use one of: finance, hr",
            "retryAfterMs": 5,
            "correlationId": "abc"
        })
    );
}

#[test]
fn result_type_defaults_to_complete_when_absent() {
    let result: CallToolResult =
        serde_json::from_value(json!({"content": [{"type": "text", "text": "hi"}]})).unwrap();
    assert_eq!(result.result_type, "complete");
    assert_eq!(result.is_error, None);
}

#[test]
fn meta_serializes_the_payload_under_the_key_next_to_other_entries() {
    let mut meta = ResultMeta::with_error(payload());
    meta.other.insert("traceparent".into(), json!("00-abc"));
    // An entry of `other` under the key would be a duplicate: the typed payload wins.
    meta.other.insert(META_KEY.into(), json!("stale"));
    let wire = serde_json::to_value(&meta).unwrap();
    let expected = json!({
        META_KEY: serde_json::to_value(payload()).unwrap(),
        "traceparent": "00-abc",
    });
    assert_eq!(wire, expected);
    assert_eq!(Value::Object(meta.to_map()), expected);
    let text = serde_json::to_string(&meta).unwrap();
    assert_eq!(text.matches(META_KEY).count(), 1, "{text}");
}

#[test]
fn meta_round_trips_and_keeps_a_foreign_payload_as_json() {
    let meta = ResultMeta::with_error(payload());
    let back: ResultMeta = serde_json::from_value(serde_json::to_value(&meta).unwrap()).unwrap();
    assert_eq!(back, meta);

    let foreign = json!({META_KEY: {"code": 7}, "other": [1, 2]});
    let result: CallToolResult = serde_json::from_value(json!({
        "content": [], "isError": true, "_meta": foreign.clone()
    }))
    .unwrap();
    assert_eq!(result.error_payload(), None);
    assert_eq!(result.meta_map().map(Value::Object), Some(foreign));
}

#[test]
fn jsonrpc_version_rejects_anything_but_2_0() {
    let bad = json!({"jsonrpc": "1.0", "id": 1, "error": {"code": 1, "message": "m"}});
    assert!(serde_json::from_value::<JsonRpcErrorResponse>(bad).is_err());
}

#[test]
fn retired_codes_follow_the_negotiated_version_and_other_codes_stay() {
    let data = json!({"uri": "file:///x", "code": "NO_FILE"});
    for (version, not_found, url) in [
        ("2024-11-05", -32002, -32602),
        ("2025-06-18", -32002, -32602),
        ("2025-11-25", -32002, -32042),
        ("2026-07-28", -32602, -32602),
        ("2027-03-01", -32602, -32602),
    ] {
        let missing = JsonRpcError::new(ErrorCode::RESOURCE_NOT_FOUND, "no file")
            .with_data(data.clone())
            .for_protocol_version(version);
        assert_eq!(missing.code, not_found, "{version}");
        assert_eq!(missing.data.as_ref(), Some(&data), "{version}");
        assert_eq!(missing.message, "no file");
        let elicit = JsonRpcError::new(ErrorCode::URL_ELICITATION_REQUIRED, "sign in")
            .for_protocol_version(version);
        assert_eq!(elicit.code, url, "{version}");
        for code in [-32602, -32603, -32020, -32021, -32022, -32001, -4001] {
            let error = JsonRpcError::new(code, "m").for_protocol_version(version);
            assert_eq!(error.code, code, "{version} {code}");
        }
    }
}
