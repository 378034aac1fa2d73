//! `client::RetryPolicy`: every decision rule, the attempt limit, the deadline, the
//! retry-after, the budget and the catalog; what a category read from plain text leads to,
//! and what a success whose text is plainly a failure does.

use std::time::Duration;

use mcp_errors_core::client::{
    Attempt, Decision, EscalationReason, Evidence, Outcome, PeerProfile, RetryBudget, RetryPolicy,
    ToolCall, UnknownCause, classify, classify_bytes,
};
use mcp_errors_core::{Category, ErrorCatalog, ErrorDescriptor, JsonRpcError, META_KEY};
use serde_json::{Value, json};

fn error_with(payload: Value) -> Outcome {
    classify(&json!({"jsonrpc": "2.0", "id": 1, "result": {
        "isError": true,
        "content": [{"type": "text", "text": "failed"}],
        "_meta": {META_KEY: payload}
    }}))
}

fn category_error(category: Category, retryable: bool) -> Outcome {
    error_with(json!({"code": "SOME_CODE", "category": category.as_str(),
                      "retryable": retryable, "message": "m"}))
}

fn protocol(code: i64) -> Outcome {
    classify(&json!({"jsonrpc": "2.0", "id": 1, "error": {"code": code, "message": "m"}}))
}

fn first() -> Attempt {
    Attempt::new(1, Duration::ZERO)
}

/// Decides with the default policy, a retry waiting the whole backoff.
/// The default policy with AWS's 3 attempts, so the attempt limit shows.
fn decide(outcome: &Outcome, attempt: Attempt) -> Decision {
    RetryPolicy::default()
        .with_max_attempts(3)
        .decide(outcome, attempt.with_jitter(1.0))
}

fn escalate(reason: EscalationReason) -> Decision {
    Decision::Escalate { reason }
}

fn retry_ms(ms: u64) -> Decision {
    Decision::Retry {
        after: Duration::from_millis(ms),
    }
}

#[test]
fn defaults_are_the_documented_ones() {
    let policy = RetryPolicy::default();
    assert_eq!(policy.max_attempts(), u32::MAX);
    assert_eq!(policy.base_delay(), Duration::from_millis(100));
    assert_eq!(policy.max_backoff(), Duration::from_secs(20));
    assert_eq!(policy.deadline(), Some(Duration::from_secs(60)));
    assert_eq!(policy.attempt_timeout(), None);
    assert!(policy.catalog().is_none());
    assert_eq!(policy.peer_profile(), &PeerProfile::standard());
}

#[test]
fn success_is_done() {
    let ready = classify(&json!({"jsonrpc": "2.0", "id": 1, "result": {"content": []}}));
    let empty = classify(&json!({"jsonrpc": "2.0", "id": 1, "result": {
        "content": [], "_meta": {"rs.mcp-errors/empty": true}}}));
    assert_eq!(decide(&ready, first()), Decision::Done);
    assert_eq!(decide(&empty, first()), Decision::Done);
}

#[test]
fn each_category_follows_the_design_table() {
    let expected = [
        (Category::Validation, Decision::FixInput),
        (Category::NotFound, Decision::FixInput),
        (Category::Conflict, Decision::RereadState),
        (Category::Business, Decision::ExplainToUser),
        (Category::Permission, escalate(EscalationReason::Permission)),
        (Category::Unauthenticated, Decision::Reauthenticate),
        (Category::RateLimited, retry_ms(100)),
        (Category::Transient, retry_ms(100)),
        (Category::Internal, escalate(EscalationReason::Internal)),
    ];
    for (category, decision) in expected {
        let outcome = category_error(category, category.retryable_by_default());
        assert_eq!(decide(&outcome, first()), decision, "{category}");
    }
}

#[test]
fn a_retryable_flag_does_not_turn_a_conflict_into_a_blind_retry() {
    let outcome = category_error(Category::Conflict, true);
    assert_eq!(decide(&outcome, first()), Decision::RereadState);
}

#[test]
fn a_transient_error_marked_not_retryable_escalates() {
    let outcome = category_error(Category::Transient, false);
    assert_eq!(
        decide(&outcome, first()),
        escalate(EscalationReason::NotRetryable)
    );
}

#[test]
fn an_unknown_category_gets_the_safe_default() {
    let plain = classify(&json!({"jsonrpc": "2.0", "id": 1, "result": {
        "isError": true, "content": [{"type": "text", "text": "something broke"}]}}));
    assert_eq!(
        decide(&plain, first()),
        escalate(EscalationReason::UnknownCategory)
    );
    let foreign_retryable = classify(&json!({"jsonrpc": "2.0", "id": 1, "result": {
        "isError": true, "content": [],
        "structuredContent": {"code": "BUSY", "retryable": true, "message": "busy"}}}));
    assert_eq!(
        decide(&foreign_retryable, first()),
        escalate(EscalationReason::UnknownCategory)
    );
}

