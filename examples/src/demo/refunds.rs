//! `refund_order`: orders with delivery dates and a 30-day refund window.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use chrono::{Days, NaiveDate};
use mcp_errors_core::ToolError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::faults::{Fault, Faults};

/// Refunds are possible up to this many days after delivery.
pub const REFUND_WINDOW_DAYS: u64 = 30;

/// How long a client should wait after the order service was too slow.
pub const ORDER_SERVICE_RETRY_AFTER: Duration = Duration::from_secs(2);

/// The orders: id, days since delivery (counted from today, so the cases never age), amount
/// in cents.
const ORDERS: [(&str, u64, u32); 3] = [
    ("ORD-1001", 3, 4250),
    ("ORD-1002", 45, 12900),
    ("ORD-1003", 29, 1999),
];

/// Arguments of `refund_order`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct RefundArgs {
    /// The order number, e.g. `ORD-1001`.
    pub order_id: String,
}

/// A refund that went through.
#[derive(Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct RefundReceipt {
    /// The refund's number: `RF-` and how many refunds this server has made with it.
    pub refund_id: String,
    /// The order.
    pub order_id: String,
    /// Always `refunded`.
    pub status: String,
    /// The amount refunded, in euro cents.
    pub amount_cents: u32,
}

/// How `refund_order` fails.
#[derive(Debug, thiserror::Error, ToolError)]
pub enum RefundError {
    #[error("there is no order {order_id}")]
    #[category(not_found)]
    #[hint("check the order number with the customer; order numbers look like ORD-1001")]
    UnknownOrder {
        #[detail]
        order_id: String,
    },

    #[error(
        "order {order_id} was delivered on {delivered_on}, {days_since_delivery} days ago: \
         refunds are only possible within 30 days of delivery"
    )]
    #[category(business)]
    #[hint(
        "do not retry; pass details.customer_message on to the customer: store credit is still possible"
    )]
    RefundWindowClosed {
        #[detail]
        order_id: String,
        #[detail]
        delivered_on: String,
        #[detail]
        days_since_delivery: u64,
        /// What the agent can pass on to the customer as it is.
        #[detail]
        customer_message: String,
    },

    /// The ledger write failed. Its text (a host and a disk) stays in the server's log under
    /// the correlation id; the model reads neither.
    #[error("ledger write to ledger-db-2.internal failed: disk /var/lib/ledger full")]
    #[category(internal)]
    #[code("LEDGER_UNAVAILABLE")]
    LedgerUnavailable,

    #[error("the order service did not answer in time")]
    #[category(transient)]
    #[hint("nothing was refunded; retry after the delay")]
    OrderServiceSlow {
        #[retry_after]
        wait: Duration,
    },
}

/// Refunds `order_id` if it was delivered within the window, as of `today`; `made` counts the
/// refunds made.
pub fn refund(
    order_id: &str,
    today: NaiveDate,
    faults: &Faults,
    made: &AtomicU64,
) -> Result<RefundReceipt, RefundError> {
    if faults.trip(Fault::OrdersSlow) {
        return Err(RefundError::OrderServiceSlow {
            wait: ORDER_SERVICE_RETRY_AFTER,
        });
    }
    let id = order_id.trim().to_uppercase();
    if faults.trip(Fault::LedgerDown) {
        return Err(RefundError::LedgerUnavailable);
    }
    let Some(&(id, days, amount_cents)) = ORDERS.iter().find(|(known, ..)| *known == id) else {
        return Err(RefundError::UnknownOrder {
            order_id: order_id.to_owned(),
        });
    };
    if days > REFUND_WINDOW_DAYS {
        let delivered_on = today
            .checked_sub_days(Days::new(days))
            .unwrap_or(today)
            .format("%Y-%m-%d")
            .to_string();
        let customer_message = format!(
            "Your order {id} was delivered on {delivered_on}, more than {REFUND_WINDOW_DAYS} days \
             ago, so it can no longer be refunded. We can offer you store credit for the full \
             amount instead."
        );
        return Err(RefundError::RefundWindowClosed {
            order_id: id.to_owned(),
            delivered_on,
            days_since_delivery: days,
            customer_message,
        });
    }
    let n = made.fetch_add(1, Ordering::SeqCst) + 1;
    Ok(RefundReceipt {
        refund_id: format!("RF-{n}"),
        order_id: id.to_owned(),
        status: "refunded".to_owned(),
        amount_cents,
    })
}
