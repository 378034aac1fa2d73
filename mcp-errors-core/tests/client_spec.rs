//! The client side of the specification's newer parts: the draft tool-failure entry
//! (SEP-3313), implementation-defined codes and peer profiles, the 2026-07-28 codes, unknown
//! tools, and `input_required` results that carry only a `requestState`. Responses are
//! written as the specification's examples, the draft and the SDKs write them.

mod common;

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use common::{MAX_REQUEST_STATE_BYTES, block_on, both, ok};
use mcp_errors_core::client::{
    Attempt, CodeMeaning, Decision, EscalationReason, Evidence, ExecutionError, InvalidReason,
    Outcome, PeerProfile, Retrier, RetryPolicy, ToolCall,
};
use mcp_errors_core::{
    Category, FailureClass, FailureOptions, JsonRpcError, META_KEY, TOOL_FAILURE_META_KEY,
    ToolError,
};
use serde_json::{Value, json};

fn rpc_error(error: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "error": error})
}

/// An `isError` result carrying only the draft entry, as the draft writes it.
fn draft(entry: Value) -> Value {
    ok(json!({
        "content": [{"type": "text", "text": "The call failed."}],
        "isError": true,
        "_meta": {TOOL_FAILURE_META_KEY: entry}
    }))
}

fn execution_error(response: &Value) -> ExecutionError {
    match both(response) {
        Outcome::ExecutionError(error) => error,
        other => panic!("expected an execution error, got {other:?}"),
    }
}

fn first() -> Attempt {
    Attempt::new(1, Duration::ZERO)
}

/// The default policy with AWS's 3 attempts, so the attempt limit shows.
fn decide(outcome: &Outcome, attempt: Attempt) -> Decision {
    RetryPolicy::default()
        .with_max_attempts(3)
        .decide(outcome, attempt.with_jitter(1.0))
}

fn decide_with(profile: PeerProfile, outcome: &Outcome, attempt: Attempt) -> Decision {
    RetryPolicy::default()
        .with_peer_profile(profile)
        .decide(outcome, attempt.with_jitter(1.0))
}

fn escalate(reason: EscalationReason) -> Decision {
    Decision::Escalate { reason }
}