#[test]
fn the_backoff_doubles_from_the_base_up_to_the_max_backoff() {
    let policy = RetryPolicy::default()
        .with_base_delay(Duration::from_secs(1))
        .with_max_backoff(Duration::from_secs(5))
        .with_max_attempts(u32::MAX);
    let longest: Vec<_> = [1, 2, 3, 4, 5, u32::MAX - 1]
        .into_iter()
        .map(|n| longest_backoff(&policy, n).as_secs())
        .collect();
    assert_eq!(longest, [1, 2, 4, 5, 5, 5]);
}

/// The delay after attempt `number` of a retryable transient failure, with the jitter that
/// waits the whole backoff.
fn longest_backoff(policy: &RetryPolicy, number: u32) -> Duration {
    let transient = category_error(Category::Transient, true);
    let attempt = Attempt::new(number, Duration::ZERO);
    match policy.decide(&transient, attempt.with_jitter(1.0)) {
        Decision::Retry { after } => after,
        other => panic!("attempt {number}: not a retry: {other:?}"),
    }
}

#[test]
fn full_jitter_waits_the_attempts_fraction_of_the_longest_backoff() {
    let policy = RetryPolicy::default().with_max_attempts(10);
    let transient = category_error(Category::Transient, true);
    let quarter = policy.decide(
        &transient,
        Attempt::new(3, Duration::ZERO).with_jitter(0.25),
    );
    assert_eq!(quarter, retry_ms(100));
    let none = policy.decide(&transient, Attempt::new(3, Duration::ZERO).with_jitter(0.0));
    assert_eq!(none, retry_ms(0));
    // An attempt made with `new` draws its fraction at random.
    let delays: Vec<_> = (1..=6)
        .map(|n| policy.decide(&transient, Attempt::new(n, Duration::ZERO)))
        .collect();
    for (n, decision) in (1..).zip(delays) {
        let Decision::Retry { after } = decision else {
            panic!("not a retry: {decision:?}")
        };
        assert!(
            after <= longest_backoff(&policy, n),
            "attempt {n}: {after:?}"
        );
    }
    let half = policy.decide(&transient, first().with_jitter(0.5));
    assert_eq!(half, retry_ms(50));
}

#[test]
fn the_attempt_limit_stops_retries() {
    let transient = category_error(Category::Transient, true);
    assert_eq!(
        decide(&transient, Attempt::new(2, Duration::ZERO)),
        retry_ms(200)
    );
    assert_eq!(
        decide(&transient, Attempt::new(3, Duration::ZERO)),
        escalate(EscalationReason::AttemptsExhausted)
    );
    let once = RetryPolicy::default().with_max_attempts(0);
    assert_eq!(once.max_attempts(), 1);
    assert_eq!(
        once.decide(&transient, first().with_jitter(1.0)),
        escalate(EscalationReason::AttemptsExhausted)
    );
}

#[test]
fn retry_after_is_waited_exactly() {
    let limited = error_with(json!({"code": "SLOW_DOWN", "category": "rate_limited",
                                    "retryable": true, "message": "m", "retryAfterMs": 3000}));
    assert_eq!(decide(&limited, first()), retry_ms(3000));
}

#[test]
fn a_retry_after_below_the_backoff_keeps_the_backoff_and_its_jitter() {
    let limited = |ms: u64| {
        error_with(json!({"code": "SLOW_DOWN", "category": "rate_limited",
                          "retryable": true, "message": "m", "retryAfterMs": ms}))
    };
    let policy = RetryPolicy::default();
    // The first backoff is at most 100 ms; half of it is 50 ms.
    let half = |outcome: &Outcome| policy.decide(outcome, first().with_jitter(0.5));
    assert_eq!(half(&limited(0)), retry_ms(50));
    assert_eq!(half(&limited(30)), retry_ms(50));
    assert_eq!(half(&limited(80)), retry_ms(80));
    // `retryAfterMs: 0` from many servers at once: the waits are spread, not all immediate.
    let waits: Vec<Duration> = (0..50)
        .map(|_| match policy.decide(&limited(0), first()) {
            Decision::Retry { after } => after,
            other => panic!("expected a retry, got {other:?}"),
        })
        .collect();
    assert!(waits.iter().all(|w| *w <= policy.base_delay()));
    assert!(waits.iter().filter(|w| !w.is_zero()).count() >= 45);
    let distinct: std::collections::HashSet<_> = waits.iter().collect();
    assert!(distinct.len() >= 45, "the waits are jittered: {waits:?}");
}

#[test]
fn retry_after_beyond_the_cap_gives_up_instead_of_calling_early() {
    let limited = error_with(json!({"code": "SLOW_DOWN", "category": "rate_limited",
                                    "retryable": true, "message": "m", "retryAfterMs": 60000}));
    assert_eq!(
        decide(&limited, first()),
        escalate(EscalationReason::RetryAfterTooLong)
    );
    let patient = RetryPolicy::default()
        .with_max_backoff(Duration::from_secs(60))
        .with_deadline(Duration::from_secs(120));
    assert_eq!(
        patient.decide(&limited, first().with_jitter(1.0)),
        retry_ms(60000)
    );
    // The default deadline of 60 s leaves no room for a wait of 60 s.
    let bounded = RetryPolicy::default().with_max_backoff(Duration::from_secs(60));
    assert_eq!(
        bounded.decide(&limited, first().with_jitter(1.0)),
        escalate(EscalationReason::DeadlineExceeded)
    );
}

