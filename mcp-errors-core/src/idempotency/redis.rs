//! [`RedisStore`]: idempotency records shared by every replica of a server, in Redis.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use redis::aio::ConnectionManager;
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::redis_lua::{CLAIM, COMPLETE, MARKER, PRELUDE, RELEASE, RENEW};
use super::{
    Claim, ClaimToken, Fingerprint, IdempotencyStore, RecordKey, Recorded, StoreError, StoreFuture,
};

/// The most live records of one scope unless told otherwise.
const DEFAULT_SCOPE_ENTRIES: usize = 1_000;

/// The most bytes of live records of one scope unless told otherwise: 8 MiB.
const DEFAULT_SCOPE_BYTES: usize = 8 << 20;

/// The most live records of the whole store unless told otherwise.
const DEFAULT_MAX_ENTRIES: usize = 100_000;

/// The most bytes of live records of the whole store unless told otherwise: 64 MiB.
const DEFAULT_MAX_BYTES: usize = 64 << 20;

/// The records a budget keeps room for however many there are, unless told otherwise.
const DEFAULT_MIN_ENTRIES: usize = 10;

/// The bytes a budget keeps room for however many there are, unless told otherwise: 1 MiB.
const DEFAULT_MIN_BYTES: usize = 1 << 20;

/// An [`IdempotencyStore`] in Redis, for servers that run as several replicas: every replica
/// given a store on the same Redis (and prefix) sees every other's records.
///
/// One record is one string key, `PREFIX` then the SHA-256 of the caller's scope and key, so
/// neither a scope nor a key can reach another's record (with more keys under the prefix:
/// `PREFIX marker`, `PREFIX budgets` and `PREFIX scope:` then the SHA-256 of a budget):
/// - a claim is a Lua script around `SET ... PX ttl`: of two replicas that claim one free key
///   at once, one wins. The running record names its claim, the call's fingerprint and the
///   end of its lease, which the boundary renews while the call runs. A claim whose lease ran
///   out (its replica died mid-call, or could not reach Redis) is kept for the time to live
///   and answers [`Claim::OutcomeUnknown`]: its call may have run, so it never runs again;
/// - renewing and releasing act only while the record is still their claim; completing acts
///   while it is, or while the key has no record at all (the call ran: its outcome is the
///   key's), never over another call's record;
/// - a completed record holds the fingerprint and the outcome's JSON, and expires after the
///   time to live;
/// - each budget (a scope's own, or one several scopes share: [`RecordKey::with_budget`]) has
///   an account, a hash with an entry per record (its expiry, size and stage), and the store
///   keeps a count of every budget's records and bytes, both updated in the scripts. A
///   budget's share is the store's bound ([`max_entries`](Self::max_entries), 100 000
///   records; [`max_bytes`](Self::max_bytes), 64 MiB) divided among the budgets that hold
///   records, never more than [`max_entries_per_scope`](Self::max_entries_per_scope) (1 000)
///   and [`max_bytes_per_scope`](Self::max_bytes_per_scope) (8 MiB), never less than
///   [`min_entries_per_scope`](Self::min_entries_per_scope) (10) and
///   [`min_bytes_per_scope`](Self::min_bytes_per_scope) (1 MiB). A claim past its budget's
///   share evicts that budget's oldest completed records; a claim past the store's bound, the
///   oldest completed record of the budget that holds the most. Only when there is nothing
///   to evict but claims in progress is the claim refused with a [`StoreError`] (a retryable
///   store failure, the tool not run). The bounds are checked at each claim: an outcome is
///   recorded whatever its size (its call ran), and counted at the next claim;
/// - the account's entry of a record outlives neither it nor its time to live, so a claim
///   that finds the entry and not the record knows Redis lost that record (evicted it): it
///   answers [`Claim::OutcomeUnknown`] and logs a warning (with feature `tracing`).
///
/// The connection is a [`ConnectionManager`], which reconnects by itself; while Redis cannot
/// be reached, every call of an opted-in tool fails with a [`StoreError`] and runs nothing. A
/// claim whose answer did not come in time is released at once, so it cannot hold its key
/// after the caller was told the store failed.
///
/// # What Redis must keep
///
/// A record must outlive its time to live, and a claim its call. So Redis needs:
/// - `maxmemory` above what the store may hold, and `maxmemory-policy noeviction` (Redis's
///   default). The store holds at most `max_bytes` of records plus Redis's own cost per key
///   (about 100 bytes a record, twice: the record and its account entry): set `maxmemory` to
///   at least twice `max_bytes` plus what the other users of that Redis need. With
///   `noeviction` a full Redis refuses writes, and the calls that need one are answered with
///   a retryable store failure; an evicting Redis erases records, which the store detects
///   and answers as of unknown outcome, never by running a call again;
/// - persistence across restarts (`appendonly yes`, with `appendfsync always` to lose no
///   acknowledged claim), and, with replicas, a failover only to a replica that has every
///   write (Redis Sentinel or a managed service that does `WAIT`-style synchronous
///   replication).
///
/// [`connect`](Self::connect) warns when the server's configuration says otherwise. The store
/// also detects a Redis that lost all its records: it keeps a marker key under the prefix, and
/// a claim or renewal that finds the marker gone (or replaced without a quiet time) refuses
/// every claim for one lease from then on. In that time each call still running puts its
/// claim back at its next renewal (every third of the lease), and a call that finishes
/// records its outcome although its claim is gone; a retry is refused until then, and
/// afterwards replays the outcome or finds the call in progress. A replica that starts on an
/// empty Redis takes it for a first start; so does one that starts after a loss before any
/// replica with a call in flight noticed it (at most a third of a lease). Redis 5 or later.
/// The claim script reaches the records and accounts of other budgets (to evict), which it
/// cannot name in advance: in a Redis Cluster, put a hash tag in the prefix
/// (`{orders}:idem:`) so that every key of the store is in one slot.
///
/// ```no_run
/// use mcp_errors_core::idempotency::RedisStore;
///
/// # async fn run() -> Result<(), mcp_errors_core::idempotency::StoreError> {
/// let store = RedisStore::connect("redis://127.0.0.1:6379/")
///     .await?
///     .with_prefix("orders:idem:")
///     .max_entries(50_000)
///     .max_bytes(32 << 20)
///     .max_entries_per_scope(500)
///     .max_bytes_per_scope(4 << 20);
/// # let _ = store; Ok(()) }
/// ```
#[derive(Clone)]
pub struct RedisStore {
    connection: ConnectionManager,
    prefix: String,
    /// The marker this store saw last (empty before its first claim).
    marker: Arc<Mutex<String>>,
    bounds: Bounds,
    claim: redis::Script,
    complete: redis::Script,
    renew: redis::Script,
    release: redis::Script,
}

