//! [`RetryBudget`]: a token bucket shared by the calls that hold a clone of it.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

/// A retry budget: a token bucket shared by every call that holds a clone of it, so a
/// struggling server is not hammered by many callers retrying at once.
///
/// A retry withdraws tokens (more for a timeout, which costs the server more); a success
/// puts a few back; with the bucket empty, the policy stops retrying
/// ([`EscalationReason::BudgetExhausted`](super::EscalationReason::BudgetExhausted)) until successes refill it. Defaults are AWS's
/// standard retry mode: 500 tokens, a retry costs 5, a timeout retry 10, a success refunds 1.
///
/// ```
/// use mcp_errors_core::client::RetryBudget;
///
/// let budget = RetryBudget::aws_standard();
/// let shared = budget.clone();
/// assert!(shared.try_withdraw(5));
/// assert_eq!(budget.available(), 495);
///
/// let small = RetryBudget::builder().capacity(20).retry_cost(10).build();
/// assert_eq!((small.available(), small.retry_cost(), small.timeout_cost()), (20, 10, 10));
/// ```
#[derive(Clone, Debug)]
pub struct RetryBudget(Arc<BudgetInner>);

#[derive(Debug)]
struct BudgetInner {
    tokens: AtomicU32,
    capacity: u32,
    retry_cost: u32,
    timeout_cost: u32,
    success_refund: u32,
}

impl RetryBudget {
    /// AWS's standard mode: 500 tokens, retry 5, timeout retry 10, success refund 1.
    pub fn aws_standard() -> Self {
        RetryBudget::builder().build()
    }

    /// A builder starting from AWS's standard mode.
    pub fn builder() -> RetryBudgetBuilder {
        RetryBudgetBuilder {
            capacity: 500,
            retry_cost: 5,
            timeout_cost: 10,
            success_refund: 1,
        }
    }

    /// The size of the bucket, and the tokens it starts with.
    pub fn capacity(&self) -> u32 {
        self.0.capacity
    }

    /// The tokens a retry takes.
    pub fn retry_cost(&self) -> u32 {
        self.0.retry_cost
    }

    /// The tokens a retry after a timeout (an outcome that may have run) takes.
    pub fn timeout_cost(&self) -> u32 {
        self.0.timeout_cost
    }

    /// The tokens a success puts back.
    pub fn success_refund(&self) -> u32 {
        self.0.success_refund
    }

    /// Tokens left.
    pub fn available(&self) -> u32 {
        self.0.tokens.load(Ordering::Acquire)
    }

    /// Takes `cost` tokens if there are that many; `false` (and nothing taken) otherwise.
    pub fn try_withdraw(&self, cost: u32) -> bool {
        self.0
            .tokens
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |t| t.checked_sub(cost))
            .is_ok()
    }

    /// Puts `amount` tokens back, never above the capacity.
    pub fn refund(&self, amount: u32) {
        let capacity = self.0.capacity;
        let _ = self
            .0
            .tokens
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |t| {
                Some(t.saturating_add(amount).min(capacity))
            });
    }
}

/// Builds a [`RetryBudget`]; see there for the defaults.
#[derive(Clone, Copy, Debug)]
pub struct RetryBudgetBuilder {
    capacity: u32,
    retry_cost: u32,
    timeout_cost: u32,
    success_refund: u32,
}

impl RetryBudgetBuilder {
    /// The size of the bucket; it starts full.
    pub fn capacity(mut self, capacity: u32) -> Self {
        self.capacity = capacity;
        self
    }

    /// The tokens a retry takes.
    pub fn retry_cost(mut self, cost: u32) -> Self {
        self.retry_cost = cost;
        self
    }

    /// The tokens a retry after a timeout takes.
    pub fn timeout_cost(mut self, cost: u32) -> Self {
        self.timeout_cost = cost;
        self
    }

    /// The tokens a success puts back.
    pub fn success_refund(mut self, refund: u32) -> Self {
        self.success_refund = refund;
        self
    }

    /// The budget, with a full bucket.
    pub fn build(self) -> RetryBudget {
        RetryBudget(Arc::new(BudgetInner {
            tokens: AtomicU32::new(self.capacity),
            capacity: self.capacity,
            retry_cost: self.retry_cost,
            timeout_cost: self.timeout_cost,
            success_refund: self.success_refund,
        }))
    }
}
