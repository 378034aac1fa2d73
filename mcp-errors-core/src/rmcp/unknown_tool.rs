//! [`UnknownTool`]: a `tools/call` for a tool the server does not list (or has disabled), as
//! a tool execution error the model reads (as the SEP-2145 draft proposes) or a coded
//! `invalid_params` protocol failure, naming the tools the client can call instead.

use std::borrow::Cow;
use std::fmt;

use serde_json::{Map, Value};

use crate::catalog::descriptor::ErrorDescriptor;
use crate::category::Category;
use crate::failure::ToolFailure;
use crate::failure::options::FailureOptions;
use crate::failure::tool_error::ToolError;
use crate::mask::{MAX_HINT_CHARS, clean_text};
use crate::wire::UNKNOWN_TOOL_CODE;
use crate::wire::jsonrpc::ErrorCode;

/// The most tool names a hint lists; a longer list is not repeated in every error.
pub(crate) const MAX_LISTED_TOOLS: usize = 10;

/// The most characters of the tool name that was called kept in the message: MCP's own limit
/// on a tool name.
pub(super) const MAX_NAME_CHARS: usize = 128;

static DESCRIPTORS: [ErrorDescriptor; 1] =
    [
        ErrorDescriptor::protocol("UnknownTool", UNKNOWN_TOOL_CODE, ErrorCode::INVALID_PARAMS)
            .with_origin("mcp_errors_core::rmcp::ErrorBoundary"),
    ];

/// The same code as a tool execution error (SEP-2145): the tool named does not exist.
static AS_RESULT: ErrorDescriptor =
    ErrorDescriptor::execution("UnknownTool", UNKNOWN_TOOL_CODE, Category::NotFound)
        .with_origin("mcp_errors_core::rmcp::ErrorBoundary");

/// A call to a tool that is not in the server's list, with the stable code `UNKNOWN_TOOL` and
/// a hint naming the listed tools when there are at most [`MAX_LISTED_TOOLS`] of them: MCP's
/// protocol error -32602 unless [`answered_as_result`](Self::answered_as_result).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct UnknownTool {
    name: String,
    /// The listed tools' names, when the list is known and short; `None` otherwise.
    listed: Option<Vec<String>>,
    /// Whether it is answered as a tool execution error (SEP-2145) instead.
    as_result: bool,
}

impl UnknownTool {
    /// A call to `name`; `listed` holds the names the server lists, when it could list them
    /// all in one page. `name` itself is left out of them: a server whose list still holds a
    /// tool it cannot call must not send the model back to it.
    pub(crate) fn new(name: &str, listed: Option<Vec<String>>) -> Self {
        let listed = listed
            .map(|mut names| {
                names.retain(|listed| listed != name);
                names
            })
            .filter(|names| names.len() <= MAX_LISTED_TOOLS)
            .map(|names| {
                names
                    .iter()
                    .map(|name| clean_text(name, MAX_NAME_CHARS))
                    .collect()
            });
        UnknownTool {
            name: clean_text(name, MAX_NAME_CHARS),
            listed,
            as_result: false,
        }
    }

    /// The same call, answered as a tool execution error of category `not_found` when `on`.
    pub(crate) fn answered_as_result(mut self, on: bool) -> Self {
        self.as_result = on;
        self
    }

    /// This error converted with `options`: the protocol error -32602 whatever
    /// [`FailureOptions::with_invalid_params_as_execution`] says (MCP keeps an unknown tool a
    /// protocol error), unless [`answered_as_result`](Self::answered_as_result) asked for a
    /// tool execution error. The conversion writes the hint into the message and `data`.
    pub(crate) fn to_failure_with(&self, options: &FailureOptions) -> ToolFailure {
        let options = options.clone().with_invalid_params_as_execution(false);
        ToolError::to_failure_with(self, &options)
    }

    fn hint_text(&self) -> String {
        let hint = match self.listed.as_deref() {
            Some([]) => "this server lists no tools".to_owned(),
            Some(names) => format!("call one of the listed tools: {}", names.join(", ")),
            None => "list the tools again (tools/list) and call one of them".to_owned(),
        };
        clean_text(&hint, MAX_HINT_CHARS)
    }
}

impl fmt::Display for UnknownTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "no tool named `{}`", self.name)
    }
}

impl std::error::Error for UnknownTool {}

