//! `http::StatusCode` (feature `http`).

use super::{Classification, Classify};
use crate::category::Category;

/// By [`Category::from_http_status`]; `None` for a status the table does not list (1xx to
/// 3xx and a few others).
impl Classify for ::http::StatusCode {
    fn classify(&self) -> Option<Classification> {
        Category::from_http_status(self.as_u16()).map(Classification::new)
    }
}

#[cfg(test)]
mod tests {
    use ::http::StatusCode;

    use super::*;

    #[test]
    fn a_status_reads_as_the_table_says() {
        let category = |status: StatusCode| status.classify().map(|c| c.category());
        assert_eq!(category(StatusCode::NOT_FOUND), Some(Category::NotFound));
        assert_eq!(
            category(StatusCode::TOO_MANY_REQUESTS),
            Some(Category::RateLimited)
        );
        assert_eq!(
            category(StatusCode::SERVICE_UNAVAILABLE),
            Some(Category::Transient)
        );
        assert_eq!(
            category(StatusCode::INTERNAL_SERVER_ERROR),
            Some(Category::Internal)
        );
        assert_eq!(category(StatusCode::OK), None);
        assert!(StatusCode::BAD_GATEWAY.classify().unwrap().is_retryable());
    }
}
