//! The client's reading of the tasks extension (`io.modelcontextprotocol/tasks`): a
//! `tools/call` answered with a `CreateTaskResult`, and each state a `tasks/get` result can
//! report, written as rmcp 3.11 writes them, and what the policy decides of each.

mod common;

use std::time::Duration;

use std::cell::RefCell;

use common::{block_on, both, ok};
use mcp_errors_core::client::{
    Attempt, AttemptContext, Decision, EscalationReason, InvalidReason, Outcome, Retrier,
    RetryPolicy, ToolCall, UnknownCause, classify, classify_result,
};
use mcp_errors_core::{ToolError, ToolFailure};
use serde_json::{Value, json};

/// A `CreateTaskResult` as rmcp 3.11 writes it (`rmcp::model::CreateTaskResult`).
const CREATED: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"task","taskId":"task-1","status":"working","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:40:00Z","ttlMs":60000,"pollIntervalMs":5000}}"#;

/// A `tasks/get` result as rmcp 3.11 writes it (`rmcp::model::GetTaskResult`): the task's
/// members, then the member of its status.
fn task_state(status: &str, member: Option<(&str, Value)>) -> Value {
    let mut result = json!({
        "resultType": "complete",
        "taskId": "task-1",
        "status": status,
        "createdAt": "2025-11-25T10:30:00Z",
        "lastUpdatedAt": "2025-11-25T10:40:00Z",
        "ttlMs": 60000,
        "pollIntervalMs": 5000
    });
    if let Some((name, value)) = member {
        result[name] = value;
    }
    ok(result)
}

fn first() -> Attempt {
    Attempt::new(1, Duration::ZERO).with_jitter(1.0)
}

fn working(task_id: &str, poll: Option<u64>, ttl: Option<u64>) -> Outcome {
    Outcome::Working {
        task_id: task_id.into(),
        poll_interval: poll.map(Duration::from_millis),
        ttl: ttl.map(Duration::from_millis),
    }
}

#[derive(Debug, thiserror::Error, ToolError)]
enum ReportError {
    #[error("the warehouse is offline")]
    #[category(transient)]
    Offline {
        #[retry_after]
        wait: Duration,
    },
    #[error("start_time is after end_time")]
    #[protocol(invalid_params)]
    BadRange {
        #[detail]
        start: String,
    },
}

#[test]
fn a_created_task_is_working_and_byte_exact_json_reads_as_a_value() {
    let outcome = common::both(&serde_json::from_str(CREATED).unwrap());
    assert_eq!(outcome, working("task-1", Some(5000), Some(60000)));
    assert_eq!(outcome.kind(), "working");
    assert!(!outcome.is_success());
    assert!(outcome.may_have_run());
    assert_eq!(outcome.category(), None);
}

#[test]
fn a_created_task_is_polled_whatever_its_seed_status() {
    for status in [
        "working",
        "input_required",
        "completed",
        "failed",
        "cancelled",
    ] {
        let created = ok(json!({
            "resultType": "task", "taskId": "t", "status": status,
            "createdAt": "2025-11-25T10:30:00Z", "lastUpdatedAt": "2025-11-25T10:30:00Z",
            "ttlMs": null
        }));
        assert_eq!(both(&created), working("t", None, None), "{status}");
    }
}

#[test]
fn poll_interval_and_ttl_of_another_type_are_as_if_absent() {
    let created = ok(json!({
        "resultType": "task", "taskId": "t", "status": "working",
        "createdAt": "x", "lastUpdatedAt": "x", "ttlMs": "60000", "pollIntervalMs": -5
    }));
    assert_eq!(both(&created), working("t", None, None));
}

#[test]
fn a_task_is_polled_at_the_servers_interval_within_the_deadline() {
    let policy = RetryPolicy::default().with_deadline(Duration::from_secs(30));
    let poll = |outcome: &Outcome, attempt| policy.decide(outcome, attempt);
    assert_eq!(
        poll(&working("task-1", Some(5000), None), first()),
        Decision::PollTask {
            after: Duration::from_secs(5),
            task_id: "task-1".into()
        }
    );
    // No interval: rmcp's default, 1 s; an interval of 0 is not a busy loop.
    assert_eq!(
        poll(&working("t", None, None), first()),
        Decision::PollTask {
            after: Duration::from_secs(1),
            task_id: "t".into()
        }
    );
    assert_eq!(
        poll(&working("t", Some(0), None), first()),
        Decision::PollTask {
            after: Duration::from_millis(10),
            task_id: "t".into()
        }
    );
    // The next poll would start after the deadline: the outcome is unknown, decided as a
    // timeout is (a keyed call is sent again while the deadline allows).
    let late = Attempt::new(1, Duration::from_secs(26)).with_jitter(1.0);
    let still = working("task-1", Some(5000), None);
    assert_eq!(poll(&still, late), Decision::CheckState);
    assert_eq!(
        poll(&still, late.keyed(true)),
        Decision::Retry {
            after: Duration::from_millis(100)
        }
    );
    let at_the_end = Attempt::new(1, Duration::from_millis(29_950)).with_jitter(1.0);
    assert_eq!(
        poll(&still, at_the_end.keyed(true)),
        Decision::Escalate {
            reason: EscalationReason::DeadlineExceeded
        }
    );
}

