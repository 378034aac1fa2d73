//! The nine categories of an execution error and what each one means to a client.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// What kind of failure an execution error is.
///
/// The category fixes the default retryability and masking, the failure class of the
/// SEP-3313 draft, and what a client's retry policy decides (the policy's table is the one
/// place that maps a category to a decision). It is serialized in `snake_case`, exactly as
/// it is written in `#[category(...)]`.
///
/// | category | retryable by default | masked by default | failure class |
/// |---|---|---|---|
/// | `validation` | no | no | capability |
/// | `not_found` | no | no | capability |
/// | `conflict` | no | no | capability |
/// | `business` | no | no | capability |
/// | `permission` | no | no | governance |
/// | `unauthenticated` | no | no | governance |
/// | `rate_limited` | yes | no | reliability |
/// | `transient` | yes | no | reliability |
/// | `internal` | no | yes | reliability |
///
/// New categories may be added in minor releases: match with a `_` arm.
///
/// ```
/// use mcp_errors_core::{Category, FailureClass};
///
/// let category: Category = "rate_limited".parse().unwrap();
/// assert!(category.retryable_by_default());
/// assert_eq!(category.failure_class(), FailureClass::Reliability);
/// assert_eq!(category.to_string(), "rate_limited");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Category {
    /// The input is wrong: a value out of range, an unknown enum member. Fix the input.
    Validation,
    /// The thing named in the input does not exist. Fix the input.
    NotFound,
    /// The state changed under the call (a seat already taken). Re-read state, then decide.
    Conflict,
    /// A business rule refuses the request. Explain the rule to the user.
    Business,
    /// The caller may not do this. Escalate.
    Permission,
    /// The caller's credentials are missing or expired. Re-authenticate.
    Unauthenticated,
    /// Too many requests. Back off and honour the retry-after.
    RateLimited,
    /// A passing fault (timeout, backend down). Retry with bounded backoff.
    Transient,
    /// A bug or an unexpected fault on the server. Escalate; masked by default.
    Internal,
}

/// The failure class of the SEP-3313 draft, a coarser grouping of the categories. The draft
/// may still change; new classes may be added in minor releases.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum FailureClass {
    /// The tool cannot do this with this input: retrying as is will not help.
    Capability,
    /// Policy forbids it: credentials, permissions.
    Governance,
    /// The system misbehaved: the same call may succeed later.
    Reliability,
}

impl Category {
    /// Every category, in the order of the table above.
    pub const ALL: [Category; 9] = [
        Category::Validation,
        Category::NotFound,
        Category::Conflict,
        Category::Business,
        Category::Permission,
        Category::Unauthenticated,
        Category::RateLimited,
        Category::Transient,
        Category::Internal,
    ];

    /// The name used in `#[category(...)]` and on the wire.
    pub const fn as_str(self) -> &'static str {
        match self {
            Category::Validation => "validation",
            Category::NotFound => "not_found",
            Category::Conflict => "conflict",
            Category::Business => "business",
            Category::Permission => "permission",
            Category::Unauthenticated => "unauthenticated",
            Category::RateLimited => "rate_limited",
            Category::Transient => "transient",
            Category::Internal => "internal",
        }
    }

    /// Whether a failure of this category is worth retrying unless a variant says otherwise.
    pub const fn retryable_by_default(self) -> bool {
        matches!(self, Category::RateLimited | Category::Transient)
    }

    /// Whether the model sees only a generic message and a correlation id by default.
    pub const fn masked_by_default(self) -> bool {
        matches!(self, Category::Internal)
    }

    /// The SEP-3313 failure class.
    pub const fn failure_class(self) -> FailureClass {
        match self {
            Category::Validation | Category::NotFound | Category::Conflict | Category::Business => {
                FailureClass::Capability
            }
            Category::Permission | Category::Unauthenticated => FailureClass::Governance,
            Category::RateLimited | Category::Transient | Category::Internal => {
                FailureClass::Reliability
            }
        }
    }
}

