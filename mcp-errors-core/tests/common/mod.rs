//! What the client's test files share: both classifiers at once, a response around a result,
//! and an executor for futures that never wait.
// Each test file compiles this module on its own and uses only part of it.
#![allow(dead_code)]

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use mcp_errors_core::client::{Outcome, classify, classify_bytes};
use serde_json::{Value, json};

/// The longest `requestState` the client keeps and sends back: 1 MiB, as `classify` documents.
pub const MAX_REQUEST_STATE_BYTES: usize = 1 << 20;

/// Classifies `response` with `classify` and `classify_bytes`, checks they agree, and returns
/// the outcome.
pub fn both(response: &Value) -> Outcome {
    let from_value = classify(response);
    let from_bytes = classify_bytes(&serde_json::to_vec(response).unwrap());
    assert_eq!(
        from_value, from_bytes,
        "classify and classify_bytes disagree"
    );
    from_value
}

/// The JSON-RPC response carrying `result`.
pub fn ok(result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "result": result})
}

/// Polls a future to completion; the futures here never wait.
pub fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    for _ in 0..1_000_000 {
        if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return out;
        }
    }
    panic!("the future never finished")
}

/// Text a foreign server could use to hide instructions from a reader or drive a terminal:
/// tag characters, a bidi override and isolate, a zero-width space, ESC.
pub const HOSTILE: &str = "ok\u{E0049}\u{E0067}\u{202E}txt\u{2066}\u{200B}\u{1b}[31mred";

/// `HOSTILE` as a model should read it.
pub const HOSTILE_CLEANED: &str = "oktxt [31mred";

/// Whether `text` holds none of the characters `mask::clean_text` removes or replaces.
pub fn model_safe(text: &str) -> bool {
    !text.chars().any(|c| {
        matches!(c, '\u{E0000}'..='\u{E0FFF}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200B}')
            || (c.is_control() && c != '\n' && c != '\t')
    })
}

/// Every string in `value`, keys included, is [`model_safe`] and at most `max_chars` long.
pub fn all_strings_safe(value: &Value, max_chars: usize) -> bool {
    let safe = |s: &str| model_safe(s) && s.chars().count() <= max_chars;
    match value {
        Value::String(s) => safe(s),
        Value::Array(items) => items.iter().all(|v| all_strings_safe(v, max_chars)),
        Value::Object(map) => map
            .iter()
            .all(|(k, v)| safe(k) && all_strings_safe(v, max_chars)),
        _ => true,
    }
}
