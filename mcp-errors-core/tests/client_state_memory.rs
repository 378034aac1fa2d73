//! The memory a `requestState` costs the client, counted by a global allocator: a state over
//! the 1 MiB cap is never copied, and one at the cap is copied a bounded number of
//! times over a whole run.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use common::{MAX_REQUEST_STATE_BYTES, block_on};
use mcp_errors_core::client::{
    Decision, EscalationReason, Outcome, Retrier, RetryPolicy, ToolCall, classify_bytes,
};
use serde_json::json;

/// Counts the bytes allocated and not yet freed, and the most there ever were.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(bytes: usize) {
    let live = LIVE.fetch_add(bytes, Ordering::Relaxed) + bytes;
    PEAK.fetch_max(live, Ordering::Relaxed);
}

// SAFETY: every call is passed on to `System` unchanged; only counters are updated.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            grew(layout.size());
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
            grew(new_size);
        }
        new
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The most bytes `f` had allocated at once beyond what was live when it started.
fn peak_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let out = f();
    (out, PEAK.load(Ordering::Relaxed).saturating_sub(base))
}

fn shed(state_len: usize) -> Vec<u8> {
    let mut bytes =
        br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":""#
            .to_vec();
    bytes.resize(bytes.len() + state_len, b's');
    bytes.extend_from_slice(br#""}}"#);
    bytes
}

/// Runs a call whose first `shed_attempts` attempts answer `response`, then succeeds.
fn run(response: &[u8], shed_attempts: u32) -> Result<usize, Decision> {
    let retrier = Retrier::new(RetryPolicy::default()).with_jitter(0.0);
    let call = ToolCall::new("report", json!({}));
    let done = br#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#;
    block_on(retrier.run(
        &call,
        |attempt| {
            let outcome: Outcome = if attempt.number <= shed_attempts {
                classify_bytes(response)
            } else {
                classify_bytes(done)
            };
            std::future::ready(outcome)
        },
        |_| async {},
    ))
    .map(|success| success.attempts.len())
    .map_err(|report| report.decision)
}

// One test, so no other test's allocations run alongside it.
#[test]
fn a_request_state_costs_a_bounded_number_of_copies() {
    // Sixteen times the cap: refused without a single copy of the state.
    let huge = shed(16 * MAX_REQUEST_STATE_BYTES);
    let (stopped, extra) = peak_during(|| run(&huge, 3));
    assert_eq!(
        stopped,
        Err(Decision::Escalate {
            reason: EscalationReason::InvalidResponse
        })
    );
    assert!(extra < MAX_REQUEST_STATE_BYTES, "{extra} bytes");

    // At the cap, sent back twice before the call succeeds: the outcome and the decision
    // of each attempt keep a copy, and one more is in flight.
    let at_cap = shed(MAX_REQUEST_STATE_BYTES);
    let (done, extra) = peak_during(|| run(&at_cap, 2));
    assert_eq!(done, Ok(3));
    assert!(extra <= 6 * MAX_REQUEST_STATE_BYTES, "{extra} bytes");
    println!("peak beyond the response at the cap: {extra} bytes");
}
