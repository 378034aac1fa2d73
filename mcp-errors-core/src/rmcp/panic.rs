//! A tool that panics, answered: [`catch_panic`] runs a tool's future and turns an unwinding
//! panic into a [`ToolPanicked`], a masked `internal` failure whose message and location go to
//! the log only.
//!
//! The location of a panic is known only to the panic hook. [`catch_panic`] installs, once per
//! process, a hook that records it in a thread-local while a caught future is being polled on
//! that thread, and then calls the hook that was there before, whatever it is: the user's hook
//! and the default one (which prints the panic to stderr) still see every panic. A hook set
//! later replaces this one; panics are still answered, and their log holds the message alone.

use std::any::Any;
use std::cell::Cell;
use std::fmt;
use std::future::Future;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;
use std::task::Poll;

use crate::catalog::descriptor::ErrorDescriptor;
use crate::category::Category;
use crate::failure::tool_error::ToolError;
use crate::mask::MAX_MESSAGE_CHARS;

/// The stable code of a tool that panicked.
const TOOL_PANICKED_CODE: &str = "TOOL_PANICKED";

static DESCRIPTORS: [ErrorDescriptor; 1] =
    [
        ErrorDescriptor::execution("ToolPanicked", TOOL_PANICKED_CODE, Category::Internal)
            .with_origin("mcp_errors_core::rmcp::ErrorBoundary"),
    ];

thread_local! {
    /// Whether a future run by `catch_panic` is being polled on this thread.
    static CATCHING: Cell<bool> = const { Cell::new(false) };
    /// Where the last panic on this thread under `CATCHING` happened.
    static LOCATION: Cell<Option<String>> = const { Cell::new(None) };
}

/// A tool that panicked: `internal`, so masked. Its `Display` (tool, location, message) is what
/// the log gets; the wire gets the code and the correlation id.
#[derive(Debug)]
pub(crate) struct ToolPanicked {
    tool: Option<String>,
    location: Option<String>,
    message: String,
}

impl ToolPanicked {
    /// The panic of `payload`, which happened at `location`, in `tool`.
    fn new(tool: Option<&str>, payload: &(dyn Any + Send), location: Option<String>) -> Self {
        let message = if let Some(text) = payload.downcast_ref::<&'static str>() {
            cut(text)
        } else if let Some(text) = payload.downcast_ref::<String>() {
            cut(text)
        } else {
            "a payload that is not text".to_owned()
        };
        ToolPanicked {
            tool: tool.map(str::to_owned),
            location,
            message,
        }
    }
}

/// `text`, cut to [`MAX_MESSAGE_CHARS`] characters: a panic message can hold anything, of any
/// length, and the log line must stay bounded. The characters are kept as they are; the log
/// escapes them.
fn cut(text: &str) -> String {
    match text.char_indices().nth(MAX_MESSAGE_CHARS) {
        None => text.to_owned(),
        Some((end, _)) => format!("{}…", &text[..end]),
    }
}

impl fmt::Display for ToolPanicked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.tool {
            Some(tool) => write!(f, "tool `{tool}` panicked")?,
            None => f.write_str("a tool panicked")?,
        }
        if let Some(location) = &self.location {
            write!(f, " at {location}")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for ToolPanicked {}

impl ToolError for ToolPanicked {
    fn descriptors() -> &'static [ErrorDescriptor] {
        &DESCRIPTORS
    }

    fn descriptor(&self) -> &'static ErrorDescriptor {
        &DESCRIPTORS[0]
    }
}

/// Runs `future`; a panic while it is polled ends it with a [`ToolPanicked`] naming `tool`,
/// instead of unwinding into the caller. With `panic = "abort"` nothing unwinds and nothing
/// is caught.
pub(crate) async fn catch_panic<F: Future>(
    tool: Option<&str>,
    future: F,
) -> Result<F::Output, ToolPanicked> {
    install_hook();
    let mut future = std::pin::pin!(future);
    std::future::poll_fn(|cx| {
        let caught_before = CATCHING.replace(true);
        LOCATION.take();
        // The future is never polled again after a panic, so what the panic left half done
        // is never seen.
        let polled = panic::catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx)));
        CATCHING.set(caught_before);
        match polled {
            Ok(poll) => poll.map(Ok),
            Err(payload) => {
                let panicked = ToolPanicked::new(tool, payload.as_ref(), LOCATION.take());
                Poll::Ready(Err(panicked))
            }
        }
    })
    .await
}

/// Installs, once, the hook that records where a caught panic happened, chained to the hook
/// in place before it.
fn install_hook() {
    static INSTALLED: Once = Once::new();
    INSTALLED.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            // `try_with`: a panic while the thread's locals are being destroyed is only passed on.
            if CATCHING.try_with(Cell::get).unwrap_or(false) {
                let location = info.location().map(ToString::to_string);
                let _ = LOCATION.try_with(|cell| cell.set(location));
            }
            previous(info);
        }));
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block_on<F: Future>(future: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(future)
    }

    #[test]
    fn a_panic_becomes_the_message_and_location_of_a_masked_failure() {
        let caught = block_on(catch_panic(Some("book"), async {
            let seats: Vec<u32> = Vec::new();
            seats[3]
        }));
        let panicked = caught.unwrap_err();
        assert_eq!(panicked.tool.as_deref(), Some("book"));
        let location = panicked.location.as_deref().unwrap();
        assert!(
            location.starts_with("mcp-errors-core/src/rmcp/panic.rs:"),
            "{location}"
        );
        assert!(panicked.message.contains("index out of bounds"));
        assert!(
            panicked
                .to_string()
                .starts_with("tool `book` panicked at mcp-errors-core/")
        );
        assert!(panicked.descriptor().is_masked());
        assert_eq!(panicked.descriptor().code(), TOOL_PANICKED_CODE);
    }

    #[test]
    fn a_future_that_does_not_panic_gives_its_output() {
        assert_eq!(block_on(catch_panic(None, async { 7 })).unwrap(), 7);
    }

    #[test]
    fn a_panic_outside_a_caught_future_records_no_location() {
        install_hook();
        let _ = panic::catch_unwind(|| panic!("elsewhere"));
        assert_eq!(LOCATION.take(), None);
    }

    #[test]
    fn a_long_message_is_cut_and_a_payload_that_is_not_text_is_named() {
        let long = "é".repeat(MAX_MESSAGE_CHARS + 10);
        let panicked = ToolPanicked::new(None, &long, None);
        assert_eq!(panicked.message.chars().count(), MAX_MESSAGE_CHARS + 1);
        assert!(panicked.message.ends_with('…'));
        let other = ToolPanicked::new(None, &42_u8, None);
        assert_eq!(
            other.to_string(),
            "a tool panicked: a payload that is not text"
        );
    }
}
