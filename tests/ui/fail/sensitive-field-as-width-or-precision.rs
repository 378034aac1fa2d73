// Rule: a `#[sensitive]` field may not be a width or precision (`{user:>pin$}`,
// `{amount:.pin$}`): the padding or the digits would reveal its value.
use mcp_errors_core::ToolError;

#[derive(thiserror::Error, ToolError)]
enum PaymentError {
    #[error("card declined")]
    #[category(business)]
    #[message("card of {user:>pin$} declined")]
    #[hint("retry with less than {amount:.pin$}")]
    Declined { user: String, amount: f64, #[sensitive] pin: usize },
}

fn main() {}