#[test]
fn the_deadline_stops_a_retry_that_would_end_after_it() {
    let policy = RetryPolicy::default().with_deadline(Duration::from_secs(2));
    let limited = error_with(json!({"code": "SLOW_DOWN", "category": "rate_limited",
                                    "retryable": true, "message": "m", "retryAfterMs": 1000}));
    let early = Attempt::new(1, Duration::from_millis(500));
    assert_eq!(
        policy.decide(&limited, early.with_jitter(1.0)),
        retry_ms(1000)
    );
    let late = Attempt::new(1, Duration::from_millis(1500));
    assert_eq!(
        policy.decide(&limited, late.with_jitter(1.0)),
        escalate(EscalationReason::DeadlineExceeded)
    );
    let transient = category_error(Category::Transient, true);
    let spent = Attempt::new(1, Duration::from_secs(2));
    assert_eq!(
        policy.decide(&transient, spent.with_jitter(0.0)),
        escalate(EscalationReason::DeadlineExceeded)
    );
}

#[test]
fn an_unknown_outcome_is_retried_only_when_declared_idempotent() {
    for outcome in [
        Outcome::Unknown(UnknownCause::Timeout),
        Outcome::Unknown(UnknownCause::ConnectionLost),
        Outcome::Unknown(UnknownCause::Other("killed".into())),
        protocol(-32000),
        protocol(-32001),
        protocol(-32019),
    ] {
        assert_eq!(
            decide(&outcome, first()),
            Decision::CheckState,
            "{outcome:?}"
        );
        assert_eq!(
            decide(&outcome, first().idempotent(true)),
            retry_ms(100),
            "{outcome:?}"
        );
    }
}

#[test]
fn annotations_are_advice_the_policy_never_reads() {
    let tool = json!({"name": "delete_order", "annotations": {"idempotentHint": true}});
    assert!(ToolCall::hints_idempotent(&tool));
    // The call was not declared idempotent, so the hint changes nothing.
    assert_eq!(
        decide(&Outcome::Unknown(UnknownCause::Timeout), first()),
        Decision::CheckState
    );
    let silent = json!({"name": "x", "annotations": {"readOnlyHint": "yes"}});
    assert!(!ToolCall::hints_idempotent(&silent));
    let read_only =
        json!({"name": "y", "annotations": {"readOnlyHint": true, "idempotentHint": false}});
    assert!(ToolCall::hints_idempotent(&read_only));
    assert!(!ToolCall::hints_idempotent(&json!({"name": "z"})));
}

#[test]
fn protocol_errors_follow_their_codes() {
    assert_eq!(decide(&protocol(-32602), first()), Decision::FixInput);
    assert_eq!(decide(&protocol(-32002), first()), Decision::FixInput);
    assert_eq!(decide(&protocol(-32042), first()), Decision::ProvideInput);
    for code in [-32700, -32600, -32601, -32603, -32099, 408, 42] {
        assert_eq!(
            decide(&protocol(code), first()),
            escalate(EscalationReason::ProtocolError),
            "{code}"
        );
    }
}

#[test]
fn input_required_asks_for_input_and_invalid_escalates() {
    let input = classify(&json!({"jsonrpc": "2.0", "id": 1, "result": {
        "resultType": "input_required", "requestState": "s",
        "inputRequests": {"login": {"method": "elicitation/create", "params": {}}}}}));
    assert_eq!(decide(&input, first()), Decision::ProvideInput);
    let invalid = classify(&json!({"jsonrpc": "2.0", "id": 1}));
    assert_eq!(
        decide(&invalid, first()),
        escalate(EscalationReason::InvalidResponse)
    );
}

#[test]
fn the_budget_charges_retries_refunds_successes_and_stops_when_empty() {
    let budget = RetryBudget::default().with_capacity(15);
    let policy = RetryPolicy::default().with_max_attempts(100);
    let transient = category_error(Category::Transient, true);
    assert!(matches!(
        policy.decide_with_budget(&transient, first().with_jitter(1.0), &budget),
        Decision::Retry { .. }
    ));
    assert_eq!(budget.available(), 10);
    let timeout = Outcome::Unknown(UnknownCause::Timeout);
    assert!(matches!(
        policy.decide_with_budget(&timeout, first().idempotent(true).with_jitter(1.0), &budget),
        Decision::Retry { .. }
    ));
    assert_eq!(budget.available(), 0);
    assert_eq!(
        policy.decide_with_budget(&transient, first().with_jitter(1.0), &budget),
        escalate(EscalationReason::BudgetExhausted)
    );
    assert_eq!(budget.available(), 0);
    let ready = classify(&json!({"jsonrpc": "2.0", "id": 1, "result": {"content": []}}));
    for _ in 0..5 {
        assert_eq!(
            policy.decide_with_budget(&ready, first().with_jitter(1.0), &budget),
            Decision::Done
        );
    }
    assert_eq!(budget.available(), 5);
    assert!(matches!(
        policy.decide_with_budget(&transient, first().with_jitter(1.0), &budget),
        Decision::Retry { .. }
    ));
    assert_eq!(budget.available(), 0);
}

