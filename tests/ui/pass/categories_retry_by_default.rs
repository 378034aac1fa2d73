// Every category maps a variant to a tool-execution error; only `rate_limited` and
// `transient` are retryable by default, and only `internal` is masked by default.
use mcp_errors_core::{Category, ToolError};

#[derive(Debug, thiserror::Error, ToolError)]
enum Every {
    #[error("v")] #[category(validation)] V,
    #[error("n")] #[category(not_found)] N,
    #[error("c")] #[category(conflict)] C,
    #[error("b")] #[category(business)] B,
    #[error("p")] #[category(permission)] P,
    #[error("u")] #[category(unauthenticated)] U,
    #[error("r")] #[category(rate_limited)] R,
    #[error("t")] #[category(transient)] T,
    #[error("i")] #[category(internal)] I,
}

fn main() {
    let catalog = Every::descriptors();
    assert_eq!(catalog.len(), 9);
    for (descriptor, category) in catalog.iter().zip(Category::ALL) {
        assert_eq!(descriptor.category(), Some(category));
        assert_eq!(descriptor.is_retryable(), category.retryable_by_default());
        assert_eq!(descriptor.is_masked(), category == Category::Internal);
    }
    assert_eq!(Every::T.descriptor().code(), "T");
}
