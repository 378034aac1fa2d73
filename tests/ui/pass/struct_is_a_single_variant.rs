// A struct is supported as a single variant: its attributes are the variant's.
use mcp_errors_core::{ToolError, ToolFailure};

#[derive(Debug, thiserror::Error, ToolError)]
#[error("order {order_id} not found")]
#[category(not_found)]
#[code("ORDER_NOT_FOUND")]
#[hint("check the order id on the receipt")]
struct OrderNotFound {
    #[detail]
    order_id: String,
}

#[derive(Debug, thiserror::Error, ToolError)]
#[error("service unavailable")]
#[category(transient)]
struct Unavailable;

fn main() {
    let failure = ToolFailure::from(OrderNotFound { order_id: "o-1".into() });
    let payload = failure.as_execution().unwrap().error_payload().unwrap();
    assert_eq!(payload.code, "ORDER_NOT_FOUND");
    assert_eq!(payload.details.unwrap()["order_id"], "o-1");
    assert_eq!(Unavailable::descriptors()[0].code(), "UNAVAILABLE");
}
