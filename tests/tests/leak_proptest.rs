//! Property tests: secrets placed in a masked error's `Display` and source chain, or in any
//! `#[sensitive]` field, never reach the wire, through any channel: the text block, `_meta`,
//! `structuredContent`, the JSON-RPC `message` and `data`, and rmcp's types.

use mcp_errors_core::{FailureOptions, ToolError, ToolFailure};
use proptest::prelude::*;

#[derive(Debug, thiserror::Error)]
#[error("driver said: {0}")]
struct DriverError(String);

#[derive(Debug, thiserror::Error, ToolError)]
enum Leaky {
    #[error("query failed on {dsn}")]
    #[category(internal)]
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
