//! The `Debug` impl of a type with a `#[sensitive]` field: the one a std `#[derive(Debug)]`
//! would write, with each sensitive field's value replaced by `<redacted>`. A derived `Debug`
//! prints every field, and any text that shows the value with `{:?}` (an outer error's
//! `#[error("...{0:?}")]`, a log line, a panic) would print the field with it.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::DeriveInput;

use crate::ast::{Input, Variant};
use crate::fmt::FormatTrait;
use crate::generics::{self, Bound, InferredBounds, ParamsInScope};
use crate::symbol::SENSITIVE;

/// The span of the first `#[sensitive]` of the input, if it has one: the type then gets its
/// `Debug` from the derive.
pub fn first_sensitive(input: &Input) -> Option<Span> {
    input
        .variants
        .iter()
        .flat_map(|variant| &variant.fields)
        .find_map(|field| field.attrs.sensitive)
}

/// The same, read from the unparsed input, for the stub impls of an input with errors.
pub fn first_sensitive_in(input: &DeriveInput) -> Option<Span> {
    let fields: Box<dyn Iterator<Item = &syn::Field>> = match &input.data {
        syn::Data::Struct(data) => Box::new(data.fields.iter()),
        syn::Data::Enum(data) => Box::new(data.variants.iter().flat_map(|v| &v.fields)),
        syn::Data::Union(_) => return None,
    };
    fields
        .flat_map(|field| &field.attrs)
        .find(|attr| attr.path().is_ident(SENSITIVE))
        .map(|attr| {
            attr.path()
                .get_ident()
                .map_or_else(Span::call_site, syn::Ident::span)
        })
}

/// `impl Debug`, spanned at the first `#[sensitive]`, so a second `Debug` (a
/// `#[derive(Debug)]` left on the type) is reported as conflicting with it there.
pub fn expand(input: &Input, sensitive: Span, core: &TokenStream) -> TokenStream {
    let ident = &input.ident;
    let (impl_generics, ty_generics, _) = input.generics.split_for_impl();
    let params = ParamsInScope::new(input.generics);
    let mut bounds = InferredBounds::default();
    for field in input.variants.iter().flat_map(|variant| &variant.fields) {
        if field.attrs.sensitive.is_none() && params.intersects(&field.ty) {
            bounds.insert(&field.ty, Bound::Format(FormatTrait::Debug));
        }
    }
    let predicates = bounds.predicates(input.generics, core);
    let body = if input.variants.is_empty() {
        quote!(match *self {})
    } else {
        let arms = input.variants.iter().map(|variant| arm(variant, core));
        quote!(match self { #(#arms)* })
    };
    let debug = quote_spanned!(sensitive=> ::core::fmt::Debug);
    quote_spanned! {sensitive=>
        #[automatically_derived]
        impl #impl_generics #debug for #ident #ty_generics
        where
            #(#predicates,)*
        {
            fn fmt(
                &self,
                __mcp_errors_formatter: &mut ::core::fmt::Formatter<'_>,
            ) -> ::core::fmt::Result {
                #body
            }
        }
    }
}

/// `Self::V { a: __field_a, .. } => f.debug_struct("V").field("a", __field_a)...finish(),`
fn arm(variant: &Variant, core: &TokenStream) -> TokenStream {
    let name = variant.name();
    let path = if variant.in_enum {
        let ident = &variant.ident;
        quote!(Self::#ident)
    } else {
        quote!(Self)
    };
    let value = |field: &crate::ast::Field| {
        let binding = &field.binding;
        if field.attrs.sensitive.is_some() {
            quote!(&#core::__private::Redacted)
        } else {
            quote!(#binding)
        }
    };
    let f = quote!(__mcp_errors_formatter);
    match variant.style {
        darling::ast::Style::Unit => quote!(#path => #f.write_str(#name),),
        darling::ast::Style::Struct => {
            let members = variant.fields.iter().map(|field| &field.member);
            let bindings = variant.fields.iter().map(|field| &field.binding);
            let entries = variant.fields.iter().map(|field| {
                let key = field.detail_key();
                let value = value(field);
                quote!(.field(#key, #value))
            });
            quote! {
                #path { #(#members: #bindings,)* } => #f.debug_struct(#name) #(#entries)* .finish(),
            }
        }
        darling::ast::Style::Tuple => {
            let bindings = variant.fields.iter().map(|field| &field.binding);
            let entries = variant.fields.iter().map(|field| {
                let value = value(field);
                quote!(.field(#value))
            });
            quote! {
                #path ( #(#bindings,)* ) => #f.debug_tuple(#name) #(#entries)* .finish(),
            }
        }
    }
}

/// The stub `Debug` of an input with errors: the type's name, so that the type is still an
/// `Error` and the mistakes are the only errors.
pub fn stub(input: &DeriveInput, sensitive: Span) -> TokenStream {
    let ident = &input.ident;
    let name = crate::fmt::unraw(ident);
    let (impl_generics, ty_generics, _) = input.generics.split_for_impl();
    let predicates = generics::own_predicates(&input.generics);
    quote_spanned! {sensitive=>
        #[automatically_derived]
        impl #impl_generics ::core::fmt::Debug for #ident #ty_generics
        where
            #(#predicates,)*
        {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(#name)
            }
        }
    }
}
