//! `mcp-errors check` against servers that attack their client (`tests/hostile/server.py`):
//! terminal escapes in every string, answers without end, floods of requests, a server that
//! stops reading, contradictory annotations. Each run is bounded in time.

use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

/// Longer than any run here should take; a run still going then has hung.
const LIMIT: Duration = Duration::from_secs(30);

/// The cap on one message (`MAX_MESSAGE_BYTES` in the CLI).
const CAP: usize = 4 << 20;
/// What a server may have written beyond what the check read: a pipe's buffer and the
/// server's last megabyte; a loopback socket's buffers, which the kernel sizes, hold more.
const PIPE_SLACK: usize = 2 << 20;
const SOCKET_SLACK: usize = 16 << 20;

fn server() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/hostile/server.py")
}

/// A fresh file name for the server's log.
fn log_path(mode: &str) -> PathBuf {
    let path =
        std::env::temp_dir().join(format!("mcp-errors-hostile-{mode}-{}", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path
}

struct Output {
    status: Option<i32>,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    elapsed: Duration,
}

/// One run at a time: a loaded machine would make a server's start miss the timeout.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Runs `command` to its end, killing it (and failing) after [`LIMIT`].
fn run(mut command: Command) -> Output {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let started = Instant::now();
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let drain = |mut r: Box<dyn Read + Send>| {
        thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = r.read_to_end(&mut bytes);
            bytes
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("mcp-errors check still running after {} s", LIMIT.as_secs());
        }
        thread::sleep(Duration::from_millis(20));
    };
    Output {
        status: status.code(),
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
        elapsed: started.elapsed(),
    }
}

fn check_command(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcp-errors"));
    command.arg("check").args(args).env("NO_COLOR", "1");
    command
}

/// `mcp-errors check --json --quiet --timeout 2 -- python3 server.py MODE LOG`.
fn check_stdio(mode: &str, log: &PathBuf, args: &[&str]) -> (Value, Output) {
    let mut command = check_command(&["--json", "--quiet", "--timeout", "2"]);
    command
        .args(args)
        .arg("--")
        .arg("python3")
        .arg(server())
        .arg(mode)
        .arg(log);
    let output = run(command);
    assert_eq!(
        output.status,
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report = serde_json::from_slice(&output.stdout).unwrap();
    (report, output)
}

/// Every finding's message, as `TOOL: severity check: message`.
fn findings(report: &Value) -> Vec<String> {
    let mut all = Vec::new();
    for tool in report["tools"].as_array().unwrap() {
        for probe in tool["probes"].as_array().unwrap() {
            for f in probe["findings"].as_array().unwrap() {
                all.push(format!(
                    "{}: {} {}: {}",
                    tool["name"].as_str().unwrap(),
                    f["severity"].as_str().unwrap(),
                    f["check"].as_str().unwrap(),
                    f["message"].as_str().unwrap()
                ));
            }
        }
    }
    all
}

fn assert_finding(report: &Value, wanted: &str) {
    let all = findings(report);
    assert!(
        all.iter().any(|f| f.contains(wanted)),
        "no finding `{wanted}` in {all:#?}"
    );
}

/// The most bytes a server of `mode` wrote to its log (one count a line or the whole file).
fn bytes_sent(log: &PathBuf) -> usize {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .max()
        .unwrap_or(0)
}

#[test]
fn a_line_without_end_is_read_to_the_cap_only() {
    let log = log_path("long-line");
    let (report, output) = check_stdio("long-line", &log, &[]);
    let sent = bytes_sent(&log);
    let _ = std::fs::remove_file(&log);
    assert_finding(
        &report,
        "fail channel: sends too much: a message over 4194304 bytes",
    );
    assert!(
        sent <= CAP + PIPE_SLACK,
        "the server wrote {sent} bytes of a 64 MiB line: read past the cap"
    );
    assert!(
        output.elapsed < Duration::from_secs(15),
        "{:?}",
        output.elapsed
    );
}

#[test]
fn a_flood_of_server_requests_is_a_finding_not_a_hang() {
    let log = log_path("ping-flood");
    let (report, _) = check_stdio("ping-flood", &log, &[]);
    assert_finding(
        &report,
        "lookup: fail channel: floods the client: more than 100 requests of its own",
    );
}

#[test]
fn a_server_that_stops_reading_costs_a_timeout_per_call() {
    let log = log_path("deaf");
    let (report, output) = check_stdio("deaf", &log, &[]);
    let _ = std::fs::remove_file(&log);
    // The oversize value (100,000 characters) is more than a pipe holds.
    let oversize = report["tools"][0]["probes"]
        .as_array()
        .unwrap()
        .iter()
        .chain(report["tools"][1]["probes"].as_array().unwrap())
        .find(|p| p["description"] == "`q` oversize")
        .cloned()
        .unwrap_or_else(|| panic!("no oversize call in {report:#}"));
    assert_eq!(oversize["outcome"], "no_answer", "{oversize:#}");
    assert!(
        output.elapsed < Duration::from_secs(15),
        "{:?}",
        output.elapsed
    );
}

#[test]
fn initialize_is_bounded_by_the_timeout() {
    // `sleep` never answers.
    let output = run(check_command(&[
        "--quiet",
        "--timeout",
        "1",
        "--",
        "sleep",
        "60",
    ]));
    assert_eq!(output.status, Some(2));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("initialize: no answer within 1000 ms"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        output.elapsed < Duration::from_secs(5),
        "{:?}",
        output.elapsed
    );
}

/// Starts the HTTP server of `mode`, returns it and its URL.
fn http_server(mode: &str, log: &PathBuf) -> (Child, String) {
    let mut child = Command::new("python3")
        .arg(server())
        .arg(mode)
        .arg(log)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut port = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut port)
        .unwrap();
    (child, format!("http://127.0.0.1:{}/mcp", port.trim()))
}

fn check_http_endless(mode: &str) {
    let log = log_path(mode);
    let (mut server, url) = http_server(mode, &log);
    let output = run(check_command(&[
        "--json",
        "--quiet",
        "--timeout",
        "2",
        "--url",
        &url,
    ]));
    let _ = server.kill();
    let _ = server.wait();
    let sent = bytes_sent(&log);
    let _ = std::fs::remove_file(&log);
    assert_eq!(
        output.status,
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_finding(
        &report,
        "fail channel: sends too much: a message over 4194304 bytes",
    );
    assert!(
        sent <= CAP + SOCKET_SLACK,
        "the server wrote {sent} bytes of a 64 MiB answer: read past the cap"
    );
}

#[test]
fn an_http_body_without_end_is_read_to_the_cap_only() {
    check_http_endless("http-body");
}

#[test]
fn an_sse_data_line_without_end_is_read_to_the_cap_only() {
    check_http_endless("http-sse");
}

#[test]
fn an_sse_stream_that_never_answers_costs_the_timeout() {
    let log = log_path("http-drip");
    let (mut server, url) = http_server("http-drip", &log);
    let output = run(check_command(&[
        "--json",
        "--quiet",
        "--timeout",
        "1",
        "--url",
        &url,
    ]));
    let _ = server.kill();
    let _ = server.wait();
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_finding(
        &report,
        "lookup: fail channel: hangs: no answer within 1000 ms",
    );
    assert!(
        output.elapsed < Duration::from_secs(10),
        "{:?}",
        output.elapsed
    );
}

/// Whether `c` is one no server string may bring to the terminal or the JSON output.
fn is_hostile(c: char) -> bool {
    (c.is_control() && c != '\n')
        || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{E0000}'..='\u{E007F}')
}

#[test]
fn server_strings_reach_no_terminal_raw() {
    let log = log_path("ansi");
    // Forced colour: the terminal report as a terminal gets it, escapes of its own included.
    let mut command = check_command(&["--timeout", "2", "--", "python3"]);
    command
        .arg(server())
        .arg("ansi")
        .arg(&log)
        .env_remove("NO_COLOR")
        .env("CLICOLOR_FORCE", "1");
    let output = run(command);
    assert_eq!(output.status, Some(0));
    let stdout = String::from_utf8(output.stdout).unwrap();
    // The report's own colours are the only escapes: `ESC [ digits ; m`.
    let mut rest = stdout.as_str();
    while let Some(at) = rest.find('\u{1b}') {
        rest = &rest[at + 1..];
        let end = rest.find('m').unwrap_or(0);
        assert!(
            rest.starts_with('[')
                && rest[1..end]
                    .bytes()
                    .all(|b| b.is_ascii_digit() || b == b';'),
            "an escape not of the report's own: {:?}",
            rest.chars().take(40).collect::<String>()
        );
    }
    let plain: String = stdout
        .split('\u{1b}')
        .enumerate()
        .map(|(i, s)| {
            if i == 0 {
                s
            } else {
                &s[s.find('m').unwrap() + 1..]
            }
        })
        .collect();
    let bad: Vec<char> = plain.chars().filter(|&c| is_hostile(c)).collect();
    assert!(bad.is_empty(), "stdout carries {bad:?}:\n{plain}");
    // The server named by its serverInfo, cleaned.
    assert!(plain.contains("hostile"), "{plain}");
    assert!(plain.contains("6.6.6"), "{plain}");
    let stderr = String::from_utf8(output.stderr).unwrap();
    let bad: Vec<char> = stderr.chars().filter(|&c| is_hostile(c)).collect();
    assert!(bad.is_empty(), "stderr carries {bad:?}:\n{stderr}");
    assert!(stderr.contains("hostile"), "{stderr}");

    let (report, output) = check_stdio("ansi", &log, &[]);
    let _ = std::fs::remove_file(&log);
    let json = String::from_utf8(output.stdout).unwrap();
    let bad: Vec<char> = json.chars().filter(|&c| is_hostile(c)).collect();
    assert!(bad.is_empty(), "the JSON report carries {bad:?}");
    let escaped: Vec<&str> = json.matches("\\u00").collect();
    assert!(
        escaped.is_empty(),
        "the JSON report escapes control characters: {json}"
    );
    assert!(
        report["server"]["name"]
            .as_str()
            .unwrap()
            .starts_with("hostile")
    );
    assert!(report["tools"].as_array().unwrap().len() >= 2, "{report:#}");
}

#[test]
fn contradictory_and_duplicated_tools_are_not_called() {
    let log = log_path("annotations");
    let (report, _) = check_stdio("annotations", &log, &[]);
    let called = std::fs::read_to_string(&log).unwrap_or_default();
    let _ = std::fs::remove_file(&log);
    assert_eq!(
        called, "",
        "the server logged calls of tools it must not get"
    );
    let tool = |name: &str| {
        report["tools"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["name"] == name)
            .cloned()
            .collect::<Vec<_>>()
    };
    assert_eq!(tool("both")[0]["called"], false, "{report:#}");
    assert_eq!(tool("twice").len(), 1, "one row for a name listed twice");
    assert_eq!(tool("twice")[0]["called"], false);
    assert_eq!(tool("plain")[0]["called"], true);
    assert!(
        tool("twice")[0]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["message"].as_str().unwrap().contains("listed 2 times")),
        "{report:#}"
    );
}

#[test]
fn a_large_failure_is_measured_whole() {
    let log = log_path("big-failure");
    let (report, _) = check_stdio("big-failure", &log, &[]);
    assert_finding(&report, "lookup: fail size: a failure of 2");
    let largest = report["largest_failure"]["bytes"].as_u64().unwrap();
    assert!(largest > 20_000, "{report:#}");
}