fn now_ms() -> u64 {
    u64::try_from(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap()
}

// The draft tool-failure entry.

#[test]
fn a_draft_entry_alone_is_read_with_its_class_code_guidance_and_correlation_id() {
    let error = execution_error(&draft(json!({
        "class": "capability", "code": "capability_unsupported",
        "correlationId": "req-42", "agentGuidance": "use export_csv instead"
    })));
    assert_eq!(error.evidence, Evidence::DraftToolFailure);
    assert_eq!(error.failure_class, Some(FailureClass::Capability));
    assert_eq!(error.code.as_deref(), Some("capability_unsupported"));
    assert_eq!(error.category, None);
    assert_eq!(error.hint.as_deref(), Some("use export_csv instead"));
    assert_eq!(error.correlation_id.as_deref(), Some("req-42"));
    assert_eq!(error.message, "The call failed.");
    assert!(!error.retryable);
}

#[test]
fn the_draft_codes_with_a_category_take_it_when_their_class_agrees() {
    for (class, code, category) in [
        ("capability", "invalid_input", Some(Category::Validation)),
        ("capability", "resource_not_found", Some(Category::NotFound)),
        (
            "governance",
            "auth_required",
            Some(Category::Unauthenticated),
        ),
        (
            "governance",
            "permission_denied",
            Some(Category::Permission),
        ),
        (
            "reliability",
            "retryable_transient_error",
            Some(Category::Transient),
        ),
        ("governance", "policy_blocked", None),
        ("governance", "user_action_required", None),
        // A code whose class contradicts the entry's keeps only the class.
        ("capability", "retryable_transient_error", None),
        ("reliability", "invalid_input", None),
    ] {
        let error = execution_error(&draft(
            json!({"class": class, "code": code, "correlationId": "c"}),
        ));
        assert_eq!(error.category, category, "{class} {code}");
    }
}

#[test]
fn capability_and_governance_failures_are_never_retried_whatever_they_say() {
    let idempotent = first().idempotent(true);
    for (class, code, expected) in [
        ("capability", "capability_unsupported", Decision::FixInput),
        ("capability", "invalid_input", Decision::FixInput),
        (
            "capability",
            "retryable_transient_error",
            Decision::FixInput,
        ),
        ("governance", "auth_required", Decision::Reauthenticate),
        (
            "governance",
            "permission_denied",
            escalate(EscalationReason::Permission),
        ),
        (
            "governance",
            "policy_blocked",
            escalate(EscalationReason::Governance),
        ),
        (
            "governance",
            "user_action_required",
            Decision::ExplainToUser,
        ),
    ] {
        // `retryable` and `retryNotBefore` mean nothing outside the reliability class.
        let outcome = both(&draft(json!({
            "class": class, "code": code, "retryable": true,
            "retryNotBefore": now_ms() + 1000, "correlationId": "c"
        })));
        assert_eq!(decide(&outcome, idempotent), expected, "{class} {code}");
        let Outcome::ExecutionError(error) = &outcome else {
            unreachable!()
        };
        assert!(!error.retryable, "{class} {code}");
    }
}

#[test]
fn a_reliability_failure_is_retried_only_when_retryable_and_the_call_may_be_repeated() {
    let retryable = both(&draft(json!({
        "class": "reliability", "code": "retryable_transient_error",
        "retryable": true, "correlationId": "c"
    })));
    let retry = Decision::Retry {
        after: Duration::from_millis(100),
    };
    assert_eq!(decide(&retryable, first().idempotent(true)), retry);
    assert_eq!(decide(&retryable, first()), Decision::CheckState);
    for retryable in [json!(false), json!("true"), Value::Null] {
        let outcome = both(&draft(json!({
            "class": "reliability", "code": "upstream_down",
            "retryable": retryable, "correlationId": "c"
        })));
        assert_eq!(
            decide(&outcome, first().idempotent(true)),
            escalate(EscalationReason::NotRetryable),
            "{retryable}"
        );
    }
    // A code outside the draft's list is decided by its class.
    let custom = both(&draft(json!({
        "class": "reliability", "code": "upstream_down", "retryable": true, "correlationId": "c"
    })));
    assert_eq!(decide(&custom, first().idempotent(true)), retry);
}

#[test]
fn a_reliability_failure_is_never_retried_before_retry_not_before() {
    let at = |not_before: u64| {
        both(&draft(json!({
            "class": "reliability", "code": "retryable_transient_error",
            "retryable": true, "retryNotBefore": not_before, "correlationId": "c"
        })))
    };
    let idempotent = first().idempotent(true);
    let soon = at(now_ms() + 3_000);
    let Decision::Retry { after } = decide(&soon, idempotent) else {
        panic!("not retried")
    };
    assert!(
        (Duration::from_millis(2_000)..=Duration::from_millis(3_000)).contains(&after),
        "{after:?}"
    );
    let Outcome::ExecutionError(error) = &soon else {
        unreachable!()
    };
    assert!(error.retry_not_before.is_some());
    // Passed already: an ordinary backoff.
    assert_eq!(
        decide(&at(now_ms() - 60_000), idempotent),
        Decision::Retry {
            after: Duration::from_millis(100)
        }
    );
    // Later than the policy waits: it gives up rather than call early.
    assert_eq!(
        decide(&at(now_ms() + 3_600_000), idempotent),
        escalate(EscalationReason::RetryAfterTooLong)
    );
}

/// A `retryNotBefore` that is the current millisecond has come: it asks for no wait of its
/// own, and the ordinary backoff applies, as once it has passed.
#[test]
fn a_retry_not_before_that_is_now_asks_for_no_wait_of_its_own() {
    // The policy reads the clock microseconds after `now_ms`, most often in the same
    // millisecond; the answer is the same in the next one.
    for _ in 0..5 {
        let mut error = ExecutionError::from_text("busy").with_category(Category::Transient);
        error.retry_not_before = Some(now_ms());
        assert_eq!(
            decide(&Outcome::ExecutionError(error), first()),
            Decision::Retry {
                after: Duration::from_millis(100)
            }
        );
    }
}

#[test]
fn next_to_this_crates_payload_the_draft_entry_fills_only_what_it_lacks() {
    let error = execution_error(&ok(json!({
        "content": [{"type": "text", "text": "BUSY: backend busy. Retryable."}],
        "isError": true,
        "_meta": {
            META_KEY: {"code": "BUSY", "category": "transient", "retryable": true,
                       "message": "backend busy"},
            TOOL_FAILURE_META_KEY: {"class": "governance", "code": "policy_blocked",
                                    "correlationId": "trace-9", "agentGuidance": "wait",
                                    "retryNotBefore": 5}
        }
    })));
    assert_eq!(error.evidence, Evidence::Meta);
    assert_eq!(error.category, Some(Category::Transient));
    assert_eq!(error.failure_class, Some(FailureClass::Reliability));
    assert_eq!(error.code.as_deref(), Some("BUSY"));
    assert_eq!(error.correlation_id.as_deref(), Some("trace-9"));
    assert_eq!(error.hint.as_deref(), Some("wait"));
    assert_eq!(error.retry_not_before, Some(5));
}

#[test]
fn an_entry_that_names_no_known_class_or_code_says_nothing() {
    for entry in [
        json!({}),
        json!({"class": "cosmic"}),
        json!("x"),
        json!([1]),
        json!({"code": 7}),
    ] {
        let error = execution_error(&draft(entry.clone()));
        assert_eq!(error.evidence, Evidence::PlainText, "{entry}");
        assert_eq!(error.failure_class, None, "{entry}");
    }
    // A known class without a code still counts; a field of the wrong type is as if absent.
    let error = execution_error(&draft(json!({"class": "reliability", "retryable": "yes",
                                         "correlationId": 3, "agentGuidance": ["x"]})));
    assert_eq!(error.failure_class, Some(FailureClass::Reliability));
    assert_eq!(
        (error.retryable, error.correlation_id, error.hint),
        (false, None, None)
    );
}

#[derive(Debug, thiserror::Error, ToolError)]
enum ServerError {
    #[error("backend busy")]
    #[category(transient)]
    #[hint("call again in a moment")]
    Busy {
        #[retry_after]
        wait: Duration,
    },
    #[error("no such order")]
    #[category(not_found)]
    NoSuchOrder,
    #[error("database down")]
    #[category(internal)]
    #[code("DATABASE")]
    Database,
}

#[test]
fn what_a_server_writes_with_the_draft_switch_on_reads_back_the_same() {
    let options = FailureOptions::new().with_draft_tool_failure(true);
    let before = now_ms();
    let busy = ServerError::Busy {
        wait: Duration::from_secs(2),
    }
    .to_failure_with(&options);
    let after = now_ms();
    let result = serde_json::to_value(busy.as_execution().unwrap()).unwrap();
    let entry = &result["_meta"][TOOL_FAILURE_META_KEY];
    assert_eq!(entry["class"], "reliability");
    assert_eq!(entry["code"], "BUSY");
    assert_eq!(entry["retryable"], true);
    assert_eq!(entry["agentGuidance"], "call again in a moment");
    let not_before = entry["retryNotBefore"].as_u64().unwrap();
    assert!(
        (before + 2_000..=after + 2_000).contains(&not_before),
        "{not_before}"
    );
    // A correlation id always, even for an error that is not masked.
    let id = entry["correlationId"].as_str().unwrap();
    assert!(is_valid_correlation_id(id), "{id}");

    let error = execution_error(&ok(result.clone()));
    assert_eq!(error.evidence, Evidence::Meta);
    assert_eq!(error.failure_class, Some(FailureClass::Reliability));
    assert_eq!(error.retry_not_before, Some(not_before));
    assert_eq!(error.correlation_id.as_deref(), Some(id));

    // Without this crate's payload, a client reading only the draft decides alike.
    let mut foreign = result;
    foreign["_meta"].as_object_mut().unwrap().remove(META_KEY);
    let outcome = both(&ok(foreign));
    let Outcome::ExecutionError(alone) = &outcome else {
        panic!()
    };
    assert_eq!(alone.evidence, Evidence::DraftToolFailure);
    assert_eq!(alone.category, None);
    assert!(matches!(
        decide(&outcome, first().idempotent(true)),
        Decision::Retry { .. }
    ));

    // Not retryable, not reliability: no `retryable`, no `retryNotBefore`.
    let missing = ServerError::NoSuchOrder.to_failure_with(&options);
    let meta = missing.as_execution().unwrap().meta_map().unwrap();
    assert_eq!(
        meta[TOOL_FAILURE_META_KEY],
        json!({"class": "capability", "code": "NO_SUCH_ORDER",
               "correlationId": meta[TOOL_FAILURE_META_KEY]["correlationId"]})
    );
    // A masked error's entry names the id the payload and the log carry.
    let masked = ServerError::Database.to_failure_with(&options);
    let meta = masked.as_execution().unwrap().meta_map().unwrap();
    assert_eq!(
        meta[TOOL_FAILURE_META_KEY]["correlationId"],
        meta[META_KEY]["correlationId"]
    );
    assert_eq!(meta[TOOL_FAILURE_META_KEY]["retryable"], false);
}

#[test]
fn the_draft_entry_is_off_unless_switched_on() {
    let failure = ServerError::NoSuchOrder.to_failure();
    let meta = failure.as_execution().unwrap().meta_map().unwrap();
    assert!(!meta.contains_key(TOOL_FAILURE_META_KEY));
    let off = FailureOptions::new().with_draft_tool_failure(false);
    assert!(!off.draft_tool_failure());
    let meta = ServerError::NoSuchOrder
        .to_failure_with(&off)
        .as_execution()
        .unwrap()
        .meta_map();
    assert!(!meta.unwrap().contains_key(TOOL_FAILURE_META_KEY));
}

// Implementation-defined codes and peer profiles.

#[test]
fn implementation_defined_codes_mean_nothing_without_a_profile() {
    for code in [-32000, -32001, -32004, -32005, -32019] {
        let outcome = both(&rpc_error(
            json!({"code": code, "message": "Session not found"}),
        ));
        assert_eq!(decide(&outcome, first()), Decision::CheckState, "{code}");
        assert!(
            matches!(
                decide(&outcome, first().idempotent(true)),
                Decision::Retry { .. }
            ),
            "{code}"
        );
    }
}

#[test]
fn the_typescript_profile_tells_a_lost_session_from_a_timeout() {
    let ts = || PeerProfile::typescript_sdk();
    // Its streamable HTTP server's answer to an unknown session.
    let gone = both(&json!({"jsonrpc": "2.0", "id": null,
                            "error": {"code": -32001, "message": "Session not found"}}));
    assert_eq!(decide_with(ts(), &gone, first()), Decision::Reinitialize);
    assert!(!gone.may_have_run_for(&ts()));
    for (code, message) in [(-32001, "Request timed out"), (-32000, "Connection closed")] {
        let outcome = both(&rpc_error(json!({"code": code, "message": message})));
        assert_eq!(
            decide_with(ts(), &outcome, first()),
            Decision::CheckState,
            "{code}"
        );
        assert!(outcome.may_have_run_for(&ts()), "{code}");
    }
}

#[test]
fn the_python_profile_reads_its_timeout_and_its_session_errors() {
    let py = || PeerProfile::python_sdk();
    let timeout = both(&rpc_error(
        json!({"code": 408, "message": "Timed out while waiting"}),
    ));
    assert_eq!(
        decide(&timeout, first()),
        escalate(EscalationReason::ProtocolError)
    );
    assert_eq!(decide_with(py(), &timeout, first()), Decision::CheckState);
    for (code, message) in [(-32600, "Session not found"), (32600, "Session terminated")] {
        let outcome = both(&rpc_error(json!({"code": code, "message": message})));
        assert_eq!(
            decide_with(py(), &outcome, first()),
            Decision::Reinitialize,
            "{code}"
        );
    }
    let other = both(&rpc_error(
        json!({"code": -32600, "message": "Invalid request"}),
    ));
    assert_eq!(
        decide_with(py(), &other, first()),
        escalate(EscalationReason::ProtocolError)
    );
    assert_eq!(
        PeerProfile::from_server_info(&json!({"name": "mcp-server"})),
        py()
    );
    assert_eq!(
        PeerProfile::from_server_info(&json!({"name": 7})),
        PeerProfile::standard()
    );
}

/// What each SDK's profile reads its codes as, and its name. Where a code means "may have
/// run", a decision cannot tell the profile's meaning from no meaning at all (an
/// implementation-defined code may have run too), so the meaning is checked itself.
#[test]
fn each_sdk_profile_names_itself_and_gives_its_codes_their_meaning() {
    use CodeMeaning::{ConnectionClosed, RequestTimeout, ServerClosing, SessionNotFound};
    let profiles = [
        (
            PeerProfile::typescript_sdk(),
            "typescript-sdk",
            vec![
                (-32001, "Request timed out", Some(RequestTimeout)),
                (-32001, "Session not found", Some(SessionNotFound)),
                (-32000, "Connection closed", Some(ConnectionClosed)),
                (-32002, "Resource not found", None),
            ],
        ),
        (
            PeerProfile::python_sdk(),
            "python-sdk",
            vec![
                (-32000, "Connection closed", Some(ConnectionClosed)),
                (-32001, "Request timed out", Some(RequestTimeout)),
                (408, "Timed out while waiting", Some(RequestTimeout)),
                (-32600, "Session not found", Some(SessionNotFound)),
                (32600, "Session terminated", Some(SessionNotFound)),
                (-32600, "Invalid request", None),
            ],
        ),
        (
            PeerProfile::go_sdk(),
            "go-sdk",
            vec![
                (-32004, "server is closing", Some(ServerClosing)),
                (-32003, "client is closing", Some(ConnectionClosed)),
                (-32001, "unknown error", None),
            ],
        ),
        (
            PeerProfile::standard(),
            "",
            vec![
                (-32001, "Request timed out", None),
                (-32000, "Connection closed", None),
            ],
        ),
    ];
    for (profile, name, codes) in profiles {
        assert_eq!(profile.name(), name);
        for (code, message, meaning) in codes {
            assert_eq!(
                profile.meaning(&JsonRpcError::new(code, message)),
                meaning,
                "{name}: {code} {message}"
            );
        }
    }
}

#[test]
fn the_profile_a_policy_is_built_with_is_the_one_read_back() {
    assert_eq!(
        RetryPolicy::default().peer_profile(),
        &PeerProfile::standard()
    );
    let policy = RetryPolicy::default().with_peer_profile(PeerProfile::go_sdk());
    assert_eq!(policy.peer_profile(), &PeerProfile::go_sdk());
    assert_eq!(policy.peer_profile().name(), "go-sdk");
}

/// The codes SDKs use for a request that timed out or a connection that closed (-32000 and
/// -32001 in the TypeScript SDK, 408 in the Python SDK) are ones the TypeScript or the Python
/// profile reads as a call that may have run.
#[test]
fn the_sdks_timeout_codes_may_have_run_for_the_typescript_or_python_sdk() {
    for code in [-32000, -32001, 408] {
        let outcome = both(&rpc_error(json!({"code": code, "message": "timed out"})));
        let may_have_run = [PeerProfile::typescript_sdk(), PeerProfile::python_sdk()]
            .iter()
            .any(|profile| outcome.may_have_run_for(profile));
        assert!(may_have_run, "{code}");
    }
}

#[test]
fn the_go_profile_reads_a_closing_server_as_a_call_that_did_not_run() {
    let closing = both(&rpc_error(
        json!({"code": -32004, "message": "server is closing"}),
    ));
    assert_eq!(
        decide_with(PeerProfile::go_sdk(), &closing, first()),
        Decision::Reinitialize
    );
    let unknown = both(&rpc_error(
        json!({"code": -32001, "message": "unknown error"}),
    ));
    assert_eq!(
        decide_with(PeerProfile::go_sdk(), &unknown, first()),
        Decision::CheckState
    );
}

#[test]
fn the_go_profile_reads_a_transport_rejection_as_a_call_that_may_have_run() {
    let rejected = JsonRpcError::new(-32005, "rejected by transport");
    assert_eq!(
        PeerProfile::go_sdk().meaning(&rejected),
        Some(CodeMeaning::ConnectionClosed)
    );
    assert_eq!(PeerProfile::standard().meaning(&rejected), None);
}

#[test]
fn a_profile_set_by_the_caller_gives_a_code_its_meaning() {
    let profile = PeerProfile::standard().with_meaning(
        mcp_errors_core::ErrorCode(-32005),
        CodeMeaning::SessionNotFound,
    );
    let gone = both(&rpc_error(
        json!({"code": -32005, "message": "session expired"}),
    ));
    assert_eq!(
        decide_with(profile.clone(), &gone, first()),
        Decision::Reinitialize
    );
    assert_eq!(decide(&gone, first()), Decision::CheckState);
    let other = both(&rpc_error(json!({"code": -32006, "message": "x"})));
    assert_eq!(decide_with(profile, &other, first()), Decision::CheckState);
}

// The codes of 2026-07-28, each from the specification's examples.

#[test]
fn a_header_mismatch_asks_for_matching_headers() {
    let response = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32020,
        "message": "Header mismatch: Mcp-Name header value 'foo' does not match body value 'bar'"}});
    assert_eq!(decide(&both(&response), first()), Decision::FixHeaders);
}