/// How much the store and each budget may hold.
#[derive(Clone, Copy, Debug)]
struct Bounds {
    entries: usize,
    bytes: usize,
    scope_entries: usize,
    scope_bytes: usize,
    min_entries: usize,
    min_bytes: usize,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore")
            .field("prefix", &self.prefix)
            .field("bounds", &self.bounds)
            .finish_non_exhaustive()
    }
}

impl RedisStore {
    /// The prefix of every key the store writes, unless [`with_prefix`](Self::with_prefix)
    /// sets another.
    pub const DEFAULT_PREFIX: &'static str = "mcp-errors:idempotency:";

    /// A store on the Redis at `url` (`redis://host:port/db`), connected before it returns.
    ///
    /// A command that Redis leaves unanswered for 2 s fails (and so does the call of the tool
    /// that needed it, the tool not run), and so does a connection not made in 2 s, after 2
    /// retries at most 500 ms apart; for other limits, make the [`ConnectionManager`] yourself
    /// and use [`new`](Self::new).
    ///
    /// It reads the server's `appendonly`, `save` and `maxmemory-policy` and logs a warning
    /// (with feature `tracing`) when Redis keeps nothing across a restart or evicts keys when
    /// full: see [what Redis must keep](Self#what-redis-must-keep).
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        let client = redis::Client::open(url).map_err(StoreError::new)?;
        let config = redis::aio::ConnectionManagerConfig::new()
            .set_connection_timeout(Some(Duration::from_secs(2)))
            .set_response_timeout(Some(Duration::from_secs(2)))
            .set_number_of_retries(2)
            .set_min_delay(Duration::from_millis(100))
            .set_max_delay(Duration::from_millis(500));
        let connection = ConnectionManager::new_with_config(client, config)
            .await
            .map_err(StoreError::new)?;
        let store = Self::new(connection);
        for warning in store.durability_warnings().await {
            log_warning(&warning);
        }
        Ok(store)
    }

    /// A store on a connection you made.
    pub fn new(connection: ConnectionManager) -> Self {
        RedisStore {
            connection,
            prefix: Self::DEFAULT_PREFIX.to_owned(),
            marker: Arc::default(),
            bounds: Bounds {
                entries: DEFAULT_MAX_ENTRIES,
                bytes: DEFAULT_MAX_BYTES,
                scope_entries: DEFAULT_SCOPE_ENTRIES,
                scope_bytes: DEFAULT_SCOPE_BYTES,
                min_entries: DEFAULT_MIN_ENTRIES,
                min_bytes: DEFAULT_MIN_BYTES,
            },
            claim: redis::Script::new(&format!("{PRELUDE}{MARKER}{CLAIM}")),
            complete: redis::Script::new(&format!("{PRELUDE}{COMPLETE}")),
            renew: redis::Script::new(&format!("{PRELUDE}{MARKER}{RENEW}")),
            release: redis::Script::new(&format!("{PRELUDE}{RELEASE}")),
        }
    }

    /// Writes every key under `prefix`, so several servers (or tests) share one Redis apart.
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// Hold at most `n` live records in all (at least 1; 100 000 by default): past it, a
    /// claim evicts the oldest completed record of the budget that holds the most.
    pub fn max_entries(mut self, n: usize) -> Self {
        self.bounds.entries = n.max(1);
        self
    }

    /// Hold at most `n` bytes of live records in all (64 MiB by default), counted at each
    /// claim: past it, a claim evicts the oldest completed record of the budget that holds
    /// the most bytes. Set Redis's `maxmemory` to at least twice this.
    pub fn max_bytes(mut self, n: usize) -> Self {
        self.bounds.bytes = n;
        self
    }

    /// Let one budget (a scope, or the scopes that share one) hold at most `n` live records
    /// (at least 1; 1 000 by default), however few budgets there are: past its share, a claim
    /// evicts the budget's own oldest completed records.
    pub fn max_entries_per_scope(mut self, n: usize) -> Self {
        self.bounds.scope_entries = n.max(1);
        self
    }

    /// Let one budget's live records hold at most `n` bytes (8 MiB by default), however few
    /// budgets there are, counted at each claim.
    pub fn max_bytes_per_scope(mut self, n: usize) -> Self {
        self.bounds.scope_bytes = n;
        self
    }

    /// Leave each budget room for at least `n` records (10 by default), however many budgets
    /// share the store (within [`max_entries_per_scope`](Self::max_entries_per_scope)).
    pub fn min_entries_per_scope(mut self, n: usize) -> Self {
        self.bounds.min_entries = n;
        self
    }

    /// Leave each budget room for at least `n` bytes (1 MiB by default), however many budgets
    /// share the store (within [`max_bytes_per_scope`](Self::max_bytes_per_scope)).
    pub fn min_bytes_per_scope(mut self, n: usize) -> Self {
        self.bounds.min_bytes = n;
        self
    }

    /// The keys of a record: the record, the marker, its budget's account, the store's
    /// count; the record's field in the account, and the budget's in the count.
    fn redis_keys(&self, key: &RecordKey) -> ([String; 4], String, String) {
        let mut hash = Sha256::new();
        hash.update((key.scope().len() as u64).to_be_bytes());
        hash.update(key.scope().as_bytes());
        hash.update(key.key().as_bytes());
        let field = hex(&hash.finalize());
        let budget = hex(&Sha256::digest(key.budget().as_bytes()));
        let keys = [
            format!("{}{field}", self.prefix),
            format!("{}marker", self.prefix),
            format!("{}scope:{budget}", self.prefix),
            format!("{}budgets", self.prefix),
        ];
        (keys, field, budget)
    }

    /// The marker this store saw last.
    fn seen_marker(&self) -> String {
        self.marker
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn see_marker(&self, marker: String) {
        *self.marker.lock().unwrap_or_else(PoisonError::into_inner) = marker;
    }

    /// Runs `script` (one that makes the [`MARKER`] check) on `keys` with `args` after the
    /// marker's, and keeps the marker it answers.
    async fn with_marker(
        &self,
        script: &redis::Script,
        keys: &[String; 4],
        lease: Duration,
        args: &[&str],
    ) -> Result<Vec<Option<String>>, StoreError> {
        let mut invocation = script.prepare_invoke();
        invocation.key(keys);
        invocation
            .arg(self.seen_marker())
            .arg(random_hex())
            .arg(millis(lease));
        for arg in args {
            invocation.arg(*arg);
        }
        let mut connection = self.connection.clone();
        let answer: Vec<Option<String>> = invocation
            .invoke_async(&mut connection)
            .await
            .map_err(StoreError::new)?;
        if let Some(Some(marker)) = answer.first() {
            self.see_marker(marker.clone());
        }
        Ok(answer)
    }

    /// What the Redis server's configuration risks: a warning each.
    async fn durability_warnings(&self) -> Vec<String> {
        let mut connection = self.connection.clone();
        let mut setting = async |name: &str| -> Option<String> {
            let pair: Vec<String> = redis::cmd("CONFIG")
                .arg("GET")
                .arg(name)
                .query_async(&mut connection)
                .await
                .ok()?;
            pair.into_iter().nth(1)
        };
        let appendonly = setting("appendonly").await;
        let save = setting("save").await;
        let policy = setting("maxmemory-policy").await;
        durability_warnings(appendonly.as_deref(), save.as_deref(), policy.as_deref())
    }
}

