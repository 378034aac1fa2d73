//! The names of the helper attributes, one constant each.

pub const CATEGORY: &str = "category";
pub const PROTOCOL: &str = "protocol";
pub const RETRYABLE: &str = "retryable";
pub const CODE: &str = "code";
pub const MESSAGE: &str = "message";
pub const HINT: &str = "hint";
pub const MASK: &str = "mask";
pub const EXPOSE: &str = "expose";
pub const DETAIL: &str = "detail";
pub const RETRY_AFTER: &str = "retry_after";
pub const SENSITIVE: &str = "sensitive";
/// The field whose value decides the variant's category at run time.
pub const CLASSIFY: &str = "classify";
/// A variant (or struct) that forwards everything to the one error it wraps.
pub const TRANSPARENT: &str = "transparent";
/// Options of the type as a whole: `#[tool_error(crate = "...")]`.
pub const TOOL_ERROR: &str = "tool_error";

/// The options of `#[tool_error(...)]`.
pub const CRATE: &str = "crate";
pub const TOOL_ERROR_OPTIONS: [&str; 1] = [CRATE];

/// thiserror's attribute, read to know what `Display` shows.
pub const ERROR: &str = "error";

/// Every helper attribute of the derive.
pub const ALL: [&str; 14] = [
    CATEGORY,
    PROTOCOL,
    RETRYABLE,
    CODE,
    MESSAGE,
    HINT,
    MASK,
    EXPOSE,
    DETAIL,
    RETRY_AFTER,
    SENSITIVE,
    CLASSIFY,
    TOOL_ERROR,
    TRANSPARENT,
];

/// Where each attribute may stand.
pub const ON_CONTAINER: [&str; 6] = [CATEGORY, PROTOCOL, RETRYABLE, MASK, EXPOSE, TOOL_ERROR];
pub const ON_VARIANT: [&str; 9] = [
    CATEGORY,
    PROTOCOL,
    RETRYABLE,
    CODE,
    MESSAGE,
    HINT,
    MASK,
    EXPOSE,
    TRANSPARENT,
];
pub const ON_STRUCT: [&str; 10] = [
    CATEGORY,
    PROTOCOL,
    RETRYABLE,
    CODE,
    MESSAGE,
    HINT,
    MASK,
    EXPOSE,
    TOOL_ERROR,
    TRANSPARENT,
];
pub const ON_FIELD: [&str; 4] = [DETAIL, RETRY_AFTER, SENSITIVE, CLASSIFY];
