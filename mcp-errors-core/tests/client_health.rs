//! `client::ServerHealth` through `Retrier::run`: calls to a server held down wait together
//! for one probe, are released by its success, and give up at their deadline; on tokio's
//! paused clock, so the waits cost no real time.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_errors_core::client::{
    Decision, EscalationReason, Retrier, RetryBudget, RetryPolicy, RunSuccess, ServerHealth,
    StopReport, ToolCall, UnknownCause,
};
use serde_json::{Value, json};
use tokio::time::Instant;

fn ok() -> Result<Value, UnknownCause> {
    Ok(json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "ok"}]}}))
}

/// What SQLite says while another connection holds the write lock.
fn locked() -> Result<Value, UnknownCause> {
    Ok(
        json!({"jsonrpc": "2.0", "id": 1, "result": {"isError": true,
        "content": [{"type": "text", "text": "Error: database is locked"}]}}),
    )
}

fn unavailable() -> Result<Value, UnknownCause> {
    Ok(
        json!({"jsonrpc": "2.0", "id": 1, "result": {"isError": true,
        "content": [{"type": "text", "text": "UNAVAILABLE: backend down. Retryable."}],
        "_meta": {"rs.mcp-errors/error": {"code": "UNAVAILABLE",
            "category": "transient", "retryable": true, "message": "backend down"}}}}),
    )
}

/// A rate limit that asks for 100 ms.
fn rate_limited() -> Result<Value, UnknownCause> {
    Ok(
        json!({"jsonrpc": "2.0", "id": 1, "result": {"isError": true,
        "content": [{"type": "text", "text": "RATE_LIMITED: slow down. Retryable."}],
        "_meta": {"rs.mcp-errors/error": {"code": "RATE_LIMITED",
            "category": "rate_limited", "retryable": true, "retryAfterMs": 100,
            "message": "slow down"}}}}),
    )
}

fn invalid() -> Result<Value, UnknownCause> {
    Ok(
        json!({"jsonrpc": "2.0", "id": 1, "result": {"isError": true,
        "content": [{"type": "text", "text": "INVALID: bad id."}],
        "_meta": {"rs.mcp-errors/error": {"code": "INVALID",
            "category": "validation", "retryable": false, "message": "bad id"}}}}),
    )
}

type Answer = fn() -> Result<Value, UnknownCause>;

/// A server that answers with `during` until `until` from `start`, then with the answers of
/// `after` in turn, and `ok` after them; noting when each request came.
#[derive(Clone)]
struct Server {
    start: Instant,
    until: Duration,
    during: Answer,
    after: Arc<Mutex<std::vec::IntoIter<Answer>>>,
    requests: Arc<Mutex<Vec<Duration>>>,
}

impl Server {
    fn new(until: Duration, during: Answer) -> Self {
        Server {
            start: Instant::now(),
            until,
            during,
            after: Arc::default(),
            requests: Arc::default(),
        }
    }

    /// The same server answering with `answers` in turn once `until` has passed.
    fn then(self, answers: Vec<Answer>) -> Self {
        *self.after.lock().unwrap() = answers.into_iter();
        self
    }

    fn answer(&self) -> Result<Value, UnknownCause> {
        let at = self.start.elapsed();
        self.requests.lock().unwrap().push(at);
        if at < self.until {
            (self.during)()
        } else {
            self.after.lock().unwrap().next().unwrap_or(ok)()
        }
    }

    fn requests(&self) -> u32 {
        self.times().len() as u32
    }

    fn times(&self) -> Vec<Duration> {
        self.requests.lock().unwrap().clone()
    }

    /// The requests that came while it was down, after the first `skip`: the probes.
    fn probes(&self, skip: usize) -> Vec<Duration> {
        let times = self.times();
        times[skip..]
            .iter()
            .copied()
            .filter(|at| *at < self.until)
            .collect()
    }
}

/// Whether requests at `times` went one at a time, at least 100 ms apart (the first probe
/// wait).
fn one_at_a_time(times: &[Duration]) -> bool {
    times
        .windows(2)
        .all(|pair| pair[1] - pair[0] >= Duration::from_millis(100))
}

