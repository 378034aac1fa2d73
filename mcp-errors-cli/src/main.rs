//! `mcp-errors check`: connects to an MCP server (a stdio command or a Streamable HTTP URL),
//! provokes the failures it can provoke safely and grades how the server reports them.
//! See the README of this package for the checks and the scoring.

mod finding;
mod grade;
mod leaks;
mod printable;
mod probes;
mod report;
mod session;
mod transport;

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use clap::{Args, Parser, Subcommand};
use serde_json::{Value, json};

use crate::finding::{Finding, Kind, Severity};
use crate::grade::channel::UnknownToolReading;
use crate::grade::{Context, grade};
use crate::printable::{printable, printable_value};
use crate::probes::{Planned, Provocation, UNKNOWN_TOOL, UserCall, plan, requires_nothing};
use crate::report::{Report, ToolReport, UNKNOWN_TOOL_ROW};
use crate::session::Session;
use crate::transport::{HttpTransport, StdioTransport, Transport};

/// The environment variable set to a fresh random value in a stdio server's environment: seen
/// in an answer, it is an environment leak.
const CANARY_VAR: &str = "MCP_ERRORS_CHECK_CANARY";

#[derive(Parser)]
#[command(
    name = "mcp-errors",
    version,
    about = "Tools for MCP servers' failures"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Grade how a server's tools fail: `mcp-errors check -- CMD ARGS...` or `--url URL`.
    Check(CheckArgs),
}

#[derive(Args)]
struct CheckArgs {
    /// A Streamable HTTP endpoint (plain http), instead of a command.
    #[arg(long, conflicts_with = "command")]
    url: Option<String>,
    /// Also call this tool though it is not marked `readOnlyHint: true` (repeatable).
    #[arg(long = "allow", value_name = "NAME")]
    allow: Vec<String>,
    /// A JSON file of your own calls: `[{"tool", "arguments", "expect": {"outcome",
    /// "category", "code", "retryable"}}]`.
    #[arg(long, value_name = "FILE")]
    calls: Option<PathBuf>,
    /// Which answer to a tool the server does not list counts as right: `either` (-32602 or
    /// an `isError` result), `isError` or `protocol` (-32602 only), to match the grader a CI
    /// uses.
    #[arg(long, value_enum, default_value_t = UnknownToolReading::Either, value_name = "READING")]
    unknown_tool: UnknownToolReading,
    /// Call at most N read-only tools whose schema requires no argument with `{}` (0: none).
    #[arg(long, default_value_t = 20, value_name = "N")]
    no_argument_calls: usize,
    /// Print the report as JSON on stdout.
    #[arg(long)]
    json: bool,
    /// Exit with status 1 when the overall score is below N (0 to 100).
    #[arg(long, value_name = "N")]
    fail_under: Option<f64>,
    /// Answers within N milliseconds get the full time score, within five times N half.
    #[arg(long, default_value_t = 1000, value_name = "N")]
    slow_ms: u64,
    /// Seconds to wait for each answer.
    #[arg(long, default_value_t = 10.0, value_name = "SECONDS")]
    timeout: f64,
    /// No progress on stderr.
    #[arg(long, short)]
    quiet: bool,
    /// The server's command and its arguments, after `--`.
    #[arg(last = true, value_name = "CMD")]
    command: Vec<String>,
}

fn canary() -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("mcpcheck-{:x}{:x}", nanos, std::process::id())
}

fn main() -> ExitCode {
    let Command::Check(args) = Cli::parse().command;
    match check(&args) {
        Ok(report) => {
            let written = if args.json {
                let mut out = std::io::stdout().lock();
                serde_json::to_value(&report)
                    .and_then(|value| {
                        serde_json::to_writer_pretty(&mut out, &printable_value(value))
                    })
                    .map_err(std::io::Error::other)
                    .and_then(|()| writeln!(out))
            } else {
                report.render(&mut anstream::stdout())
            };
            if let Err(e) = written {
                eprintln!("mcp-errors check: {}", printable(&e.to_string()));
                return ExitCode::from(2);
            }
            match (args.fail_under, report.score) {
                (Some(min), Some(score)) if score < min => ExitCode::from(1),
                (Some(_), None) => ExitCode::from(1),
                _ => ExitCode::SUCCESS,
            }
        }
        Err(e) => {
            eprintln!("mcp-errors check: {}", printable(&e));
            ExitCode::from(2)
        }
    }
}

