//! The rules that read a category from the plain text of a failure, and tell a success whose
//! text is plainly a failure. The texts they match are listed in the
//! [client module's docs](crate::client#reading-plain-text); the meaning of an HTTP status or an
//! `errno` name is [`Category::from_http_status`] and [`Category::from_errno`].
//!
//! Every rule scans one lowercase copy of the text; none allocates more.

use std::time::Duration;

use serde::Deserialize;

use super::known::{says_masked_crash, says_tool_unavailable};
use super::unwrap::{failure_code, unwrap};
use crate::category::Category;

/// What the rules read from a text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Reading {
    /// The category the text names.
    pub(crate) category: Category,
    /// A wait the text asks for (`Retry-After: 30`, `retry after 2 seconds`).
    pub(crate) retry_after: Option<Duration>,
    /// The text says the tool does not exist or is disabled.
    pub(crate) tool_unavailable: bool,
}

/// Phrases of a passing fault that turned the request away before it could run: nothing
/// was connected to (`ECONNREFUSED` and the words of Python, Chromium and libpq for it), or
/// the statement waited on a lock it never got (SQLite's `SQLITE_BUSY`).
const REFUSED: [&str; 5] = [
    "connection refused",
    "econnrefused",
    "err_connection_refused",
    "database is locked",
    "sqlite_busy",
];

/// Whether a failure of `category` read from `text` was turned away before it could run, so
/// that sending it again cannot do twice what it did once: a rate limit (HTTP 429 and its
/// words say the request was not processed), or a transient fault named in [`REFUSED`].
pub(crate) fn refused_before_running(category: Category, text: &str) -> bool {
    match category {
        Category::RateLimited => true,
        Category::Transient => {
            let lower = text.to_ascii_lowercase();
            REFUSED.iter().any(|phrase| lower.contains(phrase))
        }
        _ => false,
    }
}

/// The rules in the order they are tried: the first phrase found names the category.
const PHRASES: &[(&[&str], Category)] = &[
    (
        &[
            "too many requests",
            "rate limit",
            "rate-limit",
            "ratelimit",
            "throttl",
        ],
        Category::RateLimited,
    ),
    (
        &[
            "unauthorized",
            "unauthenticated",
            "not authenticated",
            "authentication failed",
            "authentication required",
            "invalid api key",
            "invalid token",
            "token expired",
            "token has expired",
            "expired token",
            "invalid credentials",
            "login required",
        ],
        Category::Unauthenticated,
    ),
    (
        &[
            "permission denied",
            "access denied",
            "forbidden",
            "operation not permitted",
            "insufficient permission",
            "read-only",
            "read only file system",
            "readonly database",
            // A policy that refuses the call (`autonomous fetching of this page is not allowed`).
            "not allowed",
            "outside allowed",
            "outside the allowed",
            "outside of the allowed",
        ],
        Category::Permission,
    ),
    (
        &[
            "validation error",
            "invalid arguments",
            "invalid argument",
            "invalid input",
            "field required",
            "input should be",
            "is a required property",
            "is not of type",
            "missing required",
            "syntax error",
            "incomplete input",
            "not null constraint failed",
            "violates not-null constraint",
            "check constraint failed",
            "violates check constraint",
            // A value outside its bounds, as range checks write it.
            "must be between",
            "must be at least",
            "must be at most",
            "must be greater than",
            "must be less than",
            "must be positive",
            "must be a positive",
            "must be non-negative",
            "must be one of",
            "out of range",
            // A value of the wrong kind: HTTP clients' URL checks, casts.
            "url is missing",
            "could not convert",
            "division by zero",
            // A path of the wrong kind, as `strerror` writes EISDIR and ENOTDIR.
            "is a directory",
            "not a directory",
            // Browsers driven by Playwright or Puppeteer: an element or a key of the wrong kind.
            "element is not a",
            "unknown key",
        ],
        Category::Validation,
    ),
    (
        &[
            "already exists",
            "file exists",
            "unique constraint failed",
            "violates unique constraint",
            "duplicate key",
        ],
        Category::Conflict,
    ),
    // A host name that does not exist (EAI_NONAME as glibc, macOS, Go and Chromium write it):
    // not a passing fault, since no retry can resolve it; `not_found`, whose decision never
    // retries, since the name came from an argument or the configuration. A name server that
    // did not answer (`Temporary failure in name resolution`, EAI_AGAIN) is the passing one.
    (
        &[
            "name or service not known",
            "nodename nor servname",
            "no such host",
            "err_name_not_resolved",
        ],
        Category::NotFound,
    ),
    (
        &[
            "connection refused",
            "connection reset",
            "connection aborted",
            "connection attempts failed",
            "broken pipe",
            "socket hang up",
            "network is unreachable",
            "no route to host",
            "temporary failure in name resolution",
            // Chromium's network errors (`net::ERR_CONNECTION_REFUSED`).
            "err_connection_refused",
            "err_connection_reset",
            "err_connection_closed",
            "err_connection_timed_out",
            "err_internet_disconnected",
            "err_address_unreachable",
            // A database file another process holds locked (DuckDB).
            "conflicting lock",
        ],
        Category::Transient,
    ),
    (
        &[
            "not found",
            "does not exist",
            "doesn't exist",
            "no such ",
            "did not match any file",
            "did not resolve to an object",
            "could not find",
            "cannot find",
            "does not match any",
            "no files found",
        ],
        Category::NotFound,
    ),
    (
        &[
            "timed out",
            "timeout",
            "temporarily unavailable",
            "service unavailable",
            "try again later",
            "database is locked",
            "deadlock detected",
        ],
        Category::Transient,
    ),
    (
        &[
            "internal server error",
            "internal error",
            "is not valid json",
            "jsondecodeerror",
            "expecting value: line",
            "traceback (most recent call last)",
        ],
        Category::Internal,
    ),
];

