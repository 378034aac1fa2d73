//! The answer to a line a server cannot read. rmcp's stdio transport drops a line serde_json
//! cannot read without a word (not JSON, a number beyond `f64` such as `1e400`, a lone
//! surrogate such as `"\ud800"`), and answers JSON it cannot read as a message with an Invalid
//! Request that has no `id`. JSON-RPC 2.0 answers both, with `"id": null` when the id cannot
//! be read.

use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::wire::jsonrpc::{ErrorCode, JsonRpcError, JsonRpcVersion, RequestId};

/// rmcp reads a line after this prefix, so it is no reason to answer.
const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// A JSON-RPC error response whose `id` may be `null`.
#[derive(Serialize)]
struct Answer {
    jsonrpc: JsonRpcVersion,
    id: Option<RequestId>,
    error: JsonRpcError,
}

/// The members of a message this module reads: the id, when it is one.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
}

/// The answer (a whole line, with its `\n`) to `line` (without its line end), which
/// serde_json refused as a `Value` with `error`; `None` for a line rmcp reads all the same (a
/// byte order mark first) or skips (only white space).
pub(super) fn answer(line: &[u8], error: serde_json::Error) -> Option<Vec<u8>> {
    let mut error = error;
    if let Some(rest) = line.strip_prefix(UTF8_BOM) {
        error = serde_json::from_slice::<Value>(rest).err()?;
    }
    let line = line.strip_prefix(UTF8_BOM).unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    // Grammatical JSON that serde_json cannot hold: numbers are skipped without a range, and
    // escapes without pairing surrogates.
    let grammatical =
        std::str::from_utf8(line).is_ok() && serde_json::from_slice::<IgnoredAny>(line).is_ok();
    let answer = if grammatical {
        Answer {
            jsonrpc: JsonRpcVersion,
            id: readable_id(line),
            error: JsonRpcError::new(
                ErrorCode::INVALID_REQUEST,
                format!("Invalid Request: {error}"),
            ),
        }
    } else {
        Answer {
            jsonrpc: JsonRpcVersion,
            id: None,
            error: JsonRpcError::new(ErrorCode::PARSE_ERROR, format!("Parse error: {error}")),
        }
    };
    let mut bytes = serde_json::to_vec(&answer).ok()?;
    bytes.push(b'\n');
    Some(bytes)
}

/// The `id` of an object whose id is a string or an integer serde_json reads.
fn readable_id(line: &[u8]) -> Option<RequestId> {
    // A struct also reads from an array, by position.
    if line.trim_ascii_start().first() != Some(&b'{') {
        return None;
    }
    let id = serde_json::from_slice::<Envelope>(line).ok()?.id?;
    serde_json::from_str(id.get()).ok()
}

