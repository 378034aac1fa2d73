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
            let Claim::Claimed(token) = store.claim(&key, &print, lease, ttl).await.unwrap() else {
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
        store.claim(&alice, &print, lease, ttl).await.unwrap(),
        Claim::Completed(refunded),
        "alice's retry replays her outcome"
    );
}

#[tokio::test]
async fn eleven_free_scopes_filling_the_store_cannot_lock_a_twelfth_caller_out() {
    use mcp_errors_core::idempotency::{Claim, Fingerprint, IdempotencyStore, RecordKey, Recorded};
    use serde_json::json;
    use std::time::Duration;

    // 1 000 records, a tenth a scope: eleven scopes that fill their tenth fill the store.
    let store = MemoryStore::new().max_entries(1_000);
    let lease = Duration::from_secs(60);
    let ttl = Duration::from_secs(24 * 60 * 60);
    let print = Fingerprint::of("refund", &json!({"order": 7}));
    let failed = Recorded::Error(json!({"code": -32603, "message": "INTERNAL"}));
    for scope in 0..11 {
        for n in 0..100 {
            let key = RecordKey::new(format!("auth:made-up-{scope}"), format!("f{n}"));
            match store.claim(&key, &print, lease, ttl).await {
                Ok(Claim::Claimed(token)) => {
                    store.complete(&key, &token, &failed, ttl).await.unwrap();
                }
                // Only a store without the fix refuses here: the flood locks itself out too.
                other => panic!("scope {scope}, call {n}: {other:?}"),
            }
        }
    }
    let alice = RecordKey::new("auth:alice", "refund-7");
    let Claim::Claimed(token) = store.claim(&alice, &print, lease, ttl).await.unwrap() else {
        panic!("a free key is claimed")
    };
    let refunded = Recorded::Result(json!({"content": [{"type": "text", "text": "refunded"}]}));
    store
        .complete(&alice, &token, &refunded, ttl)
        .await
        .unwrap();
    // And her record holds while the flood goes on in more scopes.
    for n in 0..500 {
        let key = RecordKey::new(format!("auth:made-up-{}", n % 20), format!("g{n}"));
        let Ok(Claim::Claimed(token)) = store.claim(&key, &print, lease, ttl).await else {
            panic!("the flood's own calls are never refused either")
        };
        store.complete(&key, &token, &failed, ttl).await.unwrap();
    }
    assert_eq!(
        store.claim(&alice, &print, lease, ttl).await.unwrap(),
        Claim::Completed(refunded),
        "alice's retry replays her outcome"
    );
}
