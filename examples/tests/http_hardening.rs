//! `demo-server --http` as a deployment meets it: foreign origins and hosts, oversized bodies,
//! clients that send their headers or bodies slowly, more sessions, connections or SSE streams
//! than the server keeps or one client may hold, a new client at a server others keep full. Each test starts the real binary on
//! 127.0.0.1 and speaks plain HTTP/1.1 over a `TcpStream`; a test that needs several clients
//! binds their sockets to other loopback addresses (127.0.0.2, 127.0.0.3), which Linux routes
//! to the loopback interface.

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
        self.send_on(self.connect(), method, extra, body)
    }

    /// POST `/mcp` from a socket bound to the loopback address `local`.
    fn post_from(&self, local: &str, extra: &[(&str, &str)], body: &[u8]) -> Reply {
        self.send_on(self.connect_from(local), "POST", extra, body)
    }

    fn send_on(
        &self,
        mut stream: TcpStream,
        method: &str,
        extra: &[(&str, &str)],
        body: &[u8],
    ) -> Reply {
        stream
            .write_all(&self.head(method, extra, body.len()))
            .unwrap();
        stream.write_all(body).unwrap();
        Reply::read(stream)
    }

    /// A request's head with the headers a Streamable HTTP client sends, plus `extra`.
    fn head(&self, method: &str, extra: &[(&str, &str)], body_len: usize) -> Vec<u8> {
        let mut request = format!(
            "{method} /mcp HTTP/1.1\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: {body_len}\r\n\
             Connection: close\r\n"
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
        request.into_bytes()
    }

    /// A connection from the loopback address `local` (std cannot bind before connecting).
    fn connect_from(&self, local: &str) -> TcpStream {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .build()
            .unwrap();
        let stream = runtime.block_on(async {
            let socket = tokio::net::TcpSocket::new_v4().unwrap();
            socket
                .bind(format!("{local}:0").parse().unwrap())
                .unwrap_or_else(|e| panic!("binding {local}: {e}"));
            let stream = socket
                .connect(self.http.addr.parse().unwrap())
                .await
                .expect("connects");
            stream.into_std().unwrap()
        });
        stream.set_nonblocking(false).unwrap();
        stream.set_read_timeout(Some(PATIENCE)).unwrap();
        stream
    }

    /// Opens a GET `/mcp` SSE stream of `session` and reads its head: the status, and the
    /// connection, which stays open for a 200.
    fn open_stream(&self, session: &str) -> (u16, TcpStream) {
        let mut stream = self.connect();
        let request = format!(
            "GET /mcp HTTP/1.1\r\nHost: {}\r\nAccept: text/event-stream\r\n\
             Mcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-06-18\r\n\r\n",
            self.http.addr
        );
        stream.write_all(request.as_bytes()).unwrap();
        let mut head = Vec::new();
        let mut byte = [0];
        while !head.ends_with(b"\r\n\r\n") {
            match stream.read(&mut byte) {
                Ok(1) => head.push(byte[0]),
                other => panic!("reading the stream's head: {other:?}; so far {head:?}"),
            }
        }
        let head = String::from_utf8_lossy(&head);
        let status = head
            .split(' ')
            .nth(1)
            .and_then(|code| code.parse().ok())
            .unwrap_or_else(|| panic!("no status line: {head:?}"));
        (status, stream)
    }

    /// Opens a session: initialize, then the initialized notification.
    fn open_session(&self) -> String {
        self.open_session_from("127.0.0.1")
    }

    /// Opens a session from the loopback address `local`.
    fn open_session_from(&self, local: &str) -> String {
        let reply = self.post_from(local, &[], INITIALIZE.as_bytes());
        assert_eq!(reply.status, 200, "{reply:?}");
        assert!(reply.body.contains("mcp-errors-demo"), "{reply:?}");
        let id = reply
            .header("mcp-session-id")
            .unwrap_or_else(|| panic!("no session id: {reply:?}"))
            .to_owned();
        let notified = self.post_from(local, &[("Mcp-Session-Id", &id)], INITIALIZED.as_bytes());
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

/// Whether the server closed `stream` within `PATIENCE` without a reply.
fn closed_without_reply(stream: &mut TcpStream) -> bool {
    let mut buf = [0; 256];
    match stream.read(&mut buf) {
        Ok(0) => true,
        Ok(n) => panic!(
            "the server answered: {:?}",
            String::from_utf8_lossy(&buf[..n])
        ),
        Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => false,
        Err(_) => true,
    }
}

#[test]
fn a_slow_body_gets_408_and_holds_no_session_slot() {
    let server = Server::start(&["--max-sessions", "2", "--body-timeout", "500ms"]);
    // Three initializes whose bodies stop after one byte: more than the sessions the server keeps.
    let slow: Vec<TcpStream> = (0..3)
        .map(|_| {
            let mut stream = server.connect();
            stream
                .write_all(&server.head("POST", &[], INITIALIZE.len()))
                .unwrap();
            stream.write_all(&INITIALIZE.as_bytes()[..1]).unwrap();
            stream
        })
        .collect();
    std::thread::sleep(Duration::from_millis(200));

    let admitted = server.post(&[], INITIALIZE.as_bytes());
    assert_eq!(admitted.status, 200, "{admitted:?}");

    let started = Instant::now();
    for stream in slow {
        // Reply::read reads until the server closes the connection.
        let reply = Reply::read(stream);
        assert_eq!(reply.status, 408, "{reply:?}");
        assert_eq!(reply.header("connection"), Some("close"), "{reply:?}");
    }
    assert!(started.elapsed() < PATIENCE);
}

#[test]
fn one_client_cannot_open_every_session() {
    let server = Server::start(&["--max-sessions", "4", "--max-sessions-per-client", "2"]);
    let first = server.open_session_from("127.0.0.2");
    let _second = server.open_session_from("127.0.0.2");

    let refused = server.post_from("127.0.0.2", &[], INITIALIZE.as_bytes());
    assert_eq!(refused.status, 429, "{refused:?}");
    assert!(refused.header("retry-after").is_some(), "{refused:?}");
    assert_eq!(refused.header("mcp-session-id"), None);

    // Another client still gets sessions.
    let other = server.post_from("127.0.0.3", &[], INITIALIZE.as_bytes());
    assert_eq!(other.status, 200, "{other:?}");

    // Closing one of its sessions lets the client open another.
    let deleted = server.send_on(
        server.connect_from("127.0.0.2"),
        "DELETE",
        &[("Mcp-Session-Id", &first)],
        b"",
    );
    assert!(deleted.status < 300, "{deleted:?}");
    let admitted = server.post_from("127.0.0.2", &[], INITIALIZE.as_bytes());
    assert_eq!(admitted.status, 200, "{admitted:?}");
}

const PING: &str = r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#;

#[test]
fn a_full_server_makes_room_for_a_new_client_address_however_busy_the_others_keep_theirs() {
    let server = Server::start(&["--max-sessions", "4", "--max-sessions-per-client", "3"]);
    // Two addresses fill the server and keep every session busy.
    let held: Vec<(&str, String)> = ["127.0.0.2", "127.0.0.2", "127.0.0.3", "127.0.0.3"]
        .into_iter()
        .map(|local| (local, server.open_session_from(local)))
        .collect();
    let ping = |(local, session): &(&str, String)| {
        server.post_from(local, &[("Mcp-Session-Id", session)], PING.as_bytes())
    };
    for session in &held {
        let pong = ping(session);
        assert_eq!(pong.status, 200, "{pong:?}");
    }
    // A client of the full server gets nothing more.
    let refused = server.post_from("127.0.0.2", &[], INITIALIZE.as_bytes());
    assert_eq!(refused.status, 503, "{refused:?}");

    // A new address gets a session: the longest idle of a client holding the most ends.
    let newcomer = server.open_session_from("127.0.0.4");
    let evicted = ping(&held[0]);
    assert_eq!(
        evicted.status, 404,
        "the longest idle session ends: {evicted:?}"
    );
    for session in &held[1..] {
        let pong = ping(session);
        assert_eq!(pong.status, 200, "{pong:?}");
    }
    let pong = ping(&("127.0.0.4", newcomer));
    assert_eq!(pong.status, 200, "{pong:?}");

    // Room is made only for a client holding at least two fewer than the most.
    for local in ["127.0.0.4", "127.0.0.2"] {
        let refused = server.post_from(local, &[], INITIALIZE.as_bytes());
        assert_eq!(refused.status, 503, "{local}: {refused:?}");
    }
    let fifth = server.post_from("127.0.0.5", &[], INITIALIZE.as_bytes());
    assert_eq!(fifth.status, 200, "{fifth:?}");
}

#[test]
fn sessions_kept_open_by_pings_alone_give_their_slot_to_a_new_address() {
    let server = Server::start(&["--max-sessions", "2", "--session-idle", "1s"]);
    let held: Vec<(&str, String)> = ["127.0.0.2", "127.0.0.3"]
        .into_iter()
        .map(|local| (local, server.open_session_from(local)))
        .collect();
    let ping = |(local, session): &(&str, String)| {
        server.post_from(local, &[("Mcp-Session-Id", session)], PING.as_bytes())
    };
    // Each address's only session, just used: no room for a new address.
    let refused = server.post_from("127.0.0.4", &[], INITIALIZE.as_bytes());
    assert_eq!(refused.status, 503, "{refused:?}");

    // Pings keep both sessions open past `--session-idle`, without using them.
    let started = Instant::now();
    while started.elapsed() < Duration::from_millis(2200) {
        for session in &held {
            let pong = ping(session);
            assert_eq!(pong.status, 200, "pings keep it open: {pong:?}");
        }
        std::thread::sleep(Duration::from_millis(150));
    }
    let newcomer = server.open_session_from("127.0.0.4");
    assert_eq!(
        ping(&held[0]).status,
        404,
        "the session idle the longest gave its slot"
    );
    assert_eq!(ping(&held[1]).status, 200);
    assert_eq!(ping(&("127.0.0.4", newcomer)).status, 200);
}

/// A `refund_order` call with an idempotency key.
fn keyed_refund(key: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"refund_order","arguments":{{"order_id":"ORD-1001"}},"idempotencyKey":"{key}"}}}}"#
    )
}

