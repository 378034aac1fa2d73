//! Property tests: no input makes the classifier or the policy panic, `classify` and
//! `classify_bytes` agree (also on JSON written in other ways than serde_json writes it), the
//! texts of a failure come out cleaned and cut, and the policy's decisions stay inside its
//! bounds.

use std::time::Duration;

use mcp_errors_core::client::{
    Attempt, Decision, EscalationReason, Evidence, InvalidReason, Outcome, RetryBudget,
    RetryPolicy, UnknownCause, classify, classify_bytes, classify_result,
};
use mcp_errors_core::{FailureClass, META_KEY};
use proptest::collection::{btree_map, vec};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

/// Limits the crate documents (the crate root's "Limits").
const MAX_HINT_CHARS: usize = 1024;
const MAX_MESSAGE_CHARS: usize = 2048;

/// Keys the classifier looks at, mixed with random ones, so generated objects hit its paths.
fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(vec![
            "jsonrpc", "id", "result", "error", "content", "isError", "resultType", "_meta",
            "structuredContent", "rs.mcp-errors/error", "rs.mcp-errors/empty", "code",
            "category", "retryable", "message", "type", "text", "errorCategory", "isRetryable",
            "description", "retryAfterMs", "details", "hint", "correlationId", "inputRequests",
            "requestState", "data",
        ])
        .prop_map(str::to_owned),
        1 => "[a-zA-Z_]{0,6}",
    ]
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        // Floats that print and parse back exactly, so both entry points see the same number.
        (-4000i32..4000).prop_map(|x| Value::from(f64::from(x) / 8.0)),
        prop::sample::select(vec![
            "2.0",
            "complete",
            "input_required",
            "text",
            "transient",
            "validation",
            "rate_limited",
            "permission",
            "business",
            "internal",
            "conflict",
            "not_found",
            "unauthenticated",
            "{\"errorCategory\":\"transient\",\"description\":\"d\"}",
            "",
        ])
        .prop_map(Value::from),
        ".{0,12}".prop_map(Value::from),
    ]
}

