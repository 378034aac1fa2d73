//! The fingerprint of a call and the store a server records outcomes in.

use std::error::Error as StdError;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// What makes two calls with one key the same call: the tool's name and its arguments as
/// parsed JSON values, hashed (SHA-256) over a canonical form.
///
/// The canonical form sorts object members by name, writes strings as parsed (so escapes do
/// not matter) and numbers by their mathematical value (`1`, `1.0` and `1e0` are one number),
/// so two argument objects that parse to the same value always have the same fingerprint.
///
/// ```
/// use mcp_errors_core::idempotency::Fingerprint;
/// use serde_json::json;
///
/// let a = Fingerprint::of("refund", &json!({"order": 7, "amount": 1.0}));
/// let b = Fingerprint::of("refund", &json!({"amount": 1, "order": 7}));
/// assert_eq!(a, b);
/// assert_ne!(a, Fingerprint::of("refund", &json!({"order": 8, "amount": 1})));
/// assert_ne!(a, Fingerprint::of("charge", &json!({"order": 7, "amount": 1})));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Fingerprint([u8; 32]);

impl Fingerprint {
    /// The fingerprint of a call of `tool` with `arguments` (`null` and `{}` are the same:
    /// a call without arguments).
    pub fn of(tool: &str, arguments: &Value) -> Self {
        let mut canonical = String::new();
        canonical.push_str(tool);
        canonical.push('\0');
        match arguments {
            Value::Null => write_canonical(&mut canonical, &Value::Object(Map::new())),
            other => write_canonical(&mut canonical, other),
        }
        Fingerprint(Sha256::digest(canonical.as_bytes()).into())
    }

    /// The 32 bytes of the hash.
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// The hash in lowercase hex (64 characters), as stores keep it.
    pub fn to_hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// Reads [`to_hex`](Self::to_hex)'s form back; `None` for anything else.
    pub fn from_hex(hex: &str) -> Option<Self> {
        if hex.len() != 64 || !hex.is_ascii() {
            return None;
        }
        let mut bytes = [0u8; 32];
        for (i, byte) in bytes.iter_mut().enumerate() {
            *byte = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok()?;
        }
        Some(Fingerprint(bytes))
    }
}

impl fmt::Debug for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Fingerprint({})", self.to_hex())
    }
}

/// Appends `value` in the canonical form [`Fingerprint`] hashes.
fn write_canonical(out: &mut String, value: &Value) {
    match value {
        Value::Object(map) => {
            let mut members: Vec<(&String, &Value)> = map.iter().collect();
            members.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (name, member)) in members.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(name.clone()).to_string());
                out.push(':');
                write_canonical(out, member);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(out, item);
            }
            out.push(']');
        }
        Value::Number(n) => out.push_str(&canonical_number(n)),
        scalar => out.push_str(&scalar.to_string()),
    }
}

/// A number by its value: an integer (however written) in decimal digits, any other number
/// in the shortest form that reads back to the same `f64`.
fn canonical_number(n: &serde_json::Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    if let Some(u) = n.as_u64() {
        return u.to_string();
    }
    match n.as_f64() {
        // Every integral f64 below 2^127 is exactly an i128.
        Some(f) if f.is_finite() && f.fract() == 0.0 && f.abs() < 1.0e38 => (f as i128).to_string(),
        Some(f) if f.is_finite() => format!("{f:e}"),
        // serde_json never holds a non-finite number; its text is the best stand-in.
        _ => n.to_string(),
    }
}

/// Whose record a key names: the caller's scope (the boundary that already governs who may
/// call the tool: an authenticated principal, a session, the local user of a stdio server)
/// and the key the caller sent. Two callers never share a record, whatever keys they send.
///
/// A record also counts against a budget, the room of the store its scope may take: the
/// scope's own unless [`with_budget`](Self::with_budget) names one that several scopes share
/// (every anonymous session, say), so that scopes that cost a caller nothing to make take
/// one scope's room between them.
#[derive(Clone, Debug)]
pub struct RecordKey {
    scope: String,
    key: String,
    budget: Option<String>,
}

