//! The tour: serves the demo in a child process (this same binary, with `--serve-demo`, or
//! `$DEMO_SERVER`), makes one call per case through rmcp's client, and prints what came back
//! and what an agent should do next; then a scripted retry run.
//!
//! Run with `cargo run -p mcp-errors-examples --bin tour`. Exits non-zero when a reply
//! differs from `e2e/cases.json`. Progress goes to stderr; colour only when stdout is a
//! terminal and `NO_COLOR` is unset or empty.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use mcp_errors_core::client::{Decision, Outcome, RunSuccess, StopReport};
use mcp_errors_examples::cases::cases;
use mcp_errors_examples::tour::{
    Row, SERVE_DEMO_FLAG, ServerCommand, arguments_text, category_and_retryable, channel, code,
    delay_text, model_text, next_step, retry_run, run_case, use_colour,
};

/// The widest table the tour prints, in columns.
const MAX_WIDTH: usize = 100;

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let mut args = std::env::args().skip(1).peekable();
    if args.peek().map(String::as_str) == Some(SERVE_DEMO_FLAG) {
        args.next();
        return match mcp_errors_examples::tour::serve_demo(args).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("tour {SERVE_DEMO_FLAG}: {error}");
                ExitCode::FAILURE
            }
        };
    }
    match tour().await {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(error) => {
            eprintln!("tour: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Green or red text when colour is on.
struct Paint(bool);

impl Paint {
    fn green(&self, text: &str) -> String {
        self.wrap("32", text)
    }

    fn red(&self, text: &str) -> String {
        self.wrap("31", text)
    }

    fn wrap(&self, code: &str, text: &str) -> String {
        if self.0 {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }
}

async fn tour() -> Result<bool, Box<dyn std::error::Error>> {
    let server = ServerCommand::from_env()?;
    let paint = Paint(use_colour(
        std::io::stdout().is_terminal(),
        std::env::var_os("NO_COLOR").as_deref(),
    ));
    let cases = cases();
    println!(
        "mcp-errors tour: {} calls to the demo server (rmcp client over stdio, a fresh server \
         per call);\neach reply read by client::classify, the next step decided by the \
         default RetryPolicy.\n",
        cases.len(),
    );
    let mut rows = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        eprintln!("tour: [{:>2}/{}] {}", i + 1, cases.len(), case.name);
        rows.push(run_case(server.clone(), case).await?);
    }
    eprintln!("tour: retry runs against a backend down for one call");
    let _ = std::io::stderr().flush();
    print_table(&rows);

    println!("\nWhat the model reads (content[0].text), per row:");
    for (i, row) in rows.iter().enumerate() {
        let mut lines = wrap(&model_text(&row.reply), MAX_WIDTH - 5).into_iter();
        println!("{:>3}  {}", i + 1, lines.next().unwrap_or_default());
        for line in lines {
            println!("     {line}");
        }
    }

    let mut ok = true;
    let failed: Vec<&Row> = rows.iter().filter(|r| !r.problems.is_empty()).collect();
    for row in &failed {
        ok = false;
        let mismatch = paint.red("MISMATCH");
        println!(
            "\n{mismatch} {}: {}",
            row.case.name,
            row.problems.join("; ")
        );
    }
    let summary = format!(
        "{} of {} replies as e2e/cases.json expects.",
        rows.len() - failed.len(),
        rows.len()
    );
    let summary = if failed.is_empty() {
        paint.green(&summary)
    } else {
        paint.red(&summary)
    };
    println!("\n{summary}");

    println!(
        "\nRetries: search_docs through rmcp::call_tool (default policy: a 60 s deadline, \
         capped exponential\nbackoff, full jitter) against a demo server with the fault \
         search_down:1 (the backend is down\nfor the first call only):"
    );
    let runs = retry_run(server).await?;
    ok &= print_run(
        &paint,
        "search_docs",
        "department=finance keywords=travel",
        &runs.transient,
        true,
    );
    ok &= print_run(
        &paint,
        "search_docs",
        "department=finace keywords=travel",
        &runs.validation,
        false,
    );
    println!(
        "\nA lost answer: refund_order against a demo server with the fault lose_response:1 (the refund\n\
         is made, its answer held back 3 s) and an attempt timeout of 1 s. The server honours\n\
         idempotency keys (the SEP-3182 draft), so the unknown outcome is retried with the same key:"
    );
    ok &= print_run(
        &paint,
        "refund_order",
        "order_id=ORD-1001",
        &runs.lost_answer,
        true,
    );
    println!(
        "\nA task: export_orders, run as a task (the client declares the tasks extension), against a\n\
         demo server with the fault export_lost:1 (the warehouse goes away during the first\n\
         export). rmcp::call_tool polls tasks/get; the first task ends completed with a\n\
         transient isError result, and the export, declared idempotent, is sent again:"
    );
    ok &= print_run(
        &paint,
        "export_orders",
        "month=2026-11",
        &runs.task_failure,
        true,
    );
    Ok(ok)
}

/// Two lines per row, each within [`MAX_WIDTH`]: the call, then what came back and what to
/// do next.
fn print_table(rows: &[Row]) {
    for (i, row) in rows.iter().enumerate() {
        let call = format!(
            "{:>2}. {} {}",
            i + 1,
            row.case.tool,
            arguments_text(&row.case.arguments)
        );
        println!("{}", clip(&call, MAX_WIDTH));
        let (category, retryable) = category_and_retryable(&row.outcome);
        let reply = match channel(&row.reply) {
            "result" => "result".to_owned(),
            channel => format!(
                "{channel} {} ({category}, retryable: {retryable})",
                code(&row.outcome)
            ),
        };
        let next = format!("    {reply} -> {}", next_step(&row.outcome, &row.decision));
        println!("{}", clip(&next, MAX_WIDTH));
    }
}

/// `text` in lines of at most `width` characters, broken at spaces (a longer word is cut).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let mut word: Vec<char> = word.chars().collect();
        while word.len() > width {
            if !line.is_empty() {
                lines.push(std::mem::take(&mut line));
            }
            lines.push(word.drain(..width).collect());
        }
        let word: String = word.into_iter().collect();
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&word);
    }
    lines.push(line);
    lines
}