fn category_name() -> impl Strategy<Value = Value> {
    prop_oneof![
        4 => prop::sample::select(mcp_errors_core::Category::ALL.to_vec())
            .prop_map(|c| Value::from(c.as_str())),
        1 => leaf(),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(5, 96, 8, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..6).prop_map(Value::Array),
            btree_map(key(), inner, 0..8).prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Something shaped like a `tools/call` response, with arbitrary parts.
fn response_like() -> impl Strategy<Value = Value> {
    let block = prop_oneof![
        4 => (".{0,16}").prop_map(|t| json!({"type": "text", "text": t})),
        4 => json_value().prop_map(|v| json!({"type": "text", "text": v.to_string()})),
        4 => (category_name(), prop::option::of(any::<bool>()), ".{0,8}").prop_map(|(c, r, d)| {
            let error = json!({"errorCategory": c, "isRetryable": r, "description": d});
            json!({"type": "text", "text": error.to_string()})
        }),
        1 => json_value(),
    ];
    // Each optional field mostly of its type, sometimes of another (read as absent).
    let text = || prop_oneof![4 => ".{0,8}".prop_map(Value::from), 1 => leaf()].boxed();
    let flag = || prop_oneof![4 => any::<bool>().prop_map(Value::from), 1 => leaf()].boxed();
    let payload = (
        prop::option::of(text()),
        prop::option::of(category_name()),
        prop::option::of(flag()),
        prop::option::of(text()),
        prop::option::of(
            prop_oneof![
                any::<u64>().prop_map(Value::from),
                // Whole floats (read as milliseconds) and fractions (read as absent).
                (0u32..100_000).prop_map(|ms| Value::from(f64::from(ms))),
                leaf(),
            ]
            .boxed(),
        ),
        prop::option::of(json_value().boxed()),
        (prop::option::of(text()), prop::option::of(text())),
    )
        .prop_map(
            |(code, category, retryable, message, retry_after, details, (hint, id))| {
                let mut o = Map::new();
                let mut put = |k: &str, v: Option<Value>| {
                    if let Some(v) = v {
                        o.insert(k.to_owned(), v);
                    }
                };
                put("code", code);
                put("category", category);
                put("retryable", retryable);
                put("message", message);
                put("retryAfterMs", retry_after);
                put("details", details);
                put("hint", hint);
                put("correlationId", id);
                Value::Object(o)
            },
        )
        .boxed();
    // The draft tool-failure entry: each field mostly of its type, `retryNotBefore` also in
    // the near future (which must not make the outcome depend on when it is read).
    let draft = (
        prop::option::of(
            prop_oneof![
                Just(json!("capability")),
                Just(json!("governance")),
                Just(json!("reliability")),
                leaf(),
            ]
            .boxed(),
        ),
        prop::option::of(
            prop_oneof![
                Just(json!("retryable_transient_error")),
                Just(json!("invalid_input")),
                text(),
            ]
            .boxed(),
        ),
        prop::option::of(flag()),
        prop::option::of(
            prop_oneof![
                (0u64..4_000).prop_map(|ms| {
                    let now = std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .unwrap()
                        .as_millis() as u64;
                    Value::from(now + ms)
                }),
                any::<u64>().prop_map(Value::from),
                leaf(),
            ]
            .boxed(),
        ),
        (prop::option::of(text()), prop::option::of(text())),
    )
        .prop_map(|(class, code, retryable, not_before, (id, guidance))| {
            let mut o = Map::new();
            let mut put = |k: &str, v: Option<Value>| {
                if let Some(v) = v {
                    o.insert(k.to_owned(), v);
                }
            };
            put("class", class);
            put("code", code);
            put("retryable", retryable);
            put("retryNotBefore", not_before);
            put("correlationId", id);
            put("agentGuidance", guidance);
            Value::Object(o)
        })
        .boxed();
    let result = (
        prop::option::weighted(
            0.5,
            prop_oneof![
                1 => leaf(),
                4 => Just(json!("complete")),
                2 => Just(json!("input_required")),
            ],
        ),
        prop::option::weighted(
            0.8,
            prop_oneof![
                6 => any::<bool>().prop_map(Value::from),
                1 => leaf(),
            ],
        ),
        prop::option::weighted(
            0.9,
            prop_oneof![
                8 => vec(block, 0..4).prop_map(Value::Array),
                1 => json_value(),
            ],
        ),
        prop::option::of(prop_oneof![payload.clone(), json_value()]),
        prop::option::of(prop_oneof![
            payload
                .clone()
                .prop_map(|p| json!({"rs.mcp-errors/error": p})),
            any::<bool>().prop_map(|b| json!({"rs.mcp-errors/empty": b})),
            draft
                .clone()
                .prop_map(|d| json!({"io.modelcontextprotocol/toolFailure": d})),
            (payload, draft).prop_map(|(p, d)| json!({
                "rs.mcp-errors/error": p, "io.modelcontextprotocol/toolFailure": d
            })),
            json_value(),
        ]),
        prop::option::of(json_value()),
        prop::option::of(leaf()),
    )
        .prop_map(
            |(rt, is_error, content, structured, meta, requests, state)| {
                let mut o = Map::new();
                let mut put = |k: &str, v: Option<Value>| {
                    if let Some(v) = v {
                        o.insert(k.to_owned(), v);
                    }
                };
                put("resultType", rt);
                put("isError", is_error);
                put("content", content);
                put("structuredContent", structured);
                put("_meta", meta);
                put("inputRequests", requests);
                put("requestState", state);
                Value::Object(o)
            },
        );
    let error = (
        prop_oneof![any::<i64>().prop_map(Value::from), leaf()],
        prop::option::of(leaf()),
        prop::option::of(json_value()),
    )
        .prop_map(|(code, message, data)| {
            let mut o = Map::new();
            o.insert("code".into(), code);
            if let Some(m) = message {
                o.insert("message".into(), m);
            }
            if let Some(d) = data {
                o.insert("data".into(), d);
            }
            Value::Object(o)
        });
    let members = prop_oneof![
        6 => result.prop_map(|r| (Some(r), None)),
        2 => error.prop_map(|e| (None, Some(e))),
        1 => (result_both(), error_both()).prop_map(|(r, e)| (Some(r), Some(e))),
        1 => Just((None, None)),
    ];
    (prop_oneof![8 => Just(json!("2.0")), 1 => leaf()], members).prop_map(
        |(jsonrpc, (result, error))| {
            let mut o = Map::new();
            o.insert("jsonrpc".into(), jsonrpc);
            o.insert("id".into(), json!(1));
            if let Some(r) = result {
                o.insert("result".into(), r);
            }
            if let Some(e) = error {
                o.insert("error".into(), e);
            }
            Value::Object(o)
        },
    )
}

fn result_both() -> impl Strategy<Value = Value> {
    Just(json!({"content": []}))
}

fn error_both() -> impl Strategy<Value = Value> {
    Just(json!({"code": -32603, "message": "m"}))
}

fn agree(value: &Value) -> Result<Outcome, TestCaseError> {
    let from_value = classify(value);
    let bytes = serde_json::to_vec(value).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(&from_value, &classify_bytes(&bytes));
    Ok(from_value)
}

/// A small random source for [`Writer`], seeded by proptest.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        // xorshift64
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }

    fn one_in(&mut self, n: u64) -> bool {
        self.below(n) == 0
    }
}

