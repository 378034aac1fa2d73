//! [`PeerProfile`]: what the implementation-defined JSON-RPC codes of one peer mean.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::category::Category;
use crate::wire::jsonrpc::ErrorCode;
use crate::wire::jsonrpc::JsonRpcError;

/// What a JSON-RPC error code means for one peer, when a [`PeerProfile`] knows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum CodeMeaning {
    /// The request timed out before a response arrived: the call may have run.
    RequestTimeout,
    /// The connection closed before a response arrived: the call may have run.
    ConnectionClosed,
    /// The server does not know the session: the call did not run; start a new session, then
    /// call again.
    SessionNotFound,
    /// The server is shutting down and refused the call without running it: connect again,
    /// then call again.
    ServerClosing,
}

impl CodeMeaning {
    /// Whether the call may have run on the server.
    pub const fn may_have_run(self) -> bool {
        matches!(
            self,
            CodeMeaning::RequestTimeout | CodeMeaning::ConnectionClosed
        )
    }
}

/// One entry of a profile: a code, optionally with the start of its message.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Entry {
    code: ErrorCode,
    message: Option<String>,
    meaning: CodeMeaning,
}

/// What the JSON-RPC codes of one peer mean where the specification leaves them to
/// implementations.
///
/// MCP 2026-07-28 leaves -32000..=-32019 to implementations and says receivers must not give
/// those codes a meaning shared across implementations; SDKs also write some codes outside it
/// (the Python SDK's 408). Without a profile ([`PeerProfile::standard`], the default) such a
/// code means nothing: the call may or may not have run, and a non-idempotent call is never
/// replayed blindly. A profile, chosen for the peer by the caller
/// ([`RetryPolicy::with_peer_profile`](crate::client::RetryPolicy::with_peer_profile)) or from its
/// `serverInfo` ([`PeerProfile::from_server_info`]), gives the codes its SDK uses their meaning.
///
/// An entry may also name the start of the message (case-insensitive), for a code an SDK uses
/// for two things: the TypeScript SDK's -32001 is its client's local request timeout, and also
/// what its server answers for an unknown session (`Session not found`). The first entry that
/// matches wins.
///
/// ```
/// use mcp_errors_core::client::{CodeMeaning, PeerProfile};
/// use mcp_errors_core::{ErrorCode, JsonRpcError};
///
/// let timeout = JsonRpcError::new(-32001, "Request timed out");
/// let gone = JsonRpcError::new(-32001, "Session not found");
/// assert_eq!(PeerProfile::standard().meaning(&timeout), None);
///
/// let ts = PeerProfile::typescript_sdk();
/// assert_eq!(ts.meaning(&timeout), Some(CodeMeaning::RequestTimeout));
/// assert_eq!(ts.meaning(&gone), Some(CodeMeaning::SessionNotFound));
///
/// // A server of yours that answers an unknown session with -32005:
/// let mine = PeerProfile::standard().with_meaning(ErrorCode(-32005), CodeMeaning::SessionNotFound);
/// assert_eq!(mine.meaning(&JsonRpcError::new(-32005, "no session")), Some(CodeMeaning::SessionNotFound));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PeerProfile {
    name: String,
    entries: Vec<Entry>,
    /// Lowercase phrases and the category a text holding one reads as, tried in order.
    text_rules: Vec<(String, Category)>,
}

impl PeerProfile {
    /// No meanings: every implementation-defined code is read as "the call may or may not have
    /// run", as the specification asks.
    pub fn standard() -> Self {
        PeerProfile::default()
    }

    /// The TypeScript SDK (`@modelcontextprotocol/sdk`, v1 `ErrorCode` and its streamable HTTP
    /// server): -32001 with `Session not found` is an unknown session (its server answers HTTP
    /// 404 with it); any other -32001 is `RequestTimeout`, -32000 `ConnectionClosed` (its
    /// client's local errors, which a relay may pass on).
    pub fn typescript_sdk() -> Self {
        PeerProfile::named("typescript-sdk")
            .with_message_meaning(
                ErrorCode(-32001),
                "session not found",
                CodeMeaning::SessionNotFound,
            )
            .with_meaning(ErrorCode(-32001), CodeMeaning::RequestTimeout)
            .with_meaning(ErrorCode(-32000), CodeMeaning::ConnectionClosed)
    }

    /// The Python SDK (`mcp`): `CONNECTION_CLOSED` -32000 and `REQUEST_TIMEOUT` -32001 (v2),
    /// 408 for a timed-out request (v1, HTTP's code), -32600 `Session not found` from its
    /// streamable HTTP server, and the positive 32600 `Session terminated` its v1 client writes
    /// for an HTTP 404.
    pub fn python_sdk() -> Self {
        PeerProfile::named("python-sdk")
            .with_meaning(ErrorCode(-32000), CodeMeaning::ConnectionClosed)
            .with_meaning(ErrorCode(-32001), CodeMeaning::RequestTimeout)
            .with_meaning(ErrorCode(408), CodeMeaning::RequestTimeout)
            .with_message_meaning(
                ErrorCode::INVALID_REQUEST,
                "session not found",
                CodeMeaning::SessionNotFound,
            )
            .with_message_meaning(
                ErrorCode(32600),
                "session terminated",
                CodeMeaning::SessionNotFound,
            )
    }

