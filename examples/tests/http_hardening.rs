//! `demo-server --http` as a deployment meets it: foreign origins and hosts, oversized bodies,
//! clients that send their headers slowly, more sessions than the server keeps. Each test
//! starts the real binary on 127.0.0.1 and speaks plain HTTP/1.1 over a `TcpStream`.

mod support;

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::time::{Duration, Instant};

use support::HttpServer;

/// The server's default `--max-body-bytes`.
const MAX_BODY_BYTES: usize = 1024 * 1024;
/// How long a test waits for anything the server should do quickly.
const PATIENCE: Duration = Duration::from_secs(10);

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
const TOOLS_LIST: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;

/// A running `demo-server --http 127.0.0.1:0`, killed when the test ends.
struct Server {
    http: HttpServer,
}

impl Server {
    fn start(extra: &[&str]) -> Server {
        Server {
            http: HttpServer::start(extra, ""),
        }
    }

    fn connect(&self) -> TcpStream {
        let stream = TcpStream::connect(&self.http.addr).expect("connects");
        stream.set_read_timeout(Some(PATIENCE)).unwrap();
        stream
    }

    /// POST `/mcp` with the headers a Streamable HTTP client sends, plus `extra`.
    fn post(&self, extra: &[(&str, &str)], body: &[u8]) -> Reply {
        self.send("POST", extra, body)
    }

