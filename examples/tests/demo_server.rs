//! `demo-server` driven over stdio by rmcp's client (a `TokioChildProcess`): every case of
//! `e2e/cases.json` on the wire, the tool list, the faults, the retry run, the tour binary,
//! and the Streamable HTTP mode; a tool that panics, over both.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

mod support;

use mcp_errors_core::client::{Attempt, Decision, Outcome, RetryPolicy, classify};
use mcp_errors_core::{CATALOG_META_KEY, ErrorCatalog, ErrorCode};
use mcp_errors_examples::cases::{Reply, cases, check};
use mcp_errors_examples::tour::{DemoClient, call, connect, retry_run, run_case};
use rmcp::ServiceExt;
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::{Map, Value, json};
use support::HttpServer;

fn server() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_demo-server"))
}

fn args(value: Value) -> Map<String, Value> {
    value.as_object().cloned().expect("an object")
}

fn payload(reply: &Reply) -> &Value {
    match reply {
        Reply::Result(result) => {
            assert_eq!(
                result["isError"], true,
                "expected an execution error: {result}"
            );
            &result["_meta"][mcp_errors_core::META_KEY]
        }
        other => panic!("expected a result, got {other:?}"),
    }
}

#[tokio::test]
async fn every_case_comes_back_as_cases_json_expects() {
    let cases = cases();
    let tools: std::collections::BTreeSet<_> = cases.iter().map(|c| c.tool.as_str()).collect();
    assert_eq!(
        tools.into_iter().collect::<Vec<_>>(),
        [
            "export_orders",
            "fetch_report",
            // A tool the server does not list.
            "query_log",
            "query_logs",
            "refund_order",
            "reserve_seat",
            "search_docs",
            "test_error_handling"
        ]
    );
    let mut failures = Vec::new();
    for case in &cases {
        let row = run_case(server(), case).await.expect("the call completes");
        if !row.problems.is_empty() {
            failures.push(format!("{}: {}", case.name, row.problems.join("; ")));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[tokio::test]
async fn every_tool_has_a_description_and_publishes_its_error_catalog() {
    let client = connect(server(), &[]).await.expect("connects");
    let tools = client.list_all_tools().await.expect("tools/list");
    let mut names: Vec<_> = tools.iter().map(|t| t.name.to_string()).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "export_orders",
            "fetch_report",
            "query_logs",
            "refund_order",
            "reserve_seat",
            "search_docs",
            "test_error_handling"
        ]
    );
    for tool in &tools {
        let description = tool.description.as_deref().unwrap_or_default();
        assert!(!description.is_empty(), "{} has no description", tool.name);
        let meta = tool.meta.as_ref().expect("_meta");
        let catalog: ErrorCatalog =
            serde_json::from_value(meta[CATALOG_META_KEY].clone()).expect("a catalog");
        assert!(
            !catalog.errors.is_empty(),
            "{} publishes no codes",
            tool.name
        );
        let with_output = tool.name != "test_error_handling";
        assert_eq!(tool.output_schema.is_some(), with_output, "{}", tool.name);
    }
    let search = tools.iter().find(|t| t.name == "search_docs").unwrap();
    let catalog: ErrorCatalog =
        serde_json::from_value(search.meta.as_ref().unwrap()[CATALOG_META_KEY].clone()).unwrap();
    for code in ["UNKNOWN_DEPARTMENT", "BACKEND_DOWN", "TOKEN_EXPIRED"] {
        assert!(
            catalog.get(code).is_some(),
            "search_docs catalog lacks {code}"
        );
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn an_unknown_department_is_a_validation_error_whose_hint_lists_the_valid_ones() {
    let client = connect(server(), &[]).await.unwrap();
    let reply = call(
        &client,
        "search_docs",
        args(json!({"department": "finace", "keywords": "travel"})),
        &Map::new(),
    )
    .await
    .unwrap();
    let payload = payload(&reply);
    assert_eq!(payload["code"], "UNKNOWN_DEPARTMENT");
    assert_eq!(payload["category"], "validation");
    assert_eq!(payload["retryable"], false);
    assert_eq!(
        payload["hint"],
        "use one of: finance, hr, legal, engineering"
    );
    let Reply::Result(result) = &reply else {
        unreachable!()
    };
    assert!(
        result["structuredContent"].is_null(),
        "no structuredContent on errors by default (the TS SDK would validate it)"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_call_to_a_tool_the_server_does_not_have_leads_the_client_to_list_the_tools_again() {
    let client = connect(server(), &[]).await.unwrap();
    let reply = call(&client, "query_log", Map::new(), &Map::new())
        .await
        .unwrap();
    assert_eq!(payload(&reply)["code"], "UNKNOWN_TOOL");
    let outcome = classify(&reply.to_response());
    let attempt = Attempt::new(1, Duration::ZERO);
    assert_eq!(
        RetryPolicy::default().decide(&outcome, attempt),
        Decision::RelistTools
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_search_that_matches_nothing_is_a_success_marked_empty() {
    let client = connect(server(), &[]).await.unwrap();
    let reply = call(
        &client,
        "search_docs",
        args(json!({"department": "legal", "keywords": "unicorn"})),
        &Map::new(),
    )
    .await
    .unwrap();
    let Reply::Result(result) = &reply else {
        panic!("{reply:?}")
    };
    assert_eq!(result["isError"], false);
    assert_eq!(result["_meta"][mcp_errors_core::EMPTY_META_KEY], true);
    assert_eq!(result["structuredContent"]["total"], 0);
    let outcome = mcp_errors_core::client::classify(&reply.to_response());
    assert!(matches!(outcome, Outcome::Empty(_)), "{outcome:?}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_reversed_time_range_is_a_validation_error_the_model_reads_naming_both_fields() {
    // Declared `#[protocol(invalid_params)]`; rmcp's client negotiates the newest version, and
    // from 2025-11-25 on ErrorBoundary sends input validation errors as `isError` results.
    let client = connect(server(), &[]).await.unwrap();
    let reply = call(
        &client,
        "query_logs",
        args(
            json!({"service": "checkout", "start_time": "2026-11-02T12:00:00+02:00",
                    "end_time": "2026-11-02T09:00:00Z"}),
        ),
        &Map::new(),
    )
    .await
    .unwrap();
    let payload = payload(&reply);
    assert_eq!(payload["code"], "TIME_RANGE_REVERSED");
    assert_eq!(payload["category"], "validation");
    assert_eq!(
        payload["details"],
        json!({"start_time": "2026-11-02T12:00:00+02:00",
               "end_time": "2026-11-02T09:00:00Z"})
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn an_old_order_is_a_business_refusal_with_a_message_for_the_customer() {
    let client = connect(server(), &[]).await.unwrap();
    let reply = call(
        &client,
        "refund_order",
        args(json!({"order_id": "ORD-1002"})),
        &Map::new(),
    )
    .await
    .unwrap();
    let payload = payload(&reply);
    assert_eq!(payload["category"], "business");
    assert_eq!(payload["retryable"], false);
    let message = payload["details"]["customer_message"].as_str().unwrap();
    assert!(
        message.starts_with("Your order ORD-1002 was delivered on "),
        "{message}"
    );
    assert!(message.contains("store credit"), "{message}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_seat_reserved_once_is_a_conflict_the_second_time() {
    let client = connect(server(), &[]).await.unwrap();
    let first = call(
        &client,
        "reserve_seat",
        args(json!({"seat_id": "c4"})),
        &Map::new(),
    )
    .await
    .unwrap();
    assert_eq!(
        first,
        Reply::Result(json!({
            "content": [{"type": "text", "text": "{\"id\":\"C4\",\"reservation_id\":\"RS-1\",\"status\":\"reserved\"}"}],
            "structuredContent": {"id": "C4", "reservation_id": "RS-1", "status": "reserved"},
            "isError": false
        }))
    );
    let second = call(
        &client,
        "reserve_seat",
        args(json!({"seat_id": "C4"})),
        &Map::new(),
    )
    .await
    .unwrap();
    let payload = payload(&second);
    assert_eq!(payload["code"], "SEAT_TAKEN");
    assert!(!payload["hint"].as_str().unwrap().contains("C4"));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_fault_limited_to_n_calls_recovers_after_them() {
    let client = connect(server(), &["orders_slow:2".into()]).await.unwrap();
    let no_meta = Map::new();
    let refund = || {
        call(
            &client,
            "refund_order",
            args(json!({"order_id": "ORD-1003"})),
            &no_meta,
        )
    };
    for _ in 0..2 {
        let reply = refund().await.unwrap();
        assert_eq!(payload(&reply)["retryAfterMs"], 2000);
    }
    let Reply::Result(third) = refund().await.unwrap() else {
        panic!("a result")
    };
    assert_eq!(third["structuredContent"]["status"], "refunded");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_transient_failure_is_retried_once_a_validation_error_never_and_a_failed_task_once() {
    let runs = retry_run(server()).await.expect("both runs complete");
    let success = runs.transient.expect("the retry succeeds");
    assert_eq!(success.attempts.len(), 2);
    assert!(matches!(
        success.attempts[0].decision,
        Decision::Retry { .. }
    ));
    assert!(
        matches!(success.attempts[0].outcome, Outcome::ExecutionError(ref e)
        if e.code.as_deref() == Some("BACKEND_DOWN"))
    );
    assert!(matches!(success.outcome, Outcome::Ready(_)));

    let report = runs
        .validation
        .expect_err("a validation error is not retried");
    assert_eq!(report.attempts.len(), 1);
    assert_eq!(report.decision, Decision::FixInput);

    // The refund whose answer was held back: retried with its key, answered with the first
    // call's refund.
    let recovered = runs.lost_answer.expect("the lost answer is recovered");
    assert!(matches!(recovered.attempts[0].outcome, Outcome::Unknown(_)));
    let refund = recovered.result().unwrap().structured_content().unwrap();
    assert_eq!(refund["refund_id"], "RF-1");
    let key = recovered.attempts[0]
        .idempotency_key
        .as_deref()
        .expect("a key");
    assert!(
        recovered
            .attempts
            .iter()
            .all(|a| a.idempotency_key.as_deref() == Some(key))
    );

    // The export run as a task over stdio: the first task ends `completed` with a transient
    // `isError` result, the call declared idempotent is sent again, and its task exports.
    let exported = runs.task_failure.expect("the second task exports");
    assert!(
        exported
            .attempts
            .iter()
            .any(|a| matches!(a.outcome, Outcome::Working { .. })),
        "the client polled a task: {:?}",
        exported.attempts
    );
    let first_end = exported
        .attempts
        .iter()
        .rfind(|a| a.number == 1)
        .expect("a first attempt");
    assert!(
        matches!(first_end.outcome, Outcome::ExecutionError(ref e)
        if e.code.as_deref() == Some("WAREHOUSE_LOST")),
        "{:?}",
        first_end.outcome
    );
    assert!(matches!(first_end.decision, Decision::Retry { .. }));
    assert_eq!(exported.attempts.last().unwrap().number, 2);
    let file = exported.result().unwrap().structured_content().unwrap();
    assert_eq!(file["orders"], 42);
}

#[test]
fn the_tour_serves_itself_and_prints_every_case_in_100_plain_columns() {
    let output = Command::new(env!("CARGO_BIN_EXE_tour"))
        .env_remove("DEMO_SERVER")
        .env_remove("NO_COLOR")
        .output()
        .expect("the tour runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    let n = cases().len();
    assert!(
        stdout.contains(&format!("{n} of {n} replies as e2e/cases.json expects")),
        "{stdout}"
    );
    // Piped, so no colour; every line fits.
    assert!(!stdout.contains('\x1b'), "{stdout}");
    for line in stdout
        .lines()
        .take_while(|l| !l.starts_with("What the model reads"))
    {
        assert!(
            line.chars().count() <= 100,
            "{} columns: {line}",
            line.chars().count()
        );
    }
    // Progress, one line per case, on stderr.
    assert!(stderr.contains(&format!("[{n}/{n}]")), "{stderr}");
    // `reserve_seat`'s panic message, which the demo server's panic hook sends to its log
    // rather than to the stderr the tour shares with it.
    for secret in ["hunter2", "seats-db"] {
        assert!(!stdout.contains(secret), "{secret} in {stdout}");
        assert!(!stderr.contains(secret), "{secret} in {stderr}");
    }
}

#[test]
fn the_tour_prints_every_case_and_exits_zero() {
    let output = Command::new(env!("CARGO_BIN_EXE_tour"))
        .env("DEMO_SERVER", server())
        .output()
        .expect("the tour runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let n = cases().len();
    assert!(
        stdout.contains(&format!("{n} of {n} replies as e2e/cases.json expects")),
        "{stdout}"
    );
    assert!(
        stdout.contains("isError UNKNOWN_TOOL (not_found, retryable: no)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("isError TIME_RANGE_REVERSED (validation, retryable: no)"),
        "{stdout}"
    );
    assert!(stdout.contains("succeeded after 2 attempt(s)"), "{stdout}");
    assert!(
        stdout.contains("stopped after 1 attempt(s): fix_input, not retried"),
        "{stdout}"
    );
}

/// With `seats_corrupt:1` on: `reserve_seat` panics once, is answered at once with a masked
/// `TOOL_PANICKED` that holds nothing of the panic's message, and the next call is served.
async fn a_panic_is_answered_and_the_next_call_served(client: &DemoClient) {
    let seat = || args(json!({"seat_id": "A2"}));
    let answer = tokio::time::timeout(
        Duration::from_secs(5),
        call(client, "reserve_seat", seat(), &Map::new()),
    )
    .await
    .expect("the panicking tool is answered within 5 s")
    .expect("a reply");
    let payload = payload(&answer);
    assert_eq!(payload["code"], "TOOL_PANICKED");
    assert_eq!(payload["category"], "internal");
    let id = payload["correlationId"].as_str().expect("a correlation id");
    let wire = answer.to_response().to_string();
    assert!(wire.contains(id));
    for secret in [
        "hunter2",
        "password",
        "seats-db",
        "out of sync",
        "server.rs",
    ] {
        assert!(!wire.contains(secret), "{secret} in {wire}");
    }
    let Reply::Result(next) = call(client, "reserve_seat", seat(), &Map::new())
        .await
        .unwrap()
    else {
        panic!("a result")
    };
    assert_eq!(next["structuredContent"]["status"], "reserved", "{next}");
}

#[tokio::test]
async fn a_tool_that_panics_over_stdio_is_answered_and_the_server_goes_on() {
    let client = connect(server(), &["seats_corrupt:1".into()])
        .await
        .unwrap();
    a_panic_is_answered_and_the_next_call_served(&client).await;
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_tool_that_panics_over_http_is_answered_and_the_server_goes_on() {
    let server = HttpServer::start(&[], "seats_corrupt:1");
    let client =
        ().serve(StreamableHttpClientTransport::from_uri(server.url()))
            .await
            .expect("the client connects over HTTP");
    a_panic_is_answered_and_the_next_call_served(&client).await;
    client.cancel().await.unwrap();
}

#[test]
fn an_unknown_fault_is_a_usage_error() {
    let output = Command::new(server())
        .args(["--fault", "search_dwn"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("search_down, token_expired, orders_slow"),
        "{stderr}"
    );
}

#[test]
fn over_streamable_http_the_server_answers_initialize_at_slash_mcp() {
    let server = HttpServer::start(&[], "");
    let addr = server.addr.as_str();
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut response = Vec::new();
    let mut buf = [0; 4096];
    // The answer comes as one SSE event; stop reading once it is in.
    while !String::from_utf8_lossy(&response).contains("mcp-errors-demo") {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => response.extend_from_slice(&buf[..n]),
        }
    }
    let response = String::from_utf8_lossy(&response);
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    assert!(
        response.to_lowercase().contains("mcp-session-id:"),
        "{response}"
    );
    assert!(
        response.contains(r#""name":"mcp-errors-demo""#),
        "{response}"
    );
}

#[test]
fn every_case_is_checked_by_a_rule_that_can_fail() {
    // The checker must reject a reply on the wrong channel, or it proves nothing.
    for case in cases() {
        let wrong = match case.expect["channel"].as_str() {
            Some("protocol") => Reply::Result(json!({"content": [], "isError": false})),
            _ => Reply::Protocol {
                code: ErrorCode::INTERNAL_ERROR,
                message: "x".into(),
                data: None,
            },
        };
        assert!(!check(&case.expect, &wrong).is_empty(), "{}", case.name);
    }
}