#[test]
fn a_missing_capability_names_the_capabilities_to_declare() {
    let response = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32021,
        "message": "Server requires the elicitation capability for this request",
        "data": {"requiredCapabilities": {"elicitation": {}}}}});
    let expected = json!({"elicitation": {}}).as_object().unwrap().clone();
    assert_eq!(
        decide(&both(&response), first()),
        Decision::DeclareCapabilities { required: expected }
    );
    let silent =
        rpc_error(json!({"code": -32021, "message": "m", "data": {"requiredCapabilities": 3}}));
    assert_eq!(
        decide(&both(&silent), first()),
        Decision::DeclareCapabilities {
            required: Default::default()
        }
    );
}

#[test]
fn an_unsupported_version_names_the_versions_to_choose_from() {
    let response = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32022,
        "message": "Unsupported protocol version",
        "data": {"supported": ["2026-07-28", "2025-11-25"], "requested": "1900-01-01"}}});
    assert_eq!(
        decide(&both(&response), first()),
        Decision::Renegotiate {
            supported: vec!["2026-07-28".into(), "2025-11-25".into()]
        }
    );
    let bare = rpc_error(json!({"code": -32022, "message": "Unsupported protocol version"}));
    assert_eq!(
        decide(&both(&bare), first()),
        Decision::Renegotiate { supported: vec![] }
    );
}