#[test]
fn a_working_task_state_is_working() {
    assert_eq!(
        both(&task_state("working", None)),
        working("task-1", Some(5000), Some(60000))
    );
}

#[test]
fn a_task_waiting_for_input_is_input_required_kept_whole() {
    let requests = json!({"confirm": {"method": "elicitation/create", "params": {
        "mode": "form", "message": "Overwrite?", "requestedSchema": {"type": "object", "properties": {}}
    }}});
    let response = task_state("input_required", Some(("inputRequests", requests.clone())));
    let Outcome::InputRequired(kept) = both(&response) else {
        panic!("expected input_required");
    };
    let kept = kept.to_value().unwrap();
    assert_eq!(kept["taskId"], "task-1");
    assert_eq!(kept["inputRequests"], requests);
    assert_eq!(
        RetryPolicy::default().decide(&classify(&response), first()),
        Decision::ProvideInput
    );

    for without in [
        task_state("input_required", None),
        task_state("input_required", Some(("inputRequests", json!([requests])))),
    ] {
        assert!(matches!(
            both(&without),
            Outcome::Invalid(InvalidReason::MalformedResult(_))
        ));
    }
}

#[test]
fn a_completed_task_is_its_result_read_as_a_direct_call() {
    let success = json!({"content": [{"type": "text", "text": "42"}], "isError": false});
    let Outcome::Ready(result) = both(&task_state("completed", Some(("result", success.clone()))))
    else {
        panic!("expected ready");
    };
    assert_eq!(result.to_value().unwrap(), success);

    let typed = json!({"resultType": "complete", "content": [{"type": "text", "text": "42"}]});
    assert!(matches!(
        both(&task_state("completed", Some(("result", typed)))),
        Outcome::Ready(_)
    ));
    let asking = json!({"resultType": "input_required", "content": [], "requestState": "s"});
    assert!(matches!(
        both(&task_state("completed", Some(("result", asking)))),
        Outcome::Invalid(InvalidReason::MalformedResult(_))
    ));

    let empty = json!({"content": [], "_meta": {mcp_errors_core::EMPTY_META_KEY: true}});
    assert!(matches!(
        both(&task_state("completed", Some(("result", empty)))),
        Outcome::Empty(_)
    ));
}

#[test]
fn a_completed_task_with_an_execution_error_reads_as_the_same_error_called_directly() {
    let ToolFailure::Execution(result) = ToolFailure::from(ReportError::Offline {
        wait: Duration::from_secs(2),
    }) else {
        panic!("expected an execution error");
    };
    let result = serde_json::to_value(result).unwrap();
    let direct = both(&ok(result.clone()));
    let in_task = both(&task_state("completed", Some(("result", result))));
    assert!(matches!(&in_task, Outcome::ExecutionError(e) if e.code.as_deref() == Some("OFFLINE")));
    assert_eq!(in_task, direct);
    let policy = RetryPolicy::default();
    let attempt = first().idempotent(true);
    assert_eq!(
        policy.decide(&in_task, attempt),
        policy.decide(&direct, attempt)
    );
}

#[test]
fn a_failed_task_is_its_error_read_as_a_protocol_error() {
    let ToolFailure::Protocol(error) =
        ToolFailure::from(ReportError::BadRange { start: "b".into() })
    else {
        panic!("expected a protocol error");
    };
    let error = serde_json::to_value(error).unwrap();
    let direct = both(&json!({"jsonrpc": "2.0", "id": 1, "error": error.clone()}));
    let in_task = both(&task_state("failed", Some(("error", error))));
    let Outcome::ProtocolError(read) = &in_task else {
        panic!("expected a protocol error");
    };
    assert_eq!(read.code.0, -32602);
    assert_eq!(read.data.as_ref().unwrap()["start"], "b");
    assert_eq!(in_task, direct);
    assert_eq!(
        RetryPolicy::default().decide(&in_task, first()),
        Decision::FixInput
    );

    // rmcp's TaskManager fails a task whose ttlMs ran out before it ended.
    let expired = json!({"code": -32603, "message": "task expired: TTL elapsed before completion"});
    assert!(matches!(
        both(&task_state("failed", Some(("error", expired)))),
        Outcome::ProtocolError(e) if e.code.0 == -32603
    ));
}

