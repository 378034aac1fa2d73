//! The first server is the README's, line for line, and it answers as the README says.

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

/// The body of the README's first fenced block that starts with `fence` after `heading`.
fn readme_block(heading: &str, fence: &str) -> String {
    let readme = repository_file("../../README.md");
    let section = &readme[readme.find(heading).expect("the section")..];
    let start = section.find(fence).expect("the block") + fence.len();
    let end = section[start..].find("\n```").expect("the block's end") + start;
    section[start..end].trim_start_matches('\n').to_owned() + "\n"
}

#[test]
fn the_readme_shows_this_main_rs_and_these_dependencies() {
    assert_eq!(
        readme_block("### A first server", "```rust,ignore"),
        repository_file("src/main.rs")
    );
    let readme_toml = readme_block("### A first server", "```toml");
    let manifest = repository_file("Cargo.toml");
    let dependencies = manifest
        .split("[dependencies]\n")
        .nth(1)
        .and_then(|rest| rest.split("\n[").next())
        .expect("a [dependencies] table");
    for line in dependencies.lines().filter(|l| !l.is_empty()) {
        let shown = match line
            .strip_prefix("mcp-errors-core = { path = \"../../mcp-errors-core\", ")
        {
            Some(rest) => format!(
                "mcp-errors-core = {{ git = \"https://github.com/mcp-errors/mcp-errors\", {rest}"
            ),
            None => line.to_owned(),
        };
        assert!(readme_toml.contains(&shown), "the README lacks `{shown}`");
    }
    assert_eq!(
        readme_toml.lines().filter(|l| l.contains(" = ")).count(),
        dependencies.lines().filter(|l| l.contains(" = ")).count(),
        "the README lists other dependencies: {readme_toml}"
    );
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
