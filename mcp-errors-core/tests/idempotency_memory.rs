//! `MemoryStore` keeps the store contract (tests/common/store_contract.rs).

#[path = "common/store_contract.rs"]
mod store_contract;

use mcp_errors_core::idempotency::MemoryStore;

#[tokio::test]
async fn the_memory_store_keeps_the_store_contract() {
    store_contract::check_store(&MemoryStore::new()).await;
}

#[tokio::test]
async fn clones_share_their_records() {
    let store = MemoryStore::new();
    let clone = store.clone();
    store_contract::claim_complete_replay(&store).await;
    store_contract::check_store(&clone).await;
}

#[tokio::test]
async fn another_callers_flood_never_erases_a_record() {
    use mcp_errors_core::idempotency::{Claim, Fingerprint, IdempotencyStore, RecordKey, Recorded};
    use serde_json::json;
    use std::time::Duration;

    let store = MemoryStore::new();
    let lease = Duration::from_secs(60);
    let ttl = Duration::from_secs(24 * 60 * 60);
    let print = Fingerprint::of("refund", &json!({"order": 7}));
    let record = |store: &MemoryStore, key: RecordKey, outcome: Recorded| {
        let store = store.clone();
        async move {
            let Claim::Claimed(token) = store.claim(&key, &print, lease).await.unwrap() else {
                panic!("a free key is claimed")
            };
            store.complete(&key, &token, &outcome, ttl).await.unwrap();
        }
    };
    let alice = RecordKey::new("auth:alice", "refund-7");
    let refunded = Recorded::Result(json!({"content": [{"type": "text", "text": "refunded"}]}));
    record(&store, alice.clone(), refunded.clone()).await;
    // More cheap failures than the whole store holds, then outcomes of ~900 KiB each.
    let failed = Recorded::Error(json!({"code": -32603, "message": "INTERNAL"}));
    for n in 0..10_500 {
        let key = RecordKey::new("auth:mallory", format!("f{n}"));
        record(&store, key, failed.clone()).await;
    }
    let echoed = Recorded::Error(json!({"code": -32603, "data": "x".repeat(900 << 10)}));
    for n in 0..80 {
        let key = RecordKey::new("auth:mallory", format!("b{n}"));
        record(&store, key, echoed.clone()).await;
    }
    assert_eq!(
        store.claim(&alice, &print, lease).await.unwrap(),
        Claim::Completed(refunded),
        "alice's retry replays her outcome"
    );
}
