// The generated code names the standard library and the core only by absolute paths, so it
// compiles in a module without the prelude.
#[no_implicit_prelude]
mod errors {
    use ::std::string::String;
    use ::std::time::Duration;

    #[derive(::std::fmt::Debug, ::thiserror::Error, ::mcp_errors_core::ToolError)]
    pub enum LimitError<K: ::std::fmt::Debug> {
        #[error("rate limited on {key:?}")]
        #[category(rate_limited)]
        #[message("rate limited on {key:?}")]
        #[hint("wait {wait:?}, at most {max:>w$}")]
        RateLimited { #[detail] key: K, #[retry_after] wait: Duration, max: u32, w: usize },

        #[error("bad input {0}")]
        #[protocol(invalid_params)]
        BadInput(#[detail] String),

        #[error("database down")]
        #[category(internal)]
        Database,
    }

    // `Debug` from `ToolError`, for the `#[sensitive]` field.
    #[derive(::thiserror::Error, ::mcp_errors_core::ToolError)]
    #[error("login failed for {user}")]
    #[category(unauthenticated)]
    pub struct LoginFailed { pub user: String, #[sensitive] pub password: String }
}

use mcp_errors_core::{ToolError, ToolFailure};
use std::time::Duration;

fn main() {
    let limited = errors::LimitError::RateLimited { key: 3_u8, wait: Duration::from_secs(1), max: 5, w: 3 };
    assert_eq!(limited.hint().unwrap(), "wait 1s, at most   5");
    let failure = ToolFailure::from(limited);
    assert_eq!(failure.as_execution().unwrap().error_payload().unwrap().retry_after_ms, Some(1000));
    let bad = errors::LimitError::<u8>::BadInput("x".into());
    assert!(bad.to_failure().as_protocol().is_some());
    assert!(errors::LimitError::<u8>::Database.descriptor().is_masked());
    let login = errors::LoginFailed { user: "ann".into(), password: "pw".into() };
    assert_eq!(format!("{login:?}"), "LoginFailed { user: \"ann\", password: <redacted> }");
}
