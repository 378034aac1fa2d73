//! Variants classified at run time (`#[classify]`): the field's value picks the category, the
//! retry advice and the masking; the written attributes still win; the catalog lists what a
//! code can become; every failure is valid against the official schemas of every version.

use std::io;
use std::time::Duration;

use http::StatusCode;
use mcp_errors_core::{
    Category, Classification, Classify, ErrorPayload, FailureOptions, ToolError, ToolFailure,
};
use mcp_errors_tests::capture::Captured;
use mcp_errors_tests::schema;

#[derive(Debug, thiserror::Error, ToolError)]
enum FileError {
    /// No category: what the error's kind does not say is `internal`, masked.
    #[error("cannot read {path}: {source}")]
    #[code("READ_FAILED")]
    #[hint("check the path")]
    Read {
        #[detail]
        path: String,
        #[classify]
        source: io::Error,
    },
    /// A declared fallback, and a wait for when the kind makes it retryable.
    #[error("cannot write {path}: {source}")]
    #[code("WRITE_FAILED")]
    #[category(business)]
    Write {
        path: String,
        #[classify]
        source: io::Error,
        #[retry_after]
        wait: Option<Duration>,
    },
    /// Written retry advice and masking win over the kind's.
    #[error("lock {name} refused: {source}")]
    #[code("LOCK_REFUSED")]
    #[retryable(false)]
    #[expose]
    Lock {
        name: String,
        #[classify]
        source: io::Error,
    },
    /// A message of its own is what the model reads when the category shows one.
    #[error("cannot save the draft {name}: {source}")]
    #[message("the draft {name} changed since it was read")]
    #[code("DRAFT_NOT_SAVED")]
    Draft {
        name: String,
        #[classify]
        source: io::Error,
    },
    #[error("upstream answered {status}")]
    #[code("UPSTREAM_STATUS")]
    #[category(transient)]
    Upstream {
        #[classify]
        status: StatusCode,
    },
    #[error("upstream answered {0}")]
    #[code("UPSTREAM_REFUSED")]
    Refused(#[classify(with = by_status)] u16),
    #[error("the quota refused the call")]
    #[code("QUOTA_REFUSED")]
    Quota(#[classify(with = by_quota)] u32),
    #[error("the cache is {0:?}")]
    #[code("CACHE_DOWN")]
    #[category(internal)]
    Cache(#[classify] CacheState),
}

fn by_status(status: &u16) -> Option<Category> {
    Category::from_http_status(*status)
}

/// A function may give the whole classification, a wait included.
fn by_quota(left: &u32) -> Classification {
    match left {
        0 => Classification::new(Category::RateLimited).with_retry_after(Duration::from_secs(60)),
        _ => Classification::new(Category::Transient).retryable(false),
    }
}

#[derive(Debug)]
enum CacheState {
    Warming,
    Gone,
}

impl Classify for CacheState {
    const CATEGORIES: &'static [Category] = &[Category::Transient];

    fn classify(&self) -> Option<Classification> {
        match self {
            CacheState::Warming => Some(
                Classification::new(Category::Transient).with_retry_after(Duration::from_secs(3)),
            ),
            CacheState::Gone => None,
        }
    }
}

fn payload(error: &impl ToolError) -> ErrorPayload {
    match error.to_failure() {
        ToolFailure::Execution(result) => result.error_payload().expect("a payload").clone(),
        ToolFailure::Protocol(error) => panic!("a protocol error: {error:?}"),
    }
}

fn read(kind: io::ErrorKind) -> FileError {
    FileError::Read {
        path: "/srv/ledger/2026.csv".into(),
        source: io::Error::new(kind, "secret-inode 4242"),
    }
}

#[test]
fn the_kind_of_an_io_error_picks_the_category_and_the_retry_advice() {
    let missing = payload(&read(io::ErrorKind::NotFound));
    assert_eq!(
        (missing.category, missing.retryable),
        (Category::NotFound, false)
    );
    assert_eq!(missing.code, "READ_FAILED");
    assert_eq!(missing.hint.as_deref(), Some("check the path"));
    assert_eq!(
        missing.message,
        "what the input names was not found; the details were logged under the correlation id",
        "the category's sentence, not the `Display`"
    );

    let denied = payload(&read(io::ErrorKind::PermissionDenied));
    assert_eq!(denied.category, Category::Permission);

    let timed_out = payload(&read(io::ErrorKind::TimedOut));
    assert_eq!(
        (timed_out.category, timed_out.retryable),
        (Category::Transient, true)
    );
}

#[test]
fn an_internal_outcome_is_masked_and_leaks_nothing() {
    for kind in [io::ErrorKind::Other, io::ErrorKind::StorageFull] {
        let error = read(kind);
        let failure = error.to_failure();
        let wire = serde_json::to_string(&failure).unwrap();
        for secret in ["secret-inode", "/srv/ledger", "2026.csv"] {
            assert!(!wire.contains(secret), "{kind:?} leaks {secret}: {wire}");
        }
        let payload = payload(&error);
        assert_eq!(payload.category, Category::Internal, "{kind:?}");
        assert!(payload.correlation_id.is_some());
        assert_eq!(payload.hint, None);
    }
    // Declared `business` (shown), classified `internal` (masked).
    let full = FileError::Write {
        path: "/srv/ledger/out.csv".into(),
        source: io::Error::new(io::ErrorKind::StorageFull, "secret-inode 4243"),
        wait: None,
    };
    let wire = serde_json::to_string(&full.to_failure()).unwrap();
    assert!(
        !wire.contains("secret-inode") && !wire.contains("/srv/ledger"),
        "{wire}"
    );
    assert_eq!(payload(&full).category, Category::Internal);
}

/// What this test binary logs. The subscriber is the global default: a scoped one would miss
/// events whose callsites other test threads registered first.
fn captured_log() -> &'static Captured {
    static LOG: std::sync::OnceLock<Captured> = std::sync::OnceLock::new();
    LOG.get_or_init(|| {
        let captured = Captured::default();
        let writer = captured.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .finish();
        tracing::subscriber::set_global_default(subscriber).unwrap();
        captured
    })
}

#[test]
fn a_shown_category_keeps_the_values_text_in_the_log_under_the_correlation_id() {
    let captured = captured_log();
    let errors = [
        read(io::ErrorKind::NotFound),
        read(io::ErrorKind::PermissionDenied),
        FileError::Draft {
            name: "q3".into(),
            source: io::Error::new(io::ErrorKind::AlreadyExists, "secret-inode 4244"),
        },
    ];
    for error in errors {
        let failure = error.to_failure();
        let result = failure.as_execution().expect("an execution error");
        let payload = result.error_payload().unwrap();
        assert_ne!(payload.category, Category::Internal);
        let wire = serde_json::to_string(&failure).unwrap();
        assert!(!wire.contains("secret-inode"), "{wire}");
        assert!(!wire.contains("cannot "), "no `Display`: {wire}");
        let id = payload.correlation_id.clone().expect("a correlation id");
        let text = result.content[0].as_text().unwrap();
        assert!(text.contains(&id), "the model can report it: {text}");
        let log = captured.text();
        let line = log
            .lines()
            .find(|line| line.contains(&id) && line.contains("secret-inode"))
            .unwrap_or_else(|| panic!("the `Display` under {id}: {log}"));
        assert!(line.contains(&error.to_string()), "{line}");
    }
    let draft = FileError::Draft {
        name: "q3".into(),
        source: io::ErrorKind::AlreadyExists.into(),
    };
    let draft = payload(&draft);
    assert_eq!(draft.category, Category::Conflict);
    assert_eq!(draft.message, "the draft q3 changed since it was read");
}

#[test]
fn what_the_value_does_not_say_takes_the_declared_category() {
    let write = |kind| FileError::Write {
        path: "out.csv".into(),
        source: io::Error::new(kind, "x"),
        wait: Some(Duration::from_millis(1500)),
    };
    let unknown = payload(&write(io::ErrorKind::Other));
    assert_eq!(unknown.category, Category::Business);
    assert_eq!(unknown.retry_after_ms, None, "business is not retryable");
    let busy = payload(&write(io::ErrorKind::ResourceBusy));
    assert_eq!((busy.category, busy.retryable), (Category::Transient, true));
    assert_eq!(
        busy.retry_after_ms,
        Some(1500),
        "the field's wait applies once retryable"
    );

    let gone = payload(&FileError::Cache(CacheState::Gone));
    assert_eq!(gone.category, Category::Internal);
}

#[test]
fn the_classifiers_wait_comes_before_the_fields() {
    let warming = payload(&FileError::Cache(CacheState::Warming));
    assert_eq!(
        (warming.category, warming.retry_after_ms),
        (Category::Transient, Some(3000))
    );
    // Shown, the failure still reads as its category, not as the value's `Debug`.
    assert!(!warming.message.contains("Warming"), "{}", warming.message);
    assert!(
        warming.message.starts_with("a passing fault"),
        "{}",
        warming.message
    );
}

#[test]
fn written_retry_advice_and_masking_win_over_the_value() {
    // `#[expose]` shows the `Display`, the value's text in it.
    let lock = FileError::Lock {
        name: "ledger".into(),
        source: io::Error::other("disk on fire"),
    };
    let payload = payload(&lock);
    assert_eq!(payload.category, Category::Internal);
    assert!(!payload.retryable);
    assert!(
        payload.message.contains("disk on fire"),
        "#[expose] shows it"
    );

    let timed_out = FileError::Lock {
        name: "ledger".into(),
        source: io::ErrorKind::TimedOut.into(),
    };
    let timed_out = self::payload(&timed_out);
    assert_eq!(
        (timed_out.category, timed_out.retryable),
        (Category::Transient, false)
    );
}

#[test]
fn a_status_picks_the_category_through_an_impl_or_a_function() {
    let status = |status: u16| {
        let status = StatusCode::from_u16(status).unwrap();
        payload(&FileError::Upstream { status })
    };
    assert_eq!(status(404).category, Category::NotFound);
    assert_eq!(status(429).category, Category::RateLimited);
    assert!(status(429).retryable);
    assert_eq!(status(403).category, Category::Permission);
    assert_eq!(
        status(200).category,
        Category::Transient,
        "the declared default"
    );

    let spent = payload(&FileError::Quota(0));
    assert_eq!(
        (spent.category, spent.retry_after_ms),
        (Category::RateLimited, Some(60_000))
    );
    let odd = payload(&FileError::Quota(3));
    assert_eq!((odd.category, odd.retryable), (Category::Transient, false));

    let refused = |status| payload(&FileError::Refused(status)).category;
    assert_eq!(refused(401), Category::Unauthenticated);
    assert_eq!(refused(409), Category::Conflict);
    assert_eq!(
        refused(302),
        Category::Internal,
        "no category written: internal"
    );
}

#[test]
fn the_catalog_lists_what_a_classified_code_can_become() {
    let catalog = serde_json::to_value(FileError::catalog()).unwrap();
    let entry = |code: &str| {
        catalog["errors"]
            .as_array()
            .unwrap()
            .iter()
            .find(|entry| entry["code"] == code)
            .unwrap_or_else(|| panic!("{code} in {catalog}"))
            .clone()
    };
    // No one category, and masked or retryable as the category of each failure is.
    let read = entry("READ_FAILED");
    assert_eq!(
        read,
        serde_json::json!({
            "code": "READ_FAILED",
            "runtimeCategories": [
                "validation",
                "not_found",
                "conflict",
                "permission",
                "transient",
                "internal"
            ],
            "defaultCategory": "internal"
        })
    );
    assert_eq!(
        read["runtimeCategories"],
        serde_json::json!([
            "validation",
            "not_found",
            "conflict",
            "permission",
            "transient",
            "internal"
        ])
    );
    let write = entry("WRITE_FAILED");
    assert_eq!(write["defaultCategory"], "business");
    assert!(write.get("category").is_none());
    assert!(
        write["runtimeCategories"]
            .as_array()
            .unwrap()
            .contains(&"business".into())
    );
    assert_eq!(
        entry("CACHE_DOWN")["runtimeCategories"],
        serde_json::json!(["transient", "internal"])
    );
    assert_eq!(
        entry("UPSTREAM_REFUSED")["runtimeCategories"]
            .as_array()
            .unwrap()
            .len(),
        9
    );
    // What is written on the variant holds for every failure, so the catalog says it.
    let lock = entry("LOCK_REFUSED");
    assert_eq!(
        (&lock["retryable"], &lock["masked"]),
        (&false.into(), &false.into())
    );
    let cache = entry("CACHE_DOWN");
    assert!(cache.get("masked").is_none() && cache.get("retryable").is_none());
    // Read back, a catalog means what it was written from.
    let back: mcp_errors_core::ErrorCatalog = serde_json::from_value(catalog.clone()).unwrap();
    assert_eq!(back, FileError::catalog());
    assert!(back.changes_to(&FileError::catalog()).is_empty());
    let plain = FileError::descriptors()
        .iter()
        .filter(|d| d.runtime_categories().is_none())
        .count();
    assert_eq!(plain, 0, "every variant here is classified");
}

/// A generic field classified through its type's impl: the derive bounds the parameter.
#[derive(Debug, thiserror::Error, ToolError)]
#[error("the backend failed")]
#[code("BACKEND_FAILED")]
struct Backend<E: std::fmt::Debug> {
    #[classify]
    cause: E,
}

/// A wrapper forwards the wrapped error's classification.
#[derive(Debug, thiserror::Error, ToolError)]
enum Outer {
    #[error(transparent)]
    #[transparent]
    File(FileError),
}

#[test]
fn generic_fields_and_wrappers_classify_too() {
    let backend = Backend {
        cause: io::Error::from(io::ErrorKind::ConnectionRefused),
    };
    assert_eq!(payload(&backend).category, Category::Transient);
    let outer = Outer::File(read(io::ErrorKind::NotFound));
    assert_eq!(
        outer.classification().map(|c| c.category()),
        Some(Category::NotFound)
    );
    assert_eq!(payload(&outer).category, Category::NotFound);
    assert_eq!(
        Backend::<io::Error>::catalog()
            .get("BACKEND_FAILED")
            .unwrap()
            .runtime_categories()
            .unwrap()
            .len(),
        9,
        "a parameter's categories are not known to a constant"
    );
}

#[test]
fn classified_failures_are_schema_valid_in_every_version() {
    let Some(schemas) = schema::load() else {
        return;
    };
    let errors = [
        read(io::ErrorKind::NotFound),
        read(io::ErrorKind::Other),
        FileError::Cache(CacheState::Warming),
        FileError::Upstream {
            status: StatusCode::TOO_MANY_REQUESTS,
        },
        FileError::Refused(404),
    ];
    let options = [
        FailureOptions::new(),
        FailureOptions::new().with_structured_content(true),
        FailureOptions::new()
            .with_draft_tool_failure(true)
            .with_protocol_version("2026-07-28"),
    ];
    let mut checked = 0;
    for error in &errors {
        for options in &options {
            let wire = serde_json::to_value(error.to_failure_with(options)).unwrap();
            for schema in &schemas {
                schema.assert_call_tool_result(&wire);
                checked += 1;
            }
        }
    }
    assert_eq!(checked, errors.len() * options.len() * schemas.len());
    assert_eq!(schemas.len(), 3);
}
