//! Deciding and running: a [`RetryPolicy`] decides from the description reading made of an
//! outcome, and a [`Retrier`] runs a call under it. Nothing here parses JSON or reads text.
//!
//! - `policy`: the table from a description to a [`Decision`]; `decision`: the decisions.
//! - `budget`, `backoff`: the shared retry budget and the jitter; `health`: the server's
//!   health, on which the calls to one server wait together.
//! - `call`: the call and the attempt; `run`: the loop; `report`, `trace`: what a run leaves;
//!   `redact`: the secret arguments kept out of a report.

mod backoff;
mod budget;
mod call;
mod decision;
mod health;
mod policy;
mod redact;
mod report;
mod run;
mod trace;

pub use budget::RetryBudget;
pub use call::{Attempt, AttemptContext, ToolCall};
pub use decision::{Decision, EscalationReason};
pub use health::ServerHealth;
pub use policy::RetryPolicy;
pub use report::{AttemptRecord, StopReport};
pub use run::{Retrier, RunSuccess};
