//! [`MemoryStore`]: the idempotency records of one process, bounded in entries and in bytes.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use super::store::{
    Claim, ClaimToken, Fingerprint, IdempotencyStore, RecordKey, Recorded, StoreError, StoreFuture,
};

/// The most records a [`MemoryStore`] holds unless told otherwise.
const DEFAULT_MAX_ENTRIES: usize = 10_000;

/// The most bytes a [`MemoryStore`] holds unless told otherwise: 64 MiB.
const DEFAULT_MAX_BYTES: usize = 64 << 20;

/// What a record costs beyond its key and outcome: the map's slot, the fingerprint, the times.
const ENTRY_OVERHEAD_BYTES: usize = 160;

/// The most of the store one budget may hold unless told otherwise: a tenth.
const DEFAULT_SCOPE_SHARE: usize = 10;

/// The room a budget keeps however many there are, unless told otherwise: 10 records.
const DEFAULT_MIN_ENTRIES: usize = 10;

/// The bytes a budget keeps however many there are, unless told otherwise: 1 MiB.
const DEFAULT_MIN_BYTES: usize = 1 << 20;

/// The idempotency records of one process, in memory: the default store, for a server that
/// runs as one process. A fleet of replicas needs a store they share.
///
/// It holds at most [`max_entries`](Self::max_entries) records (10 000 by default) and
/// [`max_bytes`](Self::max_bytes) bytes of them (64 MiB; a record counts its scope, key and
/// outcome as JSON, plus 160 bytes). Each record counts against a budget (its scope's own,
/// or one that several scopes share: see [`RecordKey::with_budget`]), and each budget gets
/// a share of the store: the whole divided by the number of budgets that hold records, never
/// more than [`max_entries_per_scope`](Self::max_entries_per_scope) and
/// [`max_bytes_per_scope`](Self::max_bytes_per_scope) (a tenth of the whole by default) and
/// never less than [`min_entries_per_scope`](Self::min_entries_per_scope) and
/// [`min_bytes_per_scope`](Self::min_bytes_per_scope) (10 records, 1 MiB), so that a caller
/// always has room for its calls. A completed record expires after its time to live; a claim
/// whose lease ran out stays (answering [`Claim::OutcomeUnknown`]) until its time to live.
///
/// When a new record does not fit, the expired ones go first; then, while its budget is over
/// its share, that budget's own oldest completed records; then, while the whole store is
/// full, the oldest completed record of the budget that holds the most (in records, or in
/// bytes when the bytes are full). A claim in progress is never evicted. Only when no
/// completed record is left to evict (the budget's share, or the whole store, is calls in
/// progress) is the claim refused with a [`StoreError`]: the server answers that call with a
/// retryable internal error and runs nothing. So callers who make scopes at will (new
/// sessions, made-up credentials) crowd out only each other's records first, and cannot lock
/// another caller out. An outcome makes room the same way (its call already ran); one that
/// still does not fit (larger than its budget's share) is not recorded: completing it fails,
/// and the key answers [`Claim::OutcomeUnknown`] once its lease runs out.
///
/// Clones share the records.
///
/// ```
/// use mcp_errors_core::idempotency::MemoryStore;
///
/// let store = MemoryStore::new()
///     .max_entries(1_000)
///     .max_bytes(8 << 20)
///     .max_entries_per_scope(100)
///     .max_bytes_per_scope(1 << 20)
///     .min_entries_per_scope(5);
/// let shared = store.clone(); // the same records
/// # let _ = shared;
/// ```
#[derive(Clone)]
pub struct MemoryStore {
    state: Arc<Mutex<State>>,
}

struct State {
    max_entries: usize,
    max_bytes: usize,
    /// The most one budget holds, when set; else [`DEFAULT_SCOPE_SHARE`]'s part of the whole.
    scope_entries: Option<usize>,
    scope_bytes: Option<usize>,
    /// The least room a budget's share leaves it.
    min_entries: usize,
    min_bytes: usize,
    bytes: usize,
    /// The number of the next claim (its token) and of the next completion (its age).
    next: u64,
    records: HashMap<RecordKey, Entry>,
    /// What each budget holds.
    budgets: HashMap<String, Budget>,
    /// The budgets that hold a completed record, by their records and by their bytes.
    by_entries: BTreeSet<(usize, String)>,
    by_bytes: BTreeSet<(usize, String)>,
}

