// Without `#[code]`, a variant's stable code is its name in UPPER_SNAKE_CASE, split into words
// as a reader splits it: acronyms stay whole, digits stay with the word before them, a lone
// capital starts the next word (except `A`). Renaming a variant changes its code; `#[code]`
// pins it.
use mcp_errors_core::ToolError;

#[derive(Debug, thiserror::Error, ToolError)]
#[error("failed")]
#[category(validation)]
enum Names {
    OAuth2Expired,
    IPv4Invalid,
    HTTPError,
    Error2,
    UnknownDepartment,
    XMLHttpRequest,
    Version2Beta,
    IsADirectory,
    #[code("LEGACY_NAME")]
    RenamedVariant,
}

// `Oauth2Expired` reads the same: it gets the same code (which is why it is not in `Names`,
// where codes are unique).
#[derive(Debug, thiserror::Error, ToolError)]
#[error("failed")]
#[category(validation)]
enum OtherSpelling {
    Oauth2Expired,
}

fn main() {
    let codes: Vec<&str> = Names::descriptors().iter().map(|d| d.code()).collect();
    assert_eq!(
        codes,
        [
            "OAUTH2_EXPIRED",
            "IPV4_INVALID",
            "HTTP_ERROR",
            "ERROR2",
            "UNKNOWN_DEPARTMENT",
            "XML_HTTP_REQUEST",
            "VERSION2_BETA",
            "IS_A_DIRECTORY",
            "LEGACY_NAME",
        ]
    );
    assert_eq!(OtherSpelling::descriptors()[0].code(), "OAUTH2_EXPIRED");
}