async fn call(
    retrier: &Retrier,
    server: &Server,
    call: &ToolCall,
) -> Result<RunSuccess, StopReport> {
    retrier
        .run(
            call,
            |_| {
                let answer = server.answer();
                async move { answer }
            },
            tokio::time::sleep,
        )
        .await
}

#[tokio::test(start_paused = true)]
async fn a_lock_held_for_a_second_and_a_half_is_waited_out_with_the_defaults() {
    for seed in 0..20 {
        let server = Server::new(Duration::from_millis(1500), locked);
        let retrier = Retrier::new(RetryPolicy::default()).with_seed(seed);
        let write = ToolCall::new("insert_row", json!({"id": 1}));
        let result = call(&retrier, &server, &write).await;
        assert!(result.is_ok(), "seed {seed}: {result:?}");
    }
}

#[tokio::test(start_paused = true)]
async fn callers_of_a_server_held_down_wait_for_one_probe_and_go_together_when_it_passes() {
    let server = Server::new(Duration::from_secs(10), unavailable);
    let retrier = Retrier::new(RetryPolicy::default())
        .with_budget(RetryBudget::default())
        .with_seed(3);
    let reads: Vec<ToolCall> = (0..20)
        .map(|i| ToolCall::new("get_order", json!({"id": i})).idempotent(true))
        .collect();
    let started = Instant::now();
    let mut runs = tokio::task::JoinSet::new();
    for read in reads {
        let (retrier, server) = (retrier.clone(), server.clone());
        runs.spawn(async move { call(&retrier, &server, &read).await });
    }
    while let Some(result) = runs.join_next().await {
        assert!(result.unwrap().is_ok());
    }
    // Every call ended once the server was back, within the probes' wait of 100 ms, a share
    // of the spread before the probe and the release spread of 100 ms.
    let took = started.elapsed();
    assert!(took >= Duration::from_secs(10), "{took:?}");
    assert!(took <= Duration::from_millis(10_300), "{took:?}");
    // Over 10 s of outage the server met the 20 first calls, sent before it was held down,
    // then one probe at a time, then each caller once at the end.
    let probes = server.probes(20);
    assert!(one_at_a_time(&probes), "{probes:?}");
    assert!(probes.len() <= 10_000 / 100, "{probes:?}");
    let after = server
        .times()
        .iter()
        .filter(|at| **at >= server.until)
        .count();
    assert_eq!(after, 20);
    assert!(!retrier.health().is_down());
    // No token was taken while the callers waited.
    assert!(retrier.budget().unwrap().available() >= 400);
}

#[tokio::test(start_paused = true)]
async fn a_call_held_back_past_its_deadline_stops_with_how_long_it_waited() {
    let server = Server::new(Duration::from_secs(60), unavailable);
    let policy = RetryPolicy::default().with_deadline(Duration::from_secs(3));
    let retrier = Retrier::new(policy).with_seed(5);
    let read = ToolCall::new("get_order", json!({"id": 1})).idempotent(true);
    let started = Instant::now();
    let report = call(&retrier, &server, &read).await.unwrap_err();
    assert_eq!(
        report.decision,
        Decision::Escalate {
            reason: EscalationReason::DeadlineExceeded
        }
    );
    // tokio's paused timer ends each sleep on the next millisecond, so a dozen waits can end
    // a few milliseconds after the deadline they were measured to.
    assert!(
        started.elapsed() <= Duration::from_millis(3_020),
        "{:?}",
        started.elapsed()
    );
    assert!(report.held_back > Duration::ZERO, "{report:?}");
    assert!(report.held_back < Duration::from_secs(3));
    assert_eq!(report.attempts.len() as u32, server.requests());
    assert!(retrier.health().is_down());
    // The held-back time is on the report's wire too.
    let wire = serde_json::to_value(&report).unwrap();
    assert_eq!(
        wire["heldBackMs"],
        u64::try_from(report.held_back.as_millis()).unwrap()
    );
}