/// The warnings for a Redis with these `appendonly`, `save` and `maxmemory-policy` settings
/// (`None`: not readable, as on services that disable `CONFIG`).
fn durability_warnings(
    appendonly: Option<&str>,
    save: Option<&str>,
    policy: Option<&str>,
) -> Vec<String> {
    let mut warnings = Vec::new();
    if appendonly == Some("no") && save.is_some_and(|save| save.trim().is_empty()) {
        warnings.push(
            "Redis persists nothing (appendonly no, no save): a restart loses every \
             idempotency record, and claims are refused for a lease after it"
                .to_owned(),
        );
    }
    if let Some(policy) = policy.filter(|policy| *policy != "noeviction") {
        warnings.push(format!(
            "Redis evicts keys when full (maxmemory-policy {policy}): a flood of other keys \
             can erase idempotency records, whose keys then answer that the outcome is \
             unknown; use noeviction"
        ));
    }
    warnings
}

fn log_warning(warning: &str) {
    #[cfg(feature = "tracing")]
    tracing::warn!(target: "mcp_errors::idempotency", "{warning}");
    #[cfg(not(feature = "tracing"))]
    let _ = warning;
}

/// `bytes` in lowercase hex.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// 128 random bits in hex.
fn random_hex() -> String {
    let mut random = [0u8; 16];
    getrandom::fill(&mut random).unwrap_or_else(|_| {
        // No entropy source: the time is still unique enough per process.
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        random = nanos.to_be_bytes();
    });
    hex(&random)
}