#[test]
fn an_unknown_or_disabled_tool_asks_to_list_the_tools_again() {
    let protocol = [
        "Unknown tool: invalid_tool_name", // the specification's example
        "Tool get_weather not found",      // TypeScript SDK
        "Tool get_weather disabled",       // TypeScript SDK
        "unknown tool \"get_weather\"",    // Go SDK
        "tool not found",                  // rmcp
    ];
    for message in protocol {
        let outcome = both(&rpc_error(json!({"code": -32602, "message": message})));
        assert_eq!(
            decide(&outcome, first()),
            Decision::RelistTools,
            "{message}"
        );
    }
    let results = [
        "Unknown tool: invalid_tool_name. Re-run tools/list and retry.", // SEP-2145
        "Tool unavailable: update_flight_details. This tool is disabled or policy-restricted.",
        "Unknown tool: get_weather", // Python SDK
    ];
    for text in results {
        let outcome = both(&ok(
            json!({"content": [{"type": "text", "text": text}], "isError": true}),
        ));
        assert_eq!(decide(&outcome, first()), Decision::RelistTools, "{text}");
    }
    // Wrong arguments stay a matter of input, and a category the server gave wins.
    let arguments = rpc_error(json!({"code": -32602,
        "message": "Invalid arguments for tool calculate: Missing required property 'expression'"}));
    assert_eq!(decide(&both(&arguments), first()), Decision::FixInput);
    let categorized = ok(
        json!({"content": [{"type": "text", "text": "Unknown tool: x"}],
        "isError": true, "_meta": {META_KEY: {"code": "X", "category": "business", "message": "m"}}}),
    );
    assert_eq!(
        decide(&both(&categorized), first()),
        Decision::ExplainToUser
    );
}