#[test]
fn a_cancelled_task_may_have_run() {
    let outcome = both(&task_state("cancelled", None));
    assert_eq!(outcome, Outcome::Unknown(UnknownCause::TaskCancelled));
    assert!(outcome.may_have_run());
    let policy = RetryPolicy::default();
    // A key would bring back the same task: only a call declared idempotent is sent again.
    for ended in [outcome, Outcome::Unknown(UnknownCause::TaskExpired)] {
        assert_eq!(policy.decide(&ended, first()), Decision::CheckState);
        assert_eq!(
            policy.decide(&ended, first().keyed(true)),
            Decision::CheckState
        );
        assert_eq!(
            policy.decide(&ended, first().idempotent(true)),
            Decision::Retry {
                after: Duration::from_millis(100)
            }
        );
    }
}

#[test]
fn a_call_sent_again_after_its_task_was_cancelled_has_a_new_key() {
    let polls = RefCell::new(
        vec![
            task_state("cancelled", None),
            task_state("completed", Some(("result", json!({"content": []})))),
        ]
        .into_iter(),
    );
    let contexts = RefCell::new(Vec::new());
    let call = ToolCall::new("export_report", json!({})).idempotent(true);
    let retrier = Retrier::new(RetryPolicy::default())
        .with_seed(7)
        .with_idempotency_keys(true);
    let run = retrier.run(
        &call,
        |attempt| {
            let response = match &attempt.task_id {
                None => serde_json::from_str(CREATED).unwrap(),
                Some(_) => polls.borrow_mut().next().unwrap(),
            };
            contexts.borrow_mut().push(attempt);
            async move { Ok::<Value, UnknownCause>(response) }
        },
        |_| async {},
    );
    assert!(block_on(run).is_ok());
    let contexts = contexts.into_inner();
    let numbers: Vec<u32> = contexts.iter().map(|c| c.number).collect();
    assert_eq!(numbers, [1, 1, 2, 2]);
    assert_eq!(contexts[0].idempotency_key, contexts[1].idempotency_key);
    assert_ne!(contexts[1].idempotency_key, contexts[2].idempotency_key);
    assert_eq!(contexts[2].idempotency_key, contexts[3].idempotency_key);
}

#[test]
fn a_bare_task_state_reads_as_in_a_response() {
    let response = task_state("working", None);
    assert_eq!(classify_result(&response["result"]), both(&response));
}

#[test]
fn a_task_that_breaks_the_wire_is_invalid() {
    let malformed = |result: Value| {
        let outcome = both(&ok(result));
        assert!(
            matches!(outcome, Outcome::Invalid(InvalidReason::MalformedResult(_))),
            "{outcome:?}"
        );
    };
    malformed(json!({"resultType": "task", "status": "working", "ttlMs": null}));
    malformed(json!({"resultType": "task", "taskId": 7, "status": "working"}));
    malformed(json!({"resultType": "task", "taskId": "", "status": "working"}));
    malformed(json!({"resultType": "task", "taskId": "t".repeat(1025), "status": "working"}));
    malformed(json!({"resultType": "task", "taskId": "t", "status": "paused"}));
    malformed(json!({"resultType": "task", "taskId": "t"}));
    malformed(json!({"taskId": "t", "status": "paused"}));
    malformed(json!({"taskId": "t", "status": "completed"}));
    malformed(json!({"taskId": "t", "status": "completed", "result": [1]}));
    malformed(json!({"taskId": "t", "status": "completed", "result": {
        "resultType": "task", "taskId": "u", "status": "working"
    }}));
    malformed(json!({"taskId": "t", "status": "completed", "result": {
        "taskId": "u", "status": "completed", "result": {"content": []}
    }}));
    malformed(json!({"taskId": "t", "status": "failed"}));
    let longest = "t".repeat(1024);
    assert_eq!(
        both(&ok(
            json!({"resultType": "task", "taskId": longest, "status": "working"})
        )),
        working(&longest, None, None)
    );
    assert!(matches!(
        both(&ok(
            json!({"taskId": "t", "status": "failed", "error": {"message": "no code"}})
        )),
        Outcome::Invalid(InvalidReason::MalformedError(_))
    ));
}