#[test]
fn a_budget_is_charged_the_timeout_cost_for_what_the_policys_profile_reads_as_a_timeout() {
    let budget = RetryBudget::default().with_capacity(100);
    let python = RetryPolicy::default().with_peer_profile(PeerProfile::python_sdk());
    let attempt = first().idempotent(true).with_jitter(1.0);
    let timed_out = Outcome::from(JsonRpcError::new(408, "Request timed out"));
    assert_eq!(
        python.decide_with_budget(&timed_out, attempt, &budget),
        retry_ms(100)
    );
    assert_eq!(budget.available(), 90);
    // A passing fault read from a -32603 message is an ordinary retry.
    let busy = Outcome::from(JsonRpcError::new(-32603, "service unavailable"));
    assert_eq!(
        python.decide_with_budget(&busy, attempt, &budget),
        retry_ms(100)
    );
    assert_eq!(budget.available(), 85);
}

#[test]
fn a_retry_that_succeeds_gives_its_cost_back_and_a_first_success_one_token() {
    let budget = RetryBudget::default().with_capacity(100);
    let policy = RetryPolicy::default();
    let transient = category_error(Category::Transient, true);
    let ready = success("done");
    assert!(matches!(
        policy.decide_with_budget(&transient, first().with_jitter(1.0), &budget),
        Decision::Retry { .. }
    ));
    assert!(matches!(
        policy.decide_with_budget(&transient, first().with_jitter(1.0), &budget),
        Decision::Retry { .. }
    ));
    assert_eq!(budget.available(), 90);
    let second = Attempt::new(2, Duration::from_millis(100)).with_jitter(1.0);
    assert_eq!(
        policy.decide_with_budget(&ready, second, &budget),
        Decision::Done
    );
    assert_eq!(budget.available(), 95);
    assert_eq!(
        policy.decide_with_budget(&ready, first().with_jitter(1.0), &budget),
        Decision::Done
    );
    assert_eq!(budget.available(), 96);
}

#[test]
fn a_budget_never_refills_beyond_its_capacity_and_decisions_that_do_not_retry_are_free() {
    let budget = RetryBudget::default();
    let policy = RetryPolicy::default();
    let ready = classify(&json!({"jsonrpc": "2.0", "id": 1, "result": {"content": []}}));
    policy.decide_with_budget(&ready, first().with_jitter(1.0), &budget);
    assert_eq!(budget.available(), 500);
    policy.decide_with_budget(
        &category_error(Category::Validation, false),
        first().with_jitter(1.0),
        &budget,
    );
    assert_eq!(budget.available(), 500);
    assert!(!budget.try_withdraw(501));
    assert_eq!(budget.available(), 500);
}

#[test]
fn a_budgets_settings_are_read_back_and_its_capacity_stays_as_tokens_go() {
    let standard = RetryBudget::default();
    let settings = |b: &RetryBudget| {
        (
            b.capacity(),
            b.retry_cost(),
            b.timeout_cost(),
            b.success_refund(),
        )
    };
    // AWS's standard mode.
    assert_eq!(settings(&standard), (500, 5, 10, 1));
    let budget = RetryBudget::default()
        .with_capacity(40)
        .with_retry_cost(3)
        .with_timeout_cost(7)
        .with_success_refund(2);
    assert_eq!(settings(&budget), (40, 3, 7, 2));
    assert!(budget.try_withdraw(25));
    assert_eq!((budget.capacity(), budget.available()), (40, 15));
    budget.refund(budget.success_refund());
    assert_eq!(budget.available(), 17);
}

#[test]
fn a_budget_that_runs_out_is_not_charged_by_a_deadline_refusal() {
    let budget = RetryBudget::default().with_capacity(5);
    let policy = RetryPolicy::default().with_deadline(Duration::from_millis(10));
    let transient = category_error(Category::Transient, true);
    let late = Attempt::new(1, Duration::from_millis(10));
    assert_eq!(
        policy.decide_with_budget(&transient, late.with_jitter(1.0), &budget),
        escalate(EscalationReason::DeadlineExceeded)
    );
    assert_eq!(budget.available(), 5);
}

#[test]
fn with_a_catalog_unknown_codes_get_the_safe_default_and_known_codes_its_category() {
    static CODES: [ErrorDescriptor; 1] = [ErrorDescriptor::execution(
        "Busy",
        "BUSY",
        Category::Transient,
    )];
    let policy = RetryPolicy::default().with_catalog(ErrorCatalog::new(&CODES));
    let unknown = error_with(json!({"code": "SURPRISE", "category": "transient",
                                    "retryable": true, "message": "m"}));
    assert_eq!(
        policy.decide(&unknown, first().with_jitter(1.0)),
        escalate(EscalationReason::UnknownCode)
    );
    // A foreign shape with no category: the catalog supplies it.
    let known = classify(&json!({"jsonrpc": "2.0", "id": 1, "result": {
        "isError": true, "content": [],
        "structuredContent": {"code": "BUSY", "retryable": true, "message": "busy"}}}));
    assert_eq!(
        policy.decide(&known, first().with_jitter(1.0)),
        retry_ms(100)
    );
    let no_code = classify(&json!({"jsonrpc": "2.0", "id": 1, "result": {
        "isError": true, "content": [{"type": "text", "text": "x"}]}}));
    assert_eq!(
        policy.decide(&no_code, first().with_jitter(1.0)),
        escalate(EscalationReason::UnknownCode)
    );
}

