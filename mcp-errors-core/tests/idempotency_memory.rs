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
