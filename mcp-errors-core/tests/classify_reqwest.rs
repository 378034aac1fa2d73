//! `Classify` for `reqwest::Error`, on the errors a real client gets from a local server.

use std::io::{Read as _, Write as _};
use std::net::TcpListener;
use std::time::Duration;

use mcp_errors_core::{Category, Classify};

/// A server on 127.0.0.1 that answers each connection with `response`, after `delay`.
fn serve(response: &'static str, delay: Duration) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            std::thread::spawn(move || {
                let mut request = [0; 1024];
                let _ = stream.read(&mut request);
                std::thread::sleep(delay);
                let _ = stream.write_all(response.as_bytes());
            });
        }
    });
    url
}

fn status(code: u16, reason: &str) -> &'static str {
    format!("HTTP/1.1 {code} {reason}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n").leak()
}

async fn category(request: reqwest::RequestBuilder) -> Option<Category> {
    let error = match request.send().await {
        Ok(response) => response.error_for_status().unwrap_err(),
        Err(error) => error,
    };
    error.classify().map(|c| c.category())
}

#[tokio::test(flavor = "current_thread")]
async fn a_status_reads_by_the_table() {
    let client = reqwest::Client::new();
    for (code, reason, expected) in [
        (404, "Not Found", Category::NotFound),
        (429, "Too Many Requests", Category::RateLimited),
        (503, "Service Unavailable", Category::Transient),
        (401, "Unauthorized", Category::Unauthenticated),
        (500, "Internal Server Error", Category::Internal),
    ] {
        let url = serve(status(code, reason), Duration::ZERO);
        assert_eq!(category(client.get(&url)).await, Some(expected), "{code}");
    }
}

#[tokio::test(flavor = "current_thread")]
async fn no_connection_and_a_timeout_are_transient() {
    let client = reqwest::Client::new();
    let closed = {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}/", listener.local_addr().unwrap())
    };
    assert_eq!(
        category(client.get(&closed)).await,
        Some(Category::Transient)
    );

    let slow = serve(status(200, "OK"), Duration::from_secs(5));
    let request = client.get(&slow).timeout(Duration::from_millis(100));
    assert_eq!(category(request).await, Some(Category::Transient));
}

#[tokio::test(flavor = "current_thread")]
async fn a_request_that_cannot_be_built_is_internal() {
    let client = reqwest::Client::new();
    assert_eq!(
        category(client.get("http://[::1")).await,
        Some(Category::Internal)
    );
}
