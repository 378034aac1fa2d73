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

/// thiserror's attribute, read to know what `Display` shows.
pub const ERROR: &str = "error";

/// Every helper attribute of the derive.
pub const ALL: [&str; 11] = [
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
];

/// Where each attribute may stand.
pub const ON_CONTAINER: [&str; 5] = [CATEGORY, PROTOCOL, RETRYABLE, MASK, EXPOSE];
pub const ON_VARIANT: [&str; 8] = [
    CATEGORY, PROTOCOL, RETRYABLE, CODE, MESSAGE, HINT, MASK, EXPOSE,
];
pub const ON_FIELD: [&str; 3] = [DETAIL, RETRY_AFTER, SENSITIVE];