/// The refund id (`RF-N`) an answer to `refund_order` names.
fn refund_id(reply: &Reply) -> &str {
    let at = reply
        .body
        .find("RF-")
        .unwrap_or_else(|| panic!("no refund: {reply:?}"));
    let digits = reply.body[at + 3..]
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(reply.body.len() - at - 3);
    &reply.body[at..at + 3 + digits]
}

#[test]
fn a_client_holding_more_gives_up_the_session_it_pings_not_the_one_it_works_in() {
    let server = Server::start(&["--max-sessions", "3", "--max-sessions-per-client", "3"]);
    let pinged = server.open_session_from("127.0.0.2");
    let working = server.open_session_from("127.0.0.2");
    let _other = server.open_session_from("127.0.0.3");
    let in_session = |session: &str, body: &str| {
        server.post_from("127.0.0.2", &[("Mcp-Session-Id", session)], body.as_bytes())
    };
    let refund = in_session(&working, &keyed_refund("refund-1"));
    assert_eq!(refund.status, 200, "{refund:?}");
    let first = refund_id(&refund).to_owned();
    // The other session is kept open with pings after the refund.
    for _ in 0..3 {
        let pong = in_session(&pinged, PING);
        assert_eq!(pong.status, 200, "{pong:?}");
    }

    // A new address: the client holding two sessions gives one up, the one it only pings.
    let _newcomer = server.open_session_from("127.0.0.4");
    let gone = in_session(&pinged, PING);
    assert_eq!(
        gone.status, 404,
        "the pinged session gave its slot: {gone:?}"
    );
    let retried = in_session(&working, &keyed_refund("refund-1"));
    assert_eq!(
        retried.status, 200,
        "the working session stays: {retried:?}"
    );
    assert_eq!(refund_id(&retried), first, "replayed, not refunded twice");
}

