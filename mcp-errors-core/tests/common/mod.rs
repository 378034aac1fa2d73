//! What the client's test files share: both classifiers at once, a response around a result,
//! and an executor for futures that never wait.
// Each test file compiles this module on its own and uses only part of it.
#![allow(dead_code)]

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use mcp_errors_core::client::{Outcome, classify, classify_bytes};
use serde_json::{Value, json};

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
