//! A stdio MCP server with one planted defect per tool, and the check that finds each.
//!
//! The test binary is both: run with `PLANTED_SERVER` set it serves; run by cargo it starts
//! `mcp-errors check` against itself and asserts on the JSON report.

use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};

// ---- the server ------------------------------------------------------------------------------

fn tools() -> Value {
    let read_only = json!({"readOnlyHint": true});
    let q = json!({"type": "object", "properties": {"q": {"type": "string", "description": "A query."}}, "required": ["q"]});
    let tool = |name: &str, schema: &Value| json!({"name": name, "description": format!("The {name} tool."), "inputSchema": schema, "annotations": read_only});
    json!([
        tool("clean", &json!({"type": "object", "properties": {
            "name": {"type": "string", "description": "A name."},
            "mode": {"type": "string", "enum": ["fast", "slow"], "description": "The mode."}}, "required": ["name"]})),
        tool("internal_error", &q),
        tool("error_as_success", &q),
        tool("vague", &q),
        tool("text_only", &q),
        tool("disagrees", &q),
        tool("stack_trace", &q),
        tool("connection_string", &q),
        tool("internal_host", &q),
        tool("file_path", &q),
        tool("env_dump", &q),
        tool("echoes", &q),
        tool("slow", &json!({"type": "object", "properties": {"flag": {"type": "boolean", "description": "A flag."}}})),
        tool("hangs", &json!({"type": "object", "properties": {"flag": {"type": "boolean", "description": "A flag."}}})),
        tool("crashes", &json!({"type": "object", "properties": {"flag": {"type": "boolean", "description": "A flag."}}})),
        tool("enum_accepts", &json!({"type": "object", "properties": {
            "mode": {"type": "string", "enum": ["a", "b"], "description": "The mode."}}, "required": ["mode"]})),
        tool("sep3313", &q),
        tool("foreign_json", &q),
        tool("sep3313_reliability", &q),
        tool("lookup", &json!({"type": "object", "properties": {"id": {"type": "string", "description": "An id."}}, "required": ["id"]})),
        tool("no_args_internal", &json!({"type": "object", "properties": {}})),
        tool("no_args_ok", &json!({"type": "object"})),
        {"name": "delete_records", "description": "Deletes records.", "inputSchema": q,
         "annotations": {"destructiveHint": true, "readOnlyHint": false}},
    ])
}

/// What is wrong with `arguments` for `tool`: (field, what was expected).
fn invalid(tool: &Value, arguments: &Value) -> Option<(String, String)> {
    let schema = &tool["inputSchema"];
    for name in schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        if arguments.get(name).is_none() {
            return Some((name.to_owned(), "a value (required)".into()));
        }
    }
    for (name, property) in schema["properties"].as_object().into_iter().flatten() {
        let Some(value) = arguments.get(name) else {
            continue;
        };
        let ok = match property["type"].as_str() {
            Some("string") => value.is_string(),
            Some("boolean") => value.is_boolean(),
            _ => true,
        };
        if !ok {
            return Some((
                name.clone(),
                format!("a {}", property["type"].as_str().unwrap_or("value")),
            ));
        }
        if let (Some(allowed), Some(s)) = (property["enum"].as_array(), value.as_str())
            && !allowed.iter().any(|a| a == s)
        {
            let list: Vec<&str> = allowed.iter().filter_map(Value::as_str).collect();
            return Some((name.clone(), format!("one of {}", list.join(", "))));
        }
        if value.as_str().is_some_and(|s| s.len() > 256) {
            return Some((name.clone(), "at most 256 characters".into()));
        }
    }
    None
}

fn coded(text: &str, code: &str, category: &str, retryable: bool, message: &str) -> Value {
    json!({"isError": true, "content": [{"type": "text", "text": text}],
           "_meta": {"rs.mcp-errors/error": {"code": code, "category": category, "retryable": retryable, "message": message}}})
}