#[test]
fn a_call_tool_result_with_task_members_is_still_a_call_tool_result() {
    let result = json!({
        "content": [{"type": "text", "text": "queued"}],
        "taskId": "t", "status": "completed"
    });
    assert!(matches!(both(&ok(result)), Outcome::Ready(_)));
    let failed = json!({"isError": true, "taskId": "t", "status": "working"});
    assert!(matches!(both(&ok(failed)), Outcome::ExecutionError(_)));
}

#[test]
fn a_working_outcome_round_trips_through_serde() {
    let outcome = working("task-1", Some(5000), None);
    let value = serde_json::to_value(&outcome).unwrap();
    assert_eq!(
        value,
        json!({"working": {"task_id": "task-1", "poll_interval": 5000, "ttl": null}})
    );
    assert_eq!(serde_json::from_value::<Outcome>(value).unwrap(), outcome);
    let cancelled = serde_json::to_value(Outcome::Unknown(UnknownCause::TaskCancelled)).unwrap();
    assert_eq!(cancelled, json!({"unknown": {"cause": "task_cancelled"}}));
    let poll = serde_json::to_value(Decision::PollTask {
        after: Duration::from_secs(5),
        task_id: "task-1".into(),
    })
    .unwrap();
    assert_eq!(
        poll,
        json!({"decision": "poll_task", "afterMs": 5000, "taskId": "task-1"})
    );
}

/// A server that answers the call with a task, and each poll with the next of `states`.
fn run_task(
    states: Vec<Value>,
    policy: RetryPolicy,
) -> (
    Result<Outcome, Decision>,
    Vec<Duration>,
    Vec<AttemptContext>,
) {
    let states = RefCell::new(states.into_iter());
    let sleeps = RefCell::new(Vec::new());
    let contexts = RefCell::new(Vec::new());
    let call = ToolCall::new("export_report", json!({"month": "2025-11"}));
    let retrier = Retrier::new(policy).with_seed(7);
    let run = retrier.run(
        &call,
        |attempt| {
            let response = match &attempt.task_id {
                None => serde_json::from_str(CREATED).unwrap(),
                Some(_) => states
                    .borrow_mut()
                    .next()
                    .expect("polled past the last state"),
            };
            contexts.borrow_mut().push(attempt);
            async move { Ok::<Value, UnknownCause>(response) }
        },
        |after| {
            sleeps.borrow_mut().push(after);
            async {}
        },
    );
    let ended = match block_on(run) {
        Ok(success) => Ok(success.outcome),
        Err(report) => Err(report.decision),
    };
    (ended, sleeps.into_inner(), contexts.into_inner())
}

#[test]
fn a_retrier_follows_a_task_to_its_end_at_the_servers_interval() {
    let done = json!({"content": [{"type": "text", "text": "exported"}]});
    let (ended, sleeps, contexts) = run_task(
        vec![
            task_state("working", None),
            task_state("working", None),
            task_state("completed", Some(("result", done))),
        ],
        RetryPolicy::default().with_max_attempts(1),
    );
    assert!(matches!(ended, Ok(Outcome::Ready(_))));
    // Three polls, five seconds apart; polls spend no attempt.
    assert_eq!(sleeps, vec![Duration::from_secs(5); 3]);
    assert_eq!(contexts.len(), 4);
    assert!(contexts.iter().all(|c| c.number == 1));
    assert_eq!(contexts[0].task_id, None);
    assert!(
        contexts[1..]
            .iter()
            .all(|c| c.task_id.as_deref() == Some("task-1"))
    );
}

#[test]
fn a_retrier_stops_following_a_task_at_its_deadline() {
    let working = std::iter::repeat_n(task_state("working", None), 20).collect();
    let (ended, sleeps, _) = run_task(
        working,
        RetryPolicy::default().with_deadline(Duration::from_secs(12)),
    );
    assert_eq!(ended, Err(Decision::CheckState));
    assert_eq!(sleeps, vec![Duration::from_secs(5); 2]);
}

#[test]
fn a_retrier_reads_how_a_task_failed() {
    let (ended, _, _) = run_task(vec![task_state("cancelled", None)], RetryPolicy::default());
    assert_eq!(ended, Err(Decision::CheckState));
    let error = json!({"code": -32602, "message": "BAD_RANGE: start_time is after end_time."});
    let (ended, _, _) = run_task(
        vec![task_state("failed", Some(("error", error)))],
        RetryPolicy::default(),
    );
    assert_eq!(ended, Err(Decision::FixInput));
}