/// Writes a `Value` as JSON text other than serde_json's: whitespace between tokens, keys in
/// another order, a key written twice (an earlier value of any type, then the real one),
/// characters of strings and keys as `\u` escapes, and, when `floats` is set, numbers
/// spelled as floats (`3.0`, `3e0`: another `Value` once parsed, so only agreement on the
/// same bytes holds).
struct Writer {
    rng: Rng,
    floats: bool,
    out: String,
}

impl Writer {
    fn write(value: &Value, seed: u64, floats: bool) -> String {
        let mut writer = Writer {
            rng: Rng(seed | 1),
            floats,
            out: String::new(),
        };
        writer.value(value);
        writer.out
    }

    fn space(&mut self) {
        const SPACE: [&str; 5] = ["", " ", "\n", "\t  ", "\r\n "];
        let at = self.rng.below(12) as usize;
        self.out.push_str(SPACE.get(at).unwrap_or(&""));
    }

    fn value(&mut self, value: &Value) {
        self.space();
        match value {
            Value::Number(n) => self.number(n),
            Value::String(s) => self.string(s),
            Value::Array(items) => {
                self.out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    self.value(item);
                }
                self.space();
                self.out.push(']');
            }
            Value::Object(members) => {
                let mut members: Vec<_> = members.iter().collect();
                for i in (1..members.len()).rev() {
                    members.swap(i, self.rng.below(i as u64 + 1) as usize);
                }
                self.out.push('{');
                let mut first = true;
                for (key, value) in members {
                    if self.rng.one_in(4) {
                        const DECOYS: [&str; 7] =
                            ["null", "5", "2.5", "\"x\"", "true", "[1,{}]", "{\"a\":1}"];
                        let decoy = DECOYS[self.rng.below(7) as usize];
                        self.member(&mut first, key, |w| w.out.push_str(decoy));
                    }
                    self.member(&mut first, key, |w| w.value(value));
                }
                self.space();
                self.out.push('}');
            }
            other => self.out.push_str(&other.to_string()),
        }
        self.space();
    }

    fn member(&mut self, first: &mut bool, key: &str, value: impl FnOnce(&mut Self)) {
        if !*first {
            self.out.push(',');
        }
        *first = false;
        self.space();
        self.string(key);
        self.space();
        self.out.push(':');
        value(self);
    }

    fn string(&mut self, s: &str) {
        self.out.push('"');
        for c in s.chars() {
            let plain = serde_json::to_string(&c.to_string()).unwrap_or_default();
            if u32::from(c) < 0x1_0000 && self.rng.one_in(6) {
                self.out.push_str(&format!("\\u{:04x}", u32::from(c)));
            } else {
                self.out.push_str(&plain[1..plain.len() - 1]);
            }
        }
        self.out.push('"');
    }

    fn number(&mut self, n: &serde_json::Number) {
        let written = match (n.as_u64(), n.as_i64(), n.as_f64()) {
            _ if !self.floats || self.rng.one_in(3) => n.to_string(),
            (Some(u), _, _) if self.rng.one_in(2) => format!("{u}.0"),
            (Some(u), _, _) => format!("{u}e0"),
            (None, Some(i), _) => format!("{i}.00"),
            (_, _, Some(f)) => format!("{f:e}"),
            _ => n.to_string(),
        };
        self.out.push_str(&written);
    }
}

