//! Heap allocations per conversion, counted by a global allocator: one line per path.
//!
//! `cargo bench -p mcp-errors-benches --bench allocations`
//!
//! With `REPEAT=N` in the environment it then calls every path N more times, for
//! instruction counts that do not depend on the machine's load (`scripts/instructions`
//! runs it under callgrind; each path is an `#[inline(never)]` function).

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};

mod common;
use common::*;

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);
static BYTES: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards every call to the system allocator unchanged; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        BYTES.fetch_add(layout.size(), Ordering::Relaxed);
        // SAFETY: the caller's contract is System's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract is System's.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        BYTES.fetch_add(new_size, Ordering::Relaxed);
        // SAFETY: the caller's contract is System's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations (reallocations included) and bytes requested by one call of `f` on the
/// input `make` returns, `make` itself not counted.
fn count<I, T>(make: impl Fn() -> I, f: impl Fn(I) -> T) -> (usize, usize) {
    drop(black_box(f(make()))); // warm any lazy state
    let input = make();
    let (a, b) = (
        ALLOCATIONS.load(Ordering::Relaxed),
        BYTES.load(Ordering::Relaxed),
    );
    drop(black_box(f(input)));
    (
        ALLOCATIONS.load(Ordering::Relaxed) - a,
        BYTES.load(Ordering::Relaxed) - b,
    )
}

fn main() {
    check_equivalence();
    let execution = execution_error();
    let protocol = protocol_error();
    let error_response = error_response_bytes();
    let success_response = success_response_bytes();
    let borrowed = || ();
    let rows = [
        (
            "execution_to_bytes",
            "derive",
            count(borrowed, |()| derive_to_bytes(black_box(&execution))),
        ),
        (
            "execution_to_bytes",
            "derive_rmcp",
            count(|| execution.clone(), |e| derive_rmcp_to_bytes(black_box(e))),
        ),
        (
            "execution_to_bytes",
            "typed_by_hand",
            count(borrowed, |()| typed_by_hand_to_bytes(black_box(&execution))),
        ),
        (
            "execution_to_bytes",
            "typed_collect_str",
            count(borrowed, |()| {
                typed_collect_str_to_bytes(black_box(&execution))
            }),
        ),
        (
            "execution_to_bytes",
            "typed_format",
            count(borrowed, |()| typed_format_to_bytes(black_box(&execution))),
        ),
        (
            "execution_to_bytes",
            "floor",
            count(borrowed, |()| floor_to_bytes(black_box(&execution))),
        ),
        (
            "execution_to_bytes",
            "json_rmcp_error",
            count(borrowed, |()| rmcp_error_to_bytes(black_box(&execution))),
        ),
        (
            "execution_to_bytes",
            "json_rmcp_structured_error",
            count(borrowed, |()| {
                rmcp_structured_error_to_bytes(black_box(&execution))
            }),
        ),
        (
            "protocol_to_bytes",
            "derive",
            count(borrowed, |()| {
                derive_protocol_to_bytes(black_box(&protocol))
            }),
        ),
        (
            "protocol_to_bytes",
            "derive_rmcp",
            count(
                || protocol.clone(),
                |e| derive_rmcp_protocol_to_bytes(black_box(e)),
            ),
        ),
        (
            "protocol_to_bytes",
            "typed_by_hand",
            count(borrowed, |()| typed_protocol_to_bytes(black_box(&protocol))),
        ),
        (
            "protocol_to_bytes",
            "floor",
            count(borrowed, |()| floor_protocol_to_bytes(black_box(&protocol))),
        ),
        (
            "protocol_to_bytes",
            "json_rmcp_error_data",
            count(borrowed, |()| rmcp_protocol_to_bytes(black_box(&protocol))),
        ),
        (
            "classify_error_response",
            "classify_bytes",
            count(borrowed, |()| {
                classify_bytes_error_response(black_box(&error_response))
            }),
        ),
        (
            "classify_error_response",
            "value_by_hand",
            count(borrowed, |()| {
                value_by_hand_error_response(black_box(&error_response))
            }),
        ),
        (
            "classify_success_response",
            "classify_bytes",
            count(borrowed, |()| {
                classify_bytes_success_response(black_box(&success_response))
            }),
        ),
        (
            "classify_success_response",
            "value_by_hand",
            count(borrowed, |()| {
                value_by_hand_success_response(black_box(&success_response))
            }),
        ),
        (
            "read_success_response",
            "classify_bytes_to_value",
            count(borrowed, |()| {
                classify_to_value_success_response(black_box(&success_response))
            }),
        ),
        (
            "read_success_response",
            "classify_bytes_typed",
            count(borrowed, |()| {
                classify_typed_success_response(black_box(&success_response))
            }),
        ),
        (
            "read_success_response",
            "value_by_hand_typed",
            count(borrowed, |()| {
                value_typed_success_response(black_box(&success_response))
            }),
        ),
    ];
    println!("| group | path | allocations | bytes allocated |");
    println!("|---|---|---:|---:|");
    for (group, path, (allocations, bytes)) in rows {
        println!("| {group} | {path} | {allocations} | {bytes} |");
    }
    let repeat: usize = std::env::var("REPEAT")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    // One path at a time, so each runs against the heap it leaves behind itself. The paths
    // taking the error by value get a copy made here, outside their own count.
    macro_rules! repeat {
        ($($call:expr;)*) => {$(
            for _ in 0..repeat {
                black_box($call);
            }
        )*};
    }
    repeat! {
        derive_to_bytes(black_box(&execution));
        derive_rmcp_to_bytes(black_box(execution.clone()));
        drop_execution_error(black_box(execution.clone()));
        typed_by_hand_to_bytes(black_box(&execution));
        typed_collect_str_to_bytes(black_box(&execution));
        typed_format_to_bytes(black_box(&execution));
        floor_to_bytes(black_box(&execution));
        rmcp_error_to_bytes(black_box(&execution));
        rmcp_structured_error_to_bytes(black_box(&execution));
        derive_protocol_to_bytes(black_box(&protocol));
        derive_rmcp_protocol_to_bytes(black_box(protocol.clone()));
        drop_protocol_error(black_box(protocol.clone()));
        typed_protocol_to_bytes(black_box(&protocol));
        floor_protocol_to_bytes(black_box(&protocol));
        rmcp_protocol_to_bytes(black_box(&protocol));
        classify_bytes_error_response(black_box(&error_response));
        value_by_hand_error_response(black_box(&error_response));
        classify_bytes_success_response(black_box(&success_response));
        value_by_hand_success_response(black_box(&success_response));
        classify_to_value_success_response(black_box(&success_response));
        classify_typed_success_response(black_box(&success_response));
        value_typed_success_response(black_box(&success_response));
    }
}