/// `text` in at most `width` characters, ending in `…` when cut.
fn clip(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_owned();
    }
    let mut clipped: String = text.chars().take(width.saturating_sub(1)).collect();
    clipped.push('…');
    clipped
}

fn describe(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Ready(_) => "result".into(),
        Outcome::Empty(_) => "result (empty)".into(),
        Outcome::ExecutionError(error) => format!(
            "execution error {} ({})",
            error.code.as_deref().unwrap_or("?"),
            error.category.map_or("?".into(), |c| c.to_string())
        ),
        Outcome::Working { task_id, .. } => {
            format!("task {} working", clip(task_id, 8))
        }
        other => other.kind().to_owned(),
    }
}

fn decision_text(decision: &Decision) -> String {
    match decision {
        Decision::Retry { after } => format!("retry after {}", delay_text(*after)),
        Decision::Done => "done".into(),
        other => serde_json::to_value(other)
            .ok()
            .and_then(|v| v["decision"].as_str().map(str::to_owned))
            .unwrap_or_else(|| format!("{other:?}")),
    }
}

/// Prints one run; returns whether it went as the demo says it does.
fn print_run(
    paint: &Paint,
    tool: &str,
    arguments: &str,
    run: &Result<RunSuccess, StopReport>,
    should_succeed: bool,
) -> bool {
    println!("  {tool} {arguments}");
    let attempts = match run {
        Ok(success) => &success.attempts,
        Err(report) => &report.attempts,
    };
    for attempt in attempts {
        println!(
            "    attempt {}: {} -> {}",
            attempt.number,
            describe(&attempt.outcome),
            decision_text(&attempt.decision)
        );
    }
    match run {
        Ok(success) => {
            // The polls of a task are records of the attempt that started it.
            let calls = attempts.last().map_or(0, |a| a.number);
            println!("    succeeded after {calls} attempt(s)");
            let one_key = attempts
                .windows(2)
                .all(|pair| pair[0].idempotency_key == pair[1].idempotency_key);
            let key = attempts.last().and_then(|a| a.idempotency_key.as_deref());
            if let Some(key) = key.filter(|_| one_key) {
                let answer = success
                    .result()
                    .and_then(|r| r.structured_content())
                    .and_then(|c| c.get("refund_id").cloned())
                    .map_or(String::new(), |id| {
                        format!(", the first answer: refund {id}")
                    });
                println!("    every attempt with idempotency key {key}{answer}");
            }
        }
        Err(report) => println!(
            "    stopped after {} attempt(s): {}, not retried",
            attempts.len(),
            decision_text(&report.decision)
        ),
    }
    let as_expected = if should_succeed {
        // A retry, then the success.
        run.is_ok() && attempts.len() >= 2
    } else {
        matches!(run, Err(r) if r.decision == Decision::FixInput) && attempts.len() == 1
    };
    if !as_expected {
        println!("    {}: not what the demo expects", paint.red("MISMATCH"));
    }
    as_expected
}