/// The `code` values of zod's issues, as its JSON issue arrays write them.
const ZOD_CODES: [&str; 9] = [
    "\"invalid_type\"",
    "\"too_small\"",
    "\"too_big\"",
    "\"invalid_enum_value\"",
    "\"invalid_value\"",
    "\"invalid_union\"",
    "\"invalid_string\"",
    "\"invalid_format\"",
    "\"unrecognized_keys\"",
];

/// The words before an HTTP status number that make it one: `status code 404`, `HTTP 503`.
const STATUS_WORDS: [&str; 6] = [
    "status code",
    "status",
    "statuscode",
    "http",
    "http error",
    "error code",
];

/// The reason phrases after a status number that make it one: `'401 Unauthorized'`.
const REASONS: [(u16, &str); 12] = [
    (400, "bad request"),
    (401, "unauthorized"),
    (403, "forbidden"),
    (404, "not found"),
    (409, "conflict"),
    (410, "gone"),
    (422, "unprocessable"),
    (429, "too many requests"),
    (500, "internal server error"),
    (502, "bad gateway"),
    (503, "service unavailable"),
    (504, "gateway timeout"),
];

/// What the rules read from `text`, or `None` when no rule matches.
pub(crate) fn read(text: &str) -> Option<Reading> {
    let lower = text.to_ascii_lowercase();
    let (mcp_code, body) = unwrap(text);
    let body = body.to_ascii_lowercase();
    let body = body.as_str();
    let retry_after = retry_after(&lower);
    let reading = |category| Reading {
        category,
        retry_after,
        tool_unavailable: false,
    };
    if says_tool_unavailable(body) {
        return Some(Reading {
            tool_unavailable: true,
            ..reading(Category::NotFound)
        });
    }
    if says_masked_crash(body) {
        return Some(reading(Category::Internal));
    }
    if let Some(category) = http_status(&lower)
        .or_else(|| reason_alone(&lower))
        .and_then(Category::from_http_status)
    {
        return Some(reading(category));
    }
    if let Some(category) = errno(&lower) {
        return Some(reading(category));
    }
    if is_zod_issue_list(&lower) || says_expected_received(&lower) {
        return Some(reading(Category::Validation));
    }
    for (phrases, category) in PHRASES {
        if phrases.iter().any(|phrase| lower.contains(phrase)) {
            return Some(reading(*category));
        }
    }
    if body.starts_with("invalid ") {
        return Some(reading(Category::Validation));
    }
    if let Some(category) = shape_category(body) {
        return Some(reading(category));
    }
    match mcp_code {
        // The TypeScript SDK's `InvalidParams`, folded into the text of a result.
        Some("-32602") => Some(reading(Category::Validation)),
        _ => None,
    }
}

