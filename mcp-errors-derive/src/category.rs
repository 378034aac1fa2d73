//! The nine categories of `#[category(...)]`, each with its name as written and its variant
//! of `mcp_errors_core::Category`.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};
use syn::Ident;

macro_rules! categories {
    ($($name:literal => $variant:ident,)*) => {
        /// A category of `#[category(...)]`, with the name of its `mcp_errors_core::Category`
        /// variant.
        #[derive(Clone, Copy, PartialEq, Eq, Debug)]
        pub enum Category {
            $($variant,)*
        }

        impl Category {
            /// Every category with its name in `#[category(...)]`, in the core's order.
            pub const ALL: &[(&str, Category)] = &[$(($name, Category::$variant),)*];

            /// The ident of the matching `mcp_errors_core::Category` variant.
            fn core_variant(self) -> &'static str {
                match self {
                    $(Category::$variant => stringify!($variant),)*
                }
            }
        }
    };
}

categories! {
    "validation" => Validation,
    "not_found" => NotFound,
    "conflict" => Conflict,
    "business" => Business,
    "permission" => Permission,
    "unauthenticated" => Unauthenticated,
    "rate_limited" => RateLimited,
    "transient" => Transient,
    "internal" => Internal,
}

impl Category {
    /// The category named `name` in `#[category(...)]`.
    pub fn from_name(name: &str) -> Option<Category> {
        Category::ALL
            .iter()
            .find(|(known, _)| *known == name)
            .map(|(_, category)| *category)
    }

    /// Every name `#[category(...)]` accepts.
    pub fn names() -> Vec<&'static str> {
        Category::ALL.iter().map(|(name, _)| *name).collect()
    }
}

/// `__mcp_errors_core::Category::Variant`, in the generated code that imports the core as
/// `__mcp_errors_core`.
impl ToTokens for Category {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        let variant = Ident::new(self.core_variant(), Span::call_site());
        tokens.extend(quote!(__mcp_errors_core::Category::#variant));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_resolve_to_core_variants() {
        assert_eq!(
            Category::from_name("rate_limited"),
            Some(Category::RateLimited)
        );
        assert_eq!(Category::from_name("RateLimited"), None);
        assert_eq!(
            Category::NotFound.to_token_stream().to_string(),
            "__mcp_errors_core :: Category :: NotFound"
        );
        assert_eq!(Category::names().len(), 9);
    }
}
