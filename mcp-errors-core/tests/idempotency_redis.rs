//! `RedisStore` against a real Redis: `MCP_ERRORS_REDIS_URL` when set, else a `redis-server`
//! this test starts on a free port of 127.0.0.1. Without either the tests say so and pass,
//! unless `MCP_ERRORS_REQUIRE_REDIS=1` (as in CI), where a missing Redis fails them.

use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

use mcp_errors_core::idempotency::{
    Claim, Fingerprint, IdempotencyStore, RecordKey, Recorded, RedisStore,
};
use serde_json::json;

struct Server {
    url: String,
    _child: Option<Child>,
}

/// One Redis for the whole test binary (each test writes under its own prefix).
fn server() -> Option<&'static str> {
    static SERVER: OnceLock<Option<Server>> = OnceLock::new();
    SERVER
        .get_or_init(|| {
            if let Ok(url) = std::env::var("MCP_ERRORS_REDIS_URL") {
                return Some(Server { url, _child: None });
            }
            let port = std::net::TcpListener::bind("127.0.0.1:0")
                .and_then(|l| l.local_addr())
                .map(|a| a.port())
                .ok()?;
            let child = Restartable::spawn(port, &[])?;
            Some(Server {
                url: format!("redis://127.0.0.1:{port}/"),
                _child: Some(child),
            })
        })
        .as_ref()
        .map(|s| s.url.as_str())
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(child) = &mut self._child {
            let _ = child.kill();
        }
    }
}

/// A store on the test Redis under `prefix`, or `None` (with a note) when there is none.
async fn store(prefix: &str) -> Option<RedisStore> {
    let Some(url) = server() else {
        assert!(
            std::env::var("MCP_ERRORS_REQUIRE_REDIS").as_deref() != Ok("1"),
            "MCP_ERRORS_REQUIRE_REDIS=1 but no Redis: set MCP_ERRORS_REDIS_URL or install redis-server"
        );
        eprintln!("skipped: no Redis (set MCP_ERRORS_REDIS_URL or install redis-server)");
        return None;
    };
    let prefix = format!("test:{prefix}:{}:", std::process::id());
    Some(
        RedisStore::connect(url)
            .await
            .expect("connect")
            .with_prefix(prefix),
    )
}

const LEASE: Duration = Duration::from_secs(30);
const TTL: Duration = Duration::from_secs(60);

fn fingerprint(n: u64) -> Fingerprint {
    Fingerprint::of("refund_order", &json!({"order": n}))
}

#[tokio::test]
async fn a_completed_call_is_replayed_and_other_arguments_conflict() {
    let Some(store) = store("replay").await else {
        return;
    };
    let key = RecordKey::new("alice", "k1");
    let Claim::Claimed(token) = store
        .claim(&key, &fingerprint(1), LEASE, TTL)
        .await
        .unwrap()
    else {
        panic!("a free key is claimed")
    };
    assert_eq!(
        store
            .claim(&key, &fingerprint(1), LEASE, TTL)
            .await
            .unwrap(),
        Claim::InProgress
    );
    assert_eq!(
        store
            .claim(&key, &fingerprint(2), LEASE, TTL)
            .await
            .unwrap(),
        Claim::Conflict
    );

    let outcome = Recorded::Result(json!({"content": [{"type": "text", "text": "refund R-1"}]}));
    store.complete(&key, &token, &outcome, TTL).await.unwrap();
    assert_eq!(
        store
            .claim(&key, &fingerprint(1), LEASE, TTL)
            .await
            .unwrap(),
        Claim::Completed(outcome)
    );
    assert_eq!(
        store
            .claim(&key, &fingerprint(2), LEASE, TTL)
            .await
            .unwrap(),
        Claim::Conflict
    );

    let error = Recorded::Error(json!({"code": -32602, "message": "bad", "data": {"code": "X"}}));
    let key2 = RecordKey::new("alice", "k2");
    let Claim::Claimed(token2) = store
        .claim(&key2, &fingerprint(1), LEASE, TTL)
        .await
        .unwrap()
    else {
        panic!()
    };
    store.complete(&key2, &token2, &error, TTL).await.unwrap();
    assert_eq!(
        store
            .claim(&key2, &fingerprint(1), LEASE, TTL)
            .await
            .unwrap(),
        Claim::Completed(error)
    );
}