/// Whether `text`, read as a tool's whole successful answer, is plainly a failure: it starts
/// with an error marker (`Error: `, `Error - `, `Database error: `, `TypeError: `,
/// `Security violation: `, the SDKs' `Error executing tool ` and `Error calling tool `, this
/// crate's `Error CODE: `) or a sentence of failure (`Failed to `, `Cannot `, `Unable to `,
/// `Only ... allowed`, `... not allowed`, on its first line), has a line starting `Error:`,
/// says the tool does not exist, holds a system call's failure as Node.js writes it
/// (`ENOENT: no such file or directory`), or is a JSON object with an `error` member that is
/// a string or an object, or with `"success": false`, `"ok": false` or `"isError": true`.
pub(crate) fn looks_like_failure(text: &str) -> bool {
    let trimmed = text.trim_start();
    if starts_with_error_marker(trimmed)
        || failure_code(trimmed).is_some()
        || has_node_system_error(text)
        || opens_with_failure_sentence(trimmed)
        || has_error_line(text)
        || says_tool_unavailable(trimmed)
    {
        return true;
    }
    error_member(trimmed).is_some() || reports_failure_flag(trimmed)
}

/// What a success that [`looks_like_failure`] says, as far as the rules read it (its JSON
/// `error` member first, then the whole text, whose other members may name a status):
/// `None` when it does not look like a failure, `Some(None)` when it does but no rule names
/// a category.
pub(crate) fn read_success(text: &str) -> Option<Option<Reading>> {
    if !looks_like_failure(text) {
        return None;
    }
    let error = error_member(text.trim_start());
    Some(error.as_deref().and_then(read).or_else(|| read(text)))
}

fn starts_with_error_marker(text: &str) -> bool {
    let head: String = text
        .chars()
        .take(48)
        .collect::<String>()
        .to_ascii_lowercase();
    if head.starts_with("error executing tool ") || head.starts_with("error calling tool ") {
        return true;
    }
    // One or two words ending in `error` or `exception`, then `:` or ` - `.
    let Some(end) = head.find(": ").or_else(|| head.find(" - ")) else {
        return false;
    };
    let marker = &head[..end];
    let words: Vec<&str> = marker.split(' ').collect();
    let named = match words.as_slice() {
        [_] => true,
        [first, _] => !matches!(*first, "the" | "a" | "an" | "no" | "any" | "some" | "last"),
        _ => false,
    };
    named
        && ["error", "exception", "failure", "violation"]
            .iter()
            .any(|word| marker.ends_with(word))
        && marker
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b' ' || b == b'_' || b == b'.')
}

/// `ENAME: <strerror>` anywhere, the way Node.js writes a failed system call.
fn has_node_system_error(text: &str) -> bool {
    text.match_indices(": ").any(|(at, _)| {
        let name = text[..at]
            .rsplit(|c: char| !(c.is_ascii_uppercase() || c == '_'))
            .next()
            .unwrap_or("");
        name.len() >= 4 && name.starts_with('E') && Category::from_errno(name).is_some()
    })
}

/// The `error` member of a JSON object text, as text: a string as it is, an object as its
/// JSON. `None` for any other text, or an `error` that is absent, `null`, `false` or empty.
fn error_member(text: &str) -> Option<String> {
    if !text.starts_with('{') {
        return None;
    }
    #[derive(Deserialize)]
    struct WithError {
        error: Option<serde_json::Value>,
    }
    let parsed: WithError = serde_json::from_str(text).ok()?;
    match parsed.error? {
        serde_json::Value::String(message) if !message.trim().is_empty() => Some(message),
        serde_json::Value::Object(object) if !object.is_empty() => {
            Some(serde_json::Value::Object(object).to_string())
        }
        _ => None,
    }
}

/// The first HTTP status (100..=599) written as one: after `status`, `status code`, `HTTP`,
/// `HTTP error` or `error code`, or before its reason phrase (`404 Not Found`).
fn http_status(lower: &str) -> Option<u16> {
    let bytes = lower.as_bytes();
    let mut i = 0;
    while i + 3 <= bytes.len() {
        let is_number = bytes[i..i + 3].iter().all(u8::is_ascii_digit)
            && (i == 0
                || !bytes[i - 1].is_ascii_alphanumeric()
                    && bytes[i - 1] != b'-'
                    && bytes[i - 1] != b'.')
            && bytes
                .get(i + 3)
                .is_none_or(|b| !b.is_ascii_alphanumeric() && *b != b'.');
        if !is_number {
            i += 1;
            continue;
        }
        let status = u16::from(bytes[i] - b'0') * 100
            + u16::from(bytes[i + 1] - b'0') * 10
            + u16::from(bytes[i + 2] - b'0');
        if (100..=599).contains(&status) {
            let before = lower[..i].trim_end_matches([' ', ':', '=', '\'', '"', '(', '#']);
            // `HTTP/1.1 503` reads as `HTTP 503`.
            let before = ["/1.1", "/1.0", "/2"]
                .iter()
                .find_map(|version| before.strip_suffix(version))
                .unwrap_or(before);
            let after = lower[i + 3..].trim_start_matches([' ', '\'', '"']);
            let named_before = STATUS_WORDS.iter().any(|word| before.ends_with(word));
            let named_after = REASONS
                .iter()
                .any(|&(code, reason)| code == status && after.starts_with(reason));
            if named_before || named_after {
                return Some(status);
            }
        }
        i += 3;
    }
    None
}

