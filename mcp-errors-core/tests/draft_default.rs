//! The process-wide switch of the draft tool-failure entry. One test in a binary of its own:
//! the switch is global, so no other test may convert while it is on.

use mcp_errors_core::failure::{draft_tool_failure_default, set_draft_tool_failure_default};
use mcp_errors_core::{FailureOptions, TOOL_FAILURE_META_KEY, ToolError};

#[derive(Debug, thiserror::Error, ToolError)]
#[error("the ledger is busy")]
#[category(transient)]
struct Busy;

fn has_entry(options: &FailureOptions) -> bool {
    let failure = Busy.to_failure_with(options);
    let meta = failure.as_execution().unwrap().meta_map().unwrap();
    meta.contains_key(TOOL_FAILURE_META_KEY)
}

#[test]
fn the_process_wide_switch_turns_the_entry_on_for_every_conversion_that_does_not_choose() {
    assert!(!draft_tool_failure_default());
    assert!(!has_entry(&FailureOptions::new()));

    set_draft_tool_failure_default(true);
    let default_on = draft_tool_failure_default();
    let entry_by_default = has_entry(&FailureOptions::new());
    let entry_when_refused = has_entry(&FailureOptions::new().with_draft_tool_failure(false));
    let derived_from = Busy.to_failure();
    set_draft_tool_failure_default(false);

    assert!(default_on);
    assert!(entry_by_default);
    assert!(
        !entry_when_refused,
        "a conversion that says no is not overridden"
    );
    let meta = derived_from.as_execution().unwrap().meta_map().unwrap();
    assert_eq!(meta[TOOL_FAILURE_META_KEY]["class"], "reliability");

    assert!(!draft_tool_failure_default());
    assert!(!has_entry(&FailureOptions::new()));
}