/// The records of one budget: how many, their bytes, and the completed ones, oldest first.
#[derive(Default)]
struct Budget {
    entries: usize,
    bytes: usize,
    completed: BTreeMap<u64, RecordKey>,
}

struct Entry {
    fingerprint: Fingerprint,
    /// Until when the record is kept: its time to live.
    until: Instant,
    bytes: usize,
    stage: Stage,
}

enum Stage {
    /// A claim, and the end of its lease.
    Running(ClaimToken, Instant),
    /// The outcome, and the number its completion got in `Budget::completed`.
    Done(Recorded, u64),
}

impl MemoryStore {
    /// An empty store with the default bounds.
    pub fn new() -> Self {
        MemoryStore {
            state: Arc::new(Mutex::new(State {
                max_entries: DEFAULT_MAX_ENTRIES,
                max_bytes: DEFAULT_MAX_BYTES,
                scope_entries: None,
                scope_bytes: None,
                min_entries: DEFAULT_MIN_ENTRIES,
                min_bytes: DEFAULT_MIN_BYTES,
                bytes: 0,
                next: 0,
                records: HashMap::new(),
                budgets: HashMap::new(),
                by_entries: BTreeSet::new(),
                by_bytes: BTreeSet::new(),
            })),
        }
    }

    /// Hold at most `n` records (at least 1).
    pub fn max_entries(self, n: usize) -> Self {
        self.lock().max_entries = n.max(1);
        self
    }

    /// Hold at most `n` bytes of records.
    pub fn max_bytes(self, n: usize) -> Self {
        self.lock().max_bytes = n;
        self
    }

    /// Let one budget (a scope, or the scopes that share one) hold at most `n` records (at
    /// least 1), however few budgets there are; a tenth of
    /// [`max_entries`](Self::max_entries) by default. Over stdio, where the process is the
    /// only scope, set it to `max_entries`.
    pub fn max_entries_per_scope(self, n: usize) -> Self {
        self.lock().scope_entries = Some(n.max(1));
        self
    }

    /// Let one budget hold at most `n` bytes of records, however few budgets there are; a
    /// tenth of [`max_bytes`](Self::max_bytes) by default.
    pub fn max_bytes_per_scope(self, n: usize) -> Self {
        self.lock().scope_bytes = Some(n);
        self
    }

    /// Leave each budget room for at least `n` records (10 by default), however many budgets
    /// share the store (within [`max_entries_per_scope`](Self::max_entries_per_scope)).
    pub fn min_entries_per_scope(self, n: usize) -> Self {
        self.lock().min_entries = n;
        self
    }

    /// Leave each budget room for at least `n` bytes (1 MiB by default), however many budgets
    /// share the store (within [`max_bytes_per_scope`](Self::max_bytes_per_scope)).
    pub fn min_bytes_per_scope(self, n: usize) -> Self {
        self.lock().min_bytes = n;
        self
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // Every step leaves the state consistent, so a panic elsewhere leaves nothing to repair.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Default for MemoryStore {
    fn default() -> Self {
        MemoryStore::new()
    }
}

impl fmt::Debug for MemoryStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.lock();
        f.debug_struct("MemoryStore")
            .field("records", &state.records.len())
            .field("bytes", &state.bytes)
            .field("max_entries", &state.max_entries)
            .field("max_bytes", &state.max_bytes)
            .field("max_entries_per_scope", &state.cap_entries())
            .field("max_bytes_per_scope", &state.cap_bytes())
            .field("min_entries_per_scope", &state.min_entries)
            .field("min_bytes_per_scope", &state.min_bytes)
            .finish()
    }
}

/// What a record of `key` costs before its outcome.
fn key_bytes(key: &RecordKey) -> usize {
    ENTRY_OVERHEAD_BYTES + key.scope().len() + key.key().len()
}