    fn send(&self, method: &str, extra: &[(&str, &str)], body: &[u8]) -> Reply {
        let mut request = format!(
            "{method} /mcp HTTP/1.1\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
             Connection: close\r\n",
            body.len()
        );
        if !extra
            .iter()
            .any(|(name, _)| name.eq_ignore_ascii_case("host"))
        {
            request.push_str(&format!("Host: {}\r\n", self.http.addr));
        }
        for (name, value) in extra {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        request.push_str("\r\n");
        let mut stream = self.connect();
        stream.write_all(request.as_bytes()).unwrap();
        stream.write_all(body).unwrap();
        Reply::read(stream)
    }

    /// Opens a session: initialize, then the initialized notification.
    fn open_session(&self) -> String {
        let reply = self.post(&[], INITIALIZE.as_bytes());
        assert_eq!(reply.status, 200, "{reply:?}");
        assert!(reply.body.contains("mcp-errors-demo"), "{reply:?}");
        let id = reply
            .header("mcp-session-id")
            .unwrap_or_else(|| panic!("no session id: {reply:?}"))
            .to_owned();
        let notified = self.post(&[("Mcp-Session-Id", &id)], INITIALIZED.as_bytes());
        assert_eq!(notified.status, 202, "{notified:?}");
        id
    }
}

#[derive(Debug)]
struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Reply {
    /// Reads until the server closes (`Connection: close`) or, for an SSE stream that stays
    /// open, until one JSON-RPC message has arrived.
    fn read(mut stream: TcpStream) -> Reply {
        let mut bytes = Vec::new();
        let mut buf = [0; 8192];
        loop {
            match stream.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => bytes.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => panic!(
                    "reading the reply: {e}; so far: {:?}",
                    String::from_utf8_lossy(&bytes)
                ),
            }
            let text = String::from_utf8_lossy(&bytes);
            if text.contains("\"jsonrpc\"") && text.ends_with("\n\n") {
                break;
            }
        }
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let (head, body) = text
            .split_once("\r\n\r\n")
            .unwrap_or_else(|| panic!("no complete head: {text:?}"));
        let mut lines = head.lines();
        let status = lines
            .next()
            .and_then(|line| line.split(' ').nth(1))
            .and_then(|code| code.parse().ok())
            .unwrap_or_else(|| panic!("no status line: {text:?}"));
        let headers = lines
            .filter_map(|line| line.split_once(':'))
            .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
            .collect();
        Reply {
            status,
            headers,
            body: body.to_owned(),
        }
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

#[test]
fn a_foreign_origin_is_refused_with_403() {
    let server = Server::start(&[]);
    for origin in [
        "http://evil.example",
        "https://attacker.example:443",
        "http://127.0.0.1.evil.example:8080",
        "null",
    ] {
        let reply = server.post(&[("Origin", origin)], INITIALIZE.as_bytes());
        assert_eq!(reply.status, 403, "Origin {origin}: {reply:?}");
        assert_eq!(reply.header("mcp-session-id"), None, "Origin {origin}");
    }
}

#[test]
fn no_origin_and_loopback_origins_may_initialize() {
    let server = Server::start(&[]);
    let none = server.post(&[], INITIALIZE.as_bytes());
    assert_eq!(none.status, 200, "{none:?}");
    for origin in [
        "http://127.0.0.1:5173",
        "http://localhost:3000",
        "http://[::1]:8080",
    ] {
        let reply = server.post(&[("Origin", origin)], INITIALIZE.as_bytes());
        assert_eq!(reply.status, 200, "Origin {origin}: {reply:?}");
        assert!(reply.body.contains("mcp-errors-demo"), "{reply:?}");
    }
}

#[test]
fn allow_origin_adds_an_origin_and_its_port_is_matched() {
    let server = Server::start(&[
        "--allow-origin",
        "https://app.example:443",
        "--allow-origin",
        "http://dev.example:*",
    ]);
    for (origin, status) in [
        ("https://app.example", 200),
        ("https://app.example:443", 200),
        ("https://app.example:8443", 403),
        ("http://dev.example:1234", 200),
        ("http://other.example:1234", 403),
    ] {
        let reply = server.post(&[("Origin", origin)], INITIALIZE.as_bytes());
        assert_eq!(reply.status, status, "Origin {origin}: {reply:?}");
    }
}

#[test]
fn a_foreign_host_is_refused_unless_allowed() {
    let plain = Server::start(&[]);
    let refused = plain.post(&[("Host", "mcp.example:8080")], INITIALIZE.as_bytes());
    assert_eq!(refused.status, 403, "{refused:?}");

    let allowing = Server::start(&["--allow-host", "mcp.example"]);
    let admitted = allowing.post(&[("Host", "mcp.example:8080")], INITIALIZE.as_bytes());
    assert_eq!(admitted.status, 200, "{admitted:?}");
}

/// An initialize padded with trailing whitespace (still valid JSON) to exactly `len` bytes.
fn padded_initialize(len: usize) -> Vec<u8> {
    let mut body = INITIALIZE.as_bytes().to_vec();
    body.resize(len, b' ');
    body
}

#[test]
fn a_body_over_one_mebibyte_gets_413_and_one_at_the_limit_is_served() {
    let server = Server::start(&[]);
    let at_limit = server.post(&[], &padded_initialize(MAX_BODY_BYTES));
    assert_eq!(at_limit.status, 200, "{at_limit:?}");

    let over = server.post(&[], &padded_initialize(MAX_BODY_BYTES + 1));
    assert_eq!(over.status, 413, "{over:?}");
    assert_eq!(over.header("mcp-session-id"), None);
}

#[test]
fn max_body_bytes_sets_the_limit() {
    let server = Server::start(&["--max-body-bytes", "1000"]);
    let at_limit = server.post(&[], &padded_initialize(1000));
    assert_eq!(at_limit.status, 200, "{at_limit:?}");
    let over = server.post(&[], &padded_initialize(1001));
    assert_eq!(over.status, 413, "{over:?}");
}

#[test]
fn a_client_trickling_its_headers_is_disconnected() {
    let server = Server::start(&["--header-timeout", "300ms"]);
    let mut stream = server.connect();
    stream
        .set_read_timeout(Some(Duration::from_millis(50)))
        .unwrap();
    // One byte every 50 ms: without a header timeout this goes on for as long as the client likes.
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nX-Padding: ",
        server.http.addr
    );
    let mut bytes = request.bytes().chain(std::iter::repeat(b'a'));
    let started = Instant::now();
    let closed = loop {
        if started.elapsed() > PATIENCE {
            break false;
        }
        if stream.write_all(&[bytes.next().unwrap_or(b'a')]).is_err() {
            break true;
        }
        match stream.read(&mut [0; 256]) {
            Ok(0) => break true,
            Ok(_) => panic!("the server answered headers it never got"),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
            Err(_) => break true,
        }
    };
    assert!(closed, "the connection was still open after {PATIENCE:?}");

    // The timeout closes slow clients only: a whole request is served.
    let reply = server.post(&[], INITIALIZE.as_bytes());
    assert_eq!(reply.status, 200, "{reply:?}");
}

#[test]
fn an_initialize_beyond_max_sessions_gets_503_while_open_sessions_work() {
    let server = Server::start(&["--max-sessions", "2"]);
    let first = server.open_session();
    let _second = server.open_session();

    let refused = server.post(&[], INITIALIZE.as_bytes());
    assert_eq!(refused.status, 503, "{refused:?}");
    assert!(refused.header("retry-after").is_some(), "{refused:?}");
    assert_eq!(refused.header("mcp-session-id"), None);

    let listed = server.post(&[("Mcp-Session-Id", &first)], TOOLS_LIST.as_bytes());
    assert_eq!(listed.status, 200, "{listed:?}");
    assert!(listed.body.contains("search_docs"), "{listed:?}");

    // Closing a session frees its slot.
    let deleted = server.send("DELETE", &[("Mcp-Session-Id", &first)], b"");
    assert!(deleted.status < 300, "{deleted:?}");
    let admitted = server.post(&[], INITIALIZE.as_bytes());
    assert_eq!(admitted.status, 200, "{admitted:?}");
}

#[test]
fn an_idle_session_ends_and_frees_its_slot() {
    let server = Server::start(&["--max-sessions", "1", "--session-idle", "300ms"]);
    let idle = server.open_session();
    let started = Instant::now();
    loop {
        let reply = server.post(&[("Mcp-Session-Id", &idle)], TOOLS_LIST.as_bytes());
        if reply.status == 404 {
            break;
        }
        assert_eq!(reply.status, 200, "{reply:?}");
        assert!(
            started.elapsed() < PATIENCE,
            "the session was still open after {PATIENCE:?}"
        );
        // Each call resets the idle clock; wait past it.
        std::thread::sleep(Duration::from_millis(500));
    }
    let admitted = server.post(&[], INITIALIZE.as_bytes());
    assert_eq!(admitted.status, 200, "{admitted:?}");
}

#[test]
fn malformed_http_options_are_refused_at_startup() {
    for args in [
        ["--allow-origin", "app.example"],
        ["--allow-origin", "https://app.example/path"],
        ["--header-timeout", "0s"],
        ["--header-timeout", "10"],
        ["--session-idle", "five"],
        ["--max-sessions", "0"],
        ["--max-body-bytes", "-1"],
    ] {
        let output = Command::new(env!("CARGO_BIN_EXE_demo-server"))
            .args(["--http", "127.0.0.1:0"])
            .args(args)
            .output()
            .expect("demo-server runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(args[0]), "{args:?}: {stderr}");
    }
}