#[test]
fn the_catalogs_category_wins_over_the_one_a_response_claims() {
    static CODES: [ErrorDescriptor; 2] = [
        ErrorDescriptor::execution("BadDate", "BAD_DATE", Category::Validation),
        ErrorDescriptor::execution("Busy", "BUSY", Category::Transient),
    ];
    let policy = RetryPolicy::default().with_catalog(ErrorCatalog::new(&CODES));
    // Published as validation, arrives as a retryable transient failure: not retried.
    let claims_transient = error_with(json!({"code": "BAD_DATE", "category": "transient",
                                             "retryable": true, "message": "m"}));
    assert_eq!(
        policy.decide(&claims_transient, first().with_jitter(1.0)),
        Decision::FixInput
    );
    // Published as transient, arrives as internal: retried.
    let claims_internal = error_with(json!({"code": "BUSY", "category": "internal",
                                            "retryable": true, "message": "m"}));
    assert_eq!(
        policy.decide(&claims_internal, first().with_jitter(1.0)),
        retry_ms(100)
    );
}

#[test]
fn a_code_classified_at_run_time_keeps_the_category_its_failure_took() {
    static CODES: [ErrorDescriptor; 1] =
        [
            ErrorDescriptor::execution("ReadFailed", "READ_FAILED", Category::Internal)
                .classified(&[Category::NotFound, Category::Transient]),
        ];
    let policy = RetryPolicy::default().with_catalog(ErrorCatalog::new(&CODES));
    let transient = error_with(json!({"code": "READ_FAILED", "category": "transient",
                                      "retryable": true, "message": "m"}));
    assert_eq!(
        policy.decide(&transient, first().with_jitter(1.0)),
        retry_ms(100)
    );
    // A category the code cannot take is not believed: the declared default.
    let business = error_with(json!({"code": "READ_FAILED", "category": "business",
                                     "retryable": false, "message": "m"}));
    assert_eq!(
        policy.decide(&business, first().with_jitter(1.0)),
        escalate(EscalationReason::Internal)
    );
}

#[test]
fn the_settings_set_are_the_ones_read_back() {
    let policy = RetryPolicy::default()
        .with_max_attempts(0)
        .with_base_delay(Duration::from_millis(7))
        .with_max_backoff(Duration::from_secs(3))
        .with_deadline(Duration::from_secs(9))
        .with_attempt_timeout(Duration::from_secs(2))
        .with_peer_profile(PeerProfile::python_sdk());
    // At least one attempt, whatever is asked.
    assert_eq!(policy.max_attempts(), 1);
    assert_eq!(policy.base_delay(), Duration::from_millis(7));
    assert_eq!(policy.max_backoff(), Duration::from_secs(3));
    assert_eq!(policy.deadline(), Some(Duration::from_secs(9)));
    assert_eq!(policy.attempt_timeout(), Some(Duration::from_secs(2)));
    assert_eq!(policy.peer_profile(), &PeerProfile::python_sdk());
}

#[test]
fn a_budgets_clones_share_its_tokens_and_its_setters_make_a_new_bucket() {
    let budget = RetryBudget::default().with_capacity(7);
    let shared = budget.clone();
    assert_eq!(shared.available(), 7);
    // A clone shares its tokens: what one spends, the other sees.
    assert!(shared.try_withdraw(2));
    assert_eq!(budget.available(), 5);
    // A setter makes a new, full bucket that shares nothing with the old one.
    let other = shared.with_retry_cost(1);
    assert_eq!((other.available(), other.retry_cost()), (7, 1));
    assert!(other.try_withdraw(7));
    assert_eq!(budget.available(), 5);
}

#[test]
fn decisions_serialize_with_their_delay_in_milliseconds() {
    assert_eq!(
        serde_json::to_value(retry_ms(1500)).unwrap(),
        json!({"decision": "retry", "afterMs": 1500})
    );
    assert_eq!(
        serde_json::to_value(escalate(EscalationReason::BudgetExhausted)).unwrap(),
        json!({"decision": "escalate", "reason": "budget_exhausted"})
    );
    let back: Decision = serde_json::from_value(json!({"decision": "check_state"})).unwrap();
    assert_eq!(back, Decision::CheckState);
    // A delay read back is the delay written.
    let back: Decision =
        serde_json::from_value(json!({"decision": "retry", "afterMs": 1500})).unwrap();
    assert_eq!(back, retry_ms(1500));
}

