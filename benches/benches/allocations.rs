//! Heap allocations per conversion, counted by a global allocator: one line per path.
//!
//! `cargo bench -p mcp-errors-benches --bench allocations`
//!
//! With `REPEAT=N` in the environment it then calls every path N more times, for
//! instruction counts that do not depend on the machine's load:
//! `REPEAT=1000 valgrind --tool=callgrind target/release/deps/allocations-*` and
//! `callgrind_annotate --inclusive=yes` (each path is an `#[inline(never)]` function).

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

/// Allocations (reallocations included) and bytes requested by one call of `f`.
fn count<T>(f: impl Fn() -> T) -> (usize, usize) {
    drop(black_box(f())); // warm any lazy state
    let (a, b) = (
        ALLOCATIONS.load(Ordering::Relaxed),
        BYTES.load(Ordering::Relaxed),
    );
    drop(black_box(f()));
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
    let rows: [(&str, &str, (usize, usize)); 12] = [
        (
            "execution_to_bytes",
            "derive",
            count(|| derive_to_bytes(black_box(&execution))),
        ),
        (
            "execution_to_bytes",
            "typed_by_hand",
            count(|| typed_to_bytes(black_box(&execution))),
        ),
        (
            "execution_to_bytes",
            "typed_by_hand_presized",
            count(|| typed_presized_to_bytes(black_box(&execution))),
        ),
        (
            "execution_to_bytes",
            "json_rmcp_error",
            count(|| rmcp_error_to_bytes(black_box(&execution))),
        ),
        (
            "execution_to_bytes",
            "json_rmcp_structured_error",
            count(|| rmcp_structured_error_to_bytes(black_box(&execution))),
        ),
        (
            "protocol_to_bytes",
            "derive",
            count(|| derive_protocol_to_bytes(black_box(&protocol))),
        ),
        (
            "protocol_to_bytes",
            "typed_by_hand",
            count(|| typed_protocol_to_bytes(black_box(&protocol))),
        ),
        (
            "protocol_to_bytes",
            "json_rmcp_error_data",
            count(|| rmcp_protocol_to_bytes(black_box(&protocol))),
        ),
        (
            "classify_error_response",
            "classify_bytes",
            count(|| classify_bytes_error_response(black_box(&error_response))),
        ),
        (
            "classify_error_response",
            "value_by_hand",
            count(|| value_by_hand_error_response(black_box(&error_response))),
        ),
        (
            "classify_success_response",
            "classify_bytes",
            count(|| classify_bytes_success_response(black_box(&success_response))),
        ),
        (
            "classify_success_response",
            "value_by_hand",
            count(|| value_by_hand_success_response(black_box(&success_response))),
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
    // One path at a time, so each runs against the heap it leaves behind itself.
    macro_rules! repeat {
        ($($call:expr;)*) => {$(
            for _ in 0..repeat {
                drop(black_box($call));
            }
        )*};
    }
    repeat! {
        derive_to_bytes(black_box(&execution));
        typed_to_bytes(black_box(&execution));
        typed_presized_to_bytes(black_box(&execution));
        rmcp_error_to_bytes(black_box(&execution));
        rmcp_structured_error_to_bytes(black_box(&execution));
        derive_protocol_to_bytes(black_box(&protocol));
        typed_protocol_to_bytes(black_box(&protocol));
        rmcp_protocol_to_bytes(black_box(&protocol));
        classify_bytes_error_response(black_box(&error_response));
        value_by_hand_error_response(black_box(&error_response));
        classify_bytes_success_response(black_box(&success_response));
        value_by_hand_success_response(black_box(&success_response));
    }
}
