// `#[code("...")]` sets a stable code (default: the variant name in UPPER_SNAKE_CASE), and
// every enum exposes its static catalog for a server to publish.
use mcp_errors_core::{ErrorCatalog, ToolError};

#[derive(Debug, thiserror::Error, ToolError)]
enum PaymentError {
    #[error("card declined")]
    #[category(business)]
    #[code("CARD_DECLINED_V2")]
    Declined,

    #[error("HTTP error")]
    #[category(transient)]
    HTTPError,
}

fn main() {
    let catalog = PaymentError::catalog();
    assert!(catalog.get("CARD_DECLINED_V2").is_some());
    assert!(catalog.get("HTTP_ERROR").is_some());
    let json = serde_json::to_value(&catalog).unwrap();
    assert_eq!(json["version"], 1);
    assert_eq!(json["errors"][0]["category"], "business");
}