#[test]
fn an_attempts_jitter_is_clamped_and_drawn_at_random_by_default() {
    assert_eq!(first().with_jitter(7.0).jitter(), 1.0);
    assert_eq!(first().with_jitter(-1.0).jitter(), 0.0);
    assert_eq!(first().with_jitter(f64::NAN).jitter(), 1.0);
    let drawn: Vec<f64> = (0..20).map(|_| first().jitter()).collect();
    assert!(drawn.iter().all(|x| (0.0..=1.0).contains(x)));
    assert!(drawn.windows(2).any(|w| w[0] != w[1]), "{drawn:?}");
}

fn text_error(text: &str) -> Outcome {
    classify(&json!({"jsonrpc": "2.0", "id": 1, "result": {
        "isError": true, "content": [{"type": "text", "text": text}]
    }}))
}

fn success(text: &str) -> Outcome {
    classify(&json!({"jsonrpc": "2.0", "id": 1, "result": {
        "isError": false, "content": [{"type": "text", "text": text}]
    }}))
}

fn internal(message: &str) -> Outcome {
    Outcome::from(JsonRpcError::new(-32603, message))
}

fn decide_text(outcome: &Outcome, idempotent: bool) -> Decision {
    let attempt = Attempt::new(1, Duration::ZERO).idempotent(idempotent);
    RetryPolicy::default().decide(outcome, attempt.with_jitter(1.0))
}

fn retries(decision: &Decision) -> bool {
    matches!(
        decision,
        Decision::Retry { .. } | Decision::RetryWithState { .. }
    )
}

#[test]
fn what_the_sdks_write_is_read_and_decided() {
    for (text, decision) in [
        (
            "MCP error -32602: Input validation error: Invalid arguments for tool echo: Invalid input: expected string, received undefined at message",
            Decision::FixInput,
        ),
        (
            "Error executing tool fetch: 1 validation error for fetchArguments\nurl\n  Field required [type=missing, input_value={}, input_type=dict]",
            Decision::FixInput,
        ),
        (
            "ENOENT: no such file or directory, open '/srv/missing.txt'",
            Decision::FixInput,
        ),
        (
            "Error calling tool 'get_user': Client error '401 Unauthorized' for url 'https://api.example.invalid/u'",
            Decision::Reauthenticate,
        ),
        (
            "EACCES: permission denied, open '/srv/secret'",
            Decision::Escalate {
                reason: EscalationReason::Permission,
            },
        ),
        (
            "Cannot create branch 'main': refs/heads/main already exists",
            Decision::RereadState,
        ),
        (
            "MCP error -32602: Tool get-product not found",
            Decision::RelistTools,
        ),
        // The Python SDK 2 hides a tool's exception behind its name: a crash, not retried.
        (
            "Error executing tool get_node_summaries",
            Decision::Escalate {
                reason: EscalationReason::Internal,
            },
        ),
    ] {
        let outcome = text_error(text);
        let Outcome::ExecutionError(info) = &outcome else {
            panic!("{text}: not an execution error");
        };
        assert_eq!(info.evidence, Evidence::TextRule, "{text}");
        assert_eq!(decide_text(&outcome, false), decision, "{text}");
    }
}

#[test]
fn a_crash_the_python_sdk_masks_is_internal_and_not_retryable() {
    let outcome = text_error("Error executing tool get_node_summaries");
    let Outcome::ExecutionError(info) = &outcome else {
        panic!("not an execution error: {outcome:?}");
    };
    assert_eq!(info.category, Some(Category::Internal));
    assert!(!info.retryable);
    assert_eq!(decide_text(&outcome, true), decide_text(&outcome, false));
}

#[test]
fn a_passing_fault_read_from_text_is_retried_for_an_idempotent_call_or_one_turned_away() {
    // It may have run: retried only when the call is declared idempotent.
    let slow = text_error("upstream request timed out after 30s");
    assert_eq!(slow.category(), Some(Category::Transient));
    assert_eq!(decide_text(&slow, false), Decision::CheckState);
    assert!(retries(&decide_text(&slow, true)));

    // Turned away before it ran: nothing happened that a retry could do twice.
    for text in [
        "connect ECONNREFUSED 127.0.0.1:5432",
        "[Errno 111] Connection refused",
        "net::ERR_CONNECTION_REFUSED at http://127.0.0.1:1/",
        "sqlite3.OperationalError: database is locked",
    ] {
        let refused = text_error(text);
        assert_eq!(refused.category(), Some(Category::Transient), "{text}");
        assert!(retries(&decide_text(&refused, false)), "{text}");
    }
    let limited = text_error("429 Too Many Requests, retry after 3 seconds");
    let Outcome::ExecutionError(info) = &limited else {
        panic!()
    };
    assert_eq!(info.retry_after, Some(Duration::from_secs(3)));
    for idempotent in [false, true] {
        assert_eq!(
            decide_text(&limited, idempotent),
            Decision::Retry {
                after: Duration::from_secs(3)
            }
        );
    }
}

