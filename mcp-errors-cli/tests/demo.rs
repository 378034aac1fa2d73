//! demo-server grades as the best case, over stdio and over Streamable HTTP: every tool it
//! lists called, 100 for each, no finding worse than a note.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::Value;

/// demo-server, beside this package's binary in the target directory. `cargo test
/// --workspace` builds it; a run of this package alone builds it here.
fn demo_server() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_BIN_EXE_mcp-errors"))
        .parent()
        .unwrap()
        .to_owned();
    let server = dir.join(format!("demo-server{}", std::env::consts::EXE_SUFFIX));
    if !server.exists() {
        let status = Command::new(env!("CARGO"))
            .args([
                "build",
                "--quiet",
                "-p",
                "mcp-errors-examples",
                "--bin",
                "demo-server",
            ])
            .status()
            .unwrap();
        assert!(status.success(), "building demo-server failed");
    }
    server
}

fn check(args: &[String]) -> Value {
    let output = Command::new(env!("CARGO_BIN_EXE_mcp-errors"))
        .arg("check")
        .args(["--json", "--quiet"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

/// Checks `target` once to learn the tool names, then again with every tool allowed.
fn grade_all(target: &[String]) -> Value {
    let first = check(target);
    let mut args: Vec<String> = Vec::new();
    for tool in first["tools"].as_array().unwrap() {
        let name = tool["name"].as_str().unwrap();
        if name != "(unknown tool)" {
            args.extend(["--allow".into(), name.into()]);
        }
    }
    args.extend(target.iter().cloned());
    check(&args)
}

fn assert_best(report: &Value) {
    let mut problems = Vec::new();
    for tool in report["tools"].as_array().unwrap() {
        let name = tool["name"].as_str().unwrap();
        if tool["called"] != true {
            problems.push(format!("{name}: not called"));
        }
        if !tool["score"].is_null() && tool["score"] != 100.0 {
            problems.push(format!("{name}: {}", tool["score"]));
        }
        for probe in tool["probes"].as_array().unwrap() {
            for finding in probe["findings"].as_array().unwrap() {
                if finding["severity"] != "info" {
                    problems.push(format!(
                        "{name}: {}: {}",
                        probe["description"], finding["message"]
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
    assert_eq!(report["score"], 100.0);
    assert_eq!(report["grade"], "A");
    // Every kind of provocation ran at least once.
    let kinds: Vec<&str> = report["tools"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t["probes"].as_array().unwrap())
        .filter_map(|p| p["provocation"]["kind"].as_str())
        .collect();
    for kind in ["missing_required", "wrong_type", "oversize", "unknown_tool"] {
        assert!(kinds.contains(&kind), "no {kind} provocation in {kinds:?}");
    }
}

#[test]
fn demo_server_over_stdio_is_the_best_case() {
    let server = demo_server();
    let report = grade_all(&["--".into(), server.display().to_string()]);
    assert_best(&report);
}

#[test]
fn demo_server_over_http_is_the_best_case() {
    let server = demo_server();
    let mut child = Command::new(&server)
        .args(["--http", "127.0.0.1:0"])
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    // Read stderr to its end in a thread, so the server never blocks on a full pipe.
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(found) = line.strip_prefix("demo-server: listening on ") {
                let _ = tx.send(found.to_owned());
            }
        }
    });
    let url = rx.recv_timeout(std::time::Duration::from_secs(30)).ok();
    let url = url.expect("demo-server --http printed no URL");
    let report = grade_all(&["--url".into(), url]);
    let _ = child.kill();
    let _ = child.wait();
    assert_best(&report);
}

/// The terminal report, run with `env`: its stdout and exit status.
fn terminal(server: &PathBuf, env: &[(&str, &str)], args: &[&str]) -> (String, Option<i32>) {
    let output = Command::new(env!("CARGO_BIN_EXE_mcp-errors"))
        .args(["check", "--quiet"])
        .args(args)
        .arg("--")
        .arg(server)
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .envs(env.iter().copied())
        .output()
        .unwrap();
    (
        String::from_utf8(output.stdout).unwrap(),
        output.status.code(),
    )
}

#[test]
fn colour_only_when_forced_and_never_with_no_color() {
    let server = demo_server();
    let (piped, _) = terminal(&server, &[], &[]);
    assert!(piped.contains("overall: A (100.0/100)"), "{piped}");
    assert!(!piped.contains('\x1b'), "colour on a pipe: {piped:?}");
    let (forced, _) = terminal(&server, &[("CLICOLOR_FORCE", "1")], &[]);
    assert!(forced.contains('\x1b'), "{forced:?}");
    let (no_color, _) = terminal(&server, &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")], &[]);
    assert!(
        !no_color.contains('\x1b'),
        "colour with NO_COLOR: {no_color:?}"
    );
}

#[test]
fn fail_under_sets_the_exit_status() {
    let server = demo_server();
    // Nothing allowed: the unknown-tool call alone is graded, at 100.
    assert_eq!(terminal(&server, &[], &["--fail-under", "100"]).1, Some(0));
    assert_eq!(
        terminal(&server, &[], &["--fail-under", "100.5"]).1,
        Some(1)
    );
}
