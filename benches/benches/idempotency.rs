//! What an idempotency store adds to a call of an opted-in tool: the fingerprint of its
//! arguments, the claim of its key and the record of its outcome (and, for a replay, the
//! claim that finds the record), p50 and p99 over sequential calls, in memory and on Redis;
//! and the memory one completed record holds.
//!
//! `scripts/idempotency-cost` runs it (`cargo bench -p mcp-errors-benches --bench
//! idempotency`) with `MCP_ERRORS_REDIS_URL` set to a Redis it starts; without that variable
//! only the in-memory store is measured. `CALLS=N` sets the calls per round (default 5000),
//! `ROUNDS=N` the rounds (default 5), `KEYS=N` the records whose memory is measured (default
//! 20000). Each line is one store: the median over the rounds of
//! each round's p50 and p99, and the lowest and highest of them.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};
use std::time::{Duration, Instant};

use mcp_errors_core::idempotency::{
    Claim, Fingerprint, IdempotencyStore, MemoryStore, RecordKey, Recorded, RedisStore,
};
use serde_json::{Value, json};

struct Live;

/// Bytes allocated and not yet freed, by the whole process.
static LIVE: AtomicIsize = AtomicIsize::new(0);

// SAFETY: forwards every call to the system allocator unchanged; only counts.
unsafe impl GlobalAlloc for Live {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: the caller's contract is System's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: the caller's contract is System's.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(
            new_size as isize - layout.size() as isize,
            Ordering::Relaxed,
        );
        // SAFETY: the caller's contract is System's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Live = Live;

const LEASE: Duration = Duration::from_secs(60);
const TTL: Duration = Duration::from_secs(3600);

/// The arguments of a typical write: `reserve_seat`'s.
fn arguments(i: usize) -> Value {
    json!({"show": "evening", "seat": format!("B{}", i % 40), "holder": format!("guest-{i}")})
}

/// Its result: one text block and a small structured payload.
fn outcome(i: usize) -> Recorded {
    Recorded::Result(json!({
        "content": [{"type": "text", "text": format!("{{\"seat\":\"B{}\",\"holder\":\"guest-{i}\"}}", i % 40)}],
        "structuredContent": {"seat": format!("B{}", i % 40), "holder": format!("guest-{i}")},
        "isError": false
    }))
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let rank = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[rank]
}

/// One round: `calls` new keys (fingerprint, claim, complete), then a replay of each.
async fn round(store: &dyn IdempotencyStore, tag: &str, calls: usize) -> [Vec<Duration>; 2] {
    let mut first = Vec::with_capacity(calls);
    let mut replay = Vec::with_capacity(calls);
    for i in 0..calls {
        let key = RecordKey::new("bench", format!("{tag}-{i}"));
        let outcome = outcome(i);
        let args = arguments(i);
        let started = Instant::now();
        let fingerprint = Fingerprint::of("reserve_seat", &args);
        let Claim::Claimed(token) = store.claim(&key, &fingerprint, LEASE, TTL).await.unwrap()
        else {
            panic!("a new key is claimed")
        };
        store.complete(&key, &token, &outcome, TTL).await.unwrap();
        first.push(started.elapsed());
    }
    for i in 0..calls {
        let key = RecordKey::new("bench", format!("{tag}-{i}"));
        let args = arguments(i);
        let started = Instant::now();
        let fingerprint = Fingerprint::of("reserve_seat", &args);
        let claim = store.claim(&key, &fingerprint, LEASE, TTL).await.unwrap();
        replay.push(started.elapsed());
        assert!(
            matches!(claim, Claim::Completed(_)),
            "a completed key replays"
        );
    }
    first.sort();
    replay.sort();
    [first, replay]
}

fn micros(d: Duration) -> String {
    format!("{:.1}", d.as_secs_f64() * 1e6)
}

/// Median, lowest and highest of one statistic over the rounds.
fn spread(mut values: Vec<Duration>) -> String {
    values.sort();
    format!(
        "{} ({}–{})",
        micros(values[values.len() / 2]),
        micros(values[0]),
        micros(values[values.len() - 1])
    )
}

async fn measure(name: &str, store: &dyn IdempotencyStore, calls: usize, rounds: usize) {
    let mut stats: [Vec<Duration>; 4] = Default::default();
    for r in 0..rounds {
        let [first, replay] = round(store, &format!("{name}-{r}"), calls).await;
        stats[0].push(percentile(&first, 0.5));
        stats[1].push(percentile(&first, 0.99));
        stats[2].push(percentile(&replay, 0.5));
        stats[3].push(percentile(&replay, 0.99));
    }
    let [a, b, c, d] = stats;
    println!(
        "| {name} | {} | {} | {} | {} |",
        spread(a),
        spread(b),
        spread(c),
        spread(d)
    );
}

async fn redis_used_memory(url: &str) -> i64 {
    let client = redis::Client::open(url).unwrap();
    let mut connection = client.get_multiplexed_async_connection().await.unwrap();
    let info: String = redis::cmd("INFO")
        .arg("memory")
        .query_async(&mut connection)
        .await
        .unwrap();
    info.lines()
        .find_map(|l| l.strip_prefix("used_memory:"))
        .and_then(|v| v.trim().parse().ok())
        .expect("used_memory in INFO memory")
}

/// Fills a store with `keys` completed records and returns the bytes each holds.
async fn fill(store: &dyn IdempotencyStore, tag: &str, keys: usize) {
    for i in 0..keys {
        let key = RecordKey::new("bench", format!("{tag}-{i}"));
        let fingerprint = Fingerprint::of("reserve_seat", &arguments(i));
        let Claim::Claimed(token) = store.claim(&key, &fingerprint, LEASE, TTL).await.unwrap()
        else {
            panic!()
        };
        store
            .complete(&key, &token, &outcome(i), TTL)
            .await
            .unwrap();
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let env = |name: &str, default: usize| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let (calls, rounds) = (env("CALLS", 5000), env("ROUNDS", 5));
    let redis_url = std::env::var("MCP_ERRORS_REDIS_URL").ok();
    let prefix = format!("bench:{}:", std::process::id());

    println!(
        "calls per round: {calls}, rounds: {rounds}; µs, median (lowest–highest) over the rounds"
    );
    println!();
    println!("| store | new key p50 | new key p99 | replay p50 | replay p99 |");
    println!("|---|---|---|---|---|");
    // Bounds above what the bench holds, so no record is evicted while it is measured.
    let big = || MemoryStore::new().max_entries(1 << 20).max_bytes(1 << 30);
    let memory = big();
    measure("in memory", &memory, calls, rounds).await;
    let redis = match &redis_url {
        Some(url) => {
            let store = RedisStore::connect(url)
                .await
                .unwrap()
                .with_prefix(prefix.clone());
            measure("Redis (loopback)", &store, calls, rounds).await;
            Some(store)
        }
        None => None,
    };

    let keys = env("KEYS", 20_000);
    println!();
    println!("| store | bytes per completed record ({keys} records) |");
    println!("|---|---|");
    let fresh = big();
    let before = LIVE.load(Ordering::Relaxed);
    fill(&fresh, "mem", keys).await;
    let after = LIVE.load(Ordering::Relaxed);
    println!(
        "| in memory (heap, live bytes) | {} |",
        (after - before) / keys as isize
    );
    drop(fresh);
    if let (Some(url), Some(store)) = (&redis_url, &redis) {
        let before = redis_used_memory(url).await;
        fill(store, "mem", keys).await;
        let after = redis_used_memory(url).await;
        println!(
            "| Redis (`used_memory`) | {} |",
            (after - before) / keys as i64
        );
    }
}