#[test]
fn a_protocol_errors_message_is_read_with_the_same_rules() {
    assert_eq!(
        decide_text(&internal("relation \"orders\" does not exist"), false),
        Decision::FixInput
    );
    assert_eq!(
        decide_text(&internal("503 Service Unavailable"), false),
        Decision::CheckState
    );
    assert!(retries(&decide_text(
        &internal("503 Service Unavailable"),
        true
    )));
    assert!(retries(&decide_text(
        &internal("connect ECONNREFUSED 127.0.0.1:1"),
        false
    )));
    assert_eq!(
        decide_text(&internal("Unknown tool: execute"), false),
        Decision::RelistTools
    );
    assert_eq!(
        decide_text(&internal("something broke"), true),
        Decision::Escalate {
            reason: EscalationReason::ProtocolError
        }
    );
}

#[test]
fn a_success_whose_text_is_a_failure_is_flagged_and_never_done() {
    let missing = success("Database error: no such table: orders");
    assert!(missing.is_success() && missing.looks_like_failure());
    assert_eq!(missing.category(), Some(Category::NotFound));
    assert_eq!(decide_text(&missing, true), Decision::FixInput);

    // A passing fault in a success is weighed as any read from text.
    let locked = success("Database error: database is locked");
    assert!(locked.looks_like_failure());
    for idempotent in [false, true] {
        assert!(retries(&decide_text(&locked, idempotent)));
    }
    let airflow = success(
        "{\"error\": \"Client error '503 Service Unavailable' for url 'http://h/x'\", \"hint\": \"retry later\"}",
    );
    assert!(airflow.looks_like_failure());
    assert!(retries(&decide_text(&airflow, true)));
    assert_eq!(decide_text(&airflow, false), Decision::CheckState);

    // Flagged, but no rule reads what kind: never done; an escalation, or a check of the
    // state for a call that may have written.
    for text in [
        "Error: Operation failed",
        "Failed to save the note",
        "Unable to complete the request",
        "{\"success\": false}",
    ] {
        let vague = success(text);
        assert!(vague.looks_like_failure(), "{text}");
        assert_eq!(
            decide_text(&vague, true),
            Decision::Escalate {
                reason: EscalationReason::UnknownCategory
            },
            "{text}"
        );
        assert_eq!(decide_text(&vague, false), Decision::CheckState, "{text}");
    }

    let rows = success("[]");
    assert!(!rows.looks_like_failure());
    assert_eq!(rows.category(), None);
    assert_eq!(decide_text(&rows, true), Decision::Done);
}

#[test]
fn classify_and_classify_bytes_agree_on_text_rules() {
    for line in [
        r#"{"jsonrpc":"2.0","id":1,"result":{"isError":true,"content":[{"type":"text","text":"EEXIST: file already exists, mkdir '/x'"}]}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Error: Unknown tool: drop_table"}]}}"#,
    ] {
        let value: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(classify_bytes(line.as_bytes()), classify(&value), "{line}");
    }
}

#[test]
fn a_users_text_rule_comes_before_the_built_in_ones() {
    let profile = PeerProfile::standard()
        .with_text_rule("Seat Taken", Category::Conflict)
        .with_text_rule("backend warming up", Category::Transient);
    let policy = RetryPolicy::default().with_peer_profile(profile);
    let attempt = Attempt::new(1, Duration::ZERO);
    // Built in, `not found`; the user's rule says conflict.
    let taken = text_error("seat taken: 14C not found in the free list");
    assert_eq!(
        policy.decide(&taken, attempt.with_jitter(1.0)),
        Decision::RereadState
    );
    // A category of the user's, read from text, still replays no call not declared idempotent.
    let warming = text_error("Backend warming up");
    assert_eq!(
        policy.decide(&warming, attempt.with_jitter(1.0)),
        Decision::CheckState
    );
    assert!(retries(
        &policy.decide(&warming, attempt.idempotent(true).with_jitter(1.0))
    ));
    // The server's own category is not overridden.
    let described = classify(&json!({"jsonrpc": "2.0", "id": 1, "result": {
        "isError": true,
        "content": [{"type": "text", "text": "{\"errorCategory\": \"validation\", \"description\": \"seat taken\"}"}]
    }}));
    assert_eq!(
        policy.decide(&described, attempt.with_jitter(1.0)),
        Decision::FixInput
    );
}

#[test]
fn a_passing_fault_read_from_text_that_the_server_marked_not_retryable_escalates() {
    let outcome = classify(
        &json!({"jsonrpc": "2.0", "id": 1, "result": {"isError": true,
        "content": [{"type": "text", "text": "upstream down"}],
        "structuredContent": {"code": "UPSTREAM", "retryable": false,
                              "message": "connect ECONNREFUSED 10.0.0.1:443"}}}),
    );
    assert_eq!(outcome.category(), Some(Category::Transient));
    assert_eq!(
        decide_text(&outcome, true),
        escalate(EscalationReason::NotRetryable)
    );
}

fn protocol_with(code: i64, message: &str, data: Value) -> Outcome {
    classify(&json!({"jsonrpc": "2.0", "id": 1,
                     "error": {"code": code, "message": message, "data": data}}))
}

