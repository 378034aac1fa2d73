//! With the `tracing` feature, a masked error is logged in full (Display and source chain)
//! under the correlation id the model sees, each on one line: text from a source cannot forge
//! another log line, drive a terminal or reorder what the reader sees.

use mcp_errors_core::{ToolError, ToolFailure};
use mcp_errors_tests::capture::{Captured, EventsOf, Fields, field};
use tracing_subscriber::layer::SubscriberExt;

#[derive(Debug, thiserror::Error, ToolError)]
enum StoreError {
    #[error("write to ledger failed")]
    #[category(internal)]
    Ledger(#[source] std::io::Error),

    #[error("upstream said: {said}")]
    #[category(internal)]
    #[code("UPSTREAM")]
    Upstream {
        said: String,
        #[source]
        source: std::io::Error,
    },

    #[error("payment failed")]
    #[category(internal)]
    Payment(#[source] Cause),
}

/// One link of a source chain: `Display` is its own text only, as for any well-behaved error.
#[derive(Debug, thiserror::Error)]
#[error("{text}")]
struct Cause {
    text: &'static str,
    #[source]
    source: Option<Box<Cause>>,
}

/// A chain of sources with these texts, outermost first.
fn chain(texts: &[&'static str]) -> Cause {
    let (first, rest) = texts.split_first().expect("at least one source");
    Cause {
        text: first,
        source: (!rest.is_empty()).then(|| Box::new(chain(rest))),
    }
}

#[test]
fn the_log_holds_what_the_wire_hides_under_the_same_id() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .finish();
    let failure = tracing::subscriber::with_default(subscriber, || {
        ToolFailure::from(StoreError::Ledger(std::io::Error::other(
            "disk /dev/sdb1 full",
        )))
    });
    let id = failure
        .as_execution()
        .unwrap()
        .error_payload()
        .unwrap()
        .correlation_id
        .unwrap();
    let log = captured.text();
    assert!(log.contains(&id), "{log}");
    assert!(log.contains("write to ledger failed"), "{log}");
    assert!(log.contains("disk /dev/sdb1 full"), "{log}");
    assert!(log.contains("LEDGER"), "{log}");
    let wire = serde_json::to_string(&failure).unwrap();
    assert!(!wire.contains("/dev/sdb1"));
}

/// A source and a `Display` that try to end the line and write one of their own, color the
/// terminal, and flip the text a reader sees.
fn forger() -> StoreError {
    StoreError::Upstream {
        said: "ok\r\u{1b}[2K2026-01-01T00:00:00Z  INFO granted \u{202e}nimda".into(),
        source: std::io::Error::other("ok\n2026-01-01 ERROR admin logged in\u{2028}again"),
    }
}

#[test]
fn a_forged_line_in_the_sources_stays_on_the_masked_line() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .finish();
    tracing::subscriber::with_default(subscriber, || {
        let _ = forger().to_failure();
    });
    let log = captured.text();
    let masked: Vec<&str> = log
        .lines()
        .filter(|line| line.contains("masked tool error"))
        .collect();
    assert_eq!(masked.len(), 1, "{log}");
    assert_eq!(
        log.lines().count(),
        2,
        "one failure event, one masked event: {log}"
    );
    assert!(masked[0].contains("admin logged in"), "{log}");
    assert!(masked[0].contains("INFO granted"), "{log}");
    for forbidden in ['\r', '\u{1b}', '\u{2028}', '\u{202e}'] {
        assert!(
            !log.contains(forbidden),
            "{forbidden:?} reached the log: {log:?}"
        );
    }
}

#[test]
fn the_error_and_sources_fields_themselves_hold_no_line_break_or_escape() {
    let fields = masked_fields(&forger());
    for name in ["error", "sources"] {
        let value = field(&fields, name);
        assert!(
            !value.contains(['\n', '\r', '\u{1b}', '\u{2028}', '\u{202e}']),
            "{name} = {value:?}"
        );
    }
    assert_eq!(
        field(&fields, "sources"),
        "ok\\n2026-01-01 ERROR admin logged in\\u{2028}again"
    );
}

/// The fields of the masked event logged for `error`, as the subscriber receives them.
fn masked_fields(error: &StoreError) -> Fields {
    let recorded = EventsOf::new("mcp_errors::masked");
    let subscriber = tracing_subscriber::registry().with(recorded.clone());
    tracing::subscriber::with_default(subscriber, || {
        let _ = error.to_failure();
    });
    let mut events = recorded.events();
    assert_eq!(events.len(), 1, "{events:?}");
    events.remove(0)
}

#[test]
fn the_sources_field_joins_every_link_of_the_chain_with_a_colon() {
    for (texts, sources) in [
        (&["card declined"][..], "card declined"),
        (
            &["card declined", "gateway timed out"][..],
            "card declined: gateway timed out",
        ),
        (
            &["card declined", "gateway timed out", "connection reset"][..],
            "card declined: gateway timed out: connection reset",
        ),
    ] {
        let fields = masked_fields(&StoreError::Payment(chain(texts)));
        assert_eq!(field(&fields, "error"), "payment failed");
        assert_eq!(field(&fields, "sources"), sources);
    }
}
