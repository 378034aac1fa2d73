//! [`RedisStore`]: idempotency records shared by every replica of a server, in Redis.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use redis::aio::ConnectionManager;
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::{
    Claim, ClaimToken, Fingerprint, IdempotencyStore, RecordKey, Recorded, StoreError, StoreFuture,
};

/// What every script starts with. `KEYS` are the record, the marker and the scope's
/// account (a hash: per record of the scope, when it expires and its size, `till:size`).
/// Leaves `now` (ms since the epoch, Redis's clock) and `account(field, ms, size)`, which
/// enters a record of `size` bytes that holds for `ms` more.
const PRELUDE: &str = r"
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local function account(field, ms, size)
  redis.call('HSET', KEYS[3], field, (now + ms) .. ':' .. size)
  if redis.call('PTTL', KEYS[3]) < ms then
    redis.call('PEXPIRE', KEYS[3], ms)
  end
end
";

/// The marker check that claims and renewals make. The marker is an id and the end of a quiet
/// time (ms, `0` for none). `ARGV[1]` is the marker this store saw last (`''` if none yet),
/// `ARGV[2]` an id for a new marker, `ARGV[3]` the lease. A missing marker that the store saw
/// before, or another marker whose quiet time is over (another store's first start after the
/// loss), means Redis lost records: a quiet time of a lease starts. Leaves `marker` and
/// `quiet` (the ms left of the quiet time).
const MARKER: &str = r"
local marker = redis.call('GET', KEYS[2])
local function quiet_end(m)
  return tonumber(string.match(m, ':(%d+)$')) or 0
end
if not marker then
  local till = 0
  if ARGV[1] ~= '' then till = now + tonumber(ARGV[3]) end
  marker = ARGV[2] .. ':' .. till
  redis.call('SET', KEYS[2], marker)
elseif ARGV[1] ~= '' and marker ~= ARGV[1] and quiet_end(marker) <= now then
  marker = ARGV[2] .. ':' .. (now + tonumber(ARGV[3]))
  redis.call('SET', KEYS[2], marker)
end
local quiet = math.max(quiet_end(marker) - now, 0)
";

/// Claims the record with the running record `ARGV[4]` for `ARGV[3]` ms, entered in the
/// scope's account as `ARGV[5]`, unless Redis is in a quiet time or the scope holds
/// `ARGV[6]` live records or `ARGV[7]` bytes: `{marker, 'quiet', ms left}`,
/// `{marker, 'full', records, bytes}`, `{marker, 'claimed'}` or `{marker, 'found', record}`.
const CLAIM: &str = r"
if quiet > 0 then
  return {marker, 'quiet', tostring(quiet)}
end
local found = redis.call('GET', KEYS[1])
if found then
  return {marker, 'found', found}
end
local records, bytes = 0, 0
local held = redis.call('HGETALL', KEYS[3])
for i = 1, #held, 2 do
  local till, size = string.match(held[i + 1], '^(%d+):(%d+)$')
  if not till or tonumber(till) <= now or held[i] == ARGV[5] then
    redis.call('HDEL', KEYS[3], held[i])
  else
    records = records + 1
    bytes = bytes + tonumber(size)
  end
end
local size = string.len(KEYS[1]) + string.len(ARGV[4])
if records + 1 > tonumber(ARGV[6]) or bytes + size > tonumber(ARGV[7]) then
  return {marker, 'full', tostring(records), tostring(bytes)}
end
redis.call('SET', KEYS[1], ARGV[4], 'PX', ARGV[3])
account(ARGV[5], tonumber(ARGV[3]), size)
return {marker, 'claimed'}";

/// Extends the claim `ARGV[4]` (entered as `ARGV[5]`) to `ARGV[3]` ms while it is still the
/// key's, or puts it back when the key has no record (Redis lost it, or the lease ran out
/// unclaimed): the call still runs. `{marker, '1'}` when the key is the claim's, `{marker,
/// '0'}` when another record holds it.
const RENEW: &str = r"
local record = redis.call('GET', KEYS[1])
if record and record ~= ARGV[4] then
  return {marker, '0'}
end
redis.call('SET', KEYS[1], ARGV[4], 'PX', ARGV[3])
account(ARGV[5], tonumber(ARGV[3]), string.len(KEYS[1]) + string.len(ARGV[4]))
return {marker, '1'}";