impl Category {
    /// What an HTTP status code means as a category; `None` for a status that says nothing
    /// about the failure (1xx to 3xx, and 4xx/5xx codes not listed).
    ///
    /// | status | category |
    /// |---|---|
    /// | 400, 405, 413, 414, 415, 422 | `validation` |
    /// | 401, 407 | `unauthenticated` |
    /// | 402 | `business` |
    /// | 403, 451 | `permission` |
    /// | 404, 410 | `not_found` |
    /// | 409, 412, 423 | `conflict` |
    /// | 429 | `rate_limited` |
    /// | 408, 502, 503, 504 | `transient` |
    /// | 500, 501, 505..=599 | `internal` |
    ///
    /// ```
    /// use mcp_errors_core::Category;
    ///
    /// assert_eq!(Category::from_http_status(429), Some(Category::RateLimited));
    /// assert_eq!(Category::from_http_status(503), Some(Category::Transient));
    /// assert_eq!(Category::from_http_status(200), None);
    /// ```
    pub const fn from_http_status(status: u16) -> Option<Category> {
        Some(match status {
            400 | 405 | 413 | 414 | 415 | 422 => Category::Validation,
            401 | 407 => Category::Unauthenticated,
            402 => Category::Business,
            403 | 451 => Category::Permission,
            404 | 410 => Category::NotFound,
            409 | 412 | 423 => Category::Conflict,
            429 => Category::RateLimited,
            408 | 502 | 503 | 504 => Category::Transient,
            500 | 501 | 505..=599 => Category::Internal,
            _ => return None,
        })
    }

    /// What a POSIX `errno` name (any case), or one of the names Node.js gives a failed
    /// system call, means as a category; `None` for a name not listed.
    ///
    /// | names | category |
    /// |---|---|
    /// | `ENOENT`; `ENOTFOUND` and `EAI_NONAME` (a host name that does not exist: a retry cannot resolve it) | `not_found` |
    /// | `ENOTDIR`, `EISDIR`, `EINVAL`, `ENAMETOOLONG`, `ELOOP` | `validation` |
    /// | `EEXIST`, `ENOTEMPTY` | `conflict` |
    /// | `EACCES`, `EPERM`, `EROFS` | `permission` |
    /// | `ETIMEDOUT`, `ECONNREFUSED`, `ECONNRESET`, `ECONNABORTED`, `EPIPE`, `EHOSTUNREACH`, `ENETUNREACH`, `ENETDOWN`, `EAI_AGAIN` (a name server that did not answer), `EAGAIN`, `EBUSY`, `EMFILE`, `ENFILE` | `transient` |
    /// | `ENOSPC`, `EIO`, `EDQUOT` | `internal` |
    ///
    /// ```
    /// use mcp_errors_core::Category;
    ///
    /// assert_eq!(Category::from_errno("ENOENT"), Some(Category::NotFound));
    /// assert_eq!(Category::from_errno("econnrefused"), Some(Category::Transient));
    /// assert_eq!(Category::from_errno("EWHATEVER"), None);
    /// ```
    pub fn from_errno(name: &str) -> Option<Category> {
        ERRNO
            .iter()
            .find(|(errno, _)| errno.eq_ignore_ascii_case(name))
            .map(|&(_, category)| category)
    }

    /// What an [`std::io::ErrorKind`] means as a category, by the same table as
    /// [`from_errno`](Self::from_errno); `None` for a kind it does not list.
    ///
    /// ```
    /// use std::io::ErrorKind;
    /// use mcp_errors_core::Category;
    ///
    /// assert_eq!(Category::from_io_error_kind(ErrorKind::NotFound), Some(Category::NotFound));
    /// assert_eq!(Category::from_io_error_kind(ErrorKind::Other), None);
    /// ```
    pub fn from_io_error_kind(kind: std::io::ErrorKind) -> Option<Category> {
        use std::io::ErrorKind as K;
        let errno = match kind {
            K::NotFound => "ENOENT",
            K::PermissionDenied => "EACCES",
            K::AlreadyExists => "EEXIST",
            K::InvalidInput | K::InvalidData => "EINVAL",
            K::TimedOut => "ETIMEDOUT",
            K::ConnectionRefused => "ECONNREFUSED",
            K::ConnectionReset => "ECONNRESET",
            K::ConnectionAborted => "ECONNABORTED",
            K::BrokenPipe => "EPIPE",
            K::WouldBlock | K::Interrupted => "EAGAIN",
            K::NotConnected => "ENETUNREACH",
            K::AddrNotAvailable => "EHOSTUNREACH",
            K::WriteZero | K::UnexpectedEof => "EIO",
            K::NotADirectory => "ENOTDIR",
            K::IsADirectory => "EISDIR",
            K::InvalidFilename => "ENAMETOOLONG",
            K::DirectoryNotEmpty => "ENOTEMPTY",
            K::ReadOnlyFilesystem => "EROFS",
            K::HostUnreachable => "EHOSTUNREACH",
            K::NetworkUnreachable => "ENETUNREACH",
            K::NetworkDown => "ENETDOWN",
            K::ResourceBusy | K::ExecutableFileBusy => "EBUSY",
            K::StorageFull => "ENOSPC",
            K::QuotaExceeded => "EDQUOT",
            _ => return None,
        };
        Category::from_errno(errno)
    }
}