/// Why the check does not call `tool` unless allowed; `None` for a tool marked
/// `readOnlyHint: true` and nothing that says otherwise (`destructiveHint` absent or false).
fn not_safe_to_call(tool: &Value) -> Option<&'static str> {
    let hint = |name: &str| tool.pointer(&format!("/annotations/{name}"));
    let read_only = hint("readOnlyHint") == Some(&Value::Bool(true));
    match hint("destructiveHint") {
        None | Some(Value::Bool(false)) if read_only => None,
        Some(_) if read_only => Some("marked both readOnlyHint and destructiveHint"),
        Some(Value::Bool(true)) => Some("marked destructive"),
        _ => Some("not marked readOnlyHint"),
    }
}

/// What the listing alone shows of a tool, after why it was not called, if it was not.
fn schema_notes(tool: &Value, not_called: Option<String>) -> Vec<String> {
    let mut notes = Vec::from_iter(not_called);
    let annotations = tool.get("annotations").and_then(Value::as_object);
    match annotations {
        None => notes.push("no annotations: an agent cannot tell whether a retry is safe (readOnlyHint, idempotentHint)".into()),
        Some(a) if !a.contains_key("readOnlyHint") && !a.contains_key("idempotentHint") => {
            notes.push("neither readOnlyHint nor idempotentHint: an agent cannot tell whether a retry is safe".into())
        }
        _ => {}
    }
    if let Some(properties) = tool
        .pointer("/inputSchema/properties")
        .and_then(Value::as_object)
    {
        let undescribed: Vec<&str> = properties
            .iter()
            .filter(|(_, s)| s.get("description").is_none())
            .map(|(n, _)| n.as_str())
            .collect();
        if !undescribed.is_empty() {
            notes.push(format!(
                "properties without a description: {}",
                undescribed.join(", ")
            ));
        }
        let untyped: Vec<&str> = properties
            .iter()
            .filter(|(_, s)| probes::types_of(s).is_empty())
            .map(|(n, _)| n.as_str())
            .collect();
        if !untyped.is_empty() {
            notes.push(format!(
                "properties of no declared type: {}",
                untyped.join(", ")
            ));
        }
    }
    if tool.get("outputSchema").is_none()
        && tool
            .get("description")
            .and_then(Value::as_str)
            .is_none_or(str::is_empty)
    {
        notes.push("no description".into());
    }
    notes
}

