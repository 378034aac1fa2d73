//! [`RedisStore`]: idempotency records shared by every replica of a server, in Redis.

use std::time::Duration;

use redis::AsyncCommands;
use redis::aio::ConnectionManager;
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::{
    Claim, ClaimToken, Fingerprint, IdempotencyStore, RecordKey, Recorded, StoreError, StoreFuture,
};

/// Replaces a record only while it is still the claim `ARGV[1]` (an exact match of the
/// running record), then keeps the new value `ARGV[2]` for `ARGV[3]` ms.
const COMPLETE: &str = r"
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  return 1
end
return 0";

/// Extends the claim `ARGV[1]` to `ARGV[2]` ms while it is still the key's.
const RENEW: &str = r"
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0";

/// Deletes the claim `ARGV[1]` while it is still the key's.
const RELEASE: &str = r"
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0";

/// How often a claim retries when the record it found expired before it could read it.
const CLAIM_ROUNDS: usize = 4;

/// An [`IdempotencyStore`] in Redis, for servers that run as several replicas: every replica
/// given a store on the same Redis (and prefix) sees every other's records.
///
/// One record is one string key, `PREFIX` then the SHA-256 of the caller's scope and key, so
/// neither a scope nor a key can reach another's record:
/// - a claim is `SET ... NX PX lease`: of two replicas that claim one free key at once, one
///   wins. The running record names its claim and the call's fingerprint, and its expiry is
///   the lease: a replica that dies mid-call leaves a record that expires, and the key is free
///   again once the lease runs out;
/// - completing, renewing and releasing are Lua scripts that act only while the record is
///   still their claim, so a call whose lease ran out cannot overwrite a newer call's record;
/// - a completed record holds the fingerprint and the outcome's JSON, and expires after the
///   time to live.
///
/// The connection is a [`ConnectionManager`], which reconnects by itself; while Redis cannot
/// be reached, every call of an opted-in tool fails with a [`StoreError`] and runs nothing.
///
/// ```no_run
/// use mcp_errors_core::idempotency::RedisStore;
///
/// # async fn run() -> Result<(), mcp_errors_core::idempotency::StoreError> {
/// let store = RedisStore::connect("redis://127.0.0.1:6379/").await?.with_prefix("orders:idem:");
/// # let _ = store; Ok(()) }
/// ```
#[derive(Clone)]
pub struct RedisStore {
    connection: ConnectionManager,
    prefix: String,
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
        Ok(Self::new(connection))
    }

    /// A store on a connection you made.
    pub fn new(connection: ConnectionManager) -> Self {
        RedisStore {
            connection,
            prefix: Self::DEFAULT_PREFIX.to_owned(),
            complete: redis::Script::new(COMPLETE),
            renew: redis::Script::new(RENEW),
            release: redis::Script::new(RELEASE),
        }
    }

    /// Writes every key under `prefix`, so several servers (or tests) share one Redis apart.
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    fn redis_key(&self, key: &RecordKey) -> String {
        let mut hash = Sha256::new();
        hash.update((key.scope().len() as u64).to_be_bytes());
        hash.update(key.scope().as_bytes());
        hash.update(key.key().as_bytes());
        let digest = hash.finalize();
        let mut out = self.prefix.clone();
        for byte in digest {
            out.push_str(&format!("{byte:02x}"));
        }
        out
    }
}

/// The running record of a claim: `R`, then the token (which holds the fingerprint).
fn running(token: &ClaimToken) -> String {
    format!("R{}", token.0)
}

/// A token: 128 random bits in hex, `:`, the fingerprint in hex.
fn new_token(fingerprint: &Fingerprint) -> ClaimToken {
    let mut random = [0u8; 16];
    getrandom::fill(&mut random).unwrap_or_else(|_| {
        // No entropy source: the time and a counter are still unique per process.
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        random = nanos.to_be_bytes();
    });
    let mut token: String = random.iter().map(|b| format!("{b:02x}")).collect();
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
            let redis_key = self.redis_key(key);
            let mut connection = self.connection.clone();
            for _ in 0..CLAIM_ROUNDS {
                let token = new_token(fingerprint);
                let set: Option<String> = redis::cmd("SET")
                    .arg(&redis_key)
                    .arg(running(&token))
                    .arg("NX")
                    .arg("PX")
                    .arg(millis(lease))
                    .query_async(&mut connection)
                    .await
                    .map_err(StoreError::new)?;
                if set.is_some() {
                    return Ok(Claim::Claimed(token));
                }
                let record: Option<String> =
                    connection.get(&redis_key).await.map_err(StoreError::new)?;
                if let Some(record) = record {
                    return read_record(&record, fingerprint);
                }
                // The record expired between the two commands: claim again.
            }
            Err(StoreError::new(
                "the key's record kept expiring while it was claimed",
            ))
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
            let mut connection = self.connection.clone();
            let _replaced: i64 = self
                .complete
                .key(self.redis_key(key))
                .arg(running(token))
                .arg(completed(fingerprint, outcome))
                .arg(millis(ttl))
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
            let mut connection = self.connection.clone();
            let renewed: i64 = self
                .renew
                .key(self.redis_key(key))
                .arg(running(token))
                .arg(millis(lease))
                .invoke_async(&mut connection)
                .await
                .map_err(StoreError::new)?;
            Ok(renewed == 1)
        })
    }

    fn release<'a>(&'a self, key: &'a RecordKey, token: &'a ClaimToken) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut connection = self.connection.clone();
            let _released: i64 = self
                .release
                .key(self.redis_key(key))
                .arg(running(token))
                .invoke_async(&mut connection)
                .await
                .map_err(StoreError::new)?;
            Ok(())
        })
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
    fn durations_are_whole_positive_milliseconds() {
        assert_eq!(millis(Duration::ZERO), 1);
        assert_eq!(millis(Duration::from_micros(1500)), 1);
        assert_eq!(millis(Duration::from_secs(2)), 2000);
        assert_eq!(millis(Duration::MAX), u64::MAX);
    }
}
