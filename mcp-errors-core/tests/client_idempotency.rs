//! Idempotency keys (the SEP-3182 draft) on the client: a `ToolCall`'s key, the policy with
//! keyed attempts, and the retrier with scripted attempts, with and without a server that
//! honors keys.

mod common;

use std::cell::RefCell;
use std::collections::HashSet;
use std::time::Duration;

use common::block_on;
use mcp_errors_core::client::{
    Attempt, Decision, EscalationReason, Outcome, Retrier, RetryBudget, RetryPolicy, RunSuccess,
    StopReport, ToolCall, UnknownCause, classify,
};
use mcp_errors_core::idempotency::{CONFLICT, IN_PROGRESS, KEY_PARAM, OUTCOME_UNKNOWN};
use mcp_errors_core::{JsonRpcError, META_KEY};
use serde_json::{Value, json};

type Answer = Result<Value, UnknownCause>;

fn ready(text: &str) -> Answer {
    Ok(json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": text}]}}))
}

fn refused(code: i32, kind: &str, wait_ms: Option<u64>) -> Answer {
    let mut data = json!({"type": kind, "idempotencyKey": "k"});
    if let Some(wait) = wait_ms {
        data["retryAfterMs"] = json!(wait);
    }
    Ok(json!({"jsonrpc": "2.0", "id": 1, "error": {
        "code": code, "message": "idempotency key refused", "data": data}}))
}

/// What a scripted run came to, the key each attempt sent, and the delays slept.
struct Run {
    result: Result<RunSuccess, StopReport>,
    sent_keys: Vec<Option<String>>,
    slept: Vec<Duration>,
}

impl Run {
    fn report(self) -> StopReport {
        self.result.expect_err("the run stops without a result")
    }
}

/// Runs `answers` in order; each attempt sends the key the retrier hands it (one when
/// `honored`), as a caller's `call_fn` does. The jitter waits the whole backoff.
fn run(retrier: Retrier, honored: bool, call: &ToolCall, answers: Vec<Answer>) -> Run {
    let answers = RefCell::new(answers.into_iter());
    let sent_keys = RefCell::new(Vec::new());
    let slept = RefCell::new(Vec::new());
    let retrier = retrier.with_idempotency_keys(honored).with_jitter(1.0);
    let result = block_on(retrier.run(
        call,
        |attempt| {
            let mut params = json!({"name": call.name, "arguments": call.arguments});
            if let Some(key) = attempt.idempotency_key {
                params[KEY_PARAM] = json!(key);
            }
            sent_keys
                .borrow_mut()
                .push(params[KEY_PARAM].as_str().map(str::to_owned));
            let next = answers
                .borrow_mut()
                .next()
                .expect("more attempts than answers");
            async move { next }
        },
        |delay| {
            slept.borrow_mut().push(delay);
            async {}
        },
    ));
    Run {
        result,
        sent_keys: sent_keys.into_inner(),
        slept: slept.into_inner(),
    }
}

fn refund() -> ToolCall {
    ToolCall::new("refund_order", json!({"order_id": "A-1", "amount": 12}))
}

/// Three attempts, as the answers below are counted for.
fn policy() -> RetryPolicy {
    RetryPolicy::default().with_max_attempts(3)
}

#[test]
fn a_new_call_has_a_uuid_v4_key_that_its_clones_keep() {
    let call = refund();
    let key = call.idempotency_key();
    assert_eq!(key.len(), 36, "{key}");
    let groups: Vec<&str> = key.split('-').collect();
    assert_eq!(
        groups.iter().map(|g| g.len()).collect::<Vec<_>>(),
        [8, 4, 4, 4, 12]
    );
    assert!(
        key.chars()
            .all(|c| c == '-' || c.is_ascii_digit() || ('a'..='f').contains(&c))
    );
    assert!(groups[2].starts_with('4'), "version 4: {key}");
    assert!(
        groups[3].starts_with(['8', '9', 'a', 'b']),
        "RFC 4122 variant: {key}"
    );
    assert_eq!(call.clone().idempotency_key(), key);
    assert_eq!(call.clone().idempotent(true).idempotency_key(), key);

    let keys: HashSet<String> = (0..1000)
        .map(|_| refund().idempotency_key().to_owned())
        .collect();
    assert_eq!(keys.len(), 1000, "every ToolCall is a new logical call");
    assert_ne!(refund(), refund());
}

#[test]
fn a_key_of_the_callers_own_is_kept_and_round_trips_through_json() {
    let call = refund().with_idempotency_key("order-A-1-refund");
    assert_eq!(call.idempotency_key(), "order-A-1-refund");
    let json = serde_json::to_value(&call).unwrap();
    assert_eq!(json["idempotencyKey"], "order-A-1-refund");
    let back: ToolCall = serde_json::from_value(json).unwrap();
    assert_eq!(back, call);

    // A call written without a key (by an older version) is a new logical call.
    let old = json!({"name": "refund_order", "arguments": {}, "idempotent": false});
    let a: ToolCall = serde_json::from_value(old.clone()).unwrap();
    let b: ToolCall = serde_json::from_value(old).unwrap();
    assert_eq!(a.idempotency_key().len(), 36);
    assert_ne!(a.idempotency_key(), b.idempotency_key());
}

#[test]
fn without_support_no_key_is_sent_and_an_unknown_outcome_is_check_state() {
    for lost in [UnknownCause::Timeout, UnknownCause::ConnectionLost] {
        let run = run(
            Retrier::new(policy()),
            false,
            &refund(),
            vec![Err(lost.clone())],
        );
        assert_eq!(run.sent_keys, [None]);
        let report = run.report();
        assert_eq!(report.decision, Decision::CheckState, "{lost:?}");
        assert_eq!(report.attempts.len(), 1);
        assert_eq!(report.idempotency_key, None);
        let json = serde_json::to_value(&report).unwrap();
        assert!(json.get("idempotencyKey").is_none(), "{json}");
    }
}

#[test]
fn with_support_an_unknown_outcome_is_retried_with_the_same_key() {
    for lost in [UnknownCause::Timeout, UnknownCause::ConnectionLost] {
        let call = refund();
        let run = run(
            Retrier::new(policy()),
            true,
            &call,
            vec![Err(lost.clone()), Err(lost.clone()), ready("refunded")],
        );
        let key = Some(call.idempotency_key().to_owned());
        assert_eq!(run.sent_keys, [key.clone(), key.clone(), key]);
        assert_eq!(
            run.slept,
            [Duration::from_millis(100), Duration::from_millis(200)]
        );
        let success = run.result.expect("the replayed answer");
        assert_eq!(success.attempts.len(), 3, "{lost:?}");
        assert_eq!(
            success.result().unwrap().to_value().unwrap()["content"][0]["text"],
            "refunded"
        );
    }
}

#[test]
fn a_replayed_failure_is_read_like_the_first_answer() {
    let validation = Ok(json!({"jsonrpc": "2.0", "id": 2, "result": {
        "isError": true,
        "content": [{"type": "text", "text": "Error BAD_AMOUNT: amount exceeds the order."}],
        "_meta": {META_KEY: {"code": "BAD_AMOUNT", "category": "validation", "retryable": false,
                             "message": "amount exceeds the order"}}
    }}));
    let call = refund();
    let report = run(
        Retrier::new(policy()),
        true,
        &call,
        vec![Err(UnknownCause::Timeout), validation],
    )
    .report();
    assert_eq!(report.decision, Decision::FixInput);
    assert_eq!(report.attempts.len(), 2);
    assert_eq!(
        report.last_execution_error().unwrap().code.as_deref(),
        Some("BAD_AMOUNT")
    );
    assert_eq!(
        report.idempotency_key.as_deref(),
        Some(call.idempotency_key())
    );
}

#[test]
fn in_progress_is_retried_after_its_wait_or_the_backoff() {
    for code in [-32603, -32000, -32602] {
        let call = refund();
        let run = run(
            Retrier::new(policy()),
            true,
            &call,
            vec![
                refused(code, IN_PROGRESS, Some(250)),
                refused(code, IN_PROGRESS, None),
                ready("refunded"),
            ],
        );
        // The wait is a floor under the backoff: 250 ms, then the whole 200 ms backoff.
        assert_eq!(
            run.slept,
            [Duration::from_millis(250), Duration::from_millis(200)],
            "{code}"
        );
        assert_eq!(run.result.unwrap().attempts.len(), 3);
    }
}

#[test]
fn a_conflict_is_fixed_with_a_new_call() {
    for code in [-32603, -32000, -32602] {
        let call = refund();
        let report = run(
            Retrier::new(policy()),
            true,
            &call,
            vec![refused(code, CONFLICT, None)],
        )
        .report();
        assert_eq!(report.decision, Decision::FixInput, "{code}");
        assert_eq!(report.attempts.len(), 1);
        assert_eq!(
            report.idempotency_key.as_deref(),
            Some(call.idempotency_key())
        );
    }
}

#[test]
fn an_outcome_unknown_after_a_lost_answer_is_check_state() {
    // The answer is lost, the retry with the key finds the first call's outcome unknown
    // (-32011, as the server's boundary answers it, not retryable): the call may have run.
    let refused_unknown = || {
        let mut answer = refused(-32011, OUTCOME_UNKNOWN, None).unwrap();
        answer["error"]["data"]["retryable"] = json!(false);
        Ok(answer)
    };
    for answers in [
        vec![refused_unknown()],
        vec![Err(UnknownCause::Timeout), refused_unknown()],
    ] {
        let attempts = answers.len();
        let report = run(Retrier::new(policy()), true, &refund(), answers).report();
        assert_eq!(report.decision, Decision::CheckState);
        assert_eq!(report.attempts.len(), attempts);
    }
}

#[test]
fn without_support_the_refusals_decide_as_before() {
    for (code, kind) in [
        (-32603, IN_PROGRESS),
        (-32603, CONFLICT),
        (-32000, IN_PROGRESS),
    ] {
        let refusal = classify(&refused(code, kind, Some(10)).unwrap());
        let plain = Outcome::from(JsonRpcError::new(code, "idempotency key refused"));
        let attempt = Attempt::new(1, Duration::ZERO).with_jitter(1.0);
        let policy = policy();
        assert_eq!(
            policy.decide(&refusal, attempt),
            policy.decide(&plain, attempt),
            "{code} {kind}"
        );
        assert!(matches!(
            policy.decide(&refusal, attempt),
            Decision::Escalate { .. } | Decision::CheckState
        ));
    }
}

#[test]
fn keyed_retries_stay_within_the_attempts_the_deadline_and_the_budget() {
    let timeouts = || vec![Err(UnknownCause::Timeout); 5];

    let exhausted = run(Retrier::new(policy()), true, &refund(), timeouts()).report();
    assert_eq!(
        exhausted.decision,
        Decision::Escalate {
            reason: EscalationReason::AttemptsExhausted
        }
    );
    assert_eq!(exhausted.attempts.len(), 3);

    // 100 ms after the first attempt fits a 150 ms deadline; 100 + 200 ms does not.
    let deadline = policy().with_deadline(Duration::from_millis(150));
    let late = run(Retrier::new(deadline), true, &refund(), timeouts());
    assert_eq!(late.slept, [Duration::from_millis(100)]);
    let late = late.report();
    assert_eq!(
        late.decision,
        Decision::Escalate {
            reason: EscalationReason::DeadlineExceeded
        }
    );
    assert_eq!(late.attempts.len(), 2);

    // A retry after an unknown outcome costs a timeout's 10 tokens.
    let budget = RetryBudget::default().with_capacity(15);
    let retrier = Retrier::new(policy().with_max_attempts(5)).with_budget(budget.clone());
    let broke = run(retrier, true, &refund(), timeouts()).report();
    assert_eq!(
        broke.decision,
        Decision::Escalate {
            reason: EscalationReason::BudgetExhausted
        }
    );
    assert_eq!(broke.attempts.len(), 2);
    assert_eq!(budget.available(), 5);
}

#[test]
fn the_report_records_the_key_sent() {
    let call = refund();
    let report = run(
        Retrier::new(policy()),
        true,
        &call,
        vec![Err(UnknownCause::Timeout); 3],
    )
    .report();
    assert_eq!(
        report.idempotency_key.as_deref(),
        Some(call.idempotency_key())
    );
    // Each key sent is written once, on the attempt that sent it.
    let json = serde_json::to_value(&report).unwrap();
    assert!(json.get("idempotencyKey").is_none(), "{json}");
    assert!(json["call"].get("idempotencyKey").is_none(), "{json}");
    assert_eq!(
        json["attempts"][2]["idempotencyKey"],
        call.idempotency_key()
    );
    let back: StopReport = serde_json::from_value(json).unwrap();
    assert_eq!(back.idempotency_key, report.idempotency_key);
    assert_eq!(back.call, report.call);
}

#[test]
fn the_policy_retries_what_may_have_run_only_when_keyed_or_idempotent() {
    let policy = policy();
    let first = Attempt::new(1, Duration::ZERO).with_jitter(1.0);
    let retry = Decision::Retry {
        after: Duration::from_millis(100),
    };
    for outcome in [
        Outcome::Unknown(UnknownCause::Timeout),
        Outcome::Unknown(UnknownCause::ConnectionLost),
        Outcome::Unknown(UnknownCause::Other("cancelled".into())),
        // An implementation-defined code: whether the call ran is unknown.
        Outcome::from(JsonRpcError::new(-32001, "Request timed out")),
    ] {
        assert_eq!(policy.decide(&outcome, first), Decision::CheckState);
        assert_eq!(policy.decide(&outcome, first.keyed(true)), retry);
        assert_eq!(policy.decide(&outcome, first.idempotent(true)), retry);
    }
    assert!(!first.keyed && first.keyed(true).keyed);

    // An answered failure read from text is not a lost answer: the key changes nothing.
    let text = classify(&json!({"jsonrpc": "2.0", "id": 1, "result": {
        "isError": true, "content": [{"type": "text", "text": "upstream timed out"}]}}));
    assert_eq!(
        policy.decide(&text, first.keyed(true)),
        Decision::CheckState
    );
}

/// An execution error the server marks transient and retryable.
fn busy() -> Answer {
    Ok(json!({"jsonrpc": "2.0", "id": 1, "result": {
        "isError": true,
        "content": [{"type": "text", "text": "Error BUSY: the ledger is busy."}],
        "_meta": {META_KEY: {"code": "BUSY", "category": "transient", "retryable": true,
                             "message": "the ledger is busy"}}
    }}))
}

/// A JSON-RPC error the server marks retryable after a wait, as a rate limit.
fn rate_limited() -> Answer {
    Ok(json!({"jsonrpc": "2.0", "id": 1, "error": {
        "code": -32603, "message": "RATE_LIMITED: slow down",
        "data": {"code": "RATE_LIMITED", "retryable": true, "retryAfterMs": 20}}}))
}

#[test]
fn after_an_answered_failure_the_next_attempt_has_a_new_key() {
    let call = refund();
    let run = run(
        Retrier::new(policy()),
        true,
        &call,
        vec![busy(), rate_limited(), ready("refunded")],
    );
    let keys: Vec<String> = run.sent_keys.iter().flatten().cloned().collect();
    assert_eq!(keys.len(), 3, "{:?}", run.sent_keys);
    assert_eq!(keys[0], call.idempotency_key());
    assert_ne!(keys[1], keys[0]);
    assert_ne!(keys[2], keys[1]);
    assert_ne!(keys[2], keys[0]);
    assert!(keys.iter().all(|k| k.len() == 36), "{keys:?}");
    assert_eq!(run.result.unwrap().attempts.len(), 3);
}

#[test]
fn after_a_timeout_or_in_progress_the_key_is_kept_and_after_an_answer_renewed() {
    let call = refund();
    let run = run(
        Retrier::new(policy().with_max_attempts(6)),
        true,
        &call,
        vec![
            Err(UnknownCause::Timeout),
            refused(-32603, IN_PROGRESS, Some(10)),
            busy(),
            Err(UnknownCause::ConnectionLost),
            // An implementation-defined code says nothing of whether the call ran.
            Ok(json!({"jsonrpc": "2.0", "id": 1,
                      "error": {"code": -32001, "message": "request timed out"}})),
            ready("refunded"),
        ],
    );
    let own = Some(call.idempotency_key().to_owned());
    let keys = run.sent_keys;
    assert_eq!(keys[..3], [own.clone(), own.clone(), own.clone()]);
    assert!(keys[3].is_some());
    assert_ne!(keys[3], own);
    assert_eq!(keys[4], keys[3]);
    assert_eq!(keys[5], keys[3]);
    assert_eq!(run.result.unwrap().attempts.len(), 6);
}

#[test]
fn the_report_holds_the_last_key_sent_and_each_attempt_its_own() {
    let call = refund();
    let run = run(
        Retrier::new(policy()),
        true,
        &call,
        vec![busy(), Err(UnknownCause::Timeout), busy()],
    );
    let sent = run.sent_keys.clone();
    let report = run.report();
    assert_eq!(
        report.decision,
        Decision::Escalate {
            reason: EscalationReason::AttemptsExhausted
        }
    );
    assert_ne!(sent[1].as_deref(), Some(call.idempotency_key()));
    assert_eq!(report.idempotency_key, sent[2]);
    let recorded: Vec<_> = report
        .attempts
        .iter()
        .map(|a| a.idempotency_key.clone())
        .collect();
    assert_eq!(recorded, sent);
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["attempts"][1]["idempotencyKey"], json!(sent[1]));
    assert_eq!(json["attempts"][2]["idempotencyKey"], json!(sent[2]));
    let back: StopReport = serde_json::from_value(json).unwrap();
    assert_eq!(back.idempotency_key, report.idempotency_key);
    let back: Vec<_> = back
        .attempts
        .into_iter()
        .map(|a| a.idempotency_key)
        .collect();
    assert_eq!(back, sent);
}

#[test]
fn without_support_no_key_is_sent_after_an_answered_failure_either() {
    let run = run(
        Retrier::new(policy()),
        false,
        &refund(),
        vec![busy(), rate_limited(), ready("refunded")],
    );
    assert_eq!(run.sent_keys, [None, None, None]);
    let success = run.result.unwrap();
    assert!(success.attempts.iter().all(|a| a.idempotency_key.is_none()));
    let json = serde_json::to_value(&success.attempts).unwrap();
    assert!(json[0].get("idempotencyKey").is_none(), "{json}");
}

#[test]
fn without_keys_run_hands_out_no_key_and_decides_as_without_keys() {
    let retrier = Retrier::new(policy());
    let call = refund();
    let mut keys = Vec::new();
    let report = block_on(retrier.run(
        &call,
        |attempt| {
            keys.push(attempt.idempotency_key);
            async { Err(UnknownCause::ConnectionLost) }
        },
        |_| async {},
    ))
    .unwrap_err();
    assert_eq!(keys, [None]);
    assert_eq!(report.decision, Decision::CheckState);
    assert_eq!(report.idempotency_key, None);
    assert_eq!(report.attempts[0].idempotency_key, None);
}
