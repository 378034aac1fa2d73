//! [`RetryBudget`]: a token bucket shared by the calls that hold a clone of it.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

/// A retry budget: a token bucket shared by every call that holds a clone of it, so a
/// struggling server is not hammered by many callers retrying at once.
///
/// A retry withdraws tokens (more for a timeout, which costs the server more); a success
/// puts a few back, one after a retry a retry's cost; with the bucket empty, retries stop
/// ([`EscalationReason::BudgetExhausted`](crate::client::EscalationReason::BudgetExhausted)) until
/// successes refill it. A [`Retrier`](crate::client::Retrier) charges the budget it is given
/// ([`Retrier::with_budget`](crate::client::Retrier::with_budget)); a caller deciding attempt by attempt
/// charges it with [`RetryPolicy::decide_with_budget`](crate::client::RetryPolicy::decide_with_budget).
///
/// The default follows AWS's standard retry mode: 500 tokens, a retry costs 5, a timeout
/// retry 10, a success at the first attempt refunds 1 and one after a retry refunds 5 (AWS
/// gives back 10 when the retry that succeeded followed a timeout). The `with_*` methods make
/// a new bucket, full and shared with nothing yet: set them first, then clone the budget to
/// share it.
///
/// ```
/// use mcp_errors_core::client::RetryBudget;
///
/// let budget = RetryBudget::default();
/// let shared = budget.clone();
/// assert!(shared.try_withdraw(5));
/// assert_eq!(budget.available(), 495);
///
/// let small = RetryBudget::default().with_capacity(20).with_retry_cost(10);
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

/// AWS's standard mode: 500 tokens, retry 5, timeout retry 10, first-attempt success refund 1.
impl Default for RetryBudget {
    fn default() -> Self {
        RetryBudget::new(BudgetInner {
            tokens: AtomicU32::new(0),
            capacity: 500,
            retry_cost: 5,
            timeout_cost: 10,
            success_refund: 1,
        })
    }
}

impl RetryBudget {
    /// A full bucket of `inner`'s settings.
    fn new(inner: BudgetInner) -> Self {
        inner.tokens.store(inner.capacity, Ordering::Release);
        RetryBudget(Arc::new(inner))
    }

    /// A new, full bucket with these settings changed.
    fn with(&self, change: impl FnOnce(&mut BudgetInner)) -> Self {
        let mut inner = BudgetInner {
            tokens: AtomicU32::new(0),
            capacity: self.0.capacity,
            retry_cost: self.0.retry_cost,
            timeout_cost: self.0.timeout_cost,
            success_refund: self.0.success_refund,
        };
        change(&mut inner);
        RetryBudget::new(inner)
    }

    /// A new, full bucket of `capacity` tokens. The default is 500.
    pub fn with_capacity(self, capacity: u32) -> Self {
        self.with(|b| b.capacity = capacity)
    }

    /// A new, full bucket in which a retry takes `cost` tokens. The default is 5.
    pub fn with_retry_cost(self, cost: u32) -> Self {
        self.with(|b| b.retry_cost = cost)
    }

    /// A new, full bucket in which a retry after a timeout (an outcome that may have run)
    /// takes `cost` tokens. The default is 10.
    pub fn with_timeout_cost(self, cost: u32) -> Self {
        self.with(|b| b.timeout_cost = cost)
    }

    /// A new, full bucket in which a success at the first attempt puts `refund` tokens back
    /// (a success after a retry puts back a [retry's cost](Self::retry_cost)). The default is
    /// 1.
    pub fn with_success_refund(self, refund: u32) -> Self {
        self.with(|b| b.success_refund = refund)
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
