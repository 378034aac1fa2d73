//! [`Description`]: what an [`Outcome`] comes to for a decision, and [`Failure`], one failure
//! described alike whatever channel it came on. The policy decides from these; it reads no
//! JSON and runs no text rule of its own.

use std::time::Duration;

use super::execution::{Evidence, ExecutionError};
use super::known::says_tool_unavailable;
use super::outcome::{Outcome, UnknownCause};
use super::peer::{CodeMeaning, PeerProfile};
use super::protocol::{KeyRefusal, ProtocolError};
use super::text::refused_before_running;
use crate::category::{Category, FailureClass};
use crate::wire::UNKNOWN_TOOL_CODE;
use crate::wire::jsonrpc::ErrorCode;

/// What an outcome comes to, read with one peer's profile.
#[derive(Debug)]
pub(crate) enum Description<'a> {
    /// A success that does not read as a failure.
    Success,
    /// A failure, on whatever channel.
    Failed(Failure<'a>),
    /// A result that asks for input; `request_state` when it asks for nothing but the state
    /// sent back.
    InputRequired { request_state: Option<String> },
    /// A task that has not ended, to poll: its id, and the server's poll interval.
    Working {
        task_id: &'a str,
        poll_interval: Option<Duration>,
    },
    /// A response that fits no known shape.
    Invalid,
}

/// One failure as reading describes it.
#[derive(Debug)]
pub(crate) struct Failure<'a> {
    /// Where it came.
    pub(crate) channel: Channel<'a>,
    /// The stable code, when the server sent one.
    pub(crate) code: Option<&'a str>,
    /// The category, when anything named one.
    pub(crate) category: Option<Category>,
    /// Who named the category.
    pub(crate) named_by: NamedBy,
    /// Whether the same call may succeed later, by the server's word (an execution error's
    /// falls back to its category's default).
    pub(crate) retryable: Option<bool>,
    /// The wait the failure asks for, and where it was read.
    pub(crate) wait: Option<Wait>,
    /// The draft entry's earliest time to call again, in milliseconds since the Unix epoch.
    pub(crate) retry_not_before: Option<u64>,
    /// The draft's failure class.
    pub(crate) failure_class: Option<FailureClass>,
    /// The tool does not exist or is disabled: the text says so in the words of an SDK, or the
    /// stable code is `UNKNOWN_TOOL`, as `rmcp::ErrorBoundary` writes it.
    pub(crate) tool_unavailable: bool,
    /// A category guessed from the text (by a text rule or the profile's) is a passing fault
    /// that turned the request away before it could run: a rate limit, a refused connection,
    /// a locked database.
    pub(crate) refused: bool,
}

/// A wait a failure asks for before calling again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Wait {
    /// How long.
    pub(crate) after: Duration,
    /// Where it was read.
    pub(crate) from: WaitFrom,
}

/// Where a failure's wait was read: only a member the server wrote for it may hold other
/// calls than the one it answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WaitFrom {
    /// `retryAfterMs` of this crate's payload in `_meta`, or of a description in
    /// `structuredContent`.
    Member,
    /// The text rules, from a text: the failure's own words or words it quotes.
    Text,
}

impl Failure<'_> {
    /// How long the failure asks to wait, wherever that was read.
    pub(crate) fn retry_after(&self) -> Option<Duration> {
        self.wait.map(|wait| wait.after)
    }
}

/// The channel a failure came on, with what is particular to it.
#[derive(Debug)]
pub(crate) enum Channel<'a> {
    /// A result with `isError: true`.
    Execution,
    /// A JSON-RPC error.
    Protocol {
        code: ErrorCode,
        /// What the peer's profile says the code means.
        meaning: Option<CodeMeaning>,
        key_refusal: Option<KeyRefusal>,
        /// `data.retryAfterMs`.
        advised_wait: Option<Duration>,
        error: &'a ProtocolError,
    },
    /// A success whose text reads as a failure.
    Success,
    /// No answer: the call may have run.
    NoAnswer,
    /// The task that ran the call ended without a result (cancelled, or dropped when its ttl
    /// ran out): the call may have run, and its idempotency key stands for that task.
    TaskEnded,
}

/// Who named a failure's category.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NamedBy {
    /// The server, in a machine-readable description.
    Server,
    /// The draft tool-failure entry alone.
    Draft,
    /// The built-in text rules: the server's guess, not its word.
    TextRule,
    /// One of the peer profile's text rules.
    Profile,
    /// Nobody.
    Nobody,
}