/// A token: 128 random bits in hex, `:`, the fingerprint in hex.
fn new_token(fingerprint: &Fingerprint) -> ClaimToken {
    let mut token = random_hex();
    token.push(':');
    token.push_str(&fingerprint.to_hex());
    ClaimToken(token)
}

/// The completed record: `D`, the fingerprint in hex, then `{"result": ...}` or
/// `{"error": ...}`.
fn completed(fingerprint: &str, outcome: &Recorded) -> String {
    let body = match outcome {
        Recorded::Result(v) => serde_json::json!({ "result": v }),
        Recorded::Error(v) => serde_json::json!({ "error": v }),
    };
    format!("D{fingerprint}{body}")
}

/// What a record found by a claim means for a call with `fingerprint`: a running record is
/// `R`, the end of its lease, `|`, then the token (which holds the fingerprint).
fn read_record(record: &str, fingerprint: &Fingerprint) -> Result<Claim, StoreError> {
    let want = fingerprint.to_hex();
    if let Some(token) = record.strip_prefix('R') {
        let found = token.rsplit(':').next().unwrap_or_default();
        return Ok(if found == want {
            Claim::InProgress
        } else {
            Claim::Conflict
        });
    }
    let Some(rest) = record
        .strip_prefix('D')
        .filter(|r| r.len() >= 64 && r.is_char_boundary(64))
    else {
        return Err(StoreError::new(
            "a record in Redis that this store did not write",
        ));
    };
    let (found, body) = rest.split_at(64);
    if found != want {
        return Ok(Claim::Conflict);
    }
    let mut body: serde_json::Map<String, Value> =
        serde_json::from_str(body).map_err(StoreError::new)?;
    if let Some(result) = body.remove("result") {
        Ok(Claim::Completed(Recorded::Result(result)))
    } else if let Some(error) = body.remove("error") {
        Ok(Claim::Completed(Recorded::Error(error)))
    } else {
        Err(StoreError::new("a record in Redis with no outcome"))
    }
}

