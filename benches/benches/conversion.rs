//! Run time: an error value to wire bytes on both channels, and response bytes to a
//! decision, each path measured side by side in one run.
//!
//! `cargo bench -p mcp-errors-benches --bench conversion`
//!
//! Every error-to-bytes path gets its own copy of the error, made outside the measurement,
//! and drops it inside, as a server does; so the paths that take the error by value (rmcp's
//! `IntoCallToolResult`) and the ones that borrow it pay the same. The bytes it returns are
//! dropped inside too, as `scripts/instructions` counts them: kept for after the
//! measurement, a batch of outputs makes the allocator take fresh pages from the system
//! while the clock runs, and the page faults, which depend on how each path's own small
//! allocations fragment the heap, outweighed the paths' own work.

use std::hint::black_box;

use criterion::measurement::WallTime;
use criterion::{BatchSize, BenchmarkGroup, Criterion, criterion_group, criterion_main};
use mcp_errors_core::client::classify_bytes;

mod common;
use common::*;

/// A path that borrows the error.
type BorrowingPath = fn(&SearchError) -> Vec<u8>;

/// Measures `path` on a fresh copy of `error` per call.
fn bench_owned(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    error: &SearchError,
    path: impl Fn(SearchError) -> Vec<u8>,
) {
    group.bench_function(name, |b| {
        b.iter_batched(
            || error.clone(),
            |e| drop(black_box(path(black_box(e)))),
            BatchSize::SmallInput,
        )
    });
}

fn execution(c: &mut Criterion) {
    check_equivalence();
    let error = execution_error();
    let mut group = c.benchmark_group("execution_to_bytes");
    let paths: [(&str, BorrowingPath); 7] = [
        ("derive", derive_to_bytes),
        ("typed_by_hand", typed_by_hand_to_bytes),
        ("typed_collect_str", typed_collect_str_to_bytes),
        ("typed_format", typed_format_to_bytes),
        ("floor", floor_to_bytes),
        ("json_rmcp_error", rmcp_error_to_bytes),
        ("json_rmcp_structured_error", rmcp_structured_error_to_bytes),
    ];
    for (name, path) in paths {
        bench_owned(&mut group, name, &error, |e| path(&e));
    }
    bench_owned(&mut group, "derive_rmcp", &error, derive_rmcp_to_bytes);
    group.finish();
}

fn protocol(c: &mut Criterion) {
    let error = protocol_error();
    let mut group = c.benchmark_group("protocol_to_bytes");
    let paths: [(&str, BorrowingPath); 4] = [
        ("derive", derive_protocol_to_bytes),
        ("typed_by_hand", typed_protocol_to_bytes),
        ("floor", floor_protocol_to_bytes),
        ("json_rmcp_error_data", rmcp_protocol_to_bytes),
    ];
    for (name, path) in paths {
        bench_owned(&mut group, name, &error, |e| path(&e));
    }
    bench_owned(
        &mut group,
        "derive_rmcp",
        &error,
        derive_rmcp_protocol_to_bytes,
    );
    group.finish();
}

fn client(c: &mut Criterion) {
    let bytes = error_response_bytes();
    let mut group = c.benchmark_group("classify_error_response");
    group.bench_function("classify_bytes", |b| {
        b.iter(|| classify_bytes(black_box(&bytes)))
    });
    group.bench_function("value_by_hand", |b| {
        b.iter(|| value_by_hand(black_box(&bytes)))
    });
    group.finish();

    // Success, decision only: `classify_bytes` keeps the result as raw JSON text, the Value
    // route has parsed all of it. Not the same work; the groups below are.
    let bytes = success_response_bytes();
    let mut group = c.benchmark_group("classify_success_response");
    group.bench_function("classify_bytes", |b| {
        b.iter(|| classify_bytes(black_box(&bytes)))
    });
    group.bench_function("value_by_hand", |b| {
        b.iter(|| value_by_hand(black_box(&bytes)))
    });
    group.finish();

    // Success, the result read: both end with the result as a `Value`, or both with the
    // same typed records.
    let mut group = c.benchmark_group("read_success_response");
    group.bench_function("classify_bytes_to_value", |b| {
        b.iter(|| classify_to_value_success_response(black_box(&bytes)))
    });
    group.bench_function("value_by_hand", |b| {
        b.iter(|| value_by_hand(black_box(&bytes)))
    });
    group.bench_function("classify_bytes_typed", |b| {
        b.iter(|| classify_typed_success_response(black_box(&bytes)))
    });
    group.bench_function("value_by_hand_typed", |b| {
        b.iter(|| value_typed_success_response(black_box(&bytes)))
    });
    group.finish();
}

criterion_group!(benches, execution, protocol, client);
criterion_main!(benches);
