//! `reqwest::Error` (feature `reqwest`).

use super::{Classification, Classify};
use crate::category::Category;

/// What a failed request says about itself, first match wins:
///
/// | `reqwest::Error` | category |
/// |---|---|
/// | a timeout (`is_timeout`) | `transient` |
/// | no connection (`is_connect`) | `transient` |
/// | an HTTP status (`status`, from `error_for_status`) | [`Category::from_http_status`] |
/// | the request or its body failed on the way (`is_request`, `is_body`) | `transient` |
/// | the answer could not be read (`is_decode`), the request could not be built (`is_builder`), a redirect loop (`is_redirect`) | `internal` |
///
/// A `reqwest::Error` keeps the status but not the headers, so it gives no wait: keep the
/// response's `Retry-After` in a `#[retry_after]` field of the variant, which applies when
/// the failure is retryable.
impl Classify for ::reqwest::Error {
    fn classify(&self) -> Option<Classification> {
        let category = if self.is_timeout() || self.is_connect() {
            Category::Transient
        } else if let Some(status) = self.status() {
            Category::from_http_status(status.as_u16())?
        } else if self.is_request() || self.is_body() {
            Category::Transient
        } else if self.is_decode() || self.is_builder() || self.is_redirect() {
            Category::Internal
        } else {
            return None;
        };
        Some(Classification::new(category))
    }
}