fn validation(field: &str, expected: &str) -> Value {
    let message = format!("argument `{field}`: expected {expected}");
    coded(
        &format!("Error INVALID_ARGUMENTS: {message}. Not retryable."),
        "INVALID_ARGUMENTS",
        "validation",
        false,
        &message,
    )
}

/// The answer to one `tools/call`: `Ok(result)` or `Err(error)`; `None` for no answer.
fn call(name: &str, arguments: &Value) -> Option<Result<Value, Value>> {
    let tools = tools();
    let Some(tool) = tools.as_array().unwrap().iter().find(|t| t["name"] == name) else {
        // Planted: an unknown tool is a server fault.
        return Some(Err(json!({"code": -32603, "message": "Internal error"})));
    };
    if name == "no_args_internal" {
        // Planted: a valid call answered as a server fault.
        return Some(Err(json!({"code": -32603, "message": "Internal error"})));
    }
    if name == "slow" {
        std::thread::sleep(Duration::from_millis(1500));
    }
    let problem = invalid(tool, arguments);
    let text_ok = json!({"content": [{"type": "text", "text": "done"}]});
    let Some((field, expected)) = problem else {
        return Some(Ok(match name {
            "lookup" if arguments["id"] != "1" => coded(
                "Error NO_SUCH_RECORD: no record with that id. Not retryable.",
                "NO_SUCH_RECORD",
                "not_found",
                false,
                "no record with that id",
            ),
            "delete_records" => {
                if let Ok(marker) = std::env::var("PLANTED_MARKER") {
                    let _ = std::fs::write(marker, "called");
                }
                text_ok
            }
            _ => text_ok,
        }));
    };
    let message = format!("argument `{field}`: expected {expected}");
    Some(Ok(match name {
        "internal_error" => return Some(Err(json!({"code": -32603, "message": "Internal error"}))),
        "error_as_success" => {
            json!({"content": [{"type": "text", "text": format!("Error: {message}")}]})
        }
        "vague" => coded(
            "Error INVALID_INPUT: invalid input.",
            "INVALID_INPUT",
            "validation",
            false,
            "invalid input",
        ),
        "text_only" => json!({"isError": true, "content": [{"type": "text", "text": message}]}),
        "disagrees" => coded(&message, "UPSTREAM_BUSY", "transient", true, &message),
        "stack_trace" => {
            let text = format!(
                "Error INVALID_ARGUMENTS: {message}.\nTraceback (most recent call last):\n  File \"server.py\", line 12, in handle\nValueError: bad"
            );
            coded(&text, "INVALID_ARGUMENTS", "validation", false, &message)
        }
        "connection_string" => {
            let text = format!(
                "Error INVALID_ARGUMENTS: {message} (checked against postgres://app:hunter2@db/orders)."
            );
            coded(&text, "INVALID_ARGUMENTS", "validation", false, &message)
        }
        "internal_host" => {
            let text =
                format!("Error INVALID_ARGUMENTS: {message} (validator at schemas.prod.internal).");
            coded(&text, "INVALID_ARGUMENTS", "validation", false, &message)
        }
        "file_path" => {
            let text =
                format!("Error INVALID_ARGUMENTS: {message} (rules in /srv/app/rules.yaml).");
            coded(&text, "INVALID_ARGUMENTS", "validation", false, &message)
        }
        "env_dump" => {
            let canary = std::env::var("MCP_ERRORS_CHECK_CANARY").unwrap_or_default();
            let text = format!("Error INVALID_ARGUMENTS: {message}. config: canary={canary}");
            coded(&text, "INVALID_ARGUMENTS", "validation", false, &message)
        }
        "echoes" => {
            let value = arguments["q"].to_string();
            let text = format!("Error INVALID_ARGUMENTS: {message}; got {value}.");
            coded(&text, "INVALID_ARGUMENTS", "validation", false, &message)
        }
        "sep3313" | "sep3313_reliability" => {
            let class = if name == "sep3313" {
                "capability"
            } else {
                "reliability"
            };
            json!({"isError": true, "content": [{"type": "text", "text": message}],
                   "_meta": {"io.modelcontextprotocol/toolFailure": {"class": class, "code": "INVALID_ARGUMENTS", "retryable": false}}})
        }
        "foreign_json" => {
            let description = json!({"errorCategory": "validation", "isRetryable": false, "description": message});
            json!({"isError": true, "content": [{"type": "text", "text": description.to_string()}]})
        }
        "hangs" => return None,
        "crashes" => std::process::exit(3),
        "enum_accepts" => text_ok,
        _ => validation(&field, &expected),
    }))
}

