//! The options of the request being served: `rmcp::ErrorBoundary` runs a tool with its
//! request's [`FailureOptions`], and the `From` impl the derive writes (so `?`,
//! `ToolFailure::from` and rmcp's `IntoCallToolResult`) converts with them.

#[cfg(feature = "rmcp")]
use std::future::Future;

use super::options::FailureOptions;

#[cfg(feature = "rmcp")]
tokio::task_local! {
    static REQUEST: FailureOptions;
}

/// `future`, run with `options` as the options of the request it serves.
#[cfg(feature = "rmcp")]
pub(crate) fn with_request_options<F: Future>(
    options: FailureOptions,
    future: F,
) -> impl Future<Output = F::Output> {
    REQUEST.scope(options, future)
}

/// The options of the request served on this task, if one is served: the conversions the
/// derive writes use them.
#[cfg(feature = "rmcp")]
pub(crate) fn request_options() -> Option<FailureOptions> {
    REQUEST.try_with(FailureOptions::clone).ok()
}

/// Without the `rmcp` feature no request is served.
#[cfg(not(feature = "rmcp"))]
pub(crate) fn request_options() -> Option<FailureOptions> {
    None
}

#[cfg(all(test, feature = "rmcp"))]
mod tests {
    use super::*;

    #[test]
    fn outside_a_scope_there_are_no_request_options_and_inside_there_are() {
        assert_eq!(request_options(), None);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let options = FailureOptions::new().with_tool("book");
        let inside = runtime.block_on(with_request_options(options.clone(), async {
            request_options()
        }));
        assert_eq!(inside, Some(options));
    }
}
