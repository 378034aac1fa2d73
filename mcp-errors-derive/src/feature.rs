//! The trait a `#[classify]` field is read through: `Classify`, or, for a type the core
//! implements it for behind a feature (`http::StatusCode`, `reqwest::Error`, `sqlx::Error`,
//! known by the path as written), the core's trait of that feature, whose error without the
//! feature names it.

use proc_macro2::TokenStream;
use quote::quote_spanned;
use syn::spanned::Spanned as _;
use syn::{GenericArgument, PathArguments, Type};

/// The trait, named through the alias `__mcp_errors_core` of the generated code and spanned
/// at the type, where a type without it is reported.
pub fn classify_trait(ty: &Type) -> TokenStream {
    let span = ty.span();
    match feature_of(ty) {
        Some("http") => quote_spanned!(span=> __mcp_errors_core::__private::ClassifyHttp),
        Some("reqwest") => quote_spanned!(span=> __mcp_errors_core::__private::ClassifyReqwest),
        Some("sqlx") => quote_spanned!(span=> __mcp_errors_core::__private::ClassifySqlx),
        _ => quote_spanned!(span=> __mcp_errors_core::Classify),
    }
}

/// The feature of the first such type in `ty`, itself or inside a reference or the generic
/// arguments of a wrapper (`Option<sqlx::Error>`, `Box<reqwest::Error>`).
fn feature_of(ty: &Type) -> Option<&'static str> {
    match ty {
        Type::Reference(reference) => feature_of(&reference.elem),
        Type::Paren(paren) => feature_of(&paren.elem),
        Type::Group(group) => feature_of(&group.elem),
        Type::Path(path) if path.qself.is_none() => {
            let names: Vec<String> = path
                .path
                .segments
                .iter()
                .map(|segment| segment.ident.to_string())
                .collect();
            path_feature(&names).or_else(|| {
                let last = path.path.segments.last()?;
                let PathArguments::AngleBracketed(args) = &last.arguments else {
                    return None;
                };
                args.args.iter().find_map(|arg| match arg {
                    GenericArgument::Type(ty) => feature_of(ty),
                    _ => None,
                })
            })
        }
        _ => None,
    }
}

/// `sqlx::Error`, `reqwest::Error`, and `StatusCode` of the `http` crate as its users write
/// it (`http::StatusCode`, `reqwest::StatusCode`, `axum::http::StatusCode`). A path from the
/// crate's own modules (`crate::`, `self::`, `super::`) is the user's type, and a bare
/// `StatusCode` could be anyone's: `Classify`'s own message names the features for those.
fn path_feature(names: &[String]) -> Option<&'static str> {
    let [first, .., last] = names else {
        return None;
    };
    let (first, last) = (first.as_str(), last.as_str());
    match (first, last) {
        ("sqlx", "Error") => Some("sqlx"),
        ("reqwest", "Error") => Some("reqwest"),
        ("http" | "reqwest", "StatusCode") => Some("http"),
        ("crate" | "self" | "super", _) => None,
        (_, "StatusCode") if names[names.len() - 2] == "http" => Some("http"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    #[test]
    fn a_type_of_a_feature_is_known_by_its_path() {
        let feature = |ty: Type| feature_of(&ty);
        assert_eq!(feature(parse_quote!(sqlx::Error)), Some("sqlx"));
        assert_eq!(feature(parse_quote!(::sqlx::error::Error)), Some("sqlx"));
        assert_eq!(feature(parse_quote!(Option<sqlx::Error>)), Some("sqlx"));
        assert_eq!(feature(parse_quote!(&'a reqwest::Error)), Some("reqwest"));
        assert_eq!(feature(parse_quote!(Box<reqwest::Error>)), Some("reqwest"));
        assert_eq!(feature(parse_quote!(http::StatusCode)), Some("http"));
        assert_eq!(feature(parse_quote!(reqwest::StatusCode)), Some("http"));
        assert_eq!(feature(parse_quote!(axum::http::StatusCode)), Some("http"));
    }

    #[test]
    fn other_types_are_read_through_classify() {
        let feature = |ty: Type| feature_of(&ty);
        assert_eq!(feature(parse_quote!(StatusCode)), None);
        assert_eq!(feature(parse_quote!(crate::http::StatusCode)), None);
        assert_eq!(feature(parse_quote!(std::io::Error)), None);
        assert_eq!(feature(parse_quote!(Error)), None);
        assert_eq!(feature(parse_quote!(sqlx::postgres::PgSslMode)), None);
        assert_eq!(feature(parse_quote!(my::sqlx::Error)), None);
        assert_eq!(
            classify_trait(&parse_quote!(u16)).to_string(),
            "__mcp_errors_core :: Classify"
        );
    }
}