/// `classify` of the bytes parsed agrees with `classify_bytes` of the bytes.
fn agree_on_bytes(bytes: &str) -> Result<Outcome, TestCaseError> {
    let from_bytes = classify_bytes(bytes.as_bytes());
    let value: Value =
        serde_json::from_str(bytes).map_err(|e| TestCaseError::fail(format!("{e}: {bytes}")))?;
    prop_assert_eq!(&classify(&value), &from_bytes, "{}", bytes);
    Ok(from_bytes)
}

/// Replaces the value of the `nth` member of an object in `value` (counted depth first,
/// modulo the number of members) with `marker`; `false` when `value` has no member.
fn replace_member(value: &mut Value, nth: usize, marker: &str) -> bool {
    fn members(value: &Value) -> usize {
        match value {
            Value::Object(o) => o.values().map(|v| 1 + members(v)).sum(),
            Value::Array(a) => a.iter().map(members).sum(),
            _ => 0,
        }
    }
    fn walk(value: &mut Value, nth: &mut usize, marker: &str) -> bool {
        match value {
            Value::Object(o) => o.values_mut().any(|v| {
                if *nth == 0 {
                    *v = Value::String(marker.to_owned());
                    return true;
                }
                *nth -= 1;
                walk(v, nth, marker)
            }),
            Value::Array(a) => a.iter_mut().any(|v| walk(v, nth, marker)),
            _ => false,
        }
    }
    let count = members(value);
    count > 0 && walk(value, &mut (nth % count), marker)
}