fn check(args: &CheckArgs) -> Result<Report, String> {
    let timeout = Duration::try_from_secs_f64(args.timeout)
        .map_err(|_| "--timeout: a positive number of seconds")?;
    let user_calls: Vec<UserCall> = match &args.calls {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("--calls {}: {e}", path.display()))?;
            serde_json::from_str(&text).map_err(|e| format!("--calls {}: {e}", path.display()))?
        }
        None => Vec::new(),
    };
    let canary = canary();
    let transport: Box<dyn Transport> = match (&args.url, args.command.is_empty()) {
        (Some(url), _) => {
            if !url.starts_with("http://") {
                return Err(format!("--url {url}: only plain http:// is supported"));
            }
            Box::new(HttpTransport::new(url.clone()).map_err(|e| e.to_string())?)
        }
        (None, false) => Box::new(
            StdioTransport::start(
                args.command.clone(),
                vec![(CANARY_VAR.to_owned(), canary.clone())],
            )
            .map_err(|e| e.to_string())?,
        ),
        (None, true) => {
            return Err("give a server: `mcp-errors check -- CMD ARGS...` or `--url URL`".into());
        }
    };
    let progress = |line: String| {
        if !args.quiet {
            eprintln!("mcp-errors check: {}", printable(&line));
        }
    };
    let mut session = Session::open(transport, timeout)?;
    let tools = session.list_tools()?;
    let listed = Value::Array(tools.clone()).to_string();
    let names: Vec<String> = tools
        .iter()
        .filter_map(|t| t.get("name").and_then(Value::as_str))
        .map(str::to_owned)
        .collect();
    progress(format!(
        "{} {} lists {} tools",
        session
            .server_info
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("the server"),
        session
            .server_info
            .get("version")
            .and_then(Value::as_str)
            .unwrap_or(""),
        names.len()
    ));
    for name in &args.allow {
        if !names.contains(name) {
            return Err(format!("--allow {name}: the server lists no such tool"));
        }
    }
    if let Some(call) = user_calls.iter().find(|c| !names.contains(&c.tool)) {
        return Err(format!("--calls: the server lists no tool `{}`", call.tool));
    }
    let secrets = leaks::secret_values(&canary);
    let local_dirs = leaks::local_dirs();
    let context = Context {
        listed: &listed,
        tool_names: &names,
        secrets: &secrets,
        local_dirs: &local_dirs,
        fast: Duration::from_millis(args.slow_ms),
        unknown_tool: args.unknown_tool,
    };
    let mut no_argument_calls = 0;

    let mut times_listed: HashMap<&str, usize> = HashMap::new();
    for name in &names {
        *times_listed.entry(name).or_default() += 1;
    }
    let mut reported_twice = HashSet::new();
    let mut reports = Vec::new();
    let total = tools.len();
    for (i, tool) in tools.iter().enumerate() {
        let Some(name) = tool.get("name").and_then(Value::as_str) else {
            continue;
        };
        // A name listed more than once: an agent cannot tell which tool a call reaches, nor
        // can the check tell which annotations hold.
        let listed = times_listed[name];
        if listed > 1 {
            if reported_twice.insert(name) {
                progress(format!(
                    "[{}/{total}] {name}: not called: listed {listed} times",
                    i + 1
                ));
                reports.push(ToolReport::failed_by_listing(
                    name.to_owned(),
                    vec![format!("not called: listed {listed} times")],
                    vec![Finding::new(
                        Severity::Fail,
                        Kind::Listing,
                        format!("listed {listed} times: an agent cannot tell which tool it calls"),
                    )],
                ));
            }
            continue;
        }
        let read_only = not_safe_to_call(tool).is_none();
        let called = read_only || args.allow.iter().any(|a| a == name);
        let schema = tool.get("inputSchema").unwrap_or(&Value::Null);
        let mut planned = Vec::new();
        // A read-only tool is safe to call for real: `{}` when its schema allows it, for a
        // bounded number of tools.
        let plain = read_only && requires_nothing(schema);
        let over_bound = plain && no_argument_calls >= args.no_argument_calls;
        if plain && !over_bound {
            no_argument_calls += 1;
            planned.push(Planned {
                provocation: Provocation::NoArguments,
                arguments: json!({}),
            });
        }
        if called {
            planned.extend(plan(schema));
        }
        planned.extend(
            user_calls
                .iter()
                .enumerate()
                .filter(|(_, c)| c.tool == name)
                .map(|(i, c)| Planned {
                    provocation: Provocation::UserCall {
                        index: i + 1,
                        expect: c.expect.clone(),
                    },
                    arguments: c.arguments.clone(),
                }),
        );
        if planned.is_empty() {
            progress(format!(
                "[{}/{total}] {name}: {}",
                i + 1,
                if called && !over_bound {
                    "nothing to provoke"
                } else {
                    "not called"
                }
            ));
        }
        let mut probes = Vec::new();
        for p in &planned {
            progress(format!(
                "[{}/{total}] {name}: {}",
                i + 1,
                p.provocation.describe()
            ));
            let answer = session.call(name, &p.arguments);
            probes.push(grade(p, &answer, &context));
        }
        let called = !probes.is_empty() || (called && !over_bound);
        let not_called = (!called).then(|| match not_safe_to_call(tool) {
            None => format!(
                "not called: over --no-argument-calls {}",
                args.no_argument_calls
            ),
            Some(why) => format!("not called: {why} (--allow {name} calls it)"),
        });
        reports.push(ToolReport::new(
            name.to_owned(),
            called,
            schema_notes(tool, not_called),
            probes,
        ));
    }

    progress("an unknown tool name".into());
    let unknown = Planned {
        provocation: Provocation::UnknownTool,
        arguments: json!({}),
    };
    let answer = session.call(UNKNOWN_TOOL, &unknown.arguments);
    let probe = grade(&unknown, &answer, &context);
    reports.push(ToolReport::new(
        UNKNOWN_TOOL_ROW.to_owned(),
        true,
        Vec::new(),
        vec![probe],
    ));

    let server = session.server_info.clone();
    let version = session.protocol_version.clone();
    session.close();
    Ok(Report::new(server, version, args.unknown_tool, reports))
}