/// What `outcome` comes to, its texts read with `profile`'s rules first.
pub(crate) fn describe<'a>(outcome: &'a Outcome, profile: &PeerProfile) -> Description<'a> {
    match outcome {
        Outcome::Ready(result) | Outcome::Empty(result) => match result.suspect() {
            None => Description::Success,
            Some(suspect) => {
                let (category, named_by) = match profile.text_category(&suspect.text) {
                    Some(mine) => (Some(mine), NamedBy::Profile),
                    None => (suspect.category, NamedBy::TextRule),
                };
                Description::Failed(Failure {
                    channel: Channel::Success,
                    code: None,
                    category,
                    named_by,
                    retryable: None,
                    wait: None,
                    retry_not_before: None,
                    failure_class: None,
                    tool_unavailable: suspect.tool_unavailable,
                    refused: refused(category, &[&suspect.text]),
                })
            }
        },
        Outcome::InputRequired(result) => Description::InputRequired {
            request_state: result.state_only(),
        },
        Outcome::Working {
            task_id,
            poll_interval,
            ..
        } => Description::Working {
            task_id,
            poll_interval: *poll_interval,
        },
        Outcome::Invalid(_) => Description::Invalid,
        Outcome::Unknown(cause) => Description::Failed(Failure {
            channel: match cause {
                UnknownCause::TaskCancelled | UnknownCause::TaskExpired => Channel::TaskEnded,
                _ => Channel::NoAnswer,
            },
            code: None,
            category: None,
            named_by: NamedBy::Nobody,
            retryable: None,
            wait: None,
            retry_not_before: None,
            failure_class: None,
            tool_unavailable: false,
            refused: false,
        }),
        Outcome::ExecutionError(error) => Description::Failed(execution(error, profile)),
        Outcome::ProtocolError(error) => Description::Failed(protocol(error, profile)),
    }
}

fn execution<'a>(error: &'a ExecutionError, profile: &PeerProfile) -> Failure<'a> {
    let named_by = match error.evidence {
        Evidence::DraftToolFailure => NamedBy::Draft,
        Evidence::TextRule => NamedBy::TextRule,
        Evidence::PlainText => NamedBy::Nobody,
        _ => NamedBy::Server,
    };
    let by_text = matches!(named_by, NamedBy::TextRule | NamedBy::Nobody);
    let (category, named_by) = match profile.text_category(&error.text) {
        Some(mine) if by_text => (Some(mine), NamedBy::Profile),
        _ => (error.category, named_by),
    };
    Failure {
        channel: Channel::Execution,
        code: error.code.as_deref(),
        category,
        named_by,
        retryable: Some(error.retryable),
        wait: error.retry_after.map(|after| Wait {
            after,
            from: wait_from(error.evidence),
        }),
        retry_not_before: error.retry_not_before,
        failure_class: error.failure_class,
        tool_unavailable: says_tool_unavailable(&error.text)
            || error.code.as_deref() == Some(UNKNOWN_TOOL_CODE),
        refused: match named_by {
            NamedBy::TextRule | NamedBy::Profile => {
                refused(category, &[&error.message, &error.text])
            }
            _ => false,
        },
    }
}

/// Where the wait of an execution error read with `evidence` came from: a member only with a
/// description that named its category in `_meta` or `structuredContent`. A description that
/// named none had its category read by the text rules ([`Evidence::TextRule`]), and its wait
/// counts as read from text, whether the description or the text gave it; so does a
/// description found inside a text block ([`Evidence::TextJson`]), where a tool's output
/// quotes what others wrote.
fn wait_from(evidence: Evidence) -> WaitFrom {
    match evidence {
        Evidence::Meta | Evidence::StructuredContent => WaitFrom::Member,
        _ => WaitFrom::Text,
    }
}

/// A protocol error's category, for a decision, is what its message reads as (the profile's
/// rules first): its code decides the rest, and `data` decides by `retryable`, not by a
/// category.
fn protocol<'a>(error: &'a ProtocolError, profile: &PeerProfile) -> Failure<'a> {
    let reading = error.message_reading;
    let (category, named_by) = match profile.text_category(&error.message) {
        Some(mine) => (Some(mine), NamedBy::Profile),
        None => match reading {
            Some(reading) => (Some(reading.category), NamedBy::TextRule),
            None => (None, NamedBy::Nobody),
        },
    };
    Failure {
        channel: Channel::Protocol {
            code: error.code,
            meaning: profile.code_meaning(error.code, &error.message),
            key_refusal: error.key_refusal,
            advised_wait: error.advised_wait,
            error,
        },
        code: error.stable_code.as_deref(),
        category,
        named_by,
        retryable: error.retryable,
        // `data.retryAfterMs` is the channel's `advised_wait`: this is the message's.
        wait: reading.and_then(|r| r.retry_after).map(|after| Wait {
            after,
            from: WaitFrom::Text,
        }),
        retry_not_before: None,
        failure_class: None,
        tool_unavailable: error.tool_unavailable,
        refused: refused(category, &[&error.message]),
    }
}

/// Whether a guessed `category` read from `texts` turned the request away before it ran.
fn refused(category: Option<Category>, texts: &[&str]) -> bool {
    category.is_some_and(|category| {
        texts
            .iter()
            .any(|text| refused_before_running(category, text))
    })
}