fn outcome() -> impl Strategy<Value = Outcome> {
    prop_oneof![
        4 => response_like().prop_map(|v| classify(&v)),
        1 => prop_oneof![
            Just(UnknownCause::Timeout),
            Just(UnknownCause::ConnectionLost),
            ".{0,8}".prop_map(UnknownCause::Other),
        ]
        .prop_map(Outcome::Unknown),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in vec(any::<u8>(), 0..256)) {
        let _ = classify_bytes(&bytes);
    }

    #[test]
    fn truncated_and_mutated_responses_never_panic(
        response in response_like(),
        cut in any::<prop::sample::Index>(),
        flip in any::<prop::sample::Index>(),
        byte in any::<u8>(),
    ) {
        let mut bytes = serde_json::to_vec(&response).unwrap_or_default();
        if !bytes.is_empty() {
            let at = flip.index(bytes.len());
            bytes[at] = byte;
            let _ = classify_bytes(&bytes);
            bytes.truncate(cut.index(bytes.len()));
        }
        let _ = classify_bytes(&bytes);
    }

    #[test]
    fn a_failures_texts_come_out_cleaned_and_cut(
        text in "(.|\\PC|[\u{0}-\u{1f}\u{202a}-\u{202e}\u{e0000}-\u{e007f}]){0,40}",
        repeat in 1usize..120,
        shape in 0..3u8,
    ) {
        let long = text.repeat(repeat);
        let described = json!({"code": long, "category": "transient", "message": long,
                               "hint": long, "details": {long.clone(): [long]}});
        let result = match shape {
            0 => json!({"isError": true, "content": [{"type": "text", "text": long}],
                        "_meta": {META_KEY: described}}),
            1 => json!({"isError": true, "content": [{"type": "text", "text": described.to_string()}]}),
            _ => json!({"isError": true, "content": [{"type": "text", "text": long}]}),
        };
        let outcome = agree(&json!({"jsonrpc": "2.0", "id": 1, "result": result}))?;
        let Outcome::ExecutionError(e) = outcome else {
            return Err(TestCaseError::fail("expected an execution error"));
        };
        let clean = |t: &str| {
            !t.chars().any(|c| {
                matches!(c, '\u{202a}'..='\u{202e}' | '\u{e0000}'..='\u{e007f}')
                    || (c.is_control() && c != '\n' && c != '\t')
            })
        };
        prop_assert!(clean(&e.message) && e.message.chars().count() <= MAX_MESSAGE_CHARS);
        prop_assert!(clean(&e.text));
        prop_assert!(e.text.chars().count() <= MAX_MESSAGE_CHARS + MAX_HINT_CHARS + 512);
        if let Some(hint) = &e.hint {
            prop_assert!(clean(hint) && hint.chars().count() <= MAX_HINT_CHARS);
        }
        if let Some(code) = &e.code {
            prop_assert!(clean(code));
        }
        for (key, value) in e.details.iter().flatten() {
            prop_assert!(clean(key));
            for item in value.as_array().into_iter().flatten() {
                prop_assert!(item.as_str().is_none_or(clean));
            }
        }
    }

    #[test]
    fn json_serde_json_cannot_hold_as_a_value_is_not_json_anywhere_in_a_response(
        response in response_like(),
        nth in any::<usize>(),
        deep in any::<bool>(),
    ) {
        let mut response = response;
        let marker = "\u{1}unholdable\u{1}";
        prop_assume!(replace_member(&mut response, nth, marker));
        let unholdable = if deep {
            format!("{}{}", "[".repeat(130), "]".repeat(130))
        } else {
            "1e400".to_owned()
        };
        let bytes = serde_json::to_string(&response)
            .unwrap_or_default()
            .replace(&serde_json::to_string(marker).unwrap_or_default(), &unholdable);
        prop_assert!(serde_json::from_str::<Value>(&bytes).is_err());
        prop_assert!(
            matches!(
                classify_bytes(bytes.as_bytes()),
                Outcome::Invalid(InvalidReason::NotJson(_))
            ),
            "{}",
            bytes
        );
    }

    #[test]
    fn arbitrary_json_classifies_the_same_from_values_and_bytes(value in json_value()) {
        agree(&value)?;
        let _ = classify_result(&value);
    }

    #[test]
    fn response_shaped_json_classifies_the_same_from_values_and_bytes(value in response_like()) {
        let outcome = agree(&value)?;
        // Only a caller builds `Unknown`, but for a task a `tasks/get` result says was cancelled.
        prop_assert!(!matches!(
            &outcome,
            Outcome::Unknown(cause) if *cause != mcp_errors_core::client::UnknownCause::TaskCancelled
        ));
        // A success needs exactly one of result and error, and jsonrpc "2.0".
        if outcome.is_success() {
            prop_assert_eq!(value.get("jsonrpc"), Some(&json!("2.0")));
            prop_assert!(value.get("error").is_none_or(Value::is_null));
        }
    }

    #[test]
    fn other_spellings_of_a_response_classify_as_the_response(
        value in response_like(),
        seed in any::<u64>(),
    ) {
        // Whitespace, key order, repeated keys and escapes leave the parsed `Value` as it was.
        let bytes = Writer::write(&value, seed, false);
        prop_assert_eq!(serde_json::from_str::<Value>(&bytes).ok(), Some(value.clone()));
        let outcome = agree_on_bytes(&bytes)?;
        prop_assert_eq!(outcome, classify(&value));
    }

    #[test]
    fn responses_with_numbers_spelled_as_floats_classify_the_same_from_values_and_bytes(
        value in response_like(),
        seed in any::<u64>(),
    ) {
        agree_on_bytes(&Writer::write(&value, seed, true))?;
    }

    #[test]
    fn arbitrary_json_spelled_otherwise_classifies_the_same_from_values_and_bytes(
        value in json_value(),
        seed in any::<u64>(),
    ) {
        agree_on_bytes(&Writer::write(&value, seed, true))?;
    }

    #[test]
    fn decisions_stay_inside_the_policy_bounds(
        outcome in outcome(),
        number in 0u32..12,
        elapsed_ms in 0u64..5_000,
        idempotent in any::<bool>(),
        max_attempts in 0u32..6,
        base_ms in 0u64..2_000,
        cap_ms in 0u64..30_000,
        deadline_ms in prop::option::of(0u64..10_000),
        tokens in prop::option::of(0u32..30),
        jitter in 0.0f64..=1.0,
    ) {
        let mut policy = RetryPolicy::default()
            .with_max_attempts(max_attempts)
            .with_base_delay(Duration::from_millis(base_ms))
            .with_max_backoff(Duration::from_millis(cap_ms));
        if let Some(ms) = deadline_ms {
            policy = policy.with_deadline(Duration::from_millis(ms));
        }
        let attempt = Attempt::new(number, Duration::from_millis(elapsed_ms))
            .idempotent(idempotent)
            .with_jitter(jitter);
        let decision = match tokens {
            Some(t) => {
                let budget = RetryBudget::default().with_capacity(t);
                policy.decide_with_budget(&outcome, attempt, &budget)
            }
            None => policy.decide(&outcome, attempt),
        };
        if let Decision::Retry { after } = decision {
            prop_assert!(number < policy.max_attempts());
            prop_assert!(after <= Duration::from_millis(cap_ms));
            if let Some(ms) = deadline_ms {
                prop_assert!(Duration::from_millis(elapsed_ms) + after < Duration::from_millis(ms));
            }
            prop_assert!(!outcome.may_have_run() || idempotent);
        }
        if outcome.may_have_run() && !idempotent {
            prop_assert_eq!(decision.clone(), Decision::CheckState);
        }
        if outcome.is_success() && !outcome.looks_like_failure() {
            prop_assert_eq!(decision.clone(), Decision::Done);
        }
        if outcome.is_success() && outcome.looks_like_failure() {
            // Never done, never retried.
            prop_assert_ne!(decision.clone(), Decision::Done);
            let retried = matches!(decision, Decision::Retry { .. });
            prop_assert!(!retried, "retried: {:?}", outcome);
        }
        if let Outcome::ExecutionError(e) = &outcome {
            // The draft's rules: capability and governance failures are never retried, and a
            // reliability failure the draft alone describes only when the call may be repeated.
            if matches!(e.failure_class, Some(FailureClass::Capability | FailureClass::Governance)) {
                let retried = matches!(decision, Decision::Retry { .. });
                prop_assert!(!retried, "retried: {:?}", e);
            }
            if e.evidence == Evidence::DraftToolFailure && !idempotent {
                let retried = matches!(decision, Decision::Retry { .. });
                prop_assert!(!retried, "retried: {:?}", e);
            }
            if e.category.is_none()
                && e.failure_class.is_none()
                && !e.text.to_ascii_lowercase().contains("tool")
            {
                prop_assert_eq!(
                    decision,
                    Decision::Escalate { reason: EscalationReason::UnknownCategory }
                );
            }
        }
    }
}