impl RecordKey {
    /// The record of `key` in `scope`, counted against the scope's own budget.
    pub fn new(scope: impl Into<String>, key: impl Into<String>) -> Self {
        RecordKey {
            scope: scope.into(),
            key: key.into(),
            budget: None,
        }
    }

    /// The same record, counted against the budget `budget` (shared by every scope that
    /// names it) instead of its scope's own. The budget is no part of the record's identity.
    pub fn with_budget(mut self, budget: impl Into<String>) -> Self {
        self.budget = Some(budget.into());
        self
    }

    /// The caller's scope.
    pub fn scope(&self) -> &str {
        &self.scope
    }

    /// The key the caller sent.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The budget the record counts against: the one [`with_budget`](Self::with_budget)
    /// named, else the scope.
    pub fn budget(&self) -> &str {
        self.budget.as_deref().unwrap_or(&self.scope)
    }
}

impl PartialEq for RecordKey {
    fn eq(&self, other: &Self) -> bool {
        self.scope == other.scope && self.key == other.key
    }
}

impl Eq for RecordKey {}

impl std::hash::Hash for RecordKey {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.scope.hash(state);
        self.key.hash(state);
    }
}

/// The token of one claim of a key: only the holder of the claim completes or releases it, so
/// a call whose lease ran out (and whose key another call then claimed) cannot overwrite the
/// newer call's record.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ClaimToken(pub String);

/// The outcome of a call recorded for replay: the JSON of the `tools/call` result (`CallToolResult`,
/// an `isError` result included, or the `CreateTaskResult` of a call run as a task), or of the
/// JSON-RPC error object `{code, message, data?}`.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Recorded {
    /// The call's result.
    Result(Value),
    /// The call's JSON-RPC error object.
    Error(Value),
}

/// What a store answers to a claim of a key.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Claim {
    /// The key was free (or its record had expired): the caller runs the tool and then
    /// completes or releases the claim.
    Claimed(ClaimToken),
    /// A call with this key and the same fingerprint still runs.
    InProgress,
    /// A call with this key started and its outcome is not known: its lease ran out before an
    /// outcome was recorded (its server stopped, or could not reach the store), or the store
    /// lost the key's record. The call may have run, so it never runs again under this key;
    /// the caller has to find out what it did.
    OutcomeUnknown,
    /// A call with this key and the same fingerprint finished: its outcome, to replay.
    Completed(Recorded),
    /// The key was used with another fingerprint (another tool or other arguments), running
    /// or finished.
    Conflict,
}

/// A store's own failure (a lost connection, a full store): the server answers the call
/// with an internal error and runs nothing.
#[derive(Debug)]
pub struct StoreError(Box<dyn StdError + Send + Sync>);

impl StoreError {
    /// Wraps the store's error.
    pub fn new(error: impl Into<Box<dyn StdError + Send + Sync>>) -> Self {
        StoreError(error.into())
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "idempotency store: {}", self.0)
    }
}

impl StdError for StoreError {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        Some(&*self.0)
    }
}