// `input_required` with only a `requestState`.

#[test]
fn a_request_state_alone_is_a_retry_with_that_state() {
    // The specification's load-shedding example.
    let shed = both(&ok(json!({"resultType": "input_required",
        "requestState": "eyJwcm9ncmVzcyI6IjUwJSIsInN0YXRlIjoicHJvY2Vzc2luZyJ9"})));
    assert_eq!(
        decide(&shed, first()),
        Decision::RetryWithState {
            after: Duration::from_millis(100),
            request_state: "eyJwcm9ncmVzcyI6IjUwJSIsInN0YXRlIjoicHJvY2Vzc2luZyJ9".into()
        }
    );
    let empty_requests = both(&ok(json!({"resultType": "input_required",
        "inputRequests": {}, "requestState": "s"})));
    assert!(matches!(
        decide(&empty_requests, first()),
        Decision::RetryWithState { .. }
    ));
    assert_eq!(
        decide(&shed, Attempt::new(3, Duration::ZERO)),
        escalate(EscalationReason::AttemptsExhausted)
    );
    let asks = both(&ok(json!({"resultType": "input_required",
        "inputRequests": {"github_login": {"method": "elicitation/create", "params": {}}},
        "requestState": "eyJsb2NhdGlvbiI6Ik5ldyBZb3JrIn0"})));
    assert_eq!(decide(&asks, first()), Decision::ProvideInput);
}

