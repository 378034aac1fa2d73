//! [`DraftToolFailure`]: the entry of the draft tool-failure standard (SEP-3313).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::payload::ErrorPayload;
use crate::category::FailureClass;

/// The entry a failed result carries under
/// [`TOOL_FAILURE_META_KEY`](super::TOOL_FAILURE_META_KEY) by the draft tool-failure standard
/// (SEP-3313), as the server side writes it when
/// [`FailureOptions::with_draft_tool_failure`](crate::FailureOptions::with_draft_tool_failure)
/// asks for it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DraftToolFailure {
    /// `capability`, `governance` or `reliability`.
    pub(crate) class: FailureClass,
    /// The failure's code. The draft recommends `capability_unsupported`,
    /// `resource_not_found`, `invalid_input`, `retryable_transient_error`, `auth_required`,
    /// `permission_denied`, `policy_blocked` and `user_action_required`, and leaves the list
    /// open; this crate's servers write their stable code, which the class already groups.
    pub(crate) code: String,
    /// Whether calling again may succeed: only on a `reliability` failure (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) retryable: Option<bool>,
    /// The earliest time to call again, in milliseconds since the Unix epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) retry_not_before: Option<u64>,
    /// The id under which the server can find the failure; relays keep it.
    pub(crate) correlation_id: String,
    /// What the agent should do next.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) agent_guidance: Option<String>,
}

impl DraftToolFailure {
    /// The entry describing `payload`, with `correlation_id`, `now` being the time the result
    /// is written: the class of the payload's category; `retryable` on a reliability failure
    /// only; `retryNotBefore` = `now` plus the payload's retry-after, when it is retryable and
    /// has one; the hint as `agentGuidance`.
    pub(crate) fn from_payload(
        payload: &ErrorPayload,
        correlation_id: impl Into<String>,
        now: SystemTime,
    ) -> Self {
        let class = payload.category.failure_class();
        let reliability = class == FailureClass::Reliability;
        let retry_not_before = payload
            .retry_after_ms
            .filter(|_| reliability && payload.retryable)
            .map(|wait| epoch_millis(now).saturating_add(wait));
        DraftToolFailure {
            class,
            code: payload.code.clone().into_owned(),
            retryable: reliability.then_some(payload.retryable),
            retry_not_before,
            correlation_id: correlation_id.into(),
            agent_guidance: payload.hint.as_ref().map(|hint| hint.clone().into_owned()),
        }
    }
}

/// Milliseconds since the Unix epoch (0 for a time before it).
pub(crate) fn epoch_millis(time: SystemTime) -> u64 {
    let since = time.duration_since(UNIX_EPOCH).unwrap_or(Duration::ZERO);
    u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, UNIX_EPOCH};

    use super::*;
    use crate::category::Category;

    #[test]
    fn the_entry_has_the_class_of_the_category_and_the_time_to_wait_until() {
        let payload = ErrorPayload::new("RATE_LIMITED", Category::RateLimited, "slow down")
            .with_retry_after(Duration::from_secs(2));
        let now = UNIX_EPOCH + Duration::from_millis(1_000_000);
        let entry =
            DraftToolFailure::from_payload(&payload, "4bf92f3577b34da6a3ce929d0e0e4736", now);
        assert_eq!(entry.class, FailureClass::Reliability);
        assert_eq!(entry.retryable, Some(true));
        assert_eq!(entry.retry_not_before, Some(1_002_000));
        assert_eq!(
            serde_json::to_value(&entry).unwrap(),
            serde_json::json!({
                "class": "reliability", "code": "RATE_LIMITED", "retryable": true,
                "retryNotBefore": 1_002_000, "correlationId": "4bf92f3577b34da6a3ce929d0e0e4736"
            })
        );
    }
}
