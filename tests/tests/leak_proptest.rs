//! Property tests: secrets placed in a masked error's `Display` and source chain, or in any
//! `#[sensitive]` field, or in a malformed caller correlation id, never reach the wire, through
//! any channel: the text block, `_meta`, `structuredContent`, the JSON-RPC `message` and
//! `data`, and rmcp's types. Invisible and bidirectional characters never reach what the model
//! reads, and a masked error's log line stays one line whatever its `Display` and sources hold.

use std::io::Write;

use mcp_errors_core::{FailureOptions, ToolError, ToolFailure};
use mcp_errors_tests::capture::Captured;
use proptest::prelude::*;
use tracing::field::{Field, Visit};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::{Context, SubscriberExt};

#[derive(Debug, thiserror::Error)]
#[error("driver said: {0}")]
struct DriverError(String);

#[derive(thiserror::Error, ToolError)]
enum Leaky {
    #[error("query failed on {dsn}")]
    #[category(internal)]
    #[code("INTERNAL")]
    Internal {
        dsn: String,
        #[source]
        source: DriverError,
    },

    #[error("token {token} rejected")]
    #[category(unauthenticated)]
    #[mask]
    #[hint("sign in again ({token})")]
    Masked {
        #[detail]
        token: String,
    },

    #[error("lookup failed")]
    #[category(not_found)]
    #[hint("check {visible}")]
    Sensitive {
        #[sensitive]
        secret: String,
        #[detail]
        visible: String,
    },

    #[error("invariant broken: {0}")]
    #[protocol(internal_error)]
    ProtocolMasked(String),

    #[error("bad params")]
    #[protocol(invalid_params)]
    ProtocolSensitive {
        #[sensitive]
        secret: String,
        #[detail]
        field: String,
    },

    #[error("{text}")]
    #[category(business)]
    #[hint("{hint}")]
    Shown { text: String, hint: String },

    #[error("{0}")]
    #[protocol(invalid_params)]
    ShownProtocol(String),
}

/// A secret the way one shows up in real errors, around a random core that cannot occur in
/// the wire by chance.
fn secret() -> impl Strategy<Value = (String, String)> {
    let core = "[A-Za-z0-9]{12,24}";
    (core, 0..5usize).prop_map(|(core, shape)| {
        let secret = match shape {
            0 => format!("postgres://admin:{core}@db.internal:5432/orders"),
            1 => format!("Bearer {core}"),
            2 => format!("/home/{core}/.ssh/id_ed25519"),
            3 => format!("SELECT * FROM users WHERE api_key = '{core}'"),
            _ => format!("{core}\u{0}\n\"quoted\""),
        };
        (core, secret)
    })
}

/// Every serialized form a failure can take on its way out.
fn every_wire_form(failure: ToolFailure) -> Vec<String> {
    let mut forms = vec![serde_json::to_string(&failure).unwrap()];
    if let ToolFailure::Protocol(error) = &failure {
        forms.push(serde_json::to_string(&error.clone().into_response(1)).unwrap());
    }
    match failure.into_rmcp() {
        Ok(result) => forms.push(serde_json::to_string(&result).unwrap()),
        Err(error) => forms.push(serde_json::to_string(&error).unwrap()),
    }
    forms
}