    /// The Go SDK (`github.com/modelcontextprotocol/go-sdk`, its `jsonrpc2` package): -32004
    /// `server is closing` (a call that arrived while the server shut down, not run), -32003
    /// `client is closing` (its client's local error), and -32005 `rejected by transport`:
    /// its streamable HTTP client's refusal of one call that did not reach the server or was
    /// answered HTTP 429 or 5xx (or an error body), the session kept. Behind a 5xx the call may
    /// have run, so -32005 reads as `ConnectionClosed`: retried when idempotent, else
    /// `CheckState`. Its -32001 is `unknown error`, which means nothing more.
    pub fn go_sdk() -> Self {
        PeerProfile::named("go-sdk")
            .with_meaning(ErrorCode(-32004), CodeMeaning::ServerClosing)
            .with_meaning(ErrorCode(-32003), CodeMeaning::ConnectionClosed)
            .with_meaning(ErrorCode(-32005), CodeMeaning::ConnectionClosed)
    }

    /// The profile for a server's `serverInfo` (`{name, version, ...}` from `initialize`), when
    /// its name is one an SDK gives a server by default; [`PeerProfile::standard`] otherwise.
    ///
    /// `serverInfo` names the server, not the SDK it is built with: only defaults tell the SDK
    /// (`FastMCP` in the Python SDK's v1, `mcp-server` in its v2). For any other server, choose
    /// the profile yourself.
    ///
    /// ```
    /// use mcp_errors_core::client::PeerProfile;
    /// use serde_json::json;
    ///
    /// let info = json!({"name": "FastMCP", "version": "1.26.0"});
    /// assert_eq!(PeerProfile::from_server_info(&info), PeerProfile::python_sdk());
    /// assert_eq!(PeerProfile::from_server_info(&json!({"name": "weather"})), PeerProfile::standard());
    /// ```
    pub fn from_server_info(server_info: &Value) -> Self {
        match server_info.get("name").and_then(Value::as_str) {
            Some("FastMCP" | "mcp-server") => PeerProfile::python_sdk(),
            _ => PeerProfile::standard(),
        }
    }

    fn named(name: &str) -> Self {
        PeerProfile {
            name: name.to_owned(),
            ..PeerProfile::default()
        }
    }

    /// The profile's name (`typescript-sdk`, ...; empty for [`PeerProfile::standard`]).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The same profile, where `code` (with any message) means `meaning`, after the entries
    /// already there.
    pub fn with_meaning(mut self, code: ErrorCode, meaning: CodeMeaning) -> Self {
        self.entries.push(Entry {
            code,
            message: None,
            meaning,
        });
        self
    }

    /// The same profile, where `code` with a message starting with `message` (ignoring case
    /// and leading whitespace) means `meaning`, after the entries already there.
    pub fn with_message_meaning(
        mut self,
        code: ErrorCode,
        message: &str,
        meaning: CodeMeaning,
    ) -> Self {
        self.entries.push(Entry {
            code,
            message: Some(message.to_ascii_lowercase()),
            meaning,
        });
        self
    }

    /// The same profile, where a failure's text holding `phrase` (ignoring case) reads as
    /// `category`, after the rules of this kind already there and before the built-in rules
    /// (see [reading plain text](crate::client#reading-plain-text)).
    ///
    /// It is read where the built-in rules are: the text of an execution error the server gave no
    /// category, the message of a protocol error the rules read, and a success that
    /// [looks like a failure](crate::client::Outcome::looks_like_failure). A category read so is
    /// weighed as any category read from text: never a replay of a call not declared
    /// idempotent.
    ///
    /// ```
    /// use std::time::Duration;
    /// use mcp_errors_core::Category;
    /// use mcp_errors_core::client::{Attempt, Decision, PeerProfile, RetryPolicy, classify_bytes};
    ///
    /// let profile = PeerProfile::standard().with_text_rule("quota spent", Category::Business);
    /// let policy = RetryPolicy::default().with_peer_profile(profile);
    /// let bytes = br#"{"jsonrpc":"2.0","id":1,"result":{"isError":true,
    ///     "content":[{"type":"text","text":"Quota spent for this month"}]}}"#;
    /// let decision = policy.decide(&classify_bytes(bytes), Attempt::new(1, Duration::ZERO).with_jitter(1.0));
    /// assert_eq!(decision, Decision::ExplainToUser);
    /// ```
    pub fn with_text_rule(mut self, phrase: &str, category: Category) -> Self {
        let phrase = phrase.trim().to_ascii_lowercase();
        if !phrase.is_empty() {
            self.text_rules.push((phrase, category));
        }
        self
    }

    /// The category of the first of the profile's text rules that `text` holds.
    pub(crate) fn text_category(&self, text: &str) -> Option<Category> {
        if self.text_rules.is_empty() {
            return None;
        }
        let lower = text.to_ascii_lowercase();
        self.text_rules
            .iter()
            .find(|(phrase, _)| lower.contains(phrase.as_str()))
            .map(|&(_, category)| category)
    }

    /// What `error` means for this peer, if the profile knows.
    pub fn meaning(&self, error: &JsonRpcError) -> Option<CodeMeaning> {
        self.code_meaning(error.code, &error.message)
    }

    /// What `code` with `message` means to this peer.
    pub(crate) fn code_meaning(&self, code: ErrorCode, message: &str) -> Option<CodeMeaning> {
        let message = message.trim_start().to_ascii_lowercase();
        self.entries
            .iter()
            .find(|entry| {
                entry.code == code
                    && entry
                        .message
                        .as_deref()
                        .is_none_or(|start| message.starts_with(start))
            })
            .map(|entry| entry.meaning)
    }
}