/// The category of the first `errno` name in the text, as a word (`ENOENT`, `EACCES`).
fn errno(lower: &str) -> Option<Category> {
    lower
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|word| word.len() >= 3 && word.starts_with('e'))
        .find_map(Category::from_errno)
}

/// A JSON list of zod issues: a `path` and one of zod's issue codes.
fn is_zod_issue_list(lower: &str) -> bool {
    lower.trim_start().starts_with('[')
        && lower.contains("\"path\"")
        && ZOD_CODES.iter().any(|code| lower.contains(code))
}

/// zod's `Expected number, received string` (v3) or `expected string, received undefined`
/// (v4).
fn says_expected_received(lower: &str) -> bool {
    lower.match_indices("expected ").any(|(at, _)| {
        let rest = &lower[at + "expected ".len()..];
        rest.split_once(", received ")
            .is_some_and(|(kind, _)| !kind.is_empty() && kind.len() <= 40 && !kind.contains('\n'))
    })
}

/// A wait the text asks for: `Retry-After: 30`, `retry after 2 seconds`, `retry in 500ms`,
/// `try again in 3 s`; seconds unless `ms`/`milliseconds` or `min`/`minutes` follows.
fn retry_after(lower: &str) -> Option<Duration> {
    const LEADS: [&str; 5] = [
        "retry-after",
        "retry after",
        "retry in",
        "try again in",
        "retryafter",
    ];
    for lead in LEADS {
        for (at, _) in lower.match_indices(lead) {
            let rest = lower[at + lead.len()..].trim_start_matches([' ', ':', '=', '"', '\'']);
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            if digits == 0 || digits > 9 {
                continue;
            }
            let Ok(n) = rest[..digits].parse::<u64>() else {
                continue;
            };
            let unit = rest[digits..].trim_start();
            let wait = if unit.starts_with("ms") || unit.starts_with("millisecond") {
                Duration::from_millis(n)
            } else if unit.starts_with("min") {
                Duration::from_secs(n.saturating_mul(60))
            } else {
                Duration::from_secs(n)
            };
            return Some(wait);
        }
    }
    None
}

/// The category a failure's shape names when no phrase does: a Redis error reply
/// (`WRONGTYPE ...`, `READONLY ...`, `NOAUTH ...`, `ERR invalid ...`); a first line that opens
/// `Unsupported `, says only some kind of input is allowed (`Only SELECT queries are
/// allowed`), that something is not supported or is required (`Arguments are required`), or
/// that two arguments exclude each other (`Cannot specify both head and tail parameters
/// simultaneously`, `cannot be used together`, `mutually exclusive`); a script's
/// `SyntaxError: ` (the server's own JSON parsing says `is not valid JSON`, an earlier rule):
/// all `validation`. A first line `No ... found`: `not_found`.
fn shape_category(body: &str) -> Option<Category> {
    const REDIS: [(&str, Category); 5] = [
        ("wrongtype ", Category::Validation),
        ("readonly ", Category::Permission),
        ("noauth ", Category::Unauthenticated),
        ("wrongpass ", Category::Unauthenticated),
        ("noperm ", Category::Permission),
    ];
    if let Some(&(_, category)) = REDIS.iter().find(|(word, _)| body.starts_with(word)) {
        return Some(category);
    }
    let first_line = body.lines().next().unwrap_or("");
    let refuses_input = first_line
        .strip_prefix("err ")
        .unwrap_or(first_line)
        .starts_with("invalid ")
        || first_line.starts_with("unsupported ")
        || first_line.starts_with("only ") && first_line.contains(" allowed")
        || [
            " is unsupported",
            " is not supported",
            " are not supported",
            " is required",
            " are required",
        ]
        .iter()
        .any(|phrase| first_line.contains(phrase));
    if refuses_input || says_mutually_exclusive(first_line) || body.contains("syntaxerror: ") {
        return Some(Category::Validation);
    }
    if first_line.starts_with("no ") && first_line.contains(" found") {
        return Some(Category::NotFound);
    }
    None
}