/// Records the outcome `ARGV[2]` for `ARGV[3]` ms (entered as `ARGV[4]`) while the key is
/// still the claim `ARGV[1]`, or has no record at all (Redis lost the claim, or its lease ran
/// out unclaimed: the call ran, and its outcome is the key's).
const COMPLETE: &str = r"
local record = redis.call('GET', KEYS[1])
if record == ARGV[1] or not record then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  account(ARGV[4], tonumber(ARGV[3]), string.len(KEYS[1]) + string.len(ARGV[2]))
  return 1
end
return 0";

/// Deletes the claim `ARGV[1]` (entered as `ARGV[2]`) while it is still the key's.
const RELEASE: &str = r"
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  redis.call('HDEL', KEYS[3], ARGV[2])
  return 1
end
return 0";

/// The most live records of one scope unless told otherwise.
const DEFAULT_SCOPE_ENTRIES: usize = 1_000;

/// The most bytes of live records of one scope unless told otherwise: 8 MiB.
const DEFAULT_SCOPE_BYTES: usize = 8 << 20;

/// An [`IdempotencyStore`] in Redis, for servers that run as several replicas: every replica
/// given a store on the same Redis (and prefix) sees every other's records.
///
/// One record is one string key, `PREFIX` then the SHA-256 of the caller's scope and key, so
/// neither a scope nor a key can reach another's record (with two more keys under the prefix:
/// `PREFIX marker` and `PREFIX scope:` then the SHA-256 of the scope):
/// - a claim is a Lua script around `SET ... NX PX lease`: of two replicas that claim one free
///   key at once, one wins. The running record names its claim and the call's fingerprint,
///   and its expiry is the lease: a replica that dies mid-call leaves a record that expires,
///   and the key is free again once the lease runs out;
/// - renewing and releasing act only while the record is still their claim; completing acts
///   while it is, or while the key has no record at all (the call ran: its outcome is the
///   key's), never over another call's record;
/// - a completed record holds the fingerprint and the outcome's JSON, and expires after the
///   time to live, whatever else Redis holds;
/// - each scope has an account (a hash of its records' expiries and sizes) and a share: at
///   most [`max_entries_per_scope`](Self::max_entries_per_scope) live records (1 000) and
///   [`max_bytes_per_scope`](Self::max_bytes_per_scope) bytes (8 MiB), checked at each claim.
///   A claim beyond its scope's share is refused with a [`StoreError`] (a retryable store
///   failure, the tool not run) until the scope's records expire; no scope can crowd out
///   another's records.
///
/// The connection is a [`ConnectionManager`], which reconnects by itself; while Redis cannot
/// be reached, every call of an opted-in tool fails with a [`StoreError`] and runs nothing. A
/// claim whose answer did not come in time is released at once, so it cannot hold its key
/// after the caller was told the store failed.
///
/// # What Redis must keep
///
/// A record must outlive its time to live, and a claim its call. So Redis needs:
/// - `maxmemory-policy noeviction` (Redis's default): an evicting Redis lets a flood of keys
///   by one caller erase another's records. With `noeviction` a full Redis refuses writes,
///   and the calls that need one are answered with a retryable store failure;
/// - persistence across restarts (`appendonly yes`, with `appendfsync always` to lose no
///   acknowledged claim), and, with replicas, a failover only to a replica that has every
///   write (Redis Sentinel or a managed service that does `WAIT`-style synchronous
///   replication): a claim that a restart or failover loses lets a retry run the call again.
///
/// [`connect`](Self::connect) warns when the server's configuration says otherwise. The store
/// also detects a Redis that lost its records: it keeps a marker key under the prefix, and a
/// claim or renewal that finds the marker gone (or replaced without a quiet time) refuses
/// every claim for one lease from then on. In that time each call still running puts its
/// claim back at its next renewal (every third of the lease), and a call that finishes
/// records its outcome although its claim is gone; a retry is refused until then, and
/// afterwards replays the outcome or finds the call in progress. A replica that starts on an
/// empty Redis takes it for a first start; so does one that starts after a loss before any
/// replica with a call in flight noticed it (at most a third of a lease). Redis 5 or later;
/// in a Redis Cluster, put a hash tag in the prefix (`{orders}:idem:`) so that every key of
/// the store is in one slot.
///
/// ```no_run
/// use mcp_errors_core::idempotency::RedisStore;
///
/// # async fn run() -> Result<(), mcp_errors_core::idempotency::StoreError> {
/// let store = RedisStore::connect("redis://127.0.0.1:6379/")
///     .await?
///     .with_prefix("orders:idem:")
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
    scope_entries: usize,
    scope_bytes: usize,
    claim: redis::Script,
    complete: redis::Script,
    renew: redis::Script,
    release: redis::Script,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore")
            .field("prefix", &self.prefix)
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
            scope_entries: DEFAULT_SCOPE_ENTRIES,
            scope_bytes: DEFAULT_SCOPE_BYTES,
            claim: redis::Script::new(&format!("{PRELUDE}{MARKER}{CLAIM}")),
            complete: redis::Script::new(&format!("{PRELUDE}{COMPLETE}")),
            renew: redis::Script::new(&format!("{PRELUDE}{MARKER}{RENEW}")),
            release: redis::Script::new(RELEASE),
        }
    }

    /// Writes every key under `prefix`, so several servers (or tests) share one Redis apart.
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// Let a scope hold at most `n` live records (at least 1; 1 000 by default): a claim
    /// beyond them is refused with a [`StoreError`] until some expire.
    pub fn max_entries_per_scope(mut self, n: usize) -> Self {
        self.scope_entries = n.max(1);
        self
    }

    /// Let a scope's live records hold at most `n` bytes (8 MiB by default), counted at each
    /// claim: a claim beyond them is refused with a [`StoreError`] until some expire.
    pub fn max_bytes_per_scope(mut self, n: usize) -> Self {
        self.scope_bytes = n;
        self
    }

    /// The keys of a record: the record, the marker, the scope's account; and the record's
    /// field in the account.
    fn redis_keys(&self, key: &RecordKey) -> ([String; 3], String) {
        let mut hash = Sha256::new();
        hash.update((key.scope().len() as u64).to_be_bytes());
        hash.update(key.scope().as_bytes());
        hash.update(key.key().as_bytes());
        let field = hex(&hash.finalize());
        let scope = hex(&Sha256::digest(key.scope().as_bytes()));
        let keys = [
            format!("{}{field}", self.prefix),
            format!("{}marker", self.prefix),
            format!("{}scope:{scope}", self.prefix),
        ];
        (keys, field)
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
        keys: &[String; 3],
        lease: Duration,
        args: &[&str],
    ) -> Result<Vec<Option<String>>, StoreError> {
        let mut invocation = script.prepare_invoke();
        invocation
            .key(&keys[0])
            .key(&keys[1])
            .key(&keys[2])
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
             can erase idempotency records; use noeviction"
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

/// The running record of a claim: `R`, then the token (which holds the fingerprint).
fn running(token: &ClaimToken) -> String {
    format!("R{}", token.0)
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

/// What a record found by a claim means for a call with `fingerprint`.
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
    ) -> StoreFuture<'a, Claim> {
        Box::pin(async move {
            let (keys, field) = self.redis_keys(key);
            let token = new_token(fingerprint);
            let (entries, bytes) = (self.scope_entries.to_string(), self.scope_bytes.to_string());
            let args = [running(&token), field, entries, bytes];
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
                (Some("quiet"), Some(left), _) => Err(StoreError::new(format!(
                    "Redis lost idempotency records (a restart or failover without them): \
                     claims are refused for {left} ms more, so that no call in flight runs again"
                ))),
                (Some("full"), Some(records), Some(bytes)) => Err(StoreError::new(format!(
                    "the caller's share of the Redis store is full ({records} live records of \
                     {bytes} bytes; {} records, {} bytes at most)",
                    self.scope_entries, self.scope_bytes
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
            let (keys, field) = self.redis_keys(key);
            let mut connection = self.connection.clone();
            let _replaced: i64 = self
                .complete
                .key(&keys)
                .arg(running(token))
                .arg(completed(fingerprint, outcome))
                .arg(millis(ttl))
                .arg(field)
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
            let (keys, field) = self.redis_keys(key);
            let running = running(token);
            let answer = self
                .with_marker(&self.renew, &keys, lease, &[&running, &field])
                .await?;
            Ok(answer.get(1).cloned().flatten().as_deref() == Some("1"))
        })
    }

    fn release<'a>(&'a self, key: &'a RecordKey, token: &'a ClaimToken) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let (keys, field) = self.redis_keys(key);
            let mut connection = self.connection.clone();
            let _released: i64 = self
                .release
                .key(&keys)
                .arg(running(token))
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
        let token = new_token(&fp);
        assert_eq!(
            read_record(&running(&token), &fp).unwrap(),
            Claim::InProgress
        );
        assert_eq!(
            read_record(&running(&token), &other).unwrap(),
            Claim::Conflict
        );
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
