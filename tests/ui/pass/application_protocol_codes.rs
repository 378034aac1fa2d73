// Any negative integer outside JSON-RPC's reserved range -32768..=-32000 is an application
// code; JSON-RPC gives it no meaning, so `data.code` carries the stable code a client matches
// on. (Codes of 0 or more are refused: MCP SDKs give some of them meanings of their own.)
use mcp_errors_core::{ErrorCode, ToolError, ToolFailure};

#[derive(Debug, thiserror::Error, ToolError)]
enum BillingError {
    #[error("card declined")]
    #[protocol(-4001)]
    Declined { #[detail] code_value: String },

    #[error("account frozen")]
    #[protocol(-1)]
    Frozen,

    #[error("below the reserved range")]
    #[protocol(-32769)]
    Below,

    #[error("above the reserved range")]
    #[protocol(-31999)]
    Above,
}

fn main() {
    let codes: Vec<Option<ErrorCode>> =
        BillingError::descriptors().iter().map(|d| d.protocol_code()).collect();
    assert_eq!(
        codes,
        [Some(ErrorCode(-4001)), Some(ErrorCode(-1)), Some(ErrorCode(-32769)), Some(ErrorCode(-31999))]
    );
    let declined = BillingError::Declined { code_value: "do_not_honor".into() };
    let ToolFailure::Protocol(error) = ToolFailure::from(declined) else { panic!("not protocol") };
    assert_eq!(error.code, -4001);
    assert_eq!(
        error.data.unwrap(),
        serde_json::json!({"code": "DECLINED", "code_value": "do_not_honor"})
    );
}