fn shed_then_done(state: Option<String>) -> Result<Value, mcp_errors_core::client::UnknownCause> {
    Ok(match state {
        None => ok(json!({"resultType": "input_required", "requestState": "s-1"})),
        Some(state) => ok(json!({"content": [{"type": "text", "text": state}]})),
    })
}

#[test]
fn run_sends_the_state_back() {
    let retrier = Retrier::new(RetryPolicy::default()).with_jitter(1.0);
    let call = ToolCall::new("report", json!({}));
    let mut sent = Vec::new();
    let success = block_on(retrier.run(
        &call,
        |attempt| {
            sent.push(attempt.request_state.clone());
            std::future::ready(shed_then_done(attempt.request_state))
        },
        |_| async {},
    ))
    .unwrap();
    assert_eq!(sent, [None, Some("s-1".to_owned())]);
    assert_eq!(success.attempts.len(), 2);
    assert!(success.result().unwrap().get().contains("s-1"));
}

#[test]
fn a_request_state_over_the_cap_is_invalid_and_never_sent_back() {
    let shed = |state: String| ok(json!({"resultType": "input_required", "requestState": state}));
    // At the cap, the state is sent back.
    let at_cap = both(&shed("s".repeat(MAX_REQUEST_STATE_BYTES)));
    assert!(matches!(at_cap, Outcome::InputRequired(_)));
    assert!(matches!(
        RetryPolicy::default().decide(&at_cap, Attempt::new(1, Duration::ZERO).with_jitter(1.0)),
        Decision::RetryWithState { ref request_state, .. } if request_state.len() == MAX_REQUEST_STATE_BYTES
    ));
    // One byte over (an escape counts once decoded): refused, by either classifier.
    let over = "\\u00e9".to_owned() + &"s".repeat(MAX_REQUEST_STATE_BYTES - 1);
    let bytes = format!(
        r#"{{"jsonrpc":"2.0","id":1,"result":{{"resultType":"input_required","requestState":"{over}"}}}}"#
    );
    let outcome = mcp_errors_core::client::classify_bytes(bytes.as_bytes());
    assert!(
        matches!(&outcome, Outcome::Invalid(InvalidReason::MalformedResult(why)) if why.contains("requestState")),
        "{}",
        outcome.kind()
    );
    assert_eq!(
        both(&shed(
            "\u{e9}".to_owned() + &"s".repeat(MAX_REQUEST_STATE_BYTES - 1)
        )),
        outcome
    );

    let retrier = Retrier::new(RetryPolicy::default()).with_jitter(1.0);
    let call = ToolCall::new("report", json!({}));
    let mut sent = Vec::new();
    let stopped = block_on(retrier.run(
        &call,
        |attempt| {
            sent.push(attempt.request_state);
            std::future::ready(Ok::<_, mcp_errors_core::client::UnknownCause>(shed(
                "s".repeat(MAX_REQUEST_STATE_BYTES + 1),
            )))
        },
        |_| async {},
    ))
    .unwrap_err();
    assert_eq!(sent, [None]);
    assert_eq!(stopped.attempts.len(), 1);
    assert_eq!(
        stopped.decision,
        Decision::Escalate {
            reason: EscalationReason::InvalidResponse
        }
    );
}

