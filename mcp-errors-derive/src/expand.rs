//! Code generation: the `ToolError` impl, `From<_> for ToolFailure`, and the rmcp hook.

use proc_macro2::{Literal, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::spanned::Spanned as _;
use syn::{DeriveInput, Ident, LitStr};

use crate::ast::{Input, Variant};
use crate::fallback;
use crate::fmt::{Arg, Template, pointer_local};
use crate::generics::{self, Bound, InferredBounds, ParamsInScope};
use crate::valid::{self, Channel, Resolved};

/// The whole derive: parse, check, then expand or fall back.
pub fn derive(input: &DeriveInput) -> TokenStream {
    let mut errors = darling::Error::accumulator();
    let parsed = match Input::from_syn(input, &mut errors) {
        Ok(parsed) => Some(parsed),
        Err(error) => {
            errors.push(error);
            None
        }
    };
    let resolved = parsed
        .as_ref()
        .map(|parsed| valid::check(parsed, &mut errors));
    let core = parsed
        .as_ref()
        .map_or_else(|| quote!(::mcp_errors_core), Input::core_path);
    match (errors.finish(), parsed, resolved) {
        (Ok(()), Some(parsed), Some(resolved)) => expand(&parsed, &resolved, &core),
        (Err(error), _, _) => {
            let stubs = fallback::expand(input, &core);
            let errors = error.write_errors();
            quote!(#errors #stubs)
        }
        // `finish` succeeds only when parsing did.
        (Ok(()), _, _) => fallback::expand(input, &core),
    }
}

/// The generated code, inside `const _: () = { ... };`. It names the core only as
/// `__mcp_errors_core`, imported once at the top of the block from `core` (the path of
/// `#[tool_error(crate = "...")]`, or `::mcp_errors_core`), and the standard library only by
/// absolute paths (`::core::...`, `::std::...`), so no name in the user's scope can shadow one.
fn expand(input: &Input, resolved: &[Resolved], core: &TokenStream) -> TokenStream {
    let ident = &input.ident;
    let (impl_generics, ty_generics, _) = input.generics.split_for_impl();
    let core_alias = quote!(__mcp_errors_core);
    let predicates = inferred_bounds(input, resolved).predicates(&input.generics, &core_alias);
    let own_predicates = generics::own_predicates(&input.generics);

    // Few distinct categories and protocol codes among many variants: each is a local const,
    // named once per descriptor, so a large enum expands to fewer tokens. Retryability and
    // masking are the core's defaults for the category or code unless written out.
    // The type's own variants, numbered in `descriptors()`: all but the `#[transparent]` ones,
    // whose descriptors are those of the errors they wrap.
    let own: Vec<(&Variant, &Resolved)> = input
        .variants
        .iter()
        .zip(resolved)
        .filter(|(_, r)| !r.transparent)
        .collect();
    let mut channels: Vec<(Channel, Ident)> = Vec::new();
    let descriptors: Vec<TokenStream> = own
        .iter()
        .map(|&(variant, r)| {
            let name = variant.name();
            let code = &r.code;
            let channel = match channels.iter().find(|(channel, _)| *channel == r.channel) {
                Some((_, name)) => name.clone(),
                None => {
                    let name = format_ident!("__MCP_ERRORS_CHANNEL_{}", channels.len());
                    channels.push((r.channel, name.clone()));
                    name
                }
            };
            let constructor = match r.channel {
                Channel::Execution(_) => quote!(execution),
                Channel::Protocol(_) => quote!(protocol),
            };
            let retryable = r.retryable.map(|retryable| quote!(.retryable(#retryable)));
            let masked = r.masked.map(|masked| quote!(.masked(#masked)));
            quote!(__McpErrorsDescriptor::#constructor(#name, #code, #channel) #retryable #masked)
        })
        .collect();
    let channel_consts = channels.iter().map(|(channel, name)| match channel {
        Channel::Execution(category) => {
            quote!(const #name: __mcp_errors_core::Category = #category;)
        }
        Channel::Protocol(code) => quote!(const #name: __mcp_errors_core::ErrorCode = #code;),
    });
    let retryable_assertions = own
        .iter()
        .enumerate()
        .filter_map(|(index, &(variant, r))| retryable_assertion(index, variant, r));
    let mut own_index = 0..;
    let descriptor_arms = input.variants.iter().zip(resolved).map(|(variant, r)| {
        if r.transparent {
            let (pattern, ty, inner) = transparent_pattern(variant);
            return quote!(#pattern => <#ty as __mcp_errors_core::ToolError>::descriptor(#inner),);
        }
        let pattern = pattern(variant, &[]);
        let index = Literal::usize_unsuffixed(own_index.next().unwrap_or_default());
        quote!(#pattern => &<Self as __mcp_errors_core::ToolError>::descriptors()[#index],)
    });
    // A `#[transparent]` variant forwards each method to the error it wraps.
    let forward = |method: TokenStream| {
        input
            .variants
            .iter()
            .zip(resolved)
            .filter(|(_, r)| r.transparent)
            .map(move |(variant, _)| {
                let (pattern, ty, inner) = transparent_pattern(variant);
                quote!(#pattern => <#ty as __mcp_errors_core::ToolError>::#method(#inner),)
            })
    };
    let forward_message = forward(quote!(message));
    let forward_hint = forward(quote!(hint));
    let forward_details = forward(quote!(details));
    let forward_retry_after = forward(quote!(retry_after));
    let catalog = composed_catalog(input, resolved);
    // Variants without a `#[message]`, `#[hint]`, `#[detail]` or `#[retry_after]` share one
    // `_` arm per method, as hand-written code would: less code for the compiler to check.
    let message_arms = input
        .variants
        .iter()
        .zip(resolved)
        .filter_map(|(variant, r)| {
            let (template, lit) = (r.message.as_ref()?, variant.attrs.message.as_ref()?);
            let pattern = pattern(variant, &template_fields(variant, template));
            let body = format_tokens(variant, template, lit);
            Some(quote!(#pattern => #body,))
        });
    let hint_arms = input
        .variants
        .iter()
        .zip(resolved)
        .filter_map(|(variant, r)| {
            let (template, lit) = (r.hint.as_ref()?, variant.attrs.hint.as_ref()?);
            let pattern = pattern(variant, &template_fields(variant, template));
            let text = cow_tokens(variant, template, lit);
            Some(quote!(#pattern => ::std::option::Option::Some(#text),))
        });
    let detail_arms = input
        .variants
        .iter()
        .zip(resolved)
        .filter_map(|(variant, r)| {
            if r.details.is_empty() {
                return None;
            }
            let pattern = pattern(variant, &r.details);
            let entries = r.details.iter().map(|&i| {
                let field = &variant.fields[i];
                let key = field.detail_key();
                let binding = &field.binding;
                quote_spanned! {field.span=>
                    __mcp_errors_core::__private::detail(#key, #binding)
                }
            });
            Some(quote! {
                #pattern => __mcp_errors_core::__private::details(::std::vec![#(#entries),*]),
            })
        });
    let retry_after_arms = input
        .variants
        .iter()
        .zip(resolved)
        .filter_map(|(variant, r)| {
            let index = r.retry_after.as_ref()?.field;
            let field = &variant.fields[index];
            let pattern = pattern(variant, &[index]);
            // Spanned at the field's type: a type that is not a `Duration` or an
            // `Option<Duration>` is reported there, by `RetryAfter`'s own message.
            let span = field.ty.span();
            let mut binding = field.binding.clone();
            binding.set_span(span);
            let value = quote_spanned! {span=>
                __mcp_errors_core::__private::RetryAfter::retry_after(#binding)
            };
            Some(quote!(#pattern => #value,))
        });

    // A reference to an empty enum is not uninhabited to the exhaustiveness check; the enum
    // itself is. The other methods end on a `_` arm, which an empty enum accepts.
    let descriptor_match = if input.variants.is_empty() {
        quote!(match *self {})
    } else {
        quote!(match self { #(#descriptor_arms)* })
    };

    let self_ty = quote!(#ident #ty_generics);
    let self_is_error = generics::self_is_error(&input.generics);
    let own_predicates_in_from = generics::own_predicates_as(&input.generics, &self_ty);
    // The trait path carries the type's span, so an unmet bound of this impl is not presented
    // as one a `derive` added to a type parameter.
    let tool_error_trait = quote_spanned!(ident.span()=> __mcp_errors_core::ToolError);
    let is_tool_error = generics::is_tool_error(&input.generics, &self_ty, &core_alias)
        .map(|bound| quote!(#bound,));
    // At the type's name: when the type is not an `Error`, this is the one place that says so.
    let to_failure = quote_spanned! {ident.span()=>
        __mcp_errors_core::__private::tool_failure(&error)
    };
    quote! {
        #[allow(
            deprecated,
            non_upper_case_globals,
            unused_qualifications,
            unreachable_code,
            clippy::all
        )]
        const _: () = {
            use #core as __mcp_errors_core;

            #[automatically_derived]
            impl #impl_generics #tool_error_trait for #self_ty
            where
                #(#predicates,)*
                #self_is_error,
            {
                fn descriptors() -> &'static [__mcp_errors_core::ErrorDescriptor] {
                    use __mcp_errors_core::ErrorDescriptor as __McpErrorsDescriptor;
                    #(#channel_consts)*
                    const DESCRIPTORS: &[__mcp_errors_core::ErrorDescriptor] =
                        &[#(#descriptors),*];
                    #(#retryable_assertions)*
                    DESCRIPTORS
                }

                #catalog

                fn descriptor(&self) -> &'static __mcp_errors_core::ErrorDescriptor {
                    #descriptor_match
                }

                fn message(&self) -> ::std::string::String {
                    #[allow(unreachable_patterns)]
                    match self {
                        #(#forward_message)*
                        #(#message_arms)*
                        _ => __mcp_errors_core::__private::display_string(self),
                    }
                }

                fn hint(
                    &self,
                ) -> ::std::option::Option<::std::borrow::Cow<'static, ::core::primitive::str>> {
                    #[allow(unreachable_patterns)]
                    match self {
                        #(#forward_hint)*
                        #(#hint_arms)*
                        _ => ::std::option::Option::None,
                    }
                }

                fn details(&self) -> __mcp_errors_core::Details {
                    #[allow(unreachable_patterns)]
                    match self {
                        #(#forward_details)*
                        #(#detail_arms)*
                        _ => __mcp_errors_core::Details::new(),
                    }
                }

                fn retry_after(
                    &self,
                ) -> ::std::option::Option<__mcp_errors_core::__private::Duration> {
                    #[allow(unreachable_patterns)]
                    match self {
                        #(#forward_retry_after)*
                        #(#retry_after_arms)*
                        _ => ::std::option::Option::None,
                    }
                }
            }

            #[automatically_derived]
            impl #impl_generics ::core::convert::From<#self_ty> for __mcp_errors_core::ToolFailure
            where
                #(#own_predicates_in_from,)*
                #is_tool_error
            {
                fn from(error: #self_ty) -> Self {
                    #to_failure
                }
            }

            __mcp_errors_core::__impl_rmcp! {
                impl [#impl_generics] for #self_ty where [#(#own_predicates,)* #is_tool_error]
            }
        };
    }
}

/// For `#[retry_after]` on a variant whose retryability is its category's default, which the
/// core decides: an assertion on the variant's descriptor, evaluated when the catalog is
/// compiled, whose error points at the attribute. It stands inside `descriptors`, after
/// `DESCRIPTORS`.
fn retryable_assertion(index: usize, variant: &Variant, r: &Resolved) -> Option<TokenStream> {
    let retry_after = r.retry_after.as_ref()?;
    let message = retry_after.assert_retryable.as_ref()?;
    let span = variant.fields[retry_after.field].attrs.retry_after?;
    let index = Literal::usize_unsuffixed(index);
    Some(quote_spanned! {span=>
        const _: () = ::core::assert!(DESCRIPTORS[#index].is_retryable(), #message);
    })
}

/// The pattern of a `#[transparent]` variant binding its one field, the field's type, and the
/// binding. The wrapped type is named in each forwarded call, so that when it is no
/// `ToolError` every call reports the same error at the same place, once.
fn transparent_pattern(variant: &Variant) -> (TokenStream, &syn::Type, &Ident) {
    let field = &variant.fields[0];
    (pattern(variant, &[0]), &field.ty, &field.binding)
}

/// `catalog()` of a type with `#[transparent]` variants: its own descriptors, then the
/// catalog of each distinct type they wrap. Without any, the trait's default serves.
fn composed_catalog(input: &Input, resolved: &[Resolved]) -> Option<TokenStream> {
    let mut wrapped: Vec<(String, &syn::Type)> = Vec::new();
    for (variant, r) in input.variants.iter().zip(resolved) {
        let Some(field) = variant.fields.first().filter(|_| r.transparent) else {
            continue;
        };
        let key = field.ty.to_token_stream().to_string();
        if !wrapped.iter().any(|(seen, _)| *seen == key) {
            wrapped.push((key, &field.ty));
        }
    }
    if wrapped.is_empty() {
        return None;
    }
    let composed = wrapped
        .iter()
        .map(|(_, ty)| quote!(.compose(<#ty as __mcp_errors_core::ToolError>::catalog())));
    Some(quote! {
        fn catalog() -> __mcp_errors_core::ErrorCatalog {
            __mcp_errors_core::ErrorCatalog::defined_by(
                <Self as __mcp_errors_core::ToolError>::descriptors(),
                ::core::any::type_name::<Self>(),
            )
            #(#composed)*
        }
    })
}

/// A pattern matching `variant` that binds the fields at `used` (and nothing else) to their
/// locals: `Self::V { r#type: __field_type, .. }`, `Self::V(_, __field_1, ..)`.
fn pattern(variant: &Variant, used: &[usize]) -> TokenStream {
    let path = &variant.path;
    match variant.style {
        darling::ast::Style::Unit => quote!(#path),
        darling::ast::Style::Struct => {
            let bindings = used.iter().map(|&i| {
                let field = &variant.fields[i];
                let (member, binding) = (&field.member, &field.binding);
                quote!(#member: #binding)
            });
            quote!(#path { #(#bindings,)* .. })
        }
        darling::ast::Style::Tuple => {
            let last = used.iter().max();
            let slots = (0..last.map_or(0, |last| last + 1)).map(|i| {
                if used.contains(&i) {
                    variant.fields[i].binding.to_token_stream()
                } else {
                    quote!(_)
                }
            });
            quote!(#path(#(#slots,)* ..))
        }
    }
}

/// The indices of the fields a checked template uses, shown or as a width or precision.
fn template_fields(variant: &Variant, template: &Template) -> Vec<usize> {
    template
        .members()
        .into_iter()
        .filter_map(|member| variant.field_index(member))
        .collect()
}

/// A checked template formatted into a string sized for it up front (`format!` would guess
/// low and grow it), or a plain copy when there is nothing to format. A field shown with
/// `{field:p}` is wrapped, so its own `Pointer` is formatted and not the address of the
/// borrowed field.
fn format_tokens(variant: &Variant, template: &Template, lit: &LitStr) -> TokenStream {
    let format = LitStr::new(&template.format, lit.span());
    if template.has_placeholders() || template.format.contains(['{', '}']) {
        let capacity = template.capacity_hint();
        let pointers: Vec<TokenStream> = template
            .pointers()
            .into_iter()
            .filter_map(|member| {
                let field = variant.field(member)?;
                let local = pointer_local(member, lit.span());
                let binding = &field.binding;
                Some(quote!(let #local = __mcp_errors_core::__private::Var(#binding);))
            })
            .collect();
        let text = quote! {
            __mcp_errors_core::__private::format_string(#capacity, ::std::format_args!(#format))
        };
        if pointers.is_empty() {
            text
        } else {
            quote!({ #(#pointers)* #text })
        }
    } else {
        quote!(::std::string::String::from(#format))
    }
}

/// Like [`format_tokens`], as a `Cow<'static, str>` that borrows fixed text.
fn cow_tokens(variant: &Variant, template: &Template, lit: &LitStr) -> TokenStream {
    if template.has_placeholders() || template.format.contains(['{', '}']) {
        let text = format_tokens(variant, template, lit);
        quote!(::std::borrow::Cow::Owned(#text))
    } else {
        let format = LitStr::new(&template.format, lit.span());
        quote!(::std::borrow::Cow::Borrowed(#format))
    }
}

/// The bounds the generated `ToolError` impl needs on field types that mention a parameter:
/// for each placeholder of `#[message]` and `#[hint]` that shows a field, the trait of its
/// spec; `Serialize` for each `#[detail]`; `RetryAfter` for the `#[retry_after]` field.
fn inferred_bounds(input: &Input, resolved: &[Resolved]) -> InferredBounds {
    let params = ParamsInScope::new(&input.generics);
    let mut bounds = InferredBounds::default();
    for (variant, r) in input.variants.iter().zip(resolved) {
        if r.transparent {
            if let Some(field) = variant.fields.first()
                && params.intersects(&field.ty)
            {
                bounds.insert(&field.ty, Bound::ToolError);
            }
            continue;
        }
        for &i in &r.details {
            let ty = &variant.fields[i].ty;
            if params.intersects(ty) {
                bounds.insert(ty, Bound::Serialize);
            }
        }
        if let Some(retry_after) = &r.retry_after {
            let ty = &variant.fields[retry_after.field].ty;
            if params.intersects(ty) {
                bounds.insert(ty, Bound::RetryAfter);
            }
        }
        let templates = [&r.message, &r.hint];
        for template in templates.into_iter().flatten() {
            for placeholder in &template.placeholders {
                let Arg::Field(member) = &placeholder.shown else {
                    continue;
                };
                let Some(field) = variant.field(member) else {
                    continue;
                };
                if params.intersects(&field.ty) {
                    bounds.insert(&field.ty, Bound::Format(placeholder.format_trait));
                }
            }
        }
    }
    bounds
}

#[cfg(test)]
mod tests {
    use super::*;
    use proc_macro2::TokenTree;
    use syn::parse_quote;

    fn idents(tokens: TokenStream, out: &mut Vec<String>) {
        for token in tokens {
            match token {
                TokenTree::Ident(ident) => out.push(ident.to_string()),
                TokenTree::Group(group) => idents(group.stream(), out),
                _ => {}
            }
        }
    }

    /// Nothing of the expansion, real or stub, names the core other than through the path of
    /// `#[tool_error(crate = "...")]`.
    #[test]
    fn every_path_to_the_core_goes_through_the_crate_option() {
        let valid: DeriveInput = parse_quote! {
            #[tool_error(crate = "facade::core")]
            #[category(transient)]
            enum E<K> {
                #[error("a")]
                #[message("{k:?} {k:p} {k:x}")]
                #[hint("{k}")]
                A { #[detail] k: K, #[retry_after] wait: Duration },
                #[error("b")]
                #[protocol(invalid_params)]
                B,
                #[error("c")]
                #[protocol(-4001)]
                C,
            }
        };
        let broken: DeriveInput = parse_quote! {
            #[tool_error(crate = "facade::core")]
            #[error("s")]
            #[category(transiant)]
            struct S;
        };
        for input in [valid, broken] {
            let expanded = derive(&input);
            let mut names = Vec::new();
            idents(expanded.clone(), &mut names);
            assert!(
                !names.iter().any(|name| name == "mcp_errors_core"),
                "{expanded}"
            );
            assert!(
                expanded
                    .to_string()
                    .contains("use facade :: core as __mcp_errors_core ;"),
                "{expanded}"
            );
        }
    }
}