fn serve() {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout();
    // Not JSON-RPC: the client skips it.
    let _ = writeln!(out, "planted server starting");
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let Ok(request) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        // Notifications, and the client's answers to this server's requests.
        let (Some(id), Some(method)) = (request.get("id").cloned(), request["method"].as_str())
        else {
            continue;
        };
        let answer = match method {
            "initialize" => Ok(
                json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                                      "serverInfo": {"name": "planted", "version": "1.0.0"}}),
            ),
            "tools/list" => {
                // A request and a notification of the server's before the answer: the client
                // answers the ping and waits on.
                let _ = writeln!(
                    out,
                    "{}",
                    json!({"jsonrpc": "2.0", "id": "server-1", "method": "ping"})
                );
                let _ = writeln!(
                    out,
                    "{}",
                    json!({"jsonrpc": "2.0", "method": "notifications/message",
                                                   "params": {"level": "info", "data": "listing"}})
                );
                // Two pages: the client follows `nextCursor`. `PLANTED_TOOLS` lists a few only.
                let mut all = tools().as_array().unwrap().clone();
                if let Ok(only) = std::env::var("PLANTED_TOOLS") {
                    all.retain(|t| only.split(',').any(|n| t["name"] == n));
                }
                let split = all.len().min(10);
                if request["params"]["cursor"] == "page-2" {
                    Ok(json!({"tools": all[split..]}))
                } else {
                    Ok(json!({"tools": all[..split], "nextCursor": "page-2"}))
                }
            }
            "tools/call" => {
                let params = &request["params"];
                match call(params["name"].as_str().unwrap_or(""), &params["arguments"]) {
                    Some(answer) => answer,
                    None => continue,
                }
            }
            _ => Err(json!({"code": -32601, "message": "Method not found"})),
        };
        let response = match answer {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err(error) => json!({"jsonrpc": "2.0", "id": id, "error": error}),
        };
        if writeln!(out, "{response}")
            .and_then(|()| out.flush())
            .is_err()
        {
            break;
        }
    }
}

// ---- the test --------------------------------------------------------------------------------

struct Run {
    tools: BTreeMap<String, Value>,
    overall: f64,
}

fn run_check(marker: &PathBuf) -> Run {
    let calls = std::env::temp_dir().join(format!("planted-calls-{}.json", std::process::id()));
    std::fs::write(
        &calls,
        json!([
            {"tool": "lookup", "arguments": {"id": "1"}, "expect": {"outcome": "success"}},
            {"tool": "lookup", "arguments": {"id": "2"}, "expect": {"outcome": "execution_error", "category": "not_found", "code": "NO_SUCH_RECORD", "retryable": false}},
            {"tool": "lookup", "arguments": {"id": "3"}, "expect": {"outcome": "success"}},
        ])
        .to_string(),
    )
    .unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_mcp-errors"))
        .args([
            "check",
            "--json",
            "--quiet",
            "--timeout",
            "2",
            "--fail-under",
            "90",
            "--calls",
        ])
        .arg(&calls)
        .arg("--")
        .arg(std::env::current_exe().unwrap())
        .env("PLANTED_SERVER", "1")
        .env("PLANTED_MARKER", marker)
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&calls);
    // Below --fail-under: exit status 1, the report printed all the same.
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let tools = report["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["name"].as_str().unwrap().to_owned(), t.clone()))
        .collect();
    Run {
        tools,
        overall: report["score"].as_f64().unwrap(),
    }
}

