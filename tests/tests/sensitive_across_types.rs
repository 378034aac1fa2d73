//! A `#[sensitive]` field stays out of the wire and the masked log line when another error
//! shows the error that holds it: the derive writes that type's `Debug`, which prints the
//! field as `<redacted>`, so no `{:?}` of it, directly, inside a collection or through a
//! generic parameter, prints the value.

use mcp_errors_core::{ToolError, ToolFailure};
use mcp_errors_tests::capture::Captured;

const SECRET: &str = "hunter2-do-not-leak";

/// Unmasked with a `#[message]`: its `Display` may show the field, and it is the only error
/// here whose text does; every other text shows it through `Debug`.
#[derive(thiserror::Error, ToolError)]
enum LoginError {
    #[error("password {password} refused for {user}")]
    #[category(unauthenticated)]
    #[message("login refused for {user}")]
    Refused {
        user: String,
        #[sensitive]
        password: String,
    },

    #[error("vault unreachable for {0}")]
    #[category(internal)]
    Vault(String, #[sensitive] String),
}

fn refused() -> LoginError {
    LoginError::Refused {
        user: "ann".into(),
        password: SECRET.into(),
    }
}

/// Shows its field with `{0:?}` to the model (an unmasked variant without `#[message]`):
/// through a generic parameter, and inside a `Vec`.
#[derive(Debug, thiserror::Error, ToolError)]
enum Outer<T: std::fmt::Debug + 'static> {
    #[error("login failed: {0:?}")]
    #[category(validation)]
    Login(T),

    #[error("every login failed: {0:?}")]
    #[category(validation)]
    Batch(Vec<LoginError>),

    #[error("login failed (logged): {0:?}")]
    #[category(internal)]
    Logged(LoginError),

    #[error("through the store: {0:?}")]
    #[transparent]
    Store(LoginError),
}

/// The wire form of `error` (its `ToolFailure`, serialized), and what tracing wrote while it
/// was made.
fn wire_and_log<E: ToolError>(error: &E) -> (String, String) {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .finish();
    let failure = tracing::subscriber::with_default(subscriber, || error.to_failure());
    let wire = serde_json::to_string(&failure).unwrap();
    (wire, captured.text())
}

#[test]
fn debug_of_an_error_with_a_sensitive_field_redacts_it() {
    assert_eq!(
        format!("{:?}", refused()),
        "Refused { user: \"ann\", password: <redacted> }"
    );
    assert_eq!(
        format!("{:?}", LoginError::Vault("ann".into(), SECRET.into())),
        "Vault(\"ann\", <redacted>)"
    );
}

#[test]
fn an_outer_text_showing_it_through_a_generic_parameter_sends_no_secret() {
    let (wire, _) = wire_and_log(&Outer::Login(refused()));
    assert!(wire.contains("login failed: Refused"), "{wire}");
    assert!(!wire.contains(SECRET), "{wire}");
}

#[test]
fn an_outer_text_showing_it_inside_a_collection_sends_no_secret() {
    let (wire, _) = wire_and_log(&Outer::<u8>::Batch(vec![refused()]));
    assert!(wire.contains("every login failed: [Refused"), "{wire}");
    assert!(!wire.contains(SECRET), "{wire}");
}

#[test]
fn a_masked_outer_logs_no_secret() {
    let (wire, log) = wire_and_log(&Outer::<u8>::Logged(refused()));
    assert!(log.contains("login failed (logged): Refused"), "{log}");
    assert!(!log.contains(SECRET), "{log}");
    assert!(!wire.contains(SECRET), "{wire}");
}

#[test]
fn a_transparent_variant_whose_display_shows_it_logs_no_secret() {
    let vault = LoginError::Vault("ann".into(), SECRET.into());
    let (wire, log) = wire_and_log(&Outer::<u8>::Store(vault));
    assert!(log.contains("through the store: Vault"), "{log}");
    assert!(!log.contains(SECRET), "{log}");
    assert!(!wire.contains(SECRET), "{wire}");
    let failure = ToolFailure::from(Outer::<u8>::Store(refused()));
    assert!(!serde_json::to_string(&failure).unwrap().contains(SECRET));
}
