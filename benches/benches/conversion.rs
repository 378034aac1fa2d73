//! Run time: an error value to wire bytes on both channels, and response bytes to a
//! decision, each path measured side by side in one run.
//!
//! `cargo bench -p mcp-errors-benches --bench conversion`

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use mcp_errors_core::client::classify_bytes;

mod common;
use common::*;

fn execution(c: &mut Criterion) {
    check_equivalence();
    let error = execution_error();
    let mut group = c.benchmark_group("execution_to_bytes");
    group.bench_function("derive", |b| b.iter(|| derive_to_bytes(black_box(&error))));
    group.bench_function("typed_by_hand", |b| {
        b.iter(|| typed_to_bytes(black_box(&error)))
    });
    group.bench_function("typed_by_hand_presized", |b| {
        b.iter(|| typed_presized_to_bytes(black_box(&error)))
    });
    group.bench_function("json_rmcp_error", |b| {
        b.iter(|| rmcp_error_to_bytes(black_box(&error)))
    });
    group.bench_function("json_rmcp_structured_error", |b| {
        b.iter(|| rmcp_structured_error_to_bytes(black_box(&error)))
    });
    group.finish();
}

fn protocol(c: &mut Criterion) {
    let error = protocol_error();
    let mut group = c.benchmark_group("protocol_to_bytes");
    group.bench_function("derive", |b| {
        b.iter(|| derive_protocol_to_bytes(black_box(&error)))
    });
    group.bench_function("typed_by_hand", |b| {
        b.iter(|| typed_protocol_to_bytes(black_box(&error)))
    });
    group.bench_function("json_rmcp_error_data", |b| {
        b.iter(|| rmcp_protocol_to_bytes(black_box(&error)))
    });
    group.finish();
}

fn client(c: &mut Criterion) {
    for (name, bytes) in [
        ("classify_error_response", error_response_bytes()),
        ("classify_success_response", success_response_bytes()),
    ] {
        let mut group = c.benchmark_group(name);
        group.bench_function("classify_bytes", |b| {
            b.iter(|| classify_bytes(black_box(&bytes)))
        });
        group.bench_function("value_by_hand", |b| {
            b.iter(|| value_by_hand(black_box(&bytes)))
        });
        group.finish();
    }
}

criterion_group!(benches, execution, protocol, client);
criterion_main!(benches);
