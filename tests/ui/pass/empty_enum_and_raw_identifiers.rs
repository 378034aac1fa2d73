// An enum with no variants derives (its catalog is empty), and a field named with a raw
// identifier keeps its plain name as a detail key.
use mcp_errors_core::{ToolError, ToolFailure};

#[derive(Debug, thiserror::Error, ToolError)]
enum Never {}

#[derive(Debug, thiserror::Error, ToolError)]
#[error("unsupported type")]
#[category(validation)]
struct Unsupported {
    #[detail]
    r#type: String,
}

fn main() {
    assert!(Never::descriptors().is_empty());
    let failure = ToolFailure::from(Unsupported { r#type: "blob".into() });
    let payload = failure.as_execution().unwrap().error_payload().unwrap();
    assert_eq!(payload.details.unwrap()["type"], "blob");
}
