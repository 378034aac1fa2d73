//! The contract every `IdempotencyStore` keeps, as one async check a store's test calls:
//! `check_store(&store).await`. It uses scopes of its own (a fresh prefix per run), so a
//! shared store (Redis) can be checked again and again, and it waits on real time (leases of
//! 200 ms), so a store on another process keeps the same clock.
// Each test file compiles this module on its own and uses only part of it.
#![allow(dead_code)]

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use mcp_errors_core::idempotency::{
    Claim, ClaimToken, Fingerprint, IdempotencyStore, RecordKey, Recorded,
};
use serde_json::json;

/// A lease long enough for each step below, short enough to wait out.
pub const LEASE: Duration = Duration::from_millis(200);
/// A time to live to wait out.
pub const SHORT_TTL: Duration = Duration::from_millis(200);
/// A time to live that outlasts the check.
pub const LONG_TTL: Duration = Duration::from_secs(60);

/// A prefix no earlier run used.
pub fn fresh_scope(name: &str) -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("contract-{}-{nanos}-{name}", std::process::id())
}

fn claimed(claim: Claim) -> ClaimToken {
    match claim {
        Claim::Claimed(token) => token,
        other => panic!("expected Claimed, got {other:?}"),
    }
}

/// Runs every check of the contract on `store`.
pub async fn check_store(store: &dyn IdempotencyStore) {
    claim_complete_replay(store).await;
    in_progress_and_conflict(store).await;
    lease_expiry_leaves_the_outcome_unknown(store).await;
    expiry_frees_and_stale_tokens_do_nothing(store).await;
    renew_keeps_the_claim(store).await;
    release_frees(store).await;
    ttl_expiry_frees(store).await;
    scopes_are_separate(store).await;
    errors_are_recorded_too(store).await;
}

pub async fn claim_complete_replay(store: &dyn IdempotencyStore) {
    let key = RecordKey::new(fresh_scope("replay"), "k1");
    let print = Fingerprint::of("refund", &json!({"order": 7}));
    let token = claimed(store.claim(&key, &print, LEASE, LONG_TTL).await.unwrap());
    let outcome = Recorded::Result(json!({"content": [{"type": "text", "text": "refunded"}]}));
    store
        .complete(&key, &token, &outcome, LONG_TTL)
        .await
        .unwrap();
    for _ in 0..2 {
        let again = store.claim(&key, &print, LEASE, LONG_TTL).await.unwrap();
        assert_eq!(
            again,
            Claim::Completed(outcome.clone()),
            "the outcome replays"
        );
    }
    let other = Fingerprint::of("refund", &json!({"order": 8}));
    assert_eq!(
        store.claim(&key, &other, LEASE, LONG_TTL).await.unwrap(),
        Claim::Conflict
    );
    let other_tool = Fingerprint::of("charge", &json!({"order": 7}));
    assert_eq!(
        store
            .claim(&key, &other_tool, LEASE, LONG_TTL)
            .await
            .unwrap(),
        Claim::Conflict
    );
}

pub async fn in_progress_and_conflict(store: &dyn IdempotencyStore) {
    let key = RecordKey::new(fresh_scope("running"), "k1");
    let print = Fingerprint::of("refund", &json!({"order": 7}));
    let _token = claimed(store.claim(&key, &print, LONG_TTL, LONG_TTL).await.unwrap());
    assert_eq!(
        store.claim(&key, &print, LEASE, LONG_TTL).await.unwrap(),
        Claim::InProgress
    );
    let other = Fingerprint::of("refund", &json!({"order": 8}));
    assert_eq!(
        store.claim(&key, &other, LEASE, LONG_TTL).await.unwrap(),
        Claim::Conflict
    );
}

pub async fn lease_expiry_leaves_the_outcome_unknown(store: &dyn IdempotencyStore) {
    let key = RecordKey::new(fresh_scope("lapsed"), "k1");
    let print = Fingerprint::of("refund", &json!({"order": 7}));
    let token = claimed(store.claim(&key, &print, LEASE, LONG_TTL).await.unwrap());
    tokio::time::sleep(LEASE * 2).await;
    // The lease ran out with no outcome: the call may have run, so the key is not free.
    for _ in 0..2 {
        assert_eq!(
            store.claim(&key, &print, LEASE, LONG_TTL).await.unwrap(),
            Claim::OutcomeUnknown
        );
    }
    let other = Fingerprint::of("refund", &json!({"order": 8}));
    assert_eq!(
        store.claim(&key, &other, LEASE, LONG_TTL).await.unwrap(),
        Claim::Conflict
    );
    // Its holder still records the outcome, which then replays.
    let outcome = Recorded::Result(json!({"content": [], "late": true}));
    store
        .complete(&key, &token, &outcome, LONG_TTL)
        .await
        .unwrap();
    assert_eq!(
        store.claim(&key, &print, LEASE, LONG_TTL).await.unwrap(),
        Claim::Completed(outcome)
    );
}

