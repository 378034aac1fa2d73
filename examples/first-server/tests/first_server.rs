//! The first server the README links to: it uses the README's glue, answers, fails with a
//! stable code and names a wrong argument.

use std::path::Path;

use mcp_errors_core::client::{Decision, Outcome, Retrier, RetryPolicy, ToolCall};
use mcp_errors_core::rmcp::call_tool;
use rmcp::ServiceExt;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};

fn repository_file(path: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn the_readme_sends_its_readers_here_and_shows_the_same_glue() {
    let readme = repository_file("../../README.md");
    assert!(
        readme.contains("tree/main/examples/first-server"),
        "the README links here"
    );
    let main = repository_file("src/main.rs");
    for glue in [
        "ErrorBoundary::new(",
        "error_catalog_meta::<",
        "Result<Json<",
    ] {
        assert!(
            readme.contains(glue) && main.contains(glue),
            "both use `{glue}`"
        );
    }
}

#[tokio::test]
async fn it_answers_fails_with_a_code_and_names_a_wrong_argument() {
    let command = tokio::process::Command::new(env!("CARGO_BIN_EXE_first-server"));
    let client = ().serve(TokioChildProcess::new(command).unwrap()).await.unwrap();
    let retrier = Retrier::new(RetryPolicy::default());
    let forecast = |city: Value| ToolCall::new("forecast", json!({ "city": city }));

    let paris = call_tool(client.peer(), &forecast(json!("Paris")), &retrier)
        .await
        .expect("a forecast");
    let result = paris.result().unwrap().to_value().unwrap();
    assert_eq!(
        result["structuredContent"],
        json!({"city": "Paris", "celsius": 18})
    );

    let atlantis = call_tool(client.peer(), &forecast(json!("Atlantis")), &retrier)
        .await
        .expect_err("no station");
    assert_eq!(atlantis.decision, Decision::FixInput);
    let Outcome::ExecutionError(error) = &atlantis.attempts[0].outcome else {
        panic!("an execution error");
    };
    assert_eq!(error.code.as_deref(), Some("UNKNOWN_CITY"));
    assert_eq!(
        error.hint.as_deref(),
        Some("try a capital city, e.g. Paris")
    );

    let wrong = call_tool(client.peer(), &forecast(json!(5)), &retrier)
        .await
        .expect_err("a wrong argument");
    let Outcome::ExecutionError(error) = &wrong.attempts[0].outcome else {
        panic!("an execution error");
    };
    assert_eq!(error.code.as_deref(), Some("INVALID_ARGUMENTS"));
    let field = error.details.as_ref().and_then(|d| d.get("field"));
    assert_eq!(field, Some(&json!("city")));
    client.cancel().await.unwrap();
}