/// Outbound: an error response without an `id` (rmcp's answer to JSON it cannot read as a
/// message) gets `"id": null`.
pub(super) fn null_id_onto_error(message: &mut Map<String, Value>) -> bool {
    if message.contains_key("id") || !message.contains_key("error") {
        return false;
    }
    message.insert("id".to_owned(), Value::Null);
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn answered(line: &str) -> Option<Value> {
        let error = serde_json::from_str::<Value>(line).expect_err("unreadable");
        answer(line.as_bytes(), error).map(|bytes| {
            assert!(bytes.ends_with(b"\n"));
            serde_json::from_slice(&bytes).unwrap()
        })
    }

    #[test]
    fn a_line_that_is_not_json_is_a_parse_error_with_a_null_id() {
        for line in ["not json", "{\"id\": 1,", "{\"id\":1}}", "\"\\x\""] {
            let answer = answered(line).unwrap();
            assert_eq!(answer["id"], Value::Null, "{line}");
            assert_eq!(answer["error"]["code"], -32700, "{line}");
            assert!(
                answer["error"]["message"]
                    .as_str()
                    .unwrap()
                    .starts_with("Parse error: "),
                "{answer}"
            );
        }
        let not_utf8 = b"{\"id\":\"\xff\"}";
        let error = serde_json::from_slice::<Value>(not_utf8).unwrap_err();
        let answer: Value = serde_json::from_slice(&answer(not_utf8, error).unwrap()).unwrap();
        assert_eq!(answer["error"]["code"], -32700);
    }

    #[test]
    fn json_serde_json_cannot_hold_is_an_invalid_request_with_the_id_when_it_reads() {
        let cases = [
            (
                r#"{"jsonrpc":"2.0","id":1e400,"method":"ping"}"#,
                Value::Null,
            ),
            (
                r#"{"jsonrpc":"2.0","id":"\ud800","method":"ping"}"#,
                Value::Null,
            ),
            (
                r#"{"jsonrpc":"2.0","id":9,"method":"ping","params":{"_meta":{"x":"\ud800"}}}"#,
                json!(9),
            ),
            (
                r#"{"jsonrpc":"2.0","id":"a","method":"ping","params":{"n":-1e999}}"#,
                json!("a"),
            ),
            (r#"[7, 1e400]"#, Value::Null),
        ];
        for (line, id) in cases {
            let answer = answered(line).unwrap();
            assert_eq!(answer["jsonrpc"], "2.0");
            assert_eq!(answer["id"], id, "{line}");
            assert_eq!(answer["error"]["code"], -32600, "{line}");
        }
    }

    #[test]
    fn white_space_and_a_byte_order_mark_are_not_answered() {
        for line in ["", "  \t"] {
            let error = serde_json::from_str::<Value>(line).unwrap_err();
            assert_eq!(answer(line.as_bytes(), error), None);
        }
        let marked = b"\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}";
        let error = serde_json::from_slice::<Value>(marked).unwrap_err();
        assert_eq!(answer(marked, error), None);
        let marked_garbage = b"\xEF\xBB\xBFnot json";
        let error = serde_json::from_slice::<Value>(marked_garbage).unwrap_err();
        assert!(answer(marked_garbage, error).is_some());
    }

    #[tokio::test]
    async fn the_stream_answers_while_rmcp_is_silent_and_between_its_lines() {
        use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

        let (server_end, peer_end) = tokio::io::duplex(1024);
        let (read, write) = tokio::io::split(server_end);
        let (mut reader, mut writer) = super::super::server_stream(read, write);
        let (peer_read, mut peer_write) = tokio::io::split(peer_end);
        let mut peer_read = BufReader::new(peer_read);

        // Half a line of rmcp's is held back; the answer goes out whole before it.
        writer.write_all(br#"{"jsonrpc":"2.0","#).await.unwrap();
        let ping = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
        peer_write.write_all(b"not json\n").await.unwrap();
        peer_write.write_all(ping).await.unwrap();
        peer_write.write_all(b"\n").await.unwrap();
        let mut read = vec![0; ping.len() + 1];
        reader.read_exact(&mut read).await.unwrap();
        assert_eq!(&read[..ping.len()], ping, "rmcp reads the next line only");

        let mut answer = String::new();
        peer_read.read_line(&mut answer).await.unwrap();
        let answer: Value = serde_json::from_str(&answer).unwrap();
        assert_eq!(answer["error"]["code"], -32700, "{answer}");

        writer
            .write_all(b"\"id\":1,\"result\":{}}\n")
            .await
            .unwrap();
        writer.flush().await.unwrap();
        let mut rmcps = String::new();
        peer_read.read_line(&mut rmcps).await.unwrap();
        assert_eq!(rmcps, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n");
    }

    #[test]
    fn an_error_without_an_id_gets_a_null_one_and_others_stay() {
        let mut rmcps =
            json!({"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid request"}});
        assert!(null_id_onto_error(rmcps.as_object_mut().unwrap()));
        assert_eq!(rmcps["id"], Value::Null);
        for mut other in [
            json!({"jsonrpc": "2.0", "id": 3, "error": {"code": -32601, "message": "x"}}),
            json!({"jsonrpc": "2.0", "id": 3, "result": {}}),
            json!({"jsonrpc": "2.0", "method": "notifications/progress"}),
        ] {
            let before = other.clone();
            assert!(!null_id_onto_error(other.as_object_mut().unwrap()));
            assert_eq!(other, before);
        }
    }
}