#[tokio::test]
async fn scopes_never_share_a_record() {
    let Some(store) = store("scopes").await else {
        return;
    };
    let alice = RecordKey::new("alice", "same-key");
    let bob = RecordKey::new("bob", "same-key");
    // Neither can the boundary between scope and key be moved.
    let shifted = RecordKey::new("alicesame", "-key");
    for key in [&alice, &bob, &shifted] {
        assert!(matches!(
            store.claim(key, &fingerprint(1), LEASE, TTL).await.unwrap(),
            Claim::Claimed(_)
        ));
    }
}

#[tokio::test]
async fn of_many_concurrent_claims_by_two_replicas_exactly_one_wins() {
    let Some(a) = store("race").await else { return };
    // A second connection, as a second replica has.
    let b = RedisStore::connect(server().unwrap())
        .await
        .unwrap()
        .with_prefix(format!("test:race:{}:", std::process::id()));
    for round in 0..20 {
        let key = RecordKey::new("s", format!("race-{round}"));
        let claims = (0..8).map(|i| {
            let store = if i % 2 == 0 { a.clone() } else { b.clone() };
            let key = key.clone();
            tokio::spawn(async move {
                store
                    .claim(&key, &fingerprint(1), LEASE, TTL)
                    .await
                    .unwrap()
            })
        });
        let mut won = 0;
        for claim in claims {
            match claim.await.unwrap() {
                Claim::Claimed(_) => won += 1,
                Claim::InProgress => {}
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(won, 1, "round {round}");
    }
}

#[tokio::test]
async fn a_lease_that_runs_out_leaves_the_outcome_unknown_and_never_frees_the_key() {
    let Some(store) = store("lease").await else {
        return;
    };
    let key = RecordKey::new("s", "k");
    let Claim::Claimed(dead) = store
        .claim(&key, &fingerprint(1), Duration::from_millis(150), TTL)
        .await
        .unwrap()
    else {
        panic!()
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    // The call may have run: the key is not free again.
    assert_eq!(
        store
            .claim(&key, &fingerprint(1), LEASE, TTL)
            .await
            .unwrap(),
        Claim::OutcomeUnknown
    );
    assert_eq!(
        store
            .claim(&key, &fingerprint(2), LEASE, TTL)
            .await
            .unwrap(),
        Claim::Conflict
    );
    // Its holder renews it back to running, and records its outcome.
    assert!(store.renew(&key, &dead, LEASE).await.unwrap());
    assert_eq!(
        store
            .claim(&key, &fingerprint(1), LEASE, TTL)
            .await
            .unwrap(),
        Claim::InProgress
    );
    let late = Recorded::Result(json!({"content": [], "late": true}));
    store.complete(&key, &dead, &late, TTL).await.unwrap();
    assert_eq!(
        store
            .claim(&key, &fingerprint(1), LEASE, TTL)
            .await
            .unwrap(),
        Claim::Completed(late)
    );
}

#[tokio::test]
async fn a_record_redis_lost_alone_answers_outcome_unknown() {
    let Some(store) = store("lost").await else {
        return;
    };
    let prefix = format!("test:lost:{}:", std::process::id());
    let key = RecordKey::new("alice", "k1");
    let Claim::Claimed(token) = store
        .claim(&key, &fingerprint(1), LEASE, TTL)
        .await
        .unwrap()
    else {
        panic!()
    };
    let outcome = Recorded::Result(json!({"content": []}));
    store.complete(&key, &token, &outcome, TTL).await.unwrap();
    // Redis drops the record and nothing else, as an eviction does.
    let client = redis::Client::open(server().unwrap()).unwrap();
    let mut connection = client.get_multiplexed_async_connection().await.unwrap();
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{prefix}*"))
        .query_async(&mut connection)
        .await
        .unwrap();
    let records: Vec<&String> = keys
        .iter()
        .filter(|k| k.len() == prefix.len() + 64)
        .collect();
    assert_eq!(records.len(), 1, "{keys:?}");
    let deleted: i64 = redis::cmd("DEL")
        .arg(records[0])
        .query_async(&mut connection)
        .await
        .unwrap();
    assert_eq!(deleted, 1);
    assert_eq!(
        store
            .claim(&key, &fingerprint(1), LEASE, TTL)
            .await
            .unwrap(),
        Claim::OutcomeUnknown,
        "a lost record never lets the call run again"
    );
}

#[tokio::test]
async fn eleven_free_scopes_filling_the_store_cannot_lock_a_twelfth_caller_out() {
    // A Redis of 4 MiB that refuses writes when full, as Redis does by default.
    let Some(redis) =
        Restartable::start_with(&["--maxmemory", "4mb", "--maxmemory-policy", "noeviction"])
    else {
        return;
    };
    let store = RedisStore::connect(&redis.url())
        .await
        .unwrap()
        .max_bytes(1 << 20)
        .min_bytes_per_scope(16 << 10);
    let print = fingerprint(7);
    let echoed = Recorded::Error(json!({"code": -32603, "data": "x".repeat(8 << 10)}));
    // Eleven made-up credentials, 40 outcomes of 8 KiB each: 3.5 MiB in all.
    for scope in 0..11 {
        for n in 0..40 {
            let key = RecordKey::new(format!("auth:made-up-{scope}"), format!("f{n}"));
            // Only a store without a bound of its own runs Redis out of memory here.
            let Claim::Claimed(token) = store.claim(&key, &print, LEASE, TTL).await.unwrap() else {
                panic!("a free key is claimed")
            };
            store.complete(&key, &token, &echoed, TTL).await.unwrap();
        }
    }
    let alice = RecordKey::new("auth:alice", "refund-7");
    let Claim::Claimed(token) = store
        .claim(&alice, &print, LEASE, TTL)
        .await
        .expect("a twelfth caller's claim is taken")
    else {
        panic!("a free key is claimed")
    };
    let refunded = Recorded::Result(json!({"content": [{"type": "text", "text": "refunded"}]}));
    store
        .complete(&alice, &token, &refunded, TTL)
        .await
        .unwrap();
    for n in 0..200 {
        let key = RecordKey::new(format!("auth:made-up-{}", n % 20), format!("g{n}"));
        let Claim::Claimed(token) = store.claim(&key, &print, LEASE, TTL).await.unwrap() else {
            panic!("a free key is claimed")
        };
        store.complete(&key, &token, &echoed, TTL).await.unwrap();
    }
    assert_eq!(
        store.claim(&alice, &print, LEASE, TTL).await.unwrap(),
        Claim::Completed(refunded),
        "alice's retry replays her outcome"
    );
}

#[tokio::test]
async fn renewing_keeps_a_long_call_claimed_and_releasing_frees_it() {
    let Some(store) = store("renew").await else {
        return;
    };
    let key = RecordKey::new("s", "k");
    let short = Duration::from_millis(200);
    let Claim::Claimed(token) = store
        .claim(&key, &fingerprint(1), short, TTL)
        .await
        .unwrap()
    else {
        panic!()
    };
    for _ in 0..4 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert!(store.renew(&key, &token, short).await.unwrap());
    }
    assert_eq!(
        store
            .claim(&key, &fingerprint(1), short, TTL)
            .await
            .unwrap(),
        Claim::InProgress
    );
    store.release(&key, &token).await.unwrap();
    assert!(matches!(
        store
            .claim(&key, &fingerprint(1), LEASE, TTL)
            .await
            .unwrap(),
        Claim::Claimed(_)
    ));
}

#[tokio::test]
async fn a_record_expires_after_its_time_to_live() {
    let Some(store) = store("ttl").await else {
        return;
    };
    let key = RecordKey::new("s", "k");
    let Claim::Claimed(token) = store
        .claim(&key, &fingerprint(1), LEASE, TTL)
        .await
        .unwrap()
    else {
        panic!()
    };
    let outcome = Recorded::Result(json!({"content": []}));
    store
        .complete(&key, &token, &outcome, Duration::from_millis(150))
        .await
        .unwrap();
    assert_eq!(
        store
            .claim(&key, &fingerprint(2), LEASE, TTL)
            .await
            .unwrap(),
        Claim::Conflict
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(matches!(
        store
            .claim(&key, &fingerprint(2), LEASE, TTL)
            .await
            .unwrap(),
        Claim::Claimed(_)
    ));
}

#[tokio::test]
async fn an_unreachable_redis_is_a_store_error() {
    // A port nothing listens on: connecting fails with an error, never a panic.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port();
    let started = std::time::Instant::now();
    let error = RedisStore::connect(&format!("redis://127.0.0.1:{port}/"))
        .await
        .unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert!(
        error.to_string().starts_with("idempotency store: "),
        "{error}"
    );
    assert!(RedisStore::connect("not a url").await.is_err());
}

/// A `redis-server` of the test's own on a free port of 127.0.0.1, without persistence, that
/// it can restart empty.
struct Restartable {
    port: u16,
    settings: &'static [&'static str],
    child: Child,
}

impl Restartable {
    /// `None` (with a note) when there is no `redis-server`, unless
    /// `MCP_ERRORS_REQUIRE_REDIS=1`.
    fn start() -> Option<Restartable> {
        Self::start_with(&[])
    }

    /// Started with these settings as well, kept across restarts too.
    fn start_with(settings: &'static [&'static str]) -> Option<Restartable> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .ok()?;
        let Some(child) = Self::spawn(port, settings) else {
            assert!(
                std::env::var("MCP_ERRORS_REQUIRE_REDIS").as_deref() != Ok("1"),
                "MCP_ERRORS_REQUIRE_REDIS=1 but no redis-server to restart"
            );
            eprintln!("skipped: no redis-server to restart (install redis-server)");
            return None;
        };
        Some(Restartable {
            port,
            settings,
            child,
        })
    }

    /// A `redis-server` on `port`, once it accepts connections; `None` when there is none.
    fn spawn(port: u16, settings: &[&str]) -> Option<Child> {
        let mut child = Command::new("redis-server")
            .args(["--bind", "127.0.0.1", "--port", &port.to_string()])
            .args(["--save", "", "--appendonly", "no"])
            .args(settings)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        for _ in 0..100 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return Some(child);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = child.kill();
        None
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// Kills the server and starts another, empty, on the same port.
    fn restart(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.child = Self::spawn(self.port, self.settings).expect("redis-server starts again");
    }
}

impl Drop for Restartable {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A claim once the connection is back after a restart: a failed command while it reconnects
/// is retried, for 5 s at most.
async fn claim_after_restart(
    store: &RedisStore,
    key: &RecordKey,
    print: &Fingerprint,
    lease: Duration,
) -> Result<Claim, mcp_errors_core::idempotency::StoreError> {
    let started = std::time::Instant::now();
    loop {
        match store.claim(key, print, lease, TTL).await {
            Err(error)
                if !error.to_string().contains("lost")
                    && started.elapsed() < Duration::from_secs(5) =>
            {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            answered => return answered,
        }
    }
}

#[tokio::test]
async fn a_redis_restarted_empty_mid_call_never_runs_the_call_twice() {
    let Some(mut redis) = Restartable::start() else {
        return;
    };
    let lease = Duration::from_millis(600);
    let store = RedisStore::connect(&redis.url()).await.unwrap();
    let (finished, running) = (RecordKey::new("alice", "k1"), RecordKey::new("alice", "k2"));
    let print = fingerprint(7);
    let Claim::Claimed(first) = store.claim(&finished, &print, lease, TTL).await.unwrap() else {
        panic!("a free key is claimed")
    };
    let Claim::Claimed(long) = store.claim(&running, &print, lease, TTL).await.unwrap() else {
        panic!("a free key is claimed")
    };

    redis.restart();

    // The retry of a call in flight is refused, not run: Redis lost the claim.
    let retried = claim_after_restart(&store, &finished, &print, lease).await;
    let refused = retried.expect_err("a retry after Redis lost its claim must not run again");
    assert!(refused.to_string().contains("lost"), "{refused}");
    // The first call finishes: its outcome is recorded although its claim is gone.
    let outcome = Recorded::Result(json!({"content": [{"type": "text", "text": "refund R-1"}]}));
    store
        .complete(&finished, &first, &outcome, TTL)
        .await
        .unwrap();
    // The longer call puts its claim back at its next renewal.
    assert!(store.renew(&running, &long, lease).await.unwrap());

    tokio::time::sleep(lease + Duration::from_millis(100)).await;
    assert!(store.renew(&running, &long, lease).await.unwrap());
    assert_eq!(
        store.claim(&finished, &print, lease, TTL).await.unwrap(),
        Claim::Completed(outcome),
        "after the quiet time the retry replays the first call's outcome"
    );
    assert_eq!(
        store.claim(&running, &print, lease, TTL).await.unwrap(),
        Claim::InProgress
    );
    // Another replica, started after the loss, sees the same records.
    let other = RedisStore::connect(&redis.url()).await.unwrap();
    assert_eq!(
        other.claim(&running, &print, lease, TTL).await.unwrap(),
        Claim::InProgress
    );
}

#[tokio::test]
async fn another_callers_flood_never_erases_a_record_in_a_redis_that_evicts() {
    // A Redis that evicts the least recently used keys when 48 MiB are full.
    let settings = &[
        "--maxmemory",
        "48mb",
        "--maxmemory-policy",
        "allkeys-lru",
        "--maxmemory-samples",
        "64",
    ];
    let Some(redis) = Restartable::start_with(settings) else {
        return;
    };
    let store = RedisStore::connect(&redis.url()).await.unwrap();
    let lease = Duration::from_secs(30);
    let print = fingerprint(7);
    let record = async |key: &RecordKey, outcome: &Recorded| -> bool {
        match store.claim(key, &print, lease, TTL).await {
            Ok(Claim::Claimed(token)) => {
                store.complete(key, &token, outcome, TTL).await.unwrap();
                true
            }
            Err(refused) => {
                assert!(refused.to_string().contains("share"), "{refused}");
                false
            }
            Ok(other) => panic!("{other:?}"),
        }
    };
    let alice = RecordKey::new("auth:alice", "refund-7");
    let refunded = Recorded::Result(json!({"content": [{"type": "text", "text": "refunded"}]}));
    assert!(record(&alice, &refunded).await);
    let started = std::time::Instant::now();
    // Outcomes of ~900 KiB each, 72 MiB in all (two scopes), then more cheap failures than a
    // share.
    let echoed = Recorded::Error(json!({"code": -32603, "data": "x".repeat(900 << 10)}));
    for n in 0..80 {
        let key = RecordKey::new(format!("auth:mallory-{}", n % 2), format!("b{n}"));
        record(&key, &echoed).await;
    }
    let failed = Recorded::Error(json!({"code": -32603, "message": "INTERNAL"}));
    let mut kept = 0;
    for n in 0..1_500 {
        let key = RecordKey::new("auth:mallory", format!("f{n}"));
        kept += usize::from(record(&key, &failed).await);
    }
    assert_eq!(
        kept, 1_500,
        "a budget past its share makes room among its own oldest records"
    );
    assert_eq!(
        store.claim(&alice, &print, lease, TTL).await.unwrap(),
        Claim::Completed(refunded),
        "alice's retry replays her outcome after the flood"
    );
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn a_claim_answered_too_late_holds_no_key() {
    let Some(redis) = Restartable::start_with(&["--enable-debug-command", "local"]) else {
        return;
    };
    let store = RedisStore::connect(&redis.url()).await.unwrap();
    let key = RecordKey::new("alice", "k1");
    let print = fingerprint(7);
    // Redis stalls for 3 s; the store waits 2 s for an answer.
    let port = redis.port;
    let stall = std::thread::spawn(move || {
        use std::io::{Read, Write};
        let mut stalled = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        stalled.write_all(b"DEBUG SLEEP 3\r\n").unwrap();
        let mut ok = [0u8; 5];
        stalled.read_exact(&mut ok).unwrap();
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    let started = std::time::Instant::now();
    assert!(
        store.claim(&key, &print, LEASE, TTL).await.is_err(),
        "no answer in time"
    );
    assert!(started.elapsed() < Duration::from_secs(3));
    stall.join().unwrap();
    // The claim reached Redis after the caller was told the store failed: it holds nothing.
    let claimed = claim_after_restart(&store, &key, &print, LEASE)
        .await
        .unwrap();
    assert!(matches!(claimed, Claim::Claimed(_)), "{claimed:?}");
}
