//! The bounds of the generated impls, as thiserror infers them: the type's own `where` clause
//! (every impl repeats it, or the type is not well formed), plus, for each field whose type
//! mentions a type or const parameter, the trait the generated code uses it through: the
//! format trait of each placeholder that shows it, `Serialize` for a `#[detail]`, the core's
//! `RetryAfter` for a `#[retry_after]`. A bound the user already wrote is not repeated.

use proc_macro2::{TokenStream, TokenTree};
use quote::{ToTokens, quote};
use syn::{GenericParam, Generics, Ident, Path, Type, TypeParamBound, WherePredicate};

use crate::fmt::FormatTrait;

/// The type and const parameters of the derived type, which a field's type may mention.
pub struct ParamsInScope {
    names: Vec<Ident>,
}

impl ParamsInScope {
    pub fn new(generics: &Generics) -> Self {
        let names = generics
            .params
            .iter()
            .filter_map(|param| match param {
                GenericParam::Type(param) => Some(param.ident.clone()),
                GenericParam::Const(param) => Some(param.ident.clone()),
                GenericParam::Lifetime(_) => None,
            })
            .collect();
        ParamsInScope { names }
    }

    /// Whether `ty` names a parameter anywhere (`K`, `Vec<K>`, `&'a K`, `[u8; N]`, `K::Item`,
    /// a macro's tokens): then a bound on it is not known to hold.
    pub fn intersects(&self, ty: &Type) -> bool {
        !self.names.is_empty() && self.mentioned_in(ty.to_token_stream())
    }

    fn mentioned_in(&self, tokens: TokenStream) -> bool {
        tokens.into_iter().any(|token| match token {
            TokenTree::Ident(ident) => self.names.contains(&ident),
            TokenTree::Group(group) => self.mentioned_in(group.stream()),
            _ => false,
        })
    }
}

/// A trait the generated code uses a field through.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Bound {
    /// `{field}`, `{field:?}`, `{field:x}`, ...
    Format(FormatTrait),
    /// `#[detail]`.
    Serialize,
    /// `#[retry_after]`: a `Duration` or `Option<Duration>`, decided by the type checker.
    RetryAfter,
    /// The field of a `#[transparent]` variant.
    ToolError,
    /// `#[classify]` without a function.
    Classify,
}