#[tokio::test(start_paused = true)]
async fn a_call_that_arrives_while_the_server_is_down_sends_nothing_until_released() {
    let server = Server::new(Duration::from_secs(2), unavailable);
    let health = ServerHealth::default().with_down_after(1);
    let retrier = Retrier::new(RetryPolicy::default())
        .with_health(health.clone())
        .with_seed(9);
    let read = ToolCall::new("get_order", json!({"id": 1})).idempotent(true);
    let first = tokio::spawn({
        let (retrier, server, read) = (retrier.clone(), server.clone(), read.clone());
        async move { call(&retrier, &server, &read).await }
    });
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(health.is_down());
    let before = server.requests();
    // A second retrier of the same server shares its health: its first call waits too.
    let other = Retrier::new(RetryPolicy::default()).with_health(health.clone());
    let second = call(&other, &server, &read).await;
    assert!(second.is_ok());
    // Only the first caller's probes reached the server before the release.
    assert!(first.await.unwrap().is_ok());
    assert_eq!(before, 1);
    let probes = server.probes(0);
    assert!(one_at_a_time(&probes), "{probes:?}");
    let after = server
        .times()
        .iter()
        .filter(|at| **at >= server.until)
        .count();
    assert_eq!(after, 2);
}

#[tokio::test(start_paused = true)]
async fn permanent_failures_never_hold_the_server_down() {
    let server = Server::new(Duration::from_secs(60), invalid);
    let retrier = Retrier::new(RetryPolicy::default());
    for i in 0..20 {
        let write = ToolCall::new("create", json!({"id": i}));
        let report = call(&retrier, &server, &write).await.unwrap_err();
        assert_eq!(report.decision, Decision::FixInput);
        assert_eq!(report.held_back, Duration::ZERO);
    }
    assert!(!retrier.health().is_down());
    assert_eq!(server.requests(), 20);
}

#[tokio::test(start_paused = true)]
async fn a_probe_left_unanswered_does_not_hold_the_other_callers_for_its_whole_attempt() {
    let server = Server::new(Duration::from_secs(2), unavailable);
    let policy = RetryPolicy::default().with_attempt_timeout(Duration::from_secs(5));
    let retrier = Retrier::new(policy)
        .with_health(ServerHealth::default().with_down_after(1))
        .with_seed(11);
    // The first call sent while the server is held down (the first probe) never gets an answer.
    let hung = Arc::new(AtomicBool::new(false));
    let started = Instant::now();
    let mut runs = tokio::task::JoinSet::new();
    for i in 0..5 {
        let (retrier, server, hung) = (retrier.clone(), server.clone(), hung.clone());
        runs.spawn(async move {
            let read = ToolCall::new("get_order", json!({"id": i})).idempotent(true);
            let health = retrier.health().clone();
            let result = retrier
                .run(
                    &read,
                    |_| {
                        let hang = health.is_down() && !hung.swap(true, Ordering::SeqCst);
                        let answer = server.answer();
                        async move {
                            if hang {
                                tokio::time::sleep(Duration::from_secs(60)).await;
                            }
                            answer
                        }
                    },
                    tokio::time::sleep,
                )
                .await;
            assert!(result.is_ok(), "{result:?}");
            started.elapsed()
        });
    }
    let mut ended = Vec::new();
    while let Some(took) = runs.join_next().await {
        ended.push(took.unwrap());
    }
    ended.sort();
    assert!(hung.load(Ordering::SeqCst));
    // The four others went on probing past the silent one and were released once the server
    // was back: within the longest probe wait and the release spread of its return.
    assert!(
        ended[..4]
            .iter()
            .all(|t| *t <= Duration::from_millis(2_350)),
        "{ended:?}"
    );
    // The caller of the silent probe waited out its own attempt, then passed.
    assert!(ended[4] >= Duration::from_secs(5), "{ended:?}");
}

