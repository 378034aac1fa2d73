//! The `expected` check: whether a call of the user's file (`--calls`) came out as the file
//! says, and when it did not, which answer came back.

use mcp_errors_core::Category;
use mcp_errors_core::client::Outcome;

use crate::finding::{Kind, Severity};
use crate::grade::{Grader, kind, machine_advice};
use crate::printable::printable;
use crate::probes::Expectation;

/// How many characters of the text a finding quotes.
const QUOTED_CHARS: usize = 80;

/// `text` as one printable line, at most [`QUOTED_CHARS`] characters.
fn quote(text: &str) -> String {
    let line = printable(text)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    match line.char_indices().nth(QUOTED_CHARS) {
        Some((end, _)) => format!("{}…", &line[..end]),
        None => line,
    }
}

pub(super) fn expected(g: &mut Grader, expect: &Expectation, outcome: &Outcome, text: &str) {
    let mut misses = Vec::new();
    let actual = match outcome {
        Outcome::ExecutionError(_) => "execution_error",
        Outcome::ProtocolError(_) => "protocol_error",
        Outcome::Ready(_) | Outcome::Empty(_) => "success",
        _ => "other",
    };
    if let Some(want) = &expect.outcome {
        let ok = want == actual
            || (want == "error" && matches!(actual, "execution_error" | "protocol_error"));
        if !ok {
            misses.push(format!("expected {want}, got {actual}"));
        }
    }
    let (_, retryable, code) = machine_advice(outcome);
    let code = code.or_else(|| match outcome {
        Outcome::ExecutionError(e) => e.code.clone(),
        _ => None,
    });
    let category = outcome.category().map(Category::as_str);
    let retryable = retryable.or(match outcome {
        Outcome::ExecutionError(e) => Some(e.retryable),
        _ => None,
    });
    if let Some(want) = &expect.category
        && category != Some(want.as_str())
    {
        misses.push(format!(
            "expected category {want}, got {}",
            category.unwrap_or("none")
        ));
    }
    if let Some(want) = &expect.code
        && code.as_deref() != Some(want.as_str())
    {
        misses.push(format!(
            "expected code {want}, got {}",
            code.as_deref().unwrap_or("none")
        ));
    }
    if let Some(want) = expect.retryable
        && retryable != Some(want)
    {
        misses.push(format!(
            "expected retryable {want}, got {}",
            retryable.map_or("none".into(), |b| b.to_string())
        ));
    }
    g.score("expected", if misses.is_empty() { 1.0 } else { 0.0 });
    if misses.is_empty() {
        return;
    }
    // What came back, so the line says which answer missed, not only that one did.
    let mut answer = vec![kind(outcome)];
    answer.extend(code.map(|c| format!("code {c}")));
    answer.extend(category.map(|c| format!("category {c}")));
    answer.extend(retryable.map(|r| format!("retryable {r}")));
    let quoted = quote(text);
    if !quoted.is_empty() {
        answer.push(format!("\"{quoted}\""));
    }
    g.note(
        Severity::Fail,
        Kind::Expected,
        format!("{}; came back: {}", misses.join("; "), answer.join(", ")),
    );
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::json;

    use crate::finding::Kind;
    use crate::grade::channel::UnknownToolReading;
    use crate::grade::{Context, grade};
    use crate::probes::{Expectation, Planned, Provocation};
    use crate::session::Answer;

    #[test]
    fn a_missed_call_quotes_what_came_back_on_one_bounded_line() {
        let text = format!("Error BUSY:\n\u{1b}[2Jtry\tlater {}", "x".repeat(200));
        let response =
            json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32000, "message": text}});
        let planned = Planned {
            provocation: Provocation::UserCall {
                index: 4,
                expect: Expectation {
                    outcome: Some("success".into()),
                    ..Expectation::default()
                },
            },
            arguments: json!({}),
        };
        let answer = Answer {
            bytes: Ok(response.to_string().into_bytes()),
            elapsed: Duration::from_millis(3),
        };
        let context = Context {
            listed: "",
            tool_names: &[],
            secrets: &[],
            local_dirs: &[],
            fast: Duration::from_secs(1),
            unknown_tool: UnknownToolReading::Either,
        };
        let p = grade(&planned, &answer, &context);
        assert_eq!(p.description, "your call #4");
        let missed = p
            .findings
            .iter()
            .find(|f| f.kind == Kind::Expected)
            .unwrap();
        // Whitespace runs and controls made one space, the escape's ESC with them; 80
        // characters kept.
        let start = "Error BUSY: [2Jtry later ";
        let quoted = format!("\"{start}{}…\"", "x".repeat(80 - start.len()));
        assert_eq!(
            missed.message,
            format!(
                "expected success, got protocol_error; came back: protocol_error -32000, {quoted}"
            )
        );
    }
}