/// The `errno` names of [`Category::from_errno`].
const ERRNO: [(&str, Category); 29] = [
    ("ENOENT", Category::NotFound),
    ("ENOTDIR", Category::Validation),
    ("EISDIR", Category::Validation),
    ("EINVAL", Category::Validation),
    ("ENAMETOOLONG", Category::Validation),
    ("ELOOP", Category::Validation),
    ("EEXIST", Category::Conflict),
    ("ENOTEMPTY", Category::Conflict),
    ("EACCES", Category::Permission),
    ("EPERM", Category::Permission),
    ("EROFS", Category::Permission),
    ("ETIMEDOUT", Category::Transient),
    ("ECONNREFUSED", Category::Transient),
    ("ECONNRESET", Category::Transient),
    ("ECONNABORTED", Category::Transient),
    ("EPIPE", Category::Transient),
    ("EHOSTUNREACH", Category::Transient),
    ("ENETUNREACH", Category::Transient),
    ("ENETDOWN", Category::Transient),
    ("EAI_AGAIN", Category::Transient),
    ("ENOTFOUND", Category::NotFound),
    ("EAI_NONAME", Category::NotFound),
    ("EAGAIN", Category::Transient),
    ("EBUSY", Category::Transient),
    ("EMFILE", Category::Transient),
    ("ENFILE", Category::Transient),
    ("ENOSPC", Category::Internal),
    ("EIO", Category::Internal),
    ("EDQUOT", Category::Internal),
];

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error of parsing a [`Category`] from a name that is not one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownCategory(pub String);

impl fmt::Display for UnknownCategory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown category `{}`", self.0)
    }
}

impl std::error::Error for UnknownCategory {}

impl FromStr for Category {
    type Err = UnknownCategory;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Category::ALL
            .into_iter()
            .find(|category| category.as_str() == name)
            .ok_or_else(|| UnknownCategory(name.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_through_str_and_serde() {
        for category in Category::ALL {
            assert_eq!(category.as_str().parse::<Category>(), Ok(category));
            let json = serde_json::to_string(&category).unwrap();
            assert_eq!(json, format!("\"{}\"", category.as_str()));
        }
        assert!("validaton".parse::<Category>().is_err());
    }

    #[test]
    fn only_rate_limited_and_transient_retry_by_default() {
        let retryable: Vec<_> = Category::ALL
            .into_iter()
            .filter(|c| c.retryable_by_default())
            .collect();
        assert_eq!(retryable, [Category::RateLimited, Category::Transient]);
    }

    #[test]
    fn statuses_and_errno_names_have_one_meaning() {
        for (status, category) in [
            (400, Category::Validation),
            (401, Category::Unauthenticated),
            (403, Category::Permission),
            (404, Category::NotFound),
            (409, Category::Conflict),
            (429, Category::RateLimited),
            (500, Category::Internal),
            (503, Category::Transient),
        ] {
            assert_eq!(
                Category::from_http_status(status),
                Some(category),
                "{status}"
            );
        }
        for status in [0, 100, 200, 204, 301, 304, 418, 600, u16::MAX] {
            assert_eq!(Category::from_http_status(status), None, "{status}");
        }
        assert_eq!(Category::from_errno("EACCES"), Some(Category::Permission));
        assert_eq!(Category::from_errno("eexist"), Some(Category::Conflict));
        assert_eq!(Category::from_errno("ENO"), None);
        assert_eq!(Category::from_errno(""), None);
        assert_eq!(
            Category::from_io_error_kind(std::io::ErrorKind::PermissionDenied),
            Some(Category::Permission)
        );
    }
}