/// The length of `outcome` as JSON.
fn outcome_bytes(outcome: &Recorded) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let value = match outcome {
        Recorded::Result(value) | Recorded::Error(value) => value,
    };
    let mut count = Count(0);
    // Writing into a counter cannot fail.
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

/// Why a new record found no room.
enum NoRoom {
    /// Its budget's share is all calls in progress.
    Scope,
    /// The store is full of calls in progress.
    Store,
}

impl State {
    /// The most records one budget holds, however few budgets there are.
    fn cap_entries(&self) -> usize {
        self.scope_entries
            .unwrap_or(self.max_entries / DEFAULT_SCOPE_SHARE)
            .clamp(1, self.max_entries)
    }

    /// The most bytes one budget holds, however few budgets there are.
    fn cap_bytes(&self) -> usize {
        self.scope_bytes
            .unwrap_or(self.max_bytes / DEFAULT_SCOPE_SHARE)
            .min(self.max_bytes)
    }

    /// The number of budgets that hold records, `budget` counted.
    fn budgets_with(&self, budget: &str) -> usize {
        self.budgets.len() + usize::from(!self.budgets.contains_key(budget))
    }

    /// The records `budget` may hold now: the store divided among the budgets, within the
    /// floor and the cap.
    fn share_entries(&self, budget: &str) -> usize {
        (self.max_entries / self.budgets_with(budget))
            .max(self.min_entries)
            .min(self.cap_entries())
            .max(1)
    }

    /// The bytes `budget` may hold now.
    fn share_bytes(&self, budget: &str) -> usize {
        (self.max_bytes / self.budgets_with(budget))
            .max(self.min_bytes)
            .min(self.cap_bytes())
    }

    /// Takes `budget` out of the indexes of budgets with completed records.
    fn unindex(&mut self, budget: &str) {
        if let Some(used) = self.budgets.get(budget) {
            self.by_entries.remove(&(used.entries, budget.to_owned()));
            self.by_bytes.remove(&(used.bytes, budget.to_owned()));
        }
    }

    /// Puts `budget` back in the indexes if it holds a completed record; forgets it if it
    /// holds none.
    fn index(&mut self, budget: &str) {
        match self.budgets.get(budget) {
            Some(used) if used.entries == 0 => {
                self.budgets.remove(budget);
            }
            Some(used) if !used.completed.is_empty() => {
                self.by_entries.insert((used.entries, budget.to_owned()));
                self.by_bytes.insert((used.bytes, budget.to_owned()));
            }
            _ => {}
        }
    }

    fn insert(&mut self, key: RecordKey, entry: Entry) {
        let budget = key.budget().to_owned();
        self.unindex(&budget);
        let used = self.budgets.entry(budget.clone()).or_default();
        used.entries += 1;
        used.bytes += entry.bytes;
        if let Stage::Done(_, age) = entry.stage {
            used.completed.insert(age, key.clone());
        }
        self.index(&budget);
        self.bytes += entry.bytes;
        self.records.insert(key, entry);
    }

    fn remove(&mut self, key: &RecordKey) -> Option<Entry> {
        let (key, entry) = self.records.remove_entry(key)?;
        self.bytes = self.bytes.saturating_sub(entry.bytes);
        let budget = key.budget().to_owned();
        self.unindex(&budget);
        if let Some(used) = self.budgets.get_mut(&budget) {
            used.entries = used.entries.saturating_sub(1);
            used.bytes = used.bytes.saturating_sub(entry.bytes);
            if let Stage::Done(_, age) = entry.stage {
                used.completed.remove(&age);
            }
        }
        self.index(&budget);
        Some(entry)
    }

    /// Evicts the oldest completed record of `budget`; `false` when it has none.
    fn evict_oldest(&mut self, budget: &str) -> bool {
        let oldest = self
            .budgets
            .get(budget)
            .and_then(|used| used.completed.first_key_value())
            .map(|(_, key)| key.clone());
        match oldest {
            Some(oldest) => self.remove(&oldest).is_some(),
            None => false,
        }
    }

    /// Whether one more record of `budget`, of `extra` bytes, fits its share.
    fn fits_share(&self, budget: &str, extra: usize) -> bool {
        let (entries, bytes) = self
            .budgets
            .get(budget)
            .map_or((0, 0), |used| (used.entries, used.bytes));
        entries < self.share_entries(budget) && bytes + extra <= self.share_bytes(budget)
    }