/// The status of a text whose last part, after `: `, is an HTTP reason phrase alone, as API
/// clients write a failed response (`GitLab API error: Conflict`, `... error: Bad Gateway`).
fn reason_alone(lower: &str) -> Option<u16> {
    let (_, tail) = lower.trim_end().rsplit_once(": ")?;
    let tail = tail.trim_end_matches('.');
    REASONS
        .iter()
        .find(|&&(_, reason)| tail.starts_with(reason) && tail.split_whitespace().count() <= 3)
        .map(|&(code, _)| code)
}

/// Two arguments that cannot go together, in one line: `mutually exclusive`, or `cannot` /
/// `can't` with `both`, `together` or `simultaneously`.
fn says_mutually_exclusive(line: &str) -> bool {
    line.contains("mutually exclusive")
        || (line.contains("cannot ") || line.contains("can't "))
            && [" both ", " together", " simultaneously"]
                .iter()
                .any(|word| line.contains(word))
}

/// A first line that is a sentence of failure: it opens `Failed to `, `Cannot `, `Can't `,
/// `Could not `, `Unable to `, says only some kind of input is allowed (`Only SELECT queries
/// are allowed`), or that something is `not allowed`.
fn opens_with_failure_sentence(text: &str) -> bool {
    const OPENINGS: [&str; 5] = [
        "failed to ",
        "cannot ",
        "can't ",
        "could not ",
        "unable to ",
    ];
    let line = text.lines().next().unwrap_or("");
    let head: String = line
        .chars()
        .take(200)
        .collect::<String>()
        .to_ascii_lowercase();
    OPENINGS.iter().any(|opening| head.starts_with(opening))
        || head.starts_with("only ") && head.contains(" allowed")
        || head.contains(" not allowed")
}

/// A line of the text, other than the first, that starts `Error:` or `ERROR:`, as a log or
/// a report of several steps writes a failed one.
fn has_error_line(text: &str) -> bool {
    text.lines()
        .skip(1)
        .any(|line| line.starts_with("Error:") || line.starts_with("ERROR:"))
}