#[tokio::test(start_paused = true)]
async fn a_caller_that_probes_a_long_outage_again_and_again_waits_it_out_within_its_deadline() {
    // One caller is every probe: its attempts pile up, and with them its exponential backoff,
    // which the health, not the backoff, replaces while the server is held down.
    for seed in 0..10 {
        let server = Server::new(Duration::from_secs(50), unavailable);
        let retrier = Retrier::new(RetryPolicy::default()).with_seed(seed);
        let read = ToolCall::new("get_order", json!({"id": 1})).idempotent(true);
        if let Err(report) = call(&retrier, &server, &read).await {
            let at = report.attempts.last().map(|a| a.elapsed);
            panic!("seed {seed}: {:?} at {at:?}", report.decision);
        }
        let last = *server.times().last().unwrap();
        // The outage's end, one longest probe wait and one release spread.
        assert!(
            last <= Duration::from_millis(50_350),
            "seed {seed}: {last:?}"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn a_call_released_after_a_long_outage_backs_off_afresh() {
    // The first request after the outage is refused for a rate limit of 100 ms; the call's
    // dozens of attempts during the outage must not turn that into a backoff of seconds.
    for seed in 0..10 {
        let server = Server::new(Duration::from_secs(10), unavailable).then(vec![rate_limited]);
        let policy = RetryPolicy::default().with_deadline(Duration::from_secs(15));
        let retrier = Retrier::new(policy).with_seed(seed);
        let read = ToolCall::new("get_order", json!({"id": 1})).idempotent(true);
        let success = call(&retrier, &server, &read)
            .await
            .unwrap_or_else(|report| panic!("seed {seed}: {:?}", report.decision));
        assert!(
            success.attempts.len() > 20,
            "seed {seed}: {}",
            success.attempts.len()
        );
        // The outage's end, a probe wait, a release spread, the rate limit's wait and its
        // release spread.
        let last = *server.times().last().unwrap();
        assert!(
            last <= Duration::from_millis(10_550),
            "seed {seed}: {last:?}"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn after_a_release_the_backoff_grows_from_the_first_failure_again() {
    // After a 10 s outage, a rate limit (which marks the server up) and three failures (one
    // short of holding it down again), then a success: their backoffs are those of failures
    // 1 to 4, at most 100, 200, 400, 800 ms.
    let mut longest_fourth = Duration::ZERO;
    for seed in 0..10 {
        let after: Vec<Answer> = vec![rate_limited, unavailable, unavailable, unavailable];
        let server = Server::new(Duration::from_secs(10), unavailable).then(after);
        let retrier = Retrier::new(RetryPolicy::default()).with_seed(seed);
        let read = ToolCall::new("get_order", json!({"id": 1})).idempotent(true);
        let success = call(&retrier, &server, &read)
            .await
            .unwrap_or_else(|report| panic!("seed {seed}: {:?}", report.decision));
        // The four decisions before the last attempt are those of the failures after the
        // release.
        let records = &success.attempts[success.attempts.len() - 5..success.attempts.len() - 1];
        for (k, record) in records.iter().enumerate() {
            let Decision::Retry { after } = record.decision else {
                panic!("seed {seed}: {:?}", record.decision);
            };
            assert!(
                after <= Duration::from_millis(100 << k),
                "seed {seed}: {after:?}"
            );
            if k == 3 {
                longest_fourth = longest_fourth.max(after);
            }
        }
    }
    assert!(
        longest_fourth > Duration::from_millis(100),
        "{longest_fourth:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_call_held_back_waits_to_its_deadline_whatever_backoff_it_would_draw() {
    // While the server is held down the health says when a retry goes, so no backoff of the
    // call's own stops it before its deadline.
    for seed in 0..20 {
        let server = Server::new(Duration::from_secs(60), unavailable);
        let policy = RetryPolicy::default().with_deadline(Duration::from_secs(3));
        let retrier = Retrier::new(policy).with_seed(seed);
        let read = ToolCall::new("get_order", json!({"id": 1})).idempotent(true);
        let started = Instant::now();
        call(&retrier, &server, &read).await.unwrap_err();
        let took = started.elapsed();
        assert!(took >= Duration::from_secs(3), "seed {seed}: {took:?}");
    }
}