/// A duration in whole milliseconds for Redis, at least 1 (`PX 0` is an error).
fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX).max(1)
}

impl IdempotencyStore for RedisStore {
    fn claim<'a>(
        &'a self,
        key: &'a RecordKey,
        fingerprint: &'a Fingerprint,
        lease: Duration,
        ttl: Duration,
    ) -> StoreFuture<'a, Claim> {
        Box::pin(async move {
            let (keys, field, budget) = self.redis_keys(key);
            let token = new_token(fingerprint);
            let b = self.bounds;
            let args = [
                token.0.clone(),
                field,
                b.scope_entries.to_string(),
                b.scope_bytes.to_string(),
                millis(ttl).to_string(),
                self.prefix.clone(),
                budget,
                b.entries.to_string(),
                b.bytes.to_string(),
                b.min_entries.to_string(),
                b.min_bytes.to_string(),
            ];
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let answer = match self.with_marker(&self.claim, &keys, lease, &args).await {
                Ok(answer) => answer,
                Err(error) => {
                    // The claim may still land (Redis stalled, the answer timed out): the
                    // release goes after it on the same connection and takes it back.
                    self.release_later(key, &token);
                    return Err(error);
                }
            };
            let at = |i: usize| answer.get(i).cloned().flatten();
            match (at(1).as_deref(), at(2), at(3)) {
                (Some("claimed"), _, _) => Ok(Claim::Claimed(token)),
                (Some("found"), Some(record), _) => read_record(&record, fingerprint),
                (Some("lapsed"), Some(record), _) => match read_record(&record, fingerprint)? {
                    Claim::InProgress => Ok(Claim::OutcomeUnknown),
                    other => Ok(other),
                },
                (Some("lost"), _, _) => {
                    log_warning(
                        "Redis lost an idempotency record before its time to live (evicted?): \
                         its key answers that the outcome is unknown",
                    );
                    Ok(Claim::OutcomeUnknown)
                }
                (Some("quiet"), Some(left), _) => Err(StoreError::new(format!(
                    "Redis lost idempotency records (a restart or failover without them): \
                     claims are refused for {left} ms more, so that no call in flight runs again"
                ))),
                (Some("full"), Some(records), Some(bytes)) => Err(StoreError::new(format!(
                    "the caller's share of the Redis store is full of calls in progress \
                     ({records} live records of {bytes} bytes)"
                ))),
                (Some("busy"), Some(records), Some(bytes)) => Err(StoreError::new(format!(
                    "the Redis store is full of calls in progress ({records} live records of \
                     {bytes} bytes; {} records, {} bytes at most)",
                    b.entries, b.bytes
                ))),
                _ => Err(StoreError::new(
                    "an answer from Redis this store did not expect",
                )),
            }
        })
    }

    fn complete<'a>(
        &'a self,
        key: &'a RecordKey,
        token: &'a ClaimToken,
        outcome: &'a Recorded,
        ttl: Duration,
    ) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let fingerprint = token.0.rsplit(':').next().unwrap_or_default();
            let (keys, field, budget) = self.redis_keys(key);
            let mut connection = self.connection.clone();
            let _replaced: i64 = self
                .complete
                .key(&keys)
                .arg(&token.0)
                .arg(completed(fingerprint, outcome))
                .arg(millis(ttl))
                .arg(field)
                .arg(budget)
                .invoke_async(&mut connection)
                .await
                .map_err(StoreError::new)?;
            Ok(())
        })
    }

    fn renew<'a>(
        &'a self,
        key: &'a RecordKey,
        token: &'a ClaimToken,
        lease: Duration,
    ) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let (keys, field, _) = self.redis_keys(key);
            let answer = self
                .with_marker(&self.renew, &keys, lease, &[&token.0, &field])
                .await?;
            Ok(answer.get(1).cloned().flatten().as_deref() == Some("1"))
        })
    }

    fn release<'a>(&'a self, key: &'a RecordKey, token: &'a ClaimToken) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let (keys, field, _) = self.redis_keys(key);
            let mut connection = self.connection.clone();
            let _released: i64 = self
                .release
                .key(&keys)
                .arg(&token.0)
                .arg(field)
                .invoke_async(&mut connection)
                .await
                .map_err(StoreError::new)?;
            Ok(())
        })
    }
}