/// A JSON object text that reports failure in a flag: `"success": false`, `"ok": false` or
/// `"isError": true`.
fn reports_failure_flag(text: &str) -> bool {
    if !text.starts_with('{') {
        return false;
    }
    #[derive(Deserialize)]
    struct Flags {
        success: Option<serde_json::Value>,
        ok: Option<serde_json::Value>,
        #[serde(rename = "isError")]
        is_error: Option<serde_json::Value>,
    }
    let Ok(flags) = serde_json::from_str::<Flags>(text) else {
        return false;
    };
    let is = |value: &Option<serde_json::Value>, want: bool| {
        value.as_ref().and_then(serde_json::Value::as_bool) == Some(want)
    };
    is(&flags.success, false) || is(&flags.ok, false) || is(&flags.is_error, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn category(text: &str) -> Option<Category> {
        read(text).map(|r| r.category)
    }

    #[test]
    fn the_sdks_wrappers_come_off() {
        assert_eq!(
            unwrap("mcp error -32602: tool x not found"),
            (Some("-32602"), "tool x not found")
        );
        assert_eq!(unwrap("error executing tool fetch: boom"), (None, "boom"));
        assert_eq!(unwrap("error calling tool 'get_dag': boom"), (None, "boom"));
        assert_eq!(unwrap("error: unknown tool: x"), (None, "unknown tool: x"));
        assert_eq!(unwrap("mcp error x: y"), (None, "mcp error x: y"));
        assert_eq!(
            unwrap("error executing the tool: y").1,
            "error executing the tool: y"
        );
    }

    #[test]
    fn unknown_tools_through_the_wrappers() {
        for text in [
            "MCP error -32602: Tool get-product not found",
            "Error: Unknown tool: drop_table",
            "Unknown tool: 'delete_dag'",
            "Error calling tool 'x': Unknown tool: y",
        ] {
            let reading = read(text).expect(text);
            assert!(reading.tool_unavailable, "{text}");
            assert_eq!(reading.category, Category::NotFound);
        }
        let reading = read("Entity with name Zed not found").unwrap();
        assert!(!reading.tool_unavailable);
    }

    #[test]
    fn validation_texts_of_pydantic_zod_and_json_schema() {
        for text in [
            "Error executing tool fetch: 1 validation error for fetchArguments\nurl\n  Field required [type=missing, input_value={}, input_type=dict]",
            "1 validation error for call[get_dag]\ndag_id\n  Input should be a valid string [type=string_type]",
            "Input should be a valid integer, unable to parse string as an integer",
            "MCP error -32602: Input validation error: Invalid arguments for tool echo: Invalid input: expected string, received undefined at message",
            "Expected number, received string",
            "[\n  {\n    \"code\": \"invalid_type\",\n    \"expected\": \"string\",\n    \"received\": \"number\",\n    \"path\": [\"name\"],\n    \"message\": \"Expected string, received number\"\n  }\n]",
            "[{\"code\":\"too_small\",\"minimum\":1,\"path\":[\"paths\"],\"message\":\"x\"}]",
            "Input validation error: 'table_name' is a required property",
            "Input validation error: 1 is not of type 'string'",
            "Database error: near \"FRM\": syntax error",
            "syntax error at or near \"SELEC\"",
            "invalid input syntax for type integer: \"abc\"",
            "Database error: NOT NULL constraint failed: users.email",
            "Error executing tool git_branch: Invalid branch type: everything",
            "MCP error -32602: something else",
            "EISDIR: illegal operation on a directory, read",
        ] {
            assert_eq!(category(text), Some(Category::Validation), "{text}");
        }
    }

    #[test]
    fn errno_names_and_their_wordings() {
        for (text, want) in [
            (
                "ENOENT: no such file or directory, open '/tmp/x'",
                Category::NotFound,
            ),
            (
                "[Errno 2] No such file or directory: '/tmp/x'",
                Category::NotFound,
            ),
            (
                "EACCES: permission denied, open '/tmp/x'",
                Category::Permission,
            ),
            ("[Errno 13] Permission denied: '/x'", Category::Permission),
            (
                "EEXIST: file already exists, mkdir '/x'",
                Category::Conflict,
            ),
            ("[Errno 17] File exists: '/x'", Category::Conflict),
            (
                "ENOTDIR: not a directory, scandir '/x'",
                Category::Validation,
            ),
            ("connect ECONNREFUSED 127.0.0.1:1", Category::Transient),
            (
                "ConnectError: [Errno 111] Connection refused",
                Category::Transient,
            ),
            ("read ECONNRESET", Category::Transient),
            (
                "getaddrinfo ENOTFOUND db.example.invalid",
                Category::NotFound,
            ),
            (
                "getaddrinfo EAI_AGAIN db.example.invalid",
                Category::Transient,
            ),
            ("[Errno -2] Name or service not known", Category::NotFound),
            (
                "[Errno -3] Temporary failure in name resolution",
                Category::Transient,
            ),
            (
                "dial tcp: lookup x.invalid: no such host",
                Category::NotFound,
            ),
            (
                "Error: browserBackend.callTool: net::ERR_NAME_NOT_RESOLVED at http://x.invalid/",
                Category::NotFound,
            ),
            (
                "Error: browserBackend.callTool: net::ERR_CONNECTION_REFUSED at http://127.0.0.1:9/",
                Category::Transient,
            ),
            (
                "EROFS: read-only file system, open '/x'",
                Category::Permission,
            ),
        ] {
            assert_eq!(category(text), Some(want), "{text}");
        }
    }

    #[test]
    fn http_statuses_in_text() {
        for (text, want) in [
            (
                "Failed to fetch http://h/x - status code 404",
                Category::NotFound,
            ),
            (
                "Client error '401 Unauthorized' for url 'http://h/s401'",
                Category::Unauthenticated,
            ),
            ("Client error '403 Forbidden' for url", Category::Permission),
            ("Client error '409 Conflict' for url", Category::Conflict),
            ("HTTP 429", Category::RateLimited),
            (
                "Server error '500 Internal Server Error' for url",
                Category::Internal,
            ),
            ("upstream answered HTTP/1.1 503", Category::Transient),
            ("received status 502 from upstream", Category::Transient),
        ] {
            assert_eq!(category(text), Some(want), "{text}");
        }
        // Numbers that are not statuses.
        for text in [
            "port 127.0.0.1:404",
            "found 404 results",
            "line 500 column 3",
            "version 4.290.1",
            "/status/404",
        ] {
            assert_eq!(http_status(&text.to_ascii_lowercase()), None, "{text}");
        }
    }

    #[test]
    fn retry_after_values() {
        for (text, want) in [
            (
                "429 Too Many Requests. Retry-After: 30",
                Duration::from_secs(30),
            ),
            (
                "rate limited, retry after 2 seconds",
                Duration::from_secs(2),
            ),
            ("slow down; retry in 500ms", Duration::from_millis(500)),
            ("try again in 3 minutes", Duration::from_secs(180)),
        ] {
            assert_eq!(
                retry_after(&text.to_ascii_lowercase()),
                Some(want),
                "{text}"
            );
        }
        for text in [
            "retry after a while",
            "retry-after: soon",
            "retry in 9999999999 s",
        ] {
            assert_eq!(retry_after(&text.to_ascii_lowercase()), None, "{text}");
        }
        let reading = read("Too many requests, retry after 4 seconds").unwrap();
        assert_eq!(reading.category, Category::RateLimited);
        assert_eq!(reading.retry_after, Some(Duration::from_secs(4)));
    }

    #[test]
    fn phrases() {
        for (text, want) in [
            (
                "Database error: table users already exists",
                Category::Conflict,
            ),
            (
                "Database error: UNIQUE constraint failed: users.email",
                Category::Conflict,
            ),
            (
                "duplicate key value violates unique constraint \"u\"",
                Category::Conflict,
            ),
            ("Entity with name Zed not found", Category::NotFound),
            ("relation \"orders\" does not exist", Category::NotFound),
            ("Database error: no such table: orders", Category::NotFound),
            (
                "fatal: pathspec 'nope.txt' did not match any files",
                Category::NotFound,
            ),
            (
                "Access denied - path outside allowed directories: /x",
                Category::Permission,
            ),
            (
                "cannot execute INSERT in a read-only transaction",
                Category::Permission,
            ),
            (
                "password authentication failed for user \"u\"",
                Category::Unauthenticated,
            ),
            ("ReadTimeout('')", Category::Transient),
            ("Request timed out", Category::Transient),
            ("Database error: database is locked", Category::Transient),
            (
                "ConnectError('All connection attempts failed')",
                Category::Transient,
            ),
            (
                "Unexpected token 'o', \"not json\" is not valid JSON",
                Category::Internal,
            ),
        ] {
            assert_eq!(category(text), Some(want), "{text}");
        }
    }

    #[test]
    fn near_misses_read_nothing() {
        for text in [
            "",
            "boom",
            "Operation failed",
            "fetch completed",
            "the invalidation cache was rebuilt",
            "expected a string",
            "Tool get_weather failed",
            "Connection established",
            "status: ok",
            "found 3 items",
            "errno",
            "Error: something went wrong",
            "fetch failed",
            "TypeError: fetch failed",
            "Only one step left",
            "the result must be shown",
        ] {
            assert_eq!(read(text), None, "{text}");
        }
    }

    #[test]
    fn a_cause_beside_fetch_failed_names_the_category() {
        assert_eq!(
            category("TypeError: fetch failed\n  cause: Error: connect ECONNREFUSED 127.0.0.1:1"),
            Some(Category::Transient)
        );
        assert_eq!(
            category("fetch failed (cause: getaddrinfo ENOTFOUND api.example.invalid)"),
            Some(Category::NotFound)
        );
    }

    #[test]
    fn input_checks_of_common_sdks_and_tools() {
        for (text, want) in [
            (
                "Error calling tool 'search_notes': limit must be between 1 and 100",
                Category::Validation,
            ),
            ("count must be a positive integer", Category::Validation),
            ("index 7 out of range", Category::Validation),
            (
                "Cannot specify both head and tail parameters simultaneously",
                Category::Validation,
            ),
            (
                "--json and --yaml cannot be used together",
                Category::Validation,
            ),
            (
                "Error calling tool 'fetch_page': Request URL is missing an 'http://' or 'https://' protocol.",
                Category::Validation,
            ),
            (
                "Database error: Conversion Error: Could not convert string 'abc' to INT32",
                Category::Validation,
            ),
            (
                "Unsupported format 'pdf'; use markdown or html",
                Category::Validation,
            ),
            (
                "Error: Only SELECT queries are allowed",
                Category::Validation,
            ),
            (
                "WRONGTYPE Operation against a key holding the wrong kind of value",
                Category::Validation,
            ),
            (
                "ERR invalid expire time in 'setex' command",
                Category::Validation,
            ),
            (
                "READONLY You can't write against a read only replica.",
                Category::Permission,
            ),
            ("NOAUTH Authentication required.", Category::Unauthenticated),
            (
                "Error calling tool 'create_note': attempt to write a readonly database",
                Category::Permission,
            ),
            (
                "### Error\nError: \"#buy-now\" does not match any elements.",
                Category::NotFound,
            ),
            (
                "Database error: IO Error: No files found that match the pattern \"/x.csv\"",
                Category::NotFound,
            ),
            (
                "Database error: IO Error: Could not set lock on file \"/x.duckdb\": Conflicting lock is held",
                Category::Transient,
            ),
            (
                "Error calling tool 'read_attachment': [Errno 21] Is a directory: '/tmp/x'",
                Category::Validation,
            ),
            ("division by zero", Category::Validation),
            (
                "### Error\nError: browserBackend.callTool: Error: Element is not a <select> element",
                Category::Validation,
            ),
            (
                "### Error\nError: browserBackend.callTool: Unknown key: \"NotAKey\"",
                Category::Validation,
            ),
            (
                "### Error\nSyntaxError: Unexpected token ')'\n    at eval (eval at evaluate (:368:30))",
                Category::Validation,
            ),
            (
                "Error executing tool git_create_branch: No item found with id nope",
                Category::NotFound,
            ),
            (
                "Security violation: command not allowed",
                Category::Permission,
            ),
            (
                "A query must have either text or a name. Supplying neither is unsupported.",
                Category::Validation,
            ),
            ("Arguments are required", Category::Validation),
            ("GitLab API error: Conflict", Category::Conflict),
            (
                "GitLab API error: Unprocessable Entity",
                Category::Validation,
            ),
            ("GitLab API error: Bad Gateway", Category::Transient),
            // The Python SDK 2's masked crash (`UnexpectedToolError`).
            (
                "Error executing tool get_node_summaries",
                Category::Internal,
            ),
        ] {
            assert_eq!(category(text), Some(want), "{text}");
        }
    }

    #[test]
    fn successes_that_are_plainly_failures() {
        for text in [
            "Error: Only SELECT queries are allowed",
            "Database error: no such table: orders",
            "TypeError: cannot read properties of undefined",
            "Error executing tool x: boom",
            "{\n  \"error\": \"Endpoint not found: dags/x\",\n  \"error_type\": \"NotFoundError\"\n}",
            "{\"error\": {\"code\": 5}}",
            "/a.txt:\none\n---\n/b.txt: Error - ENOENT: no such file or directory, open '/b.txt'",
            "Failed to delete note 999: no such note",
            "Cannot delete a note without confirm=true",
            "Unable to reach the billing service",
            "Could not open the file",
            "Only SELECT queries are allowed",
            "Security violation: command not allowed",
            "command rm is not allowed here",
            "Unknown tool: drop_table",
            "step 1: ok\nError: step 2 failed",
            "{\"success\": false, \"message\": \"quota\"}",
            "{\"ok\": false}",
            "{\"isError\": true, \"content\": []}",
        ] {
            assert!(looks_like_failure(text), "{text}");
        }
        for text in [
            "",
            "[]",
            "42",
            "Successfully wrote to /x",
            "Errors are logged to /var/log",
            "The error: none",
            "Contents of http://h/page:\nsome error: in the page",
            "{\"error\": null, \"value\": 1}",
            "{\"error\": \"\"}",
            "{\"errors\": []}",
            "ENOENT is the errno for a missing file",
            "{not json",
            "{\"id\":2,\"title\":\"Error handling\",\"body\":\"Error: lines in the log\"}",
            "{\"notes\":[{\"id\":3,\"title\":\"Failed to launch: postmortem\"}],\"count\":1}",
            "[('error: customer typo fixed',)]",
            "### Result\n\"Error: none, 3 items in cart\"",
            "{\"success\": true, \"ok\": true, \"isError\": false}",
            "Errors: 0\nWarnings: 2",
            "The only allowed values were kept",
        ] {
            assert!(!looks_like_failure(text), "{text}");
        }
        assert_eq!(
            read_success("{\"error\": \"Client error '404 Not Found'\", \"hint\": \"check permission denied\"}")
                .unwrap()
                .unwrap()
                .category,
            Category::NotFound
        );
        assert_eq!(read_success("Error: something went wrong"), Some(None));
        assert_eq!(
            read_success("{\"error\":\"upstream answered 401\",\"status\":401}")
                .unwrap()
                .unwrap()
                .category,
            Category::Unauthenticated
        );
        assert_eq!(read_success("all good"), None);
    }
}
