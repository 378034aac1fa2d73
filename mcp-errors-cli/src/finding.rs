//! What the grader notices: a finding's severity, its kind, and for each kind the one line
//! that says how to fix it, with the page of this project's docs that shows how.

use serde::Serialize;

/// How bad a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Costs the agent: a wrong channel, a leak, no answer.
    Fail,
    /// Costs some of the score.
    Warn,
    /// Worth knowing; costs nothing.
    Info,
}

/// What kind of thing a finding is: each has a check it belongs to and one way to fix it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(into = "&'static str")]
pub enum Kind {
    /// No answer: a hang, a crash, a message over the limit, a flood of requests.
    NoAnswer,
    /// A failure sent as a success: `isError` unset, text that reads as a failure.
    FailureAsSuccess,
    /// `-32603` for something the model could act on.
    InternalError,
    /// A JSON-RPC error for input the model could fix, or for a call its schema allows.
    ProtocolError,
    /// Input the tool's own schema forbids, accepted.
    AcceptedInvalid,
    /// A response that is no JSON-RPC response to the call.
    Malformed,
    /// An unknown tool answered on a channel the `--unknown-tool` reading does not take.
    UnknownToolChannel,
    /// A success for a tool the server does not list.
    UnknownToolSuccess,
    /// The text does not name the field (or tool) or does not say what was expected.
    NamesField,
    /// No code, category or retry advice a client can read.
    MachineReadable,
    /// The machine-readable category or retry advice does not fit the failure or the text.
    Agreement,
    /// A stack trace, path, connection string, host or environment value shown to the model.
    Leak,
    /// A slow answer.
    Slow,
    /// The oversize value sent back.
    Echo,
    /// A `--calls` entry that did not come out as its file says.
    Expected,
    /// A failure over 16 KiB.
    Size,
    /// A tool name listed more than once.
    Listing,
}

/// The repository's docs, from the package's `repository`.
macro_rules! doc {
    ($page:literal) => {
        concat!(env!("CARGO_PKG_REPOSITORY"), "/blob/main/", $page)
    };
}

impl From<Kind> for &'static str {
    fn from(kind: Kind) -> Self {
        kind.label()
    }
}