    /// Whether one more record of `extra` bytes fits the whole store.
    fn fits_store(&self, extra: usize) -> bool {
        self.records.len() < self.max_entries && self.bytes + extra <= self.max_bytes
    }

    /// Makes room for one more record of `budget`, of `extra` bytes: the expired records go
    /// first, then, while the budget is over its share, its own oldest completed ones, then,
    /// while the whole store is full, the oldest completed record of the budget that holds
    /// the most. A claim in progress never goes.
    fn make_room(&mut self, budget: &str, extra: usize, now: Instant) -> Result<(), NoRoom> {
        if self.fits_share(budget, extra) && self.fits_store(extra) {
            return Ok(());
        }
        let expired: Vec<RecordKey> = self
            .records
            .iter()
            .filter(|(_, entry)| entry.until <= now)
            .map(|(key, _)| key.clone())
            .collect();
        for key in expired {
            self.remove(&key);
        }
        while !self.fits_share(budget, extra) {
            if !self.evict_oldest(budget) {
                return Err(NoRoom::Scope);
            }
        }
        while !self.fits_store(extra) {
            let heaviest = if self.records.len() >= self.max_entries {
                self.by_entries.last()
            } else {
                self.by_bytes.last()
            };
            let Some((_, heaviest)) = heaviest.cloned() else {
                return Err(NoRoom::Store);
            };
            self.evict_oldest(&heaviest);
        }
        Ok(())
    }

    /// The record of `key` if `token` still holds it, its lease run out or not.
    fn held(&mut self, key: &RecordKey, token: &ClaimToken, now: Instant) -> Option<&mut Entry> {
        self.records
            .get_mut(key)
            .filter(|entry| entry.until > now)
            .filter(|entry| matches!(&entry.stage, Stage::Running(held, _) if held == token))
    }

    fn claim(
        &mut self,
        key: &RecordKey,
        fingerprint: &Fingerprint,
        lease: Duration,
        ttl: Duration,
    ) -> Result<Claim, StoreError> {
        let now = Instant::now();
        if let Some(entry) = self.records.get(key) {
            if entry.until > now {
                if entry.fingerprint != *fingerprint {
                    return Ok(Claim::Conflict);
                }
                return Ok(match &entry.stage {
                    Stage::Running(_, lease_end) if *lease_end <= now => Claim::OutcomeUnknown,
                    Stage::Running(..) => Claim::InProgress,
                    Stage::Done(outcome, _) => Claim::Completed(outcome.clone()),
                });
            }
            self.remove(key);
        }
        let bytes = key_bytes(key);
        if let Err(full) = self.make_room(key.budget(), bytes, now) {
            return Err(StoreError::new(match full {
                NoRoom::Scope => format!(
                    "the caller's share of the memory store is full of calls in progress \
                     ({} records, {} bytes at most)",
                    self.share_entries(key.budget()),
                    self.share_bytes(key.budget())
                ),
                NoRoom::Store => format!(
                    "the memory store is full of calls in progress ({} records, {} bytes)",
                    self.records.len(),
                    self.bytes
                ),
            }));
        }
        let token = ClaimToken(format!("m{}", self.next));
        self.next += 1;
        self.insert(
            key.clone(),
            Entry {
                fingerprint: *fingerprint,
                until: now + ttl.max(lease),
                bytes,
                stage: Stage::Running(token.clone(), now + lease),
            },
        );
        Ok(Claim::Claimed(token))
    }