#[test]
fn a_session_answering_a_request_is_not_ended_to_make_room() {
    let server = Server::start(&[
        "--max-sessions",
        "3",
        "--max-sessions-per-client",
        "3",
        "--fault",
        "lose_response:1",
        "--lose-response-delay",
        "1500ms",
    ]);
    let busy = server.open_session_from("127.0.0.2");
    let used = server.open_session_from("127.0.0.2");
    let _other = server.open_session_from("127.0.0.3");
    // A refund whose answer is held back, then a call in the other session: the session
    // answering the refund is the one whose last request is the oldest.
    let mut refund = server.connect_from("127.0.0.2");
    refund
        .write_all(&server.head(
            "POST",
            &[("Mcp-Session-Id", &busy)],
            keyed_refund("refund-2").len(),
        ))
        .unwrap();
    refund
        .write_all(keyed_refund("refund-2").as_bytes())
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let listed = server.post_from(
        "127.0.0.2",
        &[("Mcp-Session-Id", &used)],
        TOOLS_LIST.as_bytes(),
    );
    assert_eq!(listed.status, 200, "{listed:?}");

    let _newcomer = server.open_session_from("127.0.0.4");
    let answered = Reply::read(refund);
    assert_eq!(answered.status, 200, "{answered:?}");
    let first = refund_id(&answered).to_owned();
    let retried = server.post_from(
        "127.0.0.2",
        &[("Mcp-Session-Id", &busy)],
        keyed_refund("refund-2").as_bytes(),
    );
    assert_eq!(retried.status, 200, "the busy session stays: {retried:?}");
    assert_eq!(refund_id(&retried), first, "replayed, not refunded twice");
    let gone = server.post_from("127.0.0.2", &[("Mcp-Session-Id", &used)], PING.as_bytes());
    assert_eq!(gone.status, 404, "the idle one gave its slot: {gone:?}");
}