/// The future a store's method returns.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// Where a server keeps its idempotency records: one per [`RecordKey`], each either in
/// progress (a claim, held under a lease its holder renews while the call runs) or completed
/// (the recorded outcome), kept for a time to live. A claim whose lease ran out is not freed:
/// its call may have run, so until its time to live ends the key answers
/// [`Claim::OutcomeUnknown`] (or its outcome, if its holder still records one).
///
/// Every method is atomic with respect to every other call on the same key, across every
/// process that shares the store: two claims of one free key never both succeed.
pub trait IdempotencyStore: Send + Sync + 'static {
    /// Claims `key` for a call with `fingerprint`, or says why not. A new claim holds the key
    /// for `lease` (renewed while its call runs), and its record is kept for `ttl` (at least
    /// the lease): a claim whose lease ran out answers [`Claim::OutcomeUnknown`] until then.
    /// Only an expired record counts as free.
    fn claim<'a>(
        &'a self,
        key: &'a RecordKey,
        fingerprint: &'a Fingerprint,
        lease: Duration,
        ttl: Duration,
    ) -> StoreFuture<'a, Claim>;

    /// Records `outcome` for the claim `token` of `key`, kept for `ttl`, its lease run out or
    /// not. Does nothing when another record holds the key; a store may record it when the
    /// key has no record at all (the call ran: its outcome is the key's).
    fn complete<'a>(
        &'a self,
        key: &'a RecordKey,
        token: &'a ClaimToken,
        outcome: &'a Recorded,
        ttl: Duration,
    ) -> StoreFuture<'a, ()>;

    /// Extends the lease of the claim `token` of `key` to `lease` from now, while its call
    /// still runs; `false` when another record holds the key. A store may put the claim back
    /// when the key has no record at all (its lease ran out unclaimed, or the store lost it).
    fn renew<'a>(
        &'a self,
        key: &'a RecordKey,
        token: &'a ClaimToken,
        lease: Duration,
    ) -> StoreFuture<'a, bool>;

    /// Frees `key` if `token` still holds it (the call was cancelled before it had an
    /// outcome), so a retry with the key runs the tool.
    fn release<'a>(&'a self, key: &'a RecordKey, token: &'a ClaimToken) -> StoreFuture<'a, ()>;
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn equivalent_arguments_have_one_fingerprint() {
        let a: Value =
            serde_json::from_str(r#"{"a": 1, "b": {"x": "\u00e9", "y": [1.0, 2]}}"#).unwrap();
        let b: Value =
            serde_json::from_str(r#"{"b": {"y": [1, 2e0], "x": "é"}, "a": 1.0}"#).unwrap();
        assert_eq!(Fingerprint::of("t", &a), Fingerprint::of("t", &b));
        assert_eq!(
            Fingerprint::of("t", &Value::Null),
            Fingerprint::of("t", &json!({}))
        );
    }

    #[test]
    fn other_values_tools_and_shapes_differ() {
        let base = Fingerprint::of("t", &json!({"a": 1}));
        for other in [
            json!({"a": 2}),
            json!({"a": "1"}),
            json!({"a": 1.5}),
            json!({"a": [1]}),
            json!({"a": 1, "b": null}),
            json!({"A": 1}),
        ] {
            assert_ne!(base, Fingerprint::of("t", &other), "{other}");
        }
        assert_ne!(base, Fingerprint::of("u", &json!({"a": 1})));
        // The name and the arguments cannot be shifted into each other.
        assert_ne!(
            Fingerprint::of("t{", &json!({})),
            Fingerprint::of("t", &json!({"{": 1}))
        );
        assert_ne!(
            Fingerprint::of("t", &json!([1, 2])),
            Fingerprint::of("t", &json!([12]))
        );
    }

    #[test]
    fn numbers_compare_by_value() {
        let n = |text: &str| canonical_number(&serde_json::from_str(text).unwrap());
        assert_eq!(n("1"), n("1.0"));
        assert_eq!(n("-3"), n("-3e0"));
        assert_eq!(n("18446744073709551615"), "18446744073709551615");
        assert_eq!(n("9007199254740992.0"), n("9007199254740992"));
        assert_ne!(n("0.1"), n("0.10000001"));
        assert_eq!(n("0.5"), "5e-1");
        assert_eq!(n("1e300"), "1e300");
    }

    #[test]
    fn hex_round_trips_and_refuses_other_text() {
        let f = Fingerprint::of("t", &json!({"a": 1}));
        assert_eq!(Fingerprint::from_hex(&f.to_hex()), Some(f));
        assert_eq!(f.to_hex().len(), 64);
        assert_eq!(Fingerprint::from_hex("00"), None);
        assert_eq!(Fingerprint::from_hex(&"g".repeat(64)), None);
        assert_eq!(Fingerprint::from_hex(&"é".repeat(32)), None);
        assert!(format!("{f:?}").contains(&f.to_hex()));
    }

    #[test]
    fn store_error_shows_its_source() {
        let e = StoreError::new("connection refused");
        assert_eq!(e.to_string(), "idempotency store: connection refused");
        assert!(e.source().is_some());
        let k = RecordKey::new("caller", "k1");
        assert_eq!((k.scope(), k.key()), ("caller", "k1"));
    }
}