impl Bound {
    /// The bound as the generated code writes it; `core` is the path of the core crate.
    fn to_tokens(self, core: &TokenStream) -> TokenStream {
        match self {
            Bound::Format(format_trait) => {
                let name = Ident::new(format_trait.name(), proc_macro2::Span::call_site());
                quote!(::core::fmt::#name)
            }
            Bound::Serialize => quote!(#core::__private::Serialize),
            Bound::RetryAfter => quote!(#core::__private::RetryAfter),
            Bound::ToolError => quote!(#core::ToolError),
            Bound::Classify => quote!(#core::Classify),
        }
    }

    /// Whether `path`, as a user would write it, names this trait: `Debug`, `fmt::Debug`,
    /// `std::fmt::Debug` or `::core::fmt::Debug`; `Serialize` or `serde::Serialize`. Nothing
    /// is resolved: a bound spelled another way is repeated, which is harmless.
    fn written_as(self, path: &Path) -> bool {
        if path
            .segments
            .iter()
            .any(|segment| !segment.arguments.is_none())
        {
            return false;
        }
        let names: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        match self {
            Bound::Format(format_trait) => match names.as_slice() {
                [name] | ["fmt", name] | ["std" | "core" | "alloc", "fmt", name] => {
                    *name == format_trait.name()
                }
                _ => false,
            },
            Bound::Serialize => matches!(
                names.as_slice(),
                ["Serialize"] | ["serde", "Serialize"] | ["serde", "ser", "Serialize"]
            ),
            // Not a trait users name: the core's support for the generated code.
            Bound::RetryAfter => false,
            Bound::ToolError => matches!(
                names.as_slice(),
                ["ToolError"] | ["mcp_errors_core", "ToolError"]
            ),
            Bound::Classify => matches!(
                names.as_slice(),
                ["Classify"] | ["mcp_errors_core", "Classify"]
            ),
        }
    }
}

/// The bounds the generated code needs, per field type, in order of first use.
#[derive(Default)]
pub struct InferredBounds {
    types: Vec<(String, Type, Vec<Bound>)>,
}

impl InferredBounds {
    /// Records that the generated code uses a value of type `ty` through `bound`.
    pub fn insert(&mut self, ty: &Type, bound: Bound) {
        let key = ty.to_token_stream().to_string();
        let index = match self.types.iter().position(|(known, ..)| *known == key) {
            Some(index) => index,
            None => {
                self.types.push((key, ty.clone(), Vec::new()));
                self.types.len() - 1
            }
        };
        let bounds = &mut self.types[index].2;
        if !bounds.contains(&bound) {
            bounds.push(bound);
        }
    }

    /// The type's own `where` predicates, then one predicate per field type with the bounds
    /// the user has not written already, inline (`<K: Debug>`) or in the `where` clause.
    pub fn predicates(&self, generics: &Generics, core: &TokenStream) -> Vec<TokenStream> {
        let written = written_bounds(generics);
        let mut predicates = own_predicates(generics);
        for (key, ty, bounds) in &self.types {
            let missing: Vec<TokenStream> = bounds
                .iter()
                .filter(|bound| {
                    !written
                        .iter()
                        .any(|(ty, path)| ty == key && bound.written_as(path))
                })
                .map(|bound| bound.to_tokens(core))
                .collect();
            if !missing.is_empty() {
                predicates.push(quote!(#ty: #(#missing)+*));
            }
        }
        predicates
    }
}

/// The type's own `where` predicates, which every impl for it repeats.
pub fn own_predicates(generics: &Generics) -> Vec<TokenStream> {
    generics
        .where_clause
        .iter()
        .flat_map(|clause| &clause.predicates)
        .map(ToTokens::to_token_stream)
        .collect()
}

/// [`own_predicates`] for an impl whose `Self` is another type (`From<T> for ToolFailure`):
/// `Self` in them is spelled out as `self_ty`.
pub fn own_predicates_as(generics: &Generics, self_ty: &TokenStream) -> Vec<TokenStream> {
    own_predicates(generics)
        .into_iter()
        .map(|predicate| replace_self(predicate, self_ty))
        .collect()
}

fn replace_self(tokens: TokenStream, self_ty: &TokenStream) -> TokenStream {
    tokens
        .into_iter()
        .flat_map(|token| match token {
            TokenTree::Ident(ident) if ident == "Self" => self_ty.clone(),
            TokenTree::Group(group) => {
                let mut replaced = proc_macro2::Group::new(
                    group.delimiter(),
                    replace_self(group.stream(), self_ty),
                );
                replaced.set_span(group.span());
                TokenTree::Group(replaced).into()
            }
            other => other.into(),
        })
        .collect()
}

/// The bound of the `ToolError` impl that `Self` is an `Error` (`ToolError`'s supertrait).
/// For a type without parameters it has a binder (`for<'a>`): a bound without parameters is
/// checked where the impl is written, and would report "`T: Error` is not satisfied" there,
/// with a note about an unstable feature, when the user forgot `thiserror::Error`; that case
/// is reported once, with its own message, by the `From` impl.
pub fn self_is_error(generics: &Generics) -> TokenStream {
    if generics.params.is_empty() {
        quote!(for<'__mcp_errors> Self: ::std::error::Error)
    } else {
        quote!(Self: ::std::error::Error)
    }
}

/// The bound of the `From<T> for ToolFailure` and rmcp impls that `T` is a `ToolError`: for a
/// generic type only. For a type without parameters it would be checked where the impl is
/// written; without it the impl holds unconditionally and its body reports a missing `Error`.
pub fn is_tool_error(
    generics: &Generics,
    ty: &TokenStream,
    core: &TokenStream,
) -> Option<TokenStream> {
    (!generics.params.is_empty()).then(|| quote!(#ty: #core::ToolError))
}

/// Every `Type: Trait` the user wrote, inline or in the `where` clause, as the type's tokens
/// and the trait's path.
fn written_bounds(generics: &Generics) -> Vec<(String, &Path)> {
    let inline = generics
        .type_params()
        .map(|param| (param.ident.to_string(), &param.bounds));
    let in_where = generics
        .where_clause
        .iter()
        .flat_map(|clause| &clause.predicates)
        .filter_map(|predicate| match predicate {
            WherePredicate::Type(predicate) if predicate.lifetimes.is_none() => Some((
                predicate.bounded_ty.to_token_stream().to_string(),
                &predicate.bounds,
            )),
            _ => None,
        });
    inline
        .chain(in_where)
        .flat_map(|(ty, bounds)| {
            bounds.iter().filter_map(move |bound| match bound {
                TypeParamBound::Trait(bound)
                    if bound.maybe.is_none() && bound.lifetimes.is_none() =>
                {
                    Some((ty.clone(), &bound.path))
                }
                _ => None,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    fn predicates(generics: &Generics, inferred: &[(Type, Bound)]) -> Vec<String> {
        let mut bounds = InferredBounds::default();
        for (ty, bound) in inferred {
            bounds.insert(ty, *bound);
        }
        bounds
            .predicates(generics, &quote!(::mcp_errors_core))
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn a_bound_the_user_wrote_is_not_repeated() {
        let input: syn::DeriveInput = parse_quote! {
            enum E<K: std::fmt::Debug, V: Serialize> where K: fmt::Display, Vec<V>: Clone {}
        };
        let (k, v): (Type, Type) = (parse_quote!(K), parse_quote!(V));
        let got = predicates(
            &input.generics,
            &[
                (k.clone(), Bound::Format(FormatTrait::Debug)),
                (k.clone(), Bound::Format(FormatTrait::Display)),
                (k.clone(), Bound::Format(FormatTrait::LowerHex)),
                (k.clone(), Bound::Format(FormatTrait::Debug)),
                (v.clone(), Bound::Serialize),
                (parse_quote!(Vec<V>), Bound::Format(FormatTrait::Debug)),
            ],
        );
        assert_eq!(
            got,
            [
                "K : fmt :: Display",
                "Vec < V > : Clone",
                "K : :: core :: fmt :: LowerHex",
                "Vec < V > : :: core :: fmt :: Debug",
            ]
        );
    }

    #[test]
    fn one_predicate_per_type_with_every_trait_once() {
        let input: syn::DeriveInput = parse_quote!(
            enum E<K> {}
        );
        let k: Type = parse_quote!(K);
        let got = predicates(
            &input.generics,
            &[
                (k.clone(), Bound::Format(FormatTrait::Display)),
                (k.clone(), Bound::Format(FormatTrait::Debug)),
                (k.clone(), Bound::Format(FormatTrait::Display)),
                (k.clone(), Bound::Serialize),
            ],
        );
        assert_eq!(
            got,
            [
                "K : :: core :: fmt :: Display + :: core :: fmt :: Debug + :: mcp_errors_core :: __private :: Serialize"
            ]
        );
    }

    #[test]
    fn self_is_spelled_out_for_another_impl() {
        let input: syn::DeriveInput = parse_quote!(
            enum E<K>
            where
                Self: Sized,
                Vec<Self>: Clone,
                K: Into<u8>, {}
        );
        let got: Vec<String> = own_predicates_as(&input.generics, &quote!(E<K>))
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            got,
            [
                "E < K > : Sized",
                "Vec < E < K > > : Clone",
                "K : Into < u8 >"
            ]
        );
    }

    #[test]
    fn params_are_found_anywhere_in_a_type() {
        let input: syn::DeriveInput = parse_quote!(
            enum E<'a, K, const N: usize> {}
        );
        let params = ParamsInScope::new(&input.generics);
        for ty in [
            quote!(K),
            quote!(Vec<K>),
            quote!(&'a K),
            quote!([u8; N]),
            quote!(<K as Iterator>::Item),
            quote!(Box<dyn Fn(K) -> u8>),
        ] {
            assert!(params.intersects(&syn::parse2(ty.clone()).unwrap()), "{ty}");
        }
        for ty in [quote!(&'a str), quote!(String), quote!(Kind)] {
            assert!(
                !params.intersects(&syn::parse2(ty.clone()).unwrap()),
                "{ty}"
            );
        }
    }
}
