// A field named with a raw identifier is written without `r#` in a template (`{type}` for
// `r#type`, also as a width: `{type:>loop$}` for `r#loop`), and a variant named with one
// has no `r#` in its descriptor or its default code.
use mcp_errors_core::{ToolError, ToolFailure};

#[derive(Debug, thiserror::Error, ToolError)]
enum SchemaError {
    #[error("unsupported type {type}")]
    #[category(validation)]
    #[message("unsupported type `{type}` in {in:?}")]
    #[hint("types look like {type:>loop$}")]
    r#Unsupported { r#type: String, r#in: &'static str, #[detail] r#loop: usize },
}

fn main() {
    let error = SchemaError::r#Unsupported { r#type: "blob".into(), r#in: "body", r#loop: 6 };
    assert_eq!(error.descriptor().variant(), "Unsupported");
    assert_eq!(error.descriptor().code(), "UNSUPPORTED");
    assert_eq!(error.message(), "unsupported type `blob` in \"body\"");
    assert_eq!(error.hint().unwrap(), "types look like   blob");
    let payload = ToolFailure::from(error).as_execution().unwrap().error_payload().unwrap();
    assert_eq!(payload.details.unwrap()["loop"], 6);
}