#[test]
fn the_new_decisions_round_trip_through_serde() {
    let decisions = [
        Decision::RelistTools,
        Decision::Reinitialize,
        Decision::FixHeaders,
        Decision::DeclareCapabilities {
            required: json!({"roots": {}}).as_object().unwrap().clone(),
        },
        Decision::Renegotiate {
            supported: vec!["2025-11-25".into()],
        },
        Decision::RetryWithState {
            after: Duration::from_millis(250),
            request_state: "s".into(),
        },
        escalate(EscalationReason::Governance),
    ];
    for decision in decisions {
        let json = serde_json::to_value(&decision).unwrap();
        assert_eq!(
            serde_json::from_value::<Decision>(json.clone()).unwrap(),
            decision,
            "{json}"
        );
    }
    assert_eq!(
        serde_json::to_value(Decision::RetryWithState {
            after: Duration::from_millis(250),
            request_state: "s".into()
        })
        .unwrap(),
        json!({"decision": "retry_with_state", "afterMs": 250, "requestState": "s"})
    );
}

#[test]
fn a_stop_report_carries_the_failure_class() {
    let retrier = Retrier::new(RetryPolicy::default());
    let call = ToolCall::new("export", json!({}));
    let report = block_on(retrier.run(
        &call,
        |_| {
            std::future::ready(Ok::<_, mcp_errors_core::client::UnknownCause>(draft(
                json!({
            "class": "governance", "code": "policy_blocked", "correlationId": "c"}),
            )))
        },
        |_| async {},
    ))
    .unwrap_err();
    assert_eq!(report.decision, escalate(EscalationReason::Governance));
    assert_eq!(report.failure_class, Some(FailureClass::Governance));
    assert_eq!(report.category, None);
}

/// A correlation id as the crate documents it: 1 to 128 ASCII letters, digits, `.`, `_`, `:`
/// or `-`.
fn is_valid_correlation_id(id: &str) -> bool {
    (1..=128).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b".:_-".contains(&b))
}