impl Kind {
    /// Its name in the report.
    pub fn label(self) -> &'static str {
        match self {
            Kind::NoAnswer => "no_answer",
            Kind::FailureAsSuccess => "failure_as_success",
            Kind::InternalError => "internal_error",
            Kind::ProtocolError => "protocol_error",
            Kind::AcceptedInvalid => "accepted_invalid",
            Kind::Malformed => "malformed",
            Kind::UnknownToolChannel => "unknown_tool_channel",
            Kind::UnknownToolSuccess => "unknown_tool_success",
            Kind::NamesField => "names_field",
            Kind::MachineReadable => "machine_readable",
            Kind::Agreement => "agreement",
            Kind::Leak => "leak",
            Kind::Slow => "slow",
            Kind::Echo => "echo",
            Kind::Expected => "expected",
            Kind::Size => "size",
            Kind::Listing => "listing",
        }
    }

    /// The check it belongs to (the name in the report's `checks`).
    pub fn check(self) -> &'static str {
        match self {
            Kind::NoAnswer
            | Kind::FailureAsSuccess
            | Kind::InternalError
            | Kind::ProtocolError
            | Kind::AcceptedInvalid
            | Kind::Malformed
            | Kind::UnknownToolChannel
            | Kind::UnknownToolSuccess => "channel",
            Kind::NamesField => "names_field",
            Kind::MachineReadable => "machine_readable",
            Kind::Agreement => "agreement",
            Kind::Leak => "leaks",
            Kind::Slow => "time",
            Kind::Echo => "echo",
            Kind::Expected => "expected",
            Kind::Size => "size",
            Kind::Listing => "listing",
        }
    }

    /// How to fix it, in one line, and the page that shows how.
    pub fn fix(self) -> (&'static str, &'static str) {
        match self {
            Kind::NoAnswer => (
                "answer every call within the timeout and catch a tool's panic (ErrorBoundary answers it with a masked TOOL_PANICKED); keep one message under 4 MiB",
                doc!("docs/SERVER.md"),
            ),
            Kind::FailureAsSuccess => (
                "set `isError: true` on a result that reports a failure: a tool returning `Result<_, E>` with E a ToolError does",
                doc!("README.md"),
            ),
            Kind::InternalError => (
                "keep -32603 for the server's own faults; a failure the model can act on is an `isError` result with a category",
                doc!("docs/SERVER.md"),
            ),
            Kind::ProtocolError => (
                "send invalid arguments, and any failure of a tool, as an `isError` result (SEP-1303), which the model reads; ErrorBoundary does it for arguments that do not deserialize",
                doc!("docs/SERVER.md"),
            ),
            Kind::AcceptedInvalid => (
                "check arguments against the tool's own input schema and refuse what it forbids as invalid input",
                doc!("docs/SERVER.md"),
            ),
            Kind::Malformed => (
                "answer `tools/call` with a JSON-RPC response: a result with `content` (and `isError`), or an error with `code` and `message`",
                doc!("docs/SERVER.md"),
            ),
            Kind::UnknownToolChannel => (
                "answer a tool the server does not list as the client's grader expects: ErrorBoundary sends an `isError` result, `with_draft_unknown_tool_result(false)` the -32602 of the specification",
                doc!("docs/SERVER.md"),
            ),
            Kind::UnknownToolSuccess => (
                "refuse a call of a tool the server does not list (ErrorBoundary answers it with UNKNOWN_TOOL)",
                doc!("docs/SERVER.md"),
            ),
            Kind::NamesField => (
                "name the argument (or the tool) and say what was expected in the text, as ErrorBoundary's INVALID_ARGUMENTS and UNKNOWN_TOOL do",
                doc!("docs/SERVER.md"),
            ),
            Kind::MachineReadable => (
                "give each failure a code, a category and retry advice in `_meta`: `#[derive(ToolError)]` with `#[code]` and `#[category]` writes them",
                doc!("README.md"),
            ),
            Kind::Agreement => (
                "give invalid input the category `validation`, not retryable, and a text that says the same as the code",
                doc!("README.md"),
            ),
            Kind::Leak => (
                "mask internal failures (`#[category(internal)]` or `#[mask]`): the model gets a generic text and a correlation id, the server's log the rest",
                doc!("README.md"),
            ),
            Kind::Slow => (
                "answer a failure fast: check the arguments before any slow work",
                doc!("docs/SERVER.md"),
            ),
            Kind::Echo => (
                "say what was expected, not the value sent back: ErrorBoundary's INVALID_ARGUMENTS never repeats it",
                doc!("docs/SERVER.md"),
            ),
            Kind::Expected => (
                "the call came out otherwise than your --calls file says: fix the server, or the expectation if the server is right",
                doc!("mcp-errors-cli/README.md"),
            ),
            Kind::Size => (
                "keep a failure under 16 KiB: `FailureOptions::with_max_bytes` bounds what ErrorBoundary writes",
                doc!("docs/SERVER.md"),
            ),
            Kind::Listing => ("list each tool name once", doc!("docs/SERVER.md")),
        }
    }
}

/// One thing the grader noticed.
#[derive(Clone, Debug, Serialize)]
pub struct Finding {
    /// How bad it is.
    pub severity: Severity,
    /// The check it belongs to.
    pub check: &'static str,
    /// What kind of thing it is.
    pub kind: Kind,
    /// What it is.
    pub message: String,
    /// How to fix it, one line.
    pub fix: &'static str,
    /// The page that shows how.
    pub docs: &'static str,
}

impl Finding {
    /// A finding of `kind`, its check and its fix taken from the kind.
    pub fn new(severity: Severity, kind: Kind, message: impl Into<String>) -> Self {
        let (fix, docs) = kind.fix();
        Finding {
            severity,
            check: kind.check(),
            kind,
            message: message.into(),
            fix,
            docs,
        }
    }
}