#[test]
fn a_connection_beyond_max_connections_waits_until_one_closes() {
    let server = Server::start(&["--max-connections", "2"]);
    let mut idle = vec![server.connect(), server.connect()];
    std::thread::sleep(Duration::from_millis(200));

    let mut waiting = server.connect();
    waiting
        .write_all(&server.head("POST", &[], INITIALIZE.len()))
        .unwrap();
    waiting.write_all(INITIALIZE.as_bytes()).unwrap();
    waiting
        .set_read_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    assert!(
        !closed_without_reply(&mut waiting),
        "the third connection was closed"
    );

    // One closes: the server accepts the waiting connection and serves it.
    drop(idle.pop());
    waiting.set_read_timeout(Some(PATIENCE)).unwrap();
    let reply = Reply::read(waiting);
    assert_eq!(reply.status, 200, "{reply:?}");
}

#[test]
fn one_client_cannot_hold_every_connection() {
    let server = Server::start(&["--max-connections-per-client", "2"]);
    let _held = [
        server.connect_from("127.0.0.2"),
        server.connect_from("127.0.0.2"),
    ];
    let mut third = server.connect_from("127.0.0.2");
    // The write may already fail: the server may have closed the socket.
    let _ = third.write_all(&server.head("POST", &[], INITIALIZE.len()));
    let _ = third.write_all(INITIALIZE.as_bytes());
    assert!(
        closed_without_reply(&mut third),
        "a third connection from one client stayed open"
    );

    let other = server.post_from("127.0.0.3", &[], INITIALIZE.as_bytes());
    assert_eq!(other.status, 200, "{other:?}");
}

#[test]
fn a_session_holds_at_most_max_streams_per_session_sse_streams() {
    let server = Server::start(&["--max-streams-per-session", "2"]);
    let session = server.open_session();
    let (status, first) = server.open_stream(&session);
    assert_eq!(status, 200);
    let (status, _second) = server.open_stream(&session);
    assert_eq!(status, 200);
    let (status, _) = server.open_stream(&session);
    assert_eq!(status, 429);

    // Another session's streams count apart.
    let other = server.open_session();
    let (status, _other_stream) = server.open_stream(&other);
    assert_eq!(status, 200);

    // A stream the client closes frees its slot.
    drop(first);
    let started = Instant::now();
    loop {
        let (status, _stream) = server.open_stream(&session);
        if status == 200 {
            break;
        }
        assert_eq!(status, 429);
        assert!(
            started.elapsed() < PATIENCE,
            "the closed stream still counted after {PATIENCE:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
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
        ["--body-timeout", "0ms"],
        ["--max-sessions-per-client", "0"],
        ["--max-streams-per-session", "none"],
        ["--max-connections", "0"],
        ["--max-connections-per-client", "-5"],
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
