//! `export_orders`: a long export of one month's orders, which the demo's `ErrorBoundary` runs
//! as a task for a client that declares the tasks extension.

use std::time::Duration;

use mcp_errors_core::ToolError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::faults::{Fault, Faults};

/// How long an export works before it ends.
pub const EXPORT_DURATION: Duration = Duration::from_millis(300);

/// Arguments of `export_orders`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ExportArgs {
    /// The month whose orders to export, as `YYYY-MM`, e.g. `2026-11`.
    pub month: String,
}

/// An export written.
#[derive(Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct ExportFile {
    /// The month exported.
    pub month: String,
    /// How many orders the file holds.
    pub orders: u32,
    /// Where the file was written.
    pub file: String,
}

/// How `export_orders` fails.
#[derive(Debug, thiserror::Error, ToolError)]
pub enum ExportError {
    #[error("`{month}` is not a month")]
    #[category(validation)]
    #[hint("give the month as YYYY-MM, e.g. 2026-11")]
    BadMonth {
        #[detail]
        month: String,
    },

    #[error("the warehouse database went away during the export")]
    #[category(transient)]
    #[hint("export again: nothing was written")]
    WarehouseLost,
}

/// Exports the orders of `args.month`, after [`EXPORT_DURATION`]; under `export_lost` the
/// warehouse goes away before the file is written.
pub async fn export(args: &ExportArgs, faults: &Faults) -> Result<ExportFile, ExportError> {
    if !is_month(&args.month) {
        return Err(ExportError::BadMonth {
            month: args.month.clone(),
        });
    }
    tokio::time::sleep(EXPORT_DURATION).await;
    if faults.trip(Fault::ExportLost) {
        return Err(ExportError::WarehouseLost);
    }
    Ok(ExportFile {
        month: args.month.clone(),
        orders: 42,
        file: format!("exports/orders-{}.csv", args.month),
    })
}

/// Whether `month` is `YYYY-MM` with a month 01 to 12.
fn is_month(month: &str) -> bool {
    let Some((year, number)) = month.split_once('-') else {
        return false;
    };
    let digits =
        |part: &str, len: usize| part.len() == len && part.bytes().all(|b| b.is_ascii_digit());
    digits(year, 4) && digits(number, 2) && matches!(number.parse::<u8>(), Ok(1..=12))
}

#[cfg(test)]
mod tests {
    use super::is_month;

    #[test]
    fn a_month_is_four_digits_a_dash_and_01_to_12() {
        assert!(is_month("2026-11"));
        assert!(is_month("1999-01"));
        for bad in [
            "2026-13", "2026-00", "26-11", "2026-1", "2026/11", "november", "2026-+1",
        ] {
            assert!(!is_month(bad), "{bad}");
        }
    }
}