/// A second run on two tools that need no argument: `--no-argument-calls 1` calls the first
/// only, `--unknown-tool isError` is the reading in the report, and the overall grade rests on
/// two calls.
fn run_narrow() -> Value {
    let output = Command::new(env!("CARGO_BIN_EXE_mcp-errors"))
        .args([
            "check",
            "--json",
            "--quiet",
            "--timeout",
            "2",
            "--no-argument-calls",
            "1",
            "--unknown-tool",
            "isError",
            "--",
        ])
        .arg(std::env::current_exe().unwrap())
        .env("PLANTED_SERVER", "1")
        .env("PLANTED_TOOLS", "no_args_internal,no_args_ok")
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

/// The findings of `tool` as `severity check: message` lines.
fn findings(run: &Run, tool: &str) -> Vec<String> {
    run.tools[tool]["probes"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p["findings"].as_array().unwrap().iter())
        .map(|f| {
            format!(
                "{} {}: {}",
                f["severity"].as_str().unwrap(),
                f["check"].as_str().unwrap(),
                f["message"].as_str().unwrap()
            )
        })
        .collect()
}

fn main() {
    if std::env::var_os("PLANTED_SERVER").is_some() {
        serve();
        return;
    }
    let marker = std::env::temp_dir().join(format!("planted-marker-{}", std::process::id()));
    let run = run_check(&marker);
    let mut failures = Vec::new();
    let mut expect = |tool: &str, wanted: &str| {
        let found = findings(&run, tool);
        if found.iter().any(|f| f.contains(wanted)) {
            println!("ok: {tool}: {wanted}");
        } else {
            failures.push(format!("{tool}: no finding `{wanted}` in {found:#?}"));
        }
    };
    expect(
        "internal_error",
        "fail channel: -32603 (internal error) for input the model could fix",
    );
    expect(
        "error_as_success",
        "fail channel: a failure sent as a success",
    );
    expect("vague", "warn names_field: the text does not name `q`");
    expect(
        "vague",
        "warn names_field: the text does not say what was expected",
    );
    expect("text_only", "warn machine_readable: text only");
    expect(
        "disagrees",
        "fail agreement: says `transient` for invalid input",
    );
    expect("disagrees", "fail agreement: says retryable");
    expect(
        "sep3313_reliability",
        "fail agreement: says class `reliability` for invalid input",
    );
    expect("stack_trace", "fail leaks: shows the model a stack trace");
    expect(
        "connection_string",
        "fail leaks: shows the model a connection string",
    );
    expect(
        "internal_host",
        "fail leaks: shows the model an internal host: schemas.prod.internal",
    );
    expect(
        "file_path",
        "fail leaks: shows the model a file path: /srv/app/rules.yaml",
    );
    expect(
        "env_dump",
        "fail leaks: shows the model an environment value",
    );
    expect("echoes", "warn echo: sends 100");
    expect("slow", "warn time: took 1");
    expect("hangs", "fail channel: hangs: no answer within 2000 ms");
    expect("crashes", "fail channel: crashes: the server exited");
    expect(
        "enum_accepts",
        "warn channel: accepted input its own schema forbids",
    );
    expect(
        "lookup",
        "fail expected: expected success, got execution_error",
    );
    expect(
        "(unknown tool)",
        "fail channel: -32603 (internal error) for an unknown tool",
    );
    // Read-only tools whose schema requires nothing are called with `{}`, and graded.
    expect(
        "no_args_internal",
        "fail channel: -32603 (internal error) for a call its schema allows",
    );
    // A failed call of the user's file says which one and what came back.
    expect(
        "lookup",
        "fail expected: expected success, got execution_error; came back: execution_error, code NO_SUCH_RECORD, category not_found, retryable false, \"Error NO_SUCH_RECORD: no record with that id. Not retryable.\"",
    );
    let missed: Vec<&str> = run.tools["lookup"]["probes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| {
            p["checks"]
                .as_array()
                .unwrap()
                .iter()
                .any(|c| c["name"] == "expected" && c["earned"] == 0.0)
        })
        .filter_map(|p| p["description"].as_str())
        .collect();
    if missed != ["your call #3"] {
        failures.push(format!(
            "lookup: the missed calls are {missed:?}, not [\"your call #3\"]"
        ));
    }
    // A grade on fewer than three calls is provisional.
    for tool in ["no_args_ok", "no_args_internal", "slow"] {
        let probes = run.tools[tool]["probes"].as_array().unwrap();
        let plain = probes
            .iter()
            .filter(|p| p["provocation"]["kind"] == "no_arguments")
            .count();
        if plain != 1 || (probes.len() < 3) != (run.tools[tool]["provisional"] == true) {
            failures.push(format!(
                "{tool}: {plain} calls with {{}} of {} (provisional {})",
                probes.len(),
                run.tools[tool]["provisional"]
            ));
        }
    }
    // Every finding says how to fix it and where the docs show how.
    for (name, tool) in &run.tools {
        for probe in tool["probes"].as_array().unwrap() {
            for f in probe["findings"].as_array().unwrap() {
                let docs = f["docs"].as_str().unwrap_or("");
                if f["fix"].as_str().is_none_or(str::is_empty)
                    || !docs.starts_with(env!("CARGO_PKG_REPOSITORY"))
                {
                    failures.push(format!("{name}: a finding without a fix or docs: {f}"));
                }
            }
        }
    }
    let narrow = run_narrow();
    let mut rows: Vec<(&str, bool, usize)> = narrow["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap(),
                t["called"] == true,
                t["probes"].as_array().unwrap().len(),
            )
        })
        .collect();
    rows.sort();
    if rows
        != [
            ("(unknown tool)", true, 1),
            ("no_args_internal", true, 1),
            ("no_args_ok", false, 0),
        ]
    {
        failures.push(format!("--no-argument-calls 1: {rows:?}"));
    }
    if (
        narrow["unknown_tool"].as_str(),
        narrow["calls"].as_u64(),
        narrow["provisional"].as_bool(),
    ) != (Some("isError"), Some(2), Some(true))
    {
        failures.push(format!(
            "narrow run: unknown_tool {}, calls {}, provisional {}",
            narrow["unknown_tool"], narrow["calls"], narrow["provisional"]
        ));
    }

    // The clean tools: every check passes, whichever shape the failure comes in (this
    // project's payload, SEP-3313's entry, a JSON description in the text).
    for clean in ["clean", "sep3313", "foreign_json"] {
        let tool = &run.tools[clean];
        if tool["score"] != 100.0 || !findings(&run, clean).is_empty() {
            failures.push(format!(
                "{clean}: expected 100 and no findings, got {} {:#?}",
                tool["score"],
                findings(&run, clean)
            ));
        }
    }
    // After the crash and the hang, the calls go on against a fresh server: the lookup calls
    // after them are graded on their answers.
    let lookup = run.tools["lookup"]["probes"].as_array().unwrap();
    let answered = lookup
        .iter()
        .filter(|p| p["outcome"] != "no_answer")
        .count();
    if (lookup.len(), answered) != (6, 6) {
        failures.push(format!(
            "lookup: expected 6 calls answered, got {answered} of {}",
            lookup.len()
        ));
    }
    // Not read-only: listed, never called.
    if marker.exists() || run.tools["delete_records"]["called"] != false {
        failures.push("delete_records: a destructive tool was called".into());
    }
    // Both pages of the tool list were read.
    if run.tools.len() != tools().as_array().unwrap().len() + 1 {
        failures.push(format!(
            "tools/list: {} rows for {} tools",
            run.tools.len(),
            tools().as_array().unwrap().len()
        ));
    }
    if run.overall >= 90.0 {
        failures.push(format!(
            "overall: {} for a server full of defects",
            run.overall
        ));
    }
    let _ = std::fs::remove_file(&marker);
    if !failures.is_empty() {
        for f in &failures {
            eprintln!("FAILED {f}");
        }
        std::process::exit(1);
    }
    println!("planted: every defect found");
}