    fn complete(
        &mut self,
        key: &RecordKey,
        token: &ClaimToken,
        outcome: &Recorded,
        ttl: Duration,
    ) -> Result<(), StoreError> {
        let now = Instant::now();
        if self.held(key, token, now).is_none() {
            return Ok(());
        }
        let bytes = key_bytes(key) + outcome_bytes(outcome);
        // Taken out while room is made, so that it is not evicted as expired or full.
        let Some(mut entry) = self.remove(key) else {
            return Ok(());
        };
        if self.make_room(key.budget(), bytes, now).is_err() {
            let share = (
                self.share_entries(key.budget()),
                self.share_bytes(key.budget()),
            );
            // The call ran: its key stays taken, its outcome unknown once the lease runs out.
            entry.bytes = key_bytes(key);
            self.insert(key.clone(), entry);
            return Err(StoreError::new(format!(
                "an outcome of {bytes} bytes does not fit in the caller's share of the memory \
                 store ({} records, {} bytes at most)",
                share.0, share.1
            )));
        }
        let age = self.next;
        self.next += 1;
        entry.until = now + ttl;
        entry.bytes = bytes;
        entry.stage = Stage::Done(outcome.clone(), age);
        self.insert(key.clone(), entry);
        Ok(())
    }
}

impl IdempotencyStore for MemoryStore {
    fn claim<'a>(
        &'a self,
        key: &'a RecordKey,
        fingerprint: &'a Fingerprint,
        lease: Duration,
        ttl: Duration,
    ) -> StoreFuture<'a, Claim> {
        let claimed = self.lock().claim(key, fingerprint, lease, ttl);
        Box::pin(std::future::ready(claimed))
    }

    fn complete<'a>(
        &'a self,
        key: &'a RecordKey,
        token: &'a ClaimToken,
        outcome: &'a Recorded,
        ttl: Duration,
    ) -> StoreFuture<'a, ()> {
        let completed = self.lock().complete(key, token, outcome, ttl);
        Box::pin(std::future::ready(completed))
    }

    fn renew<'a>(
        &'a self,
        key: &'a RecordKey,
        token: &'a ClaimToken,
        lease: Duration,
    ) -> StoreFuture<'a, bool> {
        let now = Instant::now();
        let renewed = match self.lock().held(key, token, now) {
            Some(entry) => {
                if let Stage::Running(_, lease_end) = &mut entry.stage {
                    *lease_end = now + lease;
                }
                entry.until = entry.until.max(now + lease);
                true
            }
            None => false,
        };
        Box::pin(std::future::ready(Ok(renewed)))
    }

    fn release<'a>(&'a self, key: &'a RecordKey, token: &'a ClaimToken) -> StoreFuture<'a, ()> {
        let mut state = self.lock();
        if state.held(key, token, Instant::now()).is_some() {
            state.remove(key);
        }
        Box::pin(std::future::ready(Ok(())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const LONG: Duration = Duration::from_secs(60);

    fn key(n: usize) -> RecordKey {
        RecordKey::new("s", format!("k{n}"))
    }

    fn print() -> Fingerprint {
        Fingerprint::of("t", &json!({}))
    }

    fn claim(store: &MemoryStore, n: usize, lease: Duration) -> Result<Claim, StoreError> {
        // A lease of zero is a claim whose record has expired too.
        store.lock().claim(&key(n), &print(), lease, lease)
    }

    fn token(claim: Result<Claim, StoreError>) -> ClaimToken {
        match claim {
            Ok(Claim::Claimed(token)) => token,
            other => panic!("expected Claimed, got {other:?}"),
        }
    }

    fn done(store: &MemoryStore, n: usize, outcome: &Recorded, ttl: Duration) {
        let token = token(claim(store, n, LONG));
        store
            .lock()
            .complete(&key(n), &token, outcome, ttl)
            .unwrap();
    }

    fn small() -> Recorded {
        Recorded::Result(json!({"content": []}))
    }

    fn held(store: &MemoryStore) -> Vec<usize> {
        let state = store.lock();
        let mut held: Vec<usize> = state
            .records
            .keys()
            .map(|k| k.key()[1..].parse().unwrap())
            .collect();
        held.sort_unstable();
        held
    }

    #[test]
    fn a_full_store_evicts_the_oldest_completed_record_first() {
        let store = MemoryStore::new().max_entries(3).max_entries_per_scope(3);
        done(&store, 1, &small(), LONG);
        done(&store, 2, &small(), LONG);
        done(&store, 3, &small(), LONG);
        token(claim(&store, 4, LONG));
        assert_eq!(held(&store), [2, 3, 4]);
        // Completing in another order changes which is oldest.
        let t5 = token(claim(&store, 5, LONG));
        assert_eq!(held(&store), [3, 4, 5]);
        store.lock().complete(&key(5), &t5, &small(), LONG).unwrap();
        token(claim(&store, 6, LONG));
        assert_eq!(
            held(&store),
            [4, 5, 6],
            "3 was the oldest completed; 4 runs"
        );
        assert_eq!(store.lock().records.len(), 3);
    }

    #[test]
    fn expired_records_go_before_any_live_one() {
        let store = MemoryStore::new().max_entries(3).max_entries_per_scope(3);
        done(&store, 1, &small(), LONG);
        done(&store, 2, &small(), Duration::ZERO);
        token(claim(&store, 3, Duration::ZERO)); // a lease already run out
        token(claim(&store, 4, LONG));
        token(claim(&store, 5, LONG));
        assert_eq!(
            held(&store),
            [1, 4, 5],
            "the expired ones made room, the oldest stayed"
        );
    }

    #[test]
    fn claims_in_progress_are_never_evicted() {
        let store = MemoryStore::new().max_entries(2).max_entries_per_scope(2);
        let t1 = token(claim(&store, 1, LONG));
        token(claim(&store, 2, LONG));
        let refused = claim(&store, 3, LONG).unwrap_err();
        assert!(refused.to_string().contains("full"), "{refused}");
        assert_eq!(held(&store), [1, 2]);
        // Once one completes, it can make room.
        store.lock().complete(&key(1), &t1, &small(), LONG).unwrap();
        token(claim(&store, 3, LONG));
        assert_eq!(held(&store), [2, 3]);
    }

    #[test]
    fn the_byte_bound_holds_and_counts_outcomes() {
        // The size of the record of `k10` (scope `s`, key `k10`).
        let one = ENTRY_OVERHEAD_BYTES + 1 + 3 + outcome_bytes(&small());
        let store = MemoryStore::new()
            .max_bytes(2 * one)
            .max_bytes_per_scope(2 * one);
        for n in 1..=10 {
            done(&store, n, &small(), LONG);
            let state = store.lock();
            assert!(state.bytes <= 2 * one, "{} > {}", state.bytes, 2 * one);
        }
        assert_eq!(held(&store), [9, 10]);
        let recounted: usize = store.lock().records.values().map(|e| e.bytes).sum();
        assert_eq!(recounted, store.lock().bytes);
    }

    #[test]
    fn an_outcome_larger_than_the_store_is_not_recorded_and_keeps_its_key() {
        let store = MemoryStore::new().max_bytes(1024).max_bytes_per_scope(1024);
        done(&store, 1, &small(), LONG);
        let t2 = token(claim(&store, 2, LONG));
        let big = Recorded::Result(json!({"text": "x".repeat(2048)}));
        let refused = store.lock().complete(&key(2), &t2, &big, LONG).unwrap_err();
        assert!(refused.to_string().contains("does not fit"), "{refused}");
        assert_eq!(
            held(&store),
            [2],
            "room was made, then the outcome did not fit: the claim stays"
        );
        assert_eq!(store.lock().bytes, ENTRY_OVERHEAD_BYTES + 1 + 2);
        assert_eq!(claim(&store, 2, LONG).unwrap(), Claim::InProgress);
    }

    #[test]
    fn bytes_are_given_back_on_every_removal() {
        let store = MemoryStore::new();
        let t1 = token(claim(&store, 1, LONG));
        let renewed = store.lock().held(&key(1), &t1, Instant::now()).is_some();
        assert!(renewed);
        futures_ready(store.release(&key(1), &t1)).unwrap();
        assert_eq!(store.lock().bytes, 0);
        done(&store, 2, &small(), Duration::ZERO);
        token(claim(&store, 2, LONG)); // the expired record is replaced
        let state = store.lock();
        assert_eq!(state.bytes, ENTRY_OVERHEAD_BYTES + 2 + 1);
        assert!(state.budgets["s"].completed.is_empty());
    }

    #[test]
    fn the_bounds_are_configurable_and_shown() {
        let store = MemoryStore::default().max_entries(0).max_bytes(5);
        let shown = format!("{store:?}");
        assert!(
            shown.contains("max_entries: 1") && shown.contains("max_bytes: 5"),
            "{shown}"
        );
        // A tenth of each by default, at least one record, never more than the whole.
        assert!(shown.contains("max_entries_per_scope: 1"), "{shown}");
        assert!(shown.contains("max_bytes_per_scope: 0"), "{shown}");
        let shown = format!("{:?}", MemoryStore::new());
        assert!(shown.contains("max_entries_per_scope: 1000"), "{shown}");
        assert!(shown.contains("max_bytes_per_scope: 6710886"), "{shown}");
        let shown = format!(
            "{:?}",
            MemoryStore::new().max_entries(5).max_entries_per_scope(9)
        );
        assert!(shown.contains("max_entries_per_scope: 5"), "{shown}");
    }

    fn scoped(scope: &str, n: usize) -> RecordKey {
        RecordKey::new(scope, format!("k{n}"))
    }

    fn done_in(store: &MemoryStore, scope: &str, n: usize, outcome: &Recorded) {
        let key = scoped(scope, n);
        let token = token(store.lock().claim(&key, &print(), LONG, LONG));
        store.lock().complete(&key, &token, outcome, LONG).unwrap();
    }

    /// Whether a claim of `n` in `scope` would replay its outcome (asked without claiming).
    fn replays(store: &MemoryStore, scope: &str, n: usize) -> bool {
        let state = store.lock();
        let entry = state.records.get(&scoped(scope, n));
        matches!(entry, Some(Entry { stage: Stage::Done(..), until, .. }) if *until > Instant::now())
    }

    #[test]
    fn a_flood_of_records_by_another_scope_never_evicts_a_live_record() {
        let store = MemoryStore::new();
        done_in(&store, "alice", 1, &small());
        // 10 500 cheap records: more than the whole store holds.
        for n in 0..10_500 {
            done_in(&store, "mallory", n, &small());
        }
        assert!(
            replays(&store, "alice", 1),
            "alice's record outlives the flood"
        );
        let state = store.lock();
        assert_eq!(
            state.budgets["mallory"].entries, 1_000,
            "mallory keeps her share"
        );
        assert_eq!(state.records.len(), 1_001);
    }

    #[test]
    fn a_flood_of_bytes_by_another_scope_never_evicts_a_live_record() {
        let store = MemoryStore::new();
        done_in(&store, "alice", 1, &small());
        let echoed = Recorded::Error(json!({"code": -32602, "data": "x".repeat(900 << 10)}));
        for n in 0..80 {
            done_in(&store, "mallory", n, &echoed);
        }
        assert!(
            replays(&store, "alice", 1),
            "alice's record outlives the flood"
        );
        let state = store.lock();
        assert!(state.budgets["mallory"].bytes <= state.share_bytes("mallory"));
        assert_eq!(
            state.budgets["mallory"].entries,
            7,
            "{} bytes each",
            900 << 10
        );
    }

    #[test]
    fn a_full_store_evicts_the_oldest_record_of_the_largest_budget_before_it_refuses() {
        let store = MemoryStore::new()
            .max_entries(4)
            .max_entries_per_scope(3)
            .min_entries_per_scope(3);
        done_in(&store, "a", 1, &small());
        for n in 1..=3 {
            done_in(&store, "b", n, &small());
        }
        // Full: c's claim takes the place of the oldest record of b, which holds the most.
        token(store.lock().claim(&scoped("c", 1), &print(), LONG, LONG));
        assert!(replays(&store, "a", 1));
        assert!(!replays(&store, "b", 1) && replays(&store, "b", 2) && replays(&store, "b", 3));
        // Its share all in progress, a scope is refused; others keep their records.
        let store = MemoryStore::new().max_entries_per_scope(2);
        done_in(&store, "b", 1, &small());
        token(store.lock().claim(&scoped("a", 1), &print(), LONG, LONG));
        token(store.lock().claim(&scoped("a", 2), &print(), LONG, LONG));
        let refused = store
            .lock()
            .claim(&scoped("a", 3), &print(), LONG, LONG)
            .unwrap_err();
        assert!(refused.to_string().contains("share"), "{refused}");
        assert!(replays(&store, "b", 1));
        // A store full of calls in progress refuses.
        let store = MemoryStore::new().max_entries(2).min_entries_per_scope(2);
        token(store.lock().claim(&scoped("a", 1), &print(), LONG, LONG));
        token(store.lock().claim(&scoped("b", 1), &print(), LONG, LONG));
        let refused = store
            .lock()
            .claim(&scoped("c", 1), &print(), LONG, LONG)
            .unwrap_err();
        assert!(
            refused.to_string().contains("calls in progress"),
            "{refused}"
        );
    }

    #[test]
    fn shares_shrink_as_budgets_grow_but_never_below_the_floor() {
        let store = MemoryStore::new().max_entries(100).min_entries_per_scope(4);
        let state = store.lock();
        assert_eq!(state.share_entries("a"), 10, "the cap: a tenth");
        drop(state);
        for scope in 0..20 {
            done_in(&store, &format!("s{scope}"), 1, &small());
        }
        assert_eq!(
            store.lock().share_entries("s0"),
            5,
            "100 records among 20 budgets"
        );
        for scope in 20..30 {
            done_in(&store, &format!("s{scope}"), 1, &small());
        }
        assert_eq!(
            store.lock().share_entries("s0"),
            4,
            "the floor, not 100 / 30"
        );
    }

    #[test]
    fn scopes_that_share_a_budget_share_its_room() {
        let store = MemoryStore::new().max_entries(100).max_entries_per_scope(3);
        for n in 0..6 {
            let key = RecordKey::new(format!("session:{n}"), "k").with_budget("anonymous");
            let token = token(store.lock().claim(&key, &print(), LONG, LONG));
            store.lock().complete(&key, &token, &small(), LONG).unwrap();
        }
        let state = store.lock();
        assert_eq!(state.budgets["anonymous"].entries, 3);
        assert_eq!(
            state.records.len(),
            3,
            "the oldest sessions' records made room"
        );
    }

    #[test]
    fn a_claim_whose_lease_ran_out_answers_outcome_unknown_until_its_ttl() {
        let store = MemoryStore::new();
        let k = scoped("a", 1);
        let t = token(store.lock().claim(&k, &print(), Duration::ZERO, LONG));
        assert_eq!(
            store.lock().claim(&k, &print(), LONG, LONG).unwrap(),
            Claim::OutcomeUnknown
        );
        let other = Fingerprint::of("u", &json!({}));
        assert_eq!(
            store.lock().claim(&k, &other, LONG, LONG).unwrap(),
            Claim::Conflict
        );
        // Its holder still records the outcome.
        store.lock().complete(&k, &t, &small(), LONG).unwrap();
        assert!(replays(&store, "a", 1));
    }

    #[test]
    fn an_outcome_in_a_full_store_makes_room_among_the_largest_budgets_records() {
        let one = ENTRY_OVERHEAD_BYTES + 1 + 2 + outcome_bytes(&small());
        let store = MemoryStore::new()
            .max_bytes(5 * one - 1)
            .max_bytes_per_scope(3 * one);
        done_in(&store, "a", 1, &small());
        done_in(&store, "b", 1, &small());
        done_in(&store, "b", 2, &small());
        let key = scoped("a", 2);
        let t = token(store.lock().claim(&key, &print(), LONG, LONG));
        done_in(&store, "b", 3, &small());
        // The store is full; a's call ran, so its outcome takes the place of b's oldest.
        store.lock().complete(&key, &t, &small(), LONG).unwrap();
        assert!(replays(&store, "a", 1) && replays(&store, "a", 2));
        assert!(!replays(&store, "b", 1) && replays(&store, "b", 2) && replays(&store, "b", 3));
    }

    /// The output of a future that is ready at once, as every `MemoryStore` future is.
    fn futures_ready<T>(future: StoreFuture<'_, T>) -> Result<T, StoreError> {
        let mut future = future;
        let waker = std::task::Waker::noop();
        match future
            .as_mut()
            .poll(&mut std::task::Context::from_waker(waker))
        {
            std::task::Poll::Ready(output) => output,
            std::task::Poll::Pending => panic!("a MemoryStore future waited"),
        }
    }
}