pub async fn expiry_frees_and_stale_tokens_do_nothing(store: &dyn IdempotencyStore) {
    let key = RecordKey::new(fresh_scope("lease"), "k1");
    let print = Fingerprint::of("refund", &json!({"order": 7}));
    let stale = claimed(store.claim(&key, &print, LEASE, LEASE).await.unwrap());
    tokio::time::sleep(LEASE * 2).await;
    // The claim's record expired: the key is free, and the new claim is another.
    let fresh = claimed(store.claim(&key, &print, LONG_TTL, LONG_TTL).await.unwrap());
    assert_ne!(stale, fresh, "a new claim has a new token");
    let late = Recorded::Result(json!({"content": [], "late": true}));
    store.complete(&key, &stale, &late, LONG_TTL).await.unwrap();
    assert!(
        !store.renew(&key, &stale, LONG_TTL).await.unwrap(),
        "a stale token renews nothing"
    );
    store.release(&key, &stale).await.unwrap();
    assert_eq!(
        store.claim(&key, &print, LEASE, LONG_TTL).await.unwrap(),
        Claim::InProgress,
        "the stale token neither completed nor released the new claim"
    );
    let outcome = Recorded::Result(json!({"content": [], "fresh": true}));
    store
        .complete(&key, &fresh, &outcome, LONG_TTL)
        .await
        .unwrap();
    assert_eq!(
        store.claim(&key, &print, LEASE, LONG_TTL).await.unwrap(),
        Claim::Completed(outcome)
    );
    // Nor does it act on a completed record.
    store.release(&key, &fresh).await.unwrap();
    assert!(!store.renew(&key, &fresh, LONG_TTL).await.unwrap());
    assert!(matches!(
        store.claim(&key, &print, LEASE, LONG_TTL).await.unwrap(),
        Claim::Completed(_)
    ));
}

pub async fn renew_keeps_the_claim(store: &dyn IdempotencyStore) {
    let key = RecordKey::new(fresh_scope("renew"), "k1");
    let print = Fingerprint::of("refund", &json!({"order": 7}));
    let token = claimed(store.claim(&key, &print, LEASE, LONG_TTL).await.unwrap());
    for _ in 0..3 {
        tokio::time::sleep(LEASE / 2).await;
        assert!(store.renew(&key, &token, LEASE).await.unwrap());
    }
    // 300 ms after a 200 ms claim: still held, by renewal.
    assert_eq!(
        store.claim(&key, &print, LEASE, LONG_TTL).await.unwrap(),
        Claim::InProgress
    );
}

pub async fn release_frees(store: &dyn IdempotencyStore) {
    let key = RecordKey::new(fresh_scope("release"), "k1");
    let print = Fingerprint::of("refund", &json!({"order": 7}));
    let token = claimed(store.claim(&key, &print, LONG_TTL, LONG_TTL).await.unwrap());
    store.release(&key, &token).await.unwrap();
    let again = claimed(store.claim(&key, &print, LEASE, LONG_TTL).await.unwrap());
    assert_ne!(token, again);
    assert!(!store.renew(&key, &token, LEASE).await.unwrap());
}

pub async fn ttl_expiry_frees(store: &dyn IdempotencyStore) {
    let key = RecordKey::new(fresh_scope("ttl"), "k1");
    let print = Fingerprint::of("refund", &json!({"order": 7}));
    let token = claimed(store.claim(&key, &print, LEASE, LONG_TTL).await.unwrap());
    let outcome = Recorded::Result(json!({"content": []}));
    store
        .complete(&key, &token, &outcome, SHORT_TTL)
        .await
        .unwrap();
    assert_eq!(
        store.claim(&key, &print, LEASE, LONG_TTL).await.unwrap(),
        Claim::Completed(outcome)
    );
    tokio::time::sleep(SHORT_TTL * 2).await;
    // Expired: the key is new again, with any arguments.
    let other = Fingerprint::of("refund", &json!({"order": 8}));
    claimed(store.claim(&key, &other, LEASE, LONG_TTL).await.unwrap());
}

pub async fn scopes_are_separate(store: &dyn IdempotencyStore) {
    let scope = fresh_scope("scopes");
    let alice = RecordKey::new(format!("{scope}-alice"), "same-key");
    let bob = RecordKey::new(format!("{scope}-bob"), "same-key");
    let print = Fingerprint::of("refund", &json!({"order": 7}));
    let token = claimed(store.claim(&alice, &print, LEASE, LONG_TTL).await.unwrap());
    let outcome = Recorded::Result(json!({"content": [], "for": "alice"}));
    store
        .complete(&alice, &token, &outcome, LONG_TTL)
        .await
        .unwrap();
    // Bob's key of the same text is his own: free, with any arguments.
    let other = Fingerprint::of("refund", &json!({"order": 8}));
    let bobs = claimed(store.claim(&bob, &other, LEASE, LONG_TTL).await.unwrap());
    // Nor can Bob's token act on Alice's record.
    store.release(&alice, &bobs).await.unwrap();
    assert_eq!(
        store.claim(&alice, &print, LEASE, LONG_TTL).await.unwrap(),
        Claim::Completed(outcome)
    );
    // A scope and key that concatenate alike are still two records.
    let a = RecordKey::new(format!("{scope}-x"), "y:z");
    let b = RecordKey::new(format!("{scope}-x:y"), "z");
    claimed(store.claim(&a, &print, LEASE, LONG_TTL).await.unwrap());
    claimed(store.claim(&b, &print, LEASE, LONG_TTL).await.unwrap());
}

pub async fn errors_are_recorded_too(store: &dyn IdempotencyStore) {
    let key = RecordKey::new(fresh_scope("error"), "k1");
    let print = Fingerprint::of("refund", &json!({}));
    let token = claimed(store.claim(&key, &print, LEASE, LONG_TTL).await.unwrap());
    let outcome = Recorded::Error(json!({"code": -32603, "message": "INTERNAL: masked"}));
    store
        .complete(&key, &token, &outcome, LONG_TTL)
        .await
        .unwrap();
    assert_eq!(
        store
            .claim(
                &key,
                &Fingerprint::of("refund", &serde_json::Value::Null),
                LEASE,
                LONG_TTL
            )
            .await
            .unwrap(),
        Claim::Completed(outcome)
    );
}