fn assert_never_emitted(error: &Leaky, core: &str) {
    let option_sets = [
        FailureOptions::new(),
        FailureOptions::new().with_structured_content(true),
        FailureOptions::new()
            .with_correlation_id("c-1")
            .with_tool("t"),
        // An id of the wrong shape is ignored, whatever it holds.
        FailureOptions::new().with_correlation_id(format!("c-1 {core}")),
        FailureOptions::new().with_correlation_id(format!("{core}\n")),
    ];
    for options in &option_sets {
        for wire in every_wire_form(error.to_failure_with(options)) {
            assert!(!wire.contains(core), "secret core {core:?} leaked: {wire}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn masked_display_and_sources_never_leak((core, secret) in secret(), (core2, secret2) in secret()) {
        let error = Leaky::Internal { dsn: secret, source: DriverError(secret2) };
        // The secrets are really in what is masked.
        let display = error.to_string();
        prop_assert!(display.contains(&core));
        assert_never_emitted(&error, &core);
        assert_never_emitted(&error, &core2);
    }

    #[test]
    fn a_masked_variant_drops_hint_and_details((core, secret) in secret()) {
        let error = Leaky::Masked { token: secret };
        assert_never_emitted(&error, &core);
    }

    #[test]
    fn sensitive_fields_never_leak_from_unmasked_variants((core, secret) in secret(), visible in "[a-z]{1,8}") {
        let error = Leaky::Sensitive { secret, visible: visible.clone() };
        assert_never_emitted(&error, &core);
        // What is not sensitive still arrives.
        let wire = serde_json::to_string(&error.to_failure()).unwrap();
        let expected = format!("check {visible}");
        prop_assert!(wire.contains(&expected));
    }

    #[test]
    fn protocol_errors_leak_neither_masked_text_nor_sensitive_fields((core, secret) in secret(), (core2, secret2) in secret()) {
        assert_never_emitted(&Leaky::ProtocolMasked(secret), &core);
        let error = Leaky::ProtocolSensitive { secret: secret2, field: "start".into() };
        assert_never_emitted(&error, &core2);
    }
}

/// Characters that hide text from a person or reorder what they see: bidirectional controls,
/// zero-width and invisible characters, the byte-order mark, tag characters.
const INVISIBLE: [char; 16] = [
    '\u{202A}',
    '\u{202B}',
    '\u{202C}',
    '\u{202D}',
    '\u{202E}',
    '\u{2066}',
    '\u{2067}',
    '\u{2068}',
    '\u{2069}',
    '\u{200B}',
    '\u{200E}',
    '\u{200F}',
    '\u{2060}',
    '\u{FEFF}',
    '\u{00AD}',
    '\u{E0041}',
];

/// Characters that end a log line or drive a terminal.
const LINE_BREAKING: [char; 5] = ['\n', '\r', '\u{1b}', '\u{2028}', '\u{2029}'];

/// Any text, rich in the characters above.
fn hostile_text() -> impl Strategy<Value = String> {
    let one = prop_oneof![
        4 => any::<char>(),
        4 => prop::sample::select(('a'..='z').chain([' ', '.', ':']).collect::<Vec<_>>()),
        2 => prop::sample::select(INVISIBLE.to_vec()),
        2 => prop::sample::select(LINE_BREAKING.to_vec()),
        1 => Just('\u{200D}'),
    ];
    prop::collection::vec(one, 0..64).prop_map(|chars| chars.into_iter().collect())
}

fn assert_no_invisible(text: &str, what: &str) -> Result<(), TestCaseError> {
    prop_assert!(
        !text.contains(INVISIBLE),
        "an invisible character reached {}: {:?}",
        what,
        text
    );
    Ok(())
}

/// A formatter that trusts field values: it writes each masked event as `name=value` pairs
/// and a newline, escaping nothing, as a hand-rolled plain-text logger might.
struct NaiveLines(Captured);

struct NaiveLine(String);

impl Visit for NaiveLine {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.push_str(&format!(" {}={value:?}", field.name()));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.push_str(&format!(" {}={value}", field.name()));
    }
}

impl<S: tracing::Subscriber> Layer<S> for NaiveLines {
    fn on_event(&self, event: &tracing::Event<'_>, _: Context<'_, S>) {
        if event.metadata().target() == "mcp_errors::masked" {
            let mut line = NaiveLine(String::from("ERROR"));
            event.record(&mut line);
            line.0.push('\n');
            // Writing to memory cannot fail.
            let _ = self.0.clone().write_all(line.0.as_bytes());
        }
    }
}

/// What this test binary logs, as the default `tracing` formatter writes it and as
/// [`NaiveLines`] does. The subscriber is the global default: a scoped one would miss events
/// whose callsites other test threads registered first.
fn captured_logs() -> &'static (Captured, Captured) {
    static LOGS: std::sync::OnceLock<(Captured, Captured)> = std::sync::OnceLock::new();
    LOGS.get_or_init(|| {
        let (formatted, naive) = (Captured::default(), Captured::default());
        let writer = formatted.clone();
        let subscriber = tracing_subscriber::registry()
            .with(
                tracing_subscriber::fmt::layer()
                    .with_writer(move || writer.clone())
                    .with_ansi(false),
            )
            .with(NaiveLines(naive.clone()));
        tracing::subscriber::set_global_default(subscriber).unwrap();
        (formatted, naive)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn invisible_characters_never_reach_what_the_model_reads(text in hostile_text(), hint in hostile_text()) {
        let shown = Leaky::Shown { text: text.clone(), hint };
        let failure = shown.to_failure();
        let result = failure.as_execution().unwrap();
        assert_no_invisible(result.content[0].as_text().unwrap(), "the text block")?;
        let payload = result.error_payload().unwrap();
        assert_no_invisible(&payload.message, "the message")?;
        assert_no_invisible(payload.hint.as_deref().unwrap_or(""), "the hint")?;
        let rpc = Leaky::ShownProtocol(text).to_failure();
        assert_no_invisible(&rpc.as_protocol().unwrap().message, "the JSON-RPC message")?;
    }

    #[test]
    fn a_masked_log_line_is_one_line(core in "[A-Za-z0-9]{16}", said in hostile_text(), source in hostile_text()) {
        let (formatted, naive) = captured_logs();
        let error = Leaky::Internal {
            dsn: format!("START{core} {said}"),
            source: DriverError(format!("{source} END{core}")),
        };
        let _ = error.to_failure();
        for captured in [formatted, naive] {
            // Taken out, so each case reads only what was written since the last one.
            let log = captured.take();
            // Every event is one line: the one with the start of this error's text also has
            // its end.
            let lines: Vec<&str> = log.lines().filter(|line| line.contains(&core)).collect();
            prop_assert_eq!(lines.len(), 1, "{:?}", lines);
            prop_assert!(lines[0].contains(&format!("END{core}")), "{:?}", lines[0]);
            for c in LINE_BREAKING.iter().filter(|&&c| c != '\n').chain(&INVISIBLE) {
                prop_assert!(!log.contains(*c), "{:?} reached the log: {:?}", c, lines[0]);
            }
        }
    }
}