#[test]
fn a_protocol_errors_retry_advice_in_data_decides_over_its_code() {
    // This crate's servers: `retryable` and `retryAfterMs` in `data`, next to the code and hint.
    let busy = protocol_with(
        -32001,
        "REBUILDING: the index is rebuilding. Retryable after 2s. Hint: call again later",
        json!({"code": "REBUILDING", "retryable": true, "retryAfterMs": 2000,
               "hint": "call again later"}),
    );
    assert_eq!(decide(&busy, first()), retry_ms(2000));
    // Advice is advice whether or not the call is declared idempotent: the server answered.
    assert_eq!(
        RetryPolicy::default().decide(&busy, first().idempotent(false).with_jitter(1.0)),
        retry_ms(2000)
    );
    let no_wait = protocol_with(-32603, "BUSY: busy. Retryable.", json!({"retryable": true}));
    assert_eq!(decide(&no_wait, first()), retry_ms(100));
    // The attempt limit and the longest wait still hold.
    assert_eq!(
        decide(&busy, Attempt::new(3, Duration::ZERO)),
        escalate(EscalationReason::AttemptsExhausted)
    );
    let too_long = protocol_with(
        -1001,
        "m",
        json!({"retryable": true, "retryAfterMs": 60_000}),
    );
    assert_eq!(
        decide(&too_long, first()),
        escalate(EscalationReason::RetryAfterTooLong)
    );

    // Not retryable: a code without a decision of its own escalates, even one a profile
    // reads as a timeout, or a -32603 whose text reads as a passing fault.
    for (code, message) in [
        (-32603, "UPSTREAM: connection refused. Not retryable."),
        (-32001, "Request timed out"),
        (-1001, "m"),
    ] {
        let refused = protocol_with(code, message, json!({"retryable": false}));
        assert_eq!(
            RetryPolicy::default()
                .with_peer_profile(PeerProfile::typescript_sdk())
                .decide(&refused, first().idempotent(true)),
            escalate(EscalationReason::NotRetryable),
            "{code}"
        );
    }
    // A code with a decision of its own keeps it.
    let bad = protocol_with(
        -32602,
        "BAD_TIMESTAMP: not RFC 3339. Not retryable.",
        json!({"code": "BAD_TIMESTAMP", "retryable": false}),
    );
    assert_eq!(decide(&bad, first()), Decision::FixInput);

    // Without advice, or with advice of the wrong type, the code decides as before.
    let silent = protocol_with(-32603, "m", json!({"code": "X", "retryable": "yes"}));
    assert_eq!(
        decide(&silent, first()),
        escalate(EscalationReason::ProtocolError)
    );
    let plain = protocol_with(-32602, "m", json!({"code": "X"}));
    assert_eq!(decide(&plain, first()), Decision::FixInput);
}

#[cfg(feature = "derive")]
#[test]
fn a_derived_protocol_variant_with_retry_advice_is_retried_as_it_says() {
    use mcp_errors_core::ToolError;

    #[derive(Debug, thiserror::Error, ToolError)]
    enum LedgerError {
        #[error("the ledger is rebuilding")]
        #[protocol(-32001)]
        #[retryable]
        Rebuilding {
            #[retry_after]
            wait: Duration,
        },
        #[error("no such account")]
        #[protocol(-32001)]
        #[retryable(false)]
        NoAccount,
    }

    let wire = |error: LedgerError| {
        let failure = error.to_failure();
        let response = failure.as_protocol().unwrap().clone().into_response(1);
        classify_bytes(&serde_json::to_vec(&response).unwrap())
    };
    let rebuilding = wire(LedgerError::Rebuilding {
        wait: Duration::from_secs(3),
    });
    assert_eq!(decide(&rebuilding, first()), retry_ms(3000));
    assert_eq!(
        decide(&wire(LedgerError::NoAccount), first().idempotent(true)),
        escalate(EscalationReason::NotRetryable)
    );
}

#[test]
fn a_protocol_error_retries_on_its_data_and_guesses_from_its_message_only() {
    let policy = RetryPolicy::default();
    let idempotent = Attempt::new(1, Duration::ZERO)
        .idempotent(true)
        .with_jitter(1.0);
    let error = |code: i32, message: &str, data: serde_json::Value| {
        Outcome::from(JsonRpcError::new(code, message).with_data(data))
    };
    // A category in `data` with no retry advice is not the server's word on retrying.
    let named = error(-32603, "boom", json!({"category": "transient"}));
    assert_eq!(
        policy.decide(&named, idempotent),
        Decision::Escalate {
            reason: EscalationReason::ProtocolError
        }
    );
    // The advised retry waits what `data` says, not a wait in the message.
    let advised = error(
        -32000,
        "Rate limit exceeded, retry after 60 seconds",
        json!({"retryable": true}),
    );
    assert_eq!(
        policy.decide(&advised, idempotent),
        Decision::Retry {
            after: Duration::from_millis(100)
        }
    );
    // A guess from the message waits what the message says, not `data.retryAfterMs`.
    let busy = error(
        -32603,
        "service unavailable",
        json!({"retryAfterMs": 60_000}),
    );
    assert_eq!(
        policy.decide(&busy, idempotent),
        Decision::Retry {
            after: Duration::from_millis(100)
        }
    );
}
