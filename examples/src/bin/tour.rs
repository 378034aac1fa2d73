//! The tour: starts `demo-server`, makes one call per case through rmcp's client, and prints
//! what came back and what an agent should do next; then a scripted retry run.
//!
//! Run with `cargo run -p mcp-errors-examples --bin tour`. Exits non-zero when a reply
//! differs from `e2e/cases.json`.

use std::process::ExitCode;

use mcp_errors_core::client::{Decision, Outcome, RunSuccess, StopReport};
use mcp_errors_examples::cases::cases;
use mcp_errors_examples::tour::{
    Row, arguments_text, category_and_retryable, channel, code, delay_text, demo_server_path,
    model_text, next_step, retry_run, run_case,
};

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    match tour().await {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(error) => {
            eprintln!("tour: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn tour() -> Result<bool, Box<dyn std::error::Error>> {
    let server = demo_server_path()?;
    let cases = cases();
    println!(
        "mcp-errors tour: {} calls to {} (rmcp client over stdio); each reply read by \
         client::classify, the next step decided by the default RetryPolicy.\n",
        cases.len(),
        server.display()
    );
    let mut rows = Vec::new();
    for case in &cases {
        rows.push(run_case(&server, case).await?);
    }
    print_table(&rows);

    println!("\nWhat the model reads (content[0].text), per row:");
    for (i, row) in rows.iter().enumerate() {
        println!("{:>3}  {}", i + 1, model_text(&row.reply));
    }

    let mut ok = true;
    let failed: Vec<&Row> = rows.iter().filter(|r| !r.problems.is_empty()).collect();
    for row in &failed {
        ok = false;
        println!("\nMISMATCH {}: {}", row.case.name, row.problems.join("; "));
    }
    println!(
        "\n{} of {} replies as e2e/cases.json expects.",
        rows.len() - failed.len(),
        rows.len()
    );

    println!(
        "\nRetries: search_docs under client::Retrier (default policy: 3 attempts, capped \
         exponential backoff, full jitter)\nagainst `demo-server --fault search_down:1` (the \
         backend is down for the first call only):"
    );
    let runs = retry_run(&server).await?;
    ok &= print_run("department=finance keywords=travel", &runs.transient, true);
    ok &= print_run("department=finace keywords=travel", &runs.validation, false);
    Ok(ok)
}

fn print_table(rows: &[Row]) {
    let header = [
        "#",
        "tool",
        "arguments",
        "channel",
        "code",
        "category",
        "retryable",
        "next step",
    ];
    let cells: Vec<[String; 8]> = rows
        .iter()
        .enumerate()
        .map(|(i, row)| {
            let (category, retryable) = category_and_retryable(&row.outcome);
            [
                (i + 1).to_string(),
                row.case.tool.clone(),
                arguments_text(&row.case.arguments),
                channel(&row.reply).to_owned(),
                code(&row.outcome),
                category,
                retryable,
                next_step(&row.outcome, &row.decision),
            ]
        })
        .collect();
    let mut widths = header.map(|h| h.chars().count());
    for row in &cells {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: &[String]| {
        let padded: Vec<String> = cells
            .iter()
            .zip(widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        println!("{}", padded.join(" | ").trim_end());
    };
    line(&header.map(String::from));
    println!("{}", widths.map(|w| "-".repeat(w)).join("-|-"));
    for row in &cells {
        line(row);
    }
}

fn describe(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Ready(_) => "result".into(),
        Outcome::Empty(_) => "result (empty)".into(),
        Outcome::ExecutionError(info) => format!(
            "tool error {} ({})",
            info.code.as_deref().unwrap_or("?"),
            info.category.map_or("?".into(), |c| c.to_string())
        ),
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
fn print_run(arguments: &str, run: &Result<RunSuccess, StopReport>, should_succeed: bool) -> bool {
    println!("  search_docs {arguments}");
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
        Ok(_) => println!("    succeeded after {} attempt(s)", attempts.len()),
        Err(report) => println!(
            "    stopped after {} attempt(s): {}, not retried",
            attempts.len(),
            decision_text(&report.decision)
        ),
    }
    let as_expected = if should_succeed {
        run.is_ok() && attempts.len() == 2
    } else {
        matches!(run, Err(r) if r.decision == Decision::FixInput) && attempts.len() == 1
    };
    if !as_expected {
        println!("    MISMATCH: not what the demo expects");
    }
    as_expected
}