impl RedisStore {
    /// Releases the claim `token` of `key` in a task of its own.
    fn release_later(&self, key: &RecordKey, token: &ClaimToken) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let (store, key, token) = (self.clone(), key.clone(), token.clone());
        runtime.spawn(async move {
            let _ = store.release(&key, &token).await;
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn records_read_back() {
        let fp = Fingerprint::of("t", &json!({"a": 1}));
        let other = Fingerprint::of("t", &json!({"a": 2}));
        let running = format!("R1700000000000|{}", new_token(&fp).0);
        assert_eq!(read_record(&running, &fp).unwrap(), Claim::InProgress);
        assert_eq!(read_record(&running, &other).unwrap(), Claim::Conflict);
        for outcome in [
            Recorded::Result(json!({"content": []})),
            Recorded::Error(json!({"code": -32602})),
        ] {
            let record = completed(&fp.to_hex(), &outcome);
            assert_eq!(
                read_record(&record, &fp).unwrap(),
                Claim::Completed(outcome)
            );
            assert_eq!(read_record(&record, &other).unwrap(), Claim::Conflict);
        }
        for foreign in [
            "",
            "X",
            "Dshort",
            &format!("D{}{{}}", fp.to_hex()),
            &format!("D{}[", fp.to_hex()),
        ] {
            assert!(read_record(foreign, &fp).is_err(), "{foreign:?}");
        }
        assert!(read_record(&format!("Da{}", "é".repeat(40)), &fp).is_err());
    }

    #[test]
    fn tokens_are_fresh_and_carry_the_fingerprint() {
        let fp = Fingerprint::of("t", &json!({}));
        let (a, b) = (new_token(&fp), new_token(&fp));
        assert_ne!(a, b);
        assert!(a.0.ends_with(&format!(":{}", fp.to_hex())));
        assert_eq!(a.0.len(), 32 + 1 + 64);
    }

    #[test]
    fn a_redis_that_keeps_nothing_or_evicts_is_warned_of() {
        assert!(durability_warnings(Some("yes"), Some(""), Some("noeviction")).is_empty());
        assert!(durability_warnings(Some("no"), Some("3600 1"), Some("noeviction")).is_empty());
        assert!(
            durability_warnings(None, None, None).is_empty(),
            "CONFIG disabled"
        );
        let lost = durability_warnings(Some("no"), Some(""), Some("noeviction"));
        assert!(
            lost.len() == 1 && lost[0].contains("persists nothing"),
            "{lost:?}"
        );
        let evicts = durability_warnings(Some("yes"), None, Some("allkeys-lru"));
        assert!(
            evicts.len() == 1 && evicts[0].contains("allkeys-lru"),
            "{evicts:?}"
        );
    }

    #[test]
    fn durations_are_whole_positive_milliseconds() {
        assert_eq!(millis(Duration::ZERO), 1);
        assert_eq!(millis(Duration::from_micros(1500)), 1);
        assert_eq!(millis(Duration::from_secs(2)), 2000);
        assert_eq!(millis(Duration::MAX), u64::MAX);
    }
}