impl ToolError for UnknownTool {
    fn descriptors() -> &'static [ErrorDescriptor] {
        &DESCRIPTORS
    }

    fn descriptor(&self) -> &'static ErrorDescriptor {
        if self.as_result {
            &AS_RESULT
        } else {
            &DESCRIPTORS[0]
        }
    }

    fn hint(&self) -> Option<Cow<'static, str>> {
        Some(Cow::Owned(self.hint_text()))
    }

    fn details(&self) -> Map<String, Value> {
        let mut details = Map::new();
        details.insert("tool".to_owned(), Value::from(self.name.as_str()));
        if let Some(names) = &self.listed {
            details.insert("tools".to_owned(), Value::from(names.clone()));
        }
        details
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_list_is_named_in_the_message_and_the_data() {
        let error = UnknownTool::new("bok", Some(vec!["book".into(), "list".into()]));
        let failure = error.to_failure_with(&FailureOptions::new());
        let error = failure.as_protocol().unwrap();
        assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
        assert_eq!(
            error.message,
            "UNKNOWN_TOOL: no tool named `bok`. Hint: call one of the listed tools: book, list"
        );
        let data = error.data.as_ref().unwrap();
        assert_eq!(data["code"], "UNKNOWN_TOOL");
        assert_eq!(data["tool"], "bok");
        assert_eq!(data["tools"], serde_json::json!(["book", "list"]));
        assert_eq!(data["hint"], "call one of the listed tools: book, list");
    }

    #[test]
    fn a_long_or_unknown_list_is_not_repeated() {
        let many: Vec<String> = (0..=MAX_LISTED_TOOLS).map(|i| format!("t{i}")).collect();
        for listed in [Some(many), None] {
            let failure = UnknownTool::new("x", listed).to_failure_with(&FailureOptions::new());
            let error = failure.as_protocol().unwrap();
            assert!(
                error
                    .message
                    .ends_with("list the tools again (tools/list) and call one of them")
            );
            assert!(error.data.as_ref().unwrap().get("tools").is_none());
        }
    }

    #[test]
    fn the_tool_called_is_not_offered_back() {
        let listed = vec!["query_log".into(), "query_logs".into()];
        let failure =
            UnknownTool::new("query_log", Some(listed)).to_failure_with(&FailureOptions::new());
        let data = failure.as_protocol().unwrap().data.clone().unwrap();
        assert_eq!(data["tools"], serde_json::json!(["query_logs"]));
        assert_eq!(data["hint"], "call one of the listed tools: query_logs");
    }

    #[test]
    fn it_stays_a_protocol_error_when_invalid_params_go_to_the_model() {
        let options = FailureOptions::new().with_invalid_params_as_execution(true);
        let failure = UnknownTool::new("x", None).to_failure_with(&options);
        assert!(failure.as_protocol().is_some());
    }

    /// A client reads this error, on either channel, as a tool to choose again from the list,
    /// not as arguments to fix.
    #[cfg(feature = "client")]
    #[test]
    fn a_client_lists_the_tools_again() {
        use std::time::Duration;

        use crate::client::{Attempt, Decision, Outcome, RetryPolicy, classify};

        let policy = RetryPolicy::default();
        let attempt = Attempt::new(1, Duration::ZERO);
        let listed = Some(vec!["book".to_owned(), "list".to_owned()]);
        let result = UnknownTool::new("bok", listed.clone())
            .answered_as_result(true)
            .to_failure_with(&FailureOptions::new());
        let response = serde_json::json!({"jsonrpc": "2.0", "id": 1, "result": result});
        let as_result = classify(&response);
        assert!(
            matches!(as_result, Outcome::ExecutionError(_)),
            "{as_result:?}"
        );
        assert_eq!(policy.decide(&as_result, attempt), Decision::RelistTools);

        let error = UnknownTool::new("bok", listed).to_failure_with(&FailureOptions::new());
        let as_error = Outcome::from(error.as_protocol().unwrap().clone());
        assert_eq!(policy.decide(&as_error, attempt), Decision::RelistTools);
    }

    #[test]
    fn the_name_called_is_cleaned_and_cut() {
        let name = format!("a\u{202e}b{}", "x".repeat(1000));
        let failure = UnknownTool::new(&name, None).to_failure_with(&FailureOptions::new());
        let data = failure.as_protocol().unwrap().data.clone().unwrap();
        let tool = data["tool"].as_str().unwrap();
        assert!(!tool.contains('\u{202e}'));
        assert!(tool.chars().count() <= MAX_NAME_CHARS + 1);
    }
}
