//! Code generation: the `ToolError` impl, `From<_> for ToolFailure`, and the rmcp hook.

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{ToTokens as _, format_ident, quote, quote_spanned};
use syn::spanned::Spanned as _;
use syn::{DeriveInput, LitStr};

use crate::ast::{Input, Variant};
use crate::fallback;
use crate::feature;
use crate::fmt::{Arg, Template, pointer_local};
use crate::generics::{self, Bound, InferredBounds, ParamsInScope};
use crate::resolve::{self, Channel, Classified, Mapped, Resolved};

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
        .map(|parsed| resolve::resolve(parsed, &mut errors));
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
    let predicates = inferred_bounds(input, resolved).predicates(input.generics, &core_alias);
    let own_predicates = generics::own_predicates(input.generics);

    // Few distinct categories and protocol codes among many variants: each is a local const,
    // named once per descriptor, so a large enum expands to fewer tokens. Retryability and
    // masking are the core's defaults for the category or code unless written out.
    // The type's own variants, numbered in `descriptors()`: all but the `#[transparent]` ones,
    // whose descriptors are those of the errors they wrap.
    let params = ParamsInScope::new(input.generics);
    let own: Vec<(&Variant, &Mapped)> = input
        .variants
        .iter()
        .zip(resolved)
        .filter_map(|(variant, r)| Some((variant, r.mapped()?)))
        .collect();
    let mut channels: Vec<(Channel, Ident)> = Vec::new();
    let descriptors: Vec<TokenStream> = own
        .iter()
        .map(|&(variant, r)| {
            let channel = match channels.iter().find(|(channel, _)| *channel == r.channel) {
                Some((_, name)) => name.clone(),
                None => {
                    let name = format_ident!("__MCP_ERRORS_CHANNEL_{}", channels.len());
                    channels.push((r.channel, name.clone()));
                    name
                }
            };
            descriptor(variant, r, &channel, &params)
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
    // Each own variant's arm gives its index in `descriptors()`, indexed once after the match;
    // a `#[transparent]` one returns the descriptor of the error it wraps.
    let mut own_index = 0..;
    let descriptor_arms: Vec<TokenStream> = input
        .variants
        .iter()
        .zip(resolved)
        .map(|(variant, r)| match r {
            Resolved::Transparent => {
                let (pattern, ty, inner) = transparent_pattern(variant);
                quote! {
                    #pattern => return <#ty as __mcp_errors_core::ToolError>::descriptor(#inner),
                }
            }
            Resolved::Mapped(_) => {
                let pattern = pattern(variant, &[]);
                let index = Literal::usize_unsuffixed(own_index.next().unwrap_or_default());
                quote!(#pattern => #index,)
            }
        })
        .collect();
    // A `#[transparent]` variant forwards each method to the error it wraps.
    let forward = |method: TokenStream| {
        input
            .variants
            .iter()
            .zip(resolved)
            .filter(|(_, r)| matches!(r, Resolved::Transparent))
            .map(move |(variant, _)| {
                let (pattern, ty, inner) = transparent_pattern(variant);
                quote!(#pattern => <#ty as __mcp_errors_core::ToolError>::#method(#inner),)
            })
    };
    let forward_message = forward(quote!(message));
    let forward_hint = forward(quote!(hint));
    let forward_details = forward(quote!(details));
    let forward_retry_after = forward(quote!(retry_after));
    let forward_classification = forward(quote!(classification));
    let classification_arms: Vec<TokenStream> = input
        .variants
        .iter()
        .zip(resolved)
        .filter_map(|(variant, r)| {
            Some(classification_arm(variant, r.mapped()?.classify.as_ref()?))
        })
        .collect();
    // Only a type with a `#[classify]` field, or one that forwards to another, says more than
    // the trait's default.
    let classification = (!classification_arms.is_empty()
        || resolved.iter().any(|r| matches!(r, Resolved::Transparent)))
    .then(|| {
        quote! {
            fn classification(
                &self,
            ) -> ::std::option::Option<__mcp_errors_core::Classification> {
                #[allow(unreachable_patterns)]
                match self {
                    #(#forward_classification)*
                    #(#classification_arms)*
                    _ => ::std::option::Option::None,
                }
            }
        }
    });
    let catalog = composed_catalog(input, resolved);
    // Variants without a `#[message]`, `#[hint]`, `#[detail]` or `#[retry_after]` share one
    // `_` arm per method, as hand-written code would: less code for the compiler to check.
    let message_arms = input
        .variants
        .iter()
        .zip(resolved)
        .filter_map(|(variant, r)| {
            let (template, lit) = (
                r.mapped()?.message.as_ref()?,
                variant.attrs.message.as_ref()?,
            );
            let pattern = pattern(variant, &template_fields(variant, template));
            let body = format_tokens(variant, template, lit);
            Some(quote!(#pattern => #body,))
        });
    // A variant classified at run time shows the model its `#[message]`, or its category's
    // sentence: the `Display` holds the classifying value's own text, which only
    // `#[expose]` shows.
    let classified_message_arms = input
        .variants
        .iter()
        .zip(resolved)
        .filter(|(variant, r)| {
            r.mapped().is_some_and(Mapped::hides_display) && variant.attrs.message.is_none()
        })
        .map(|(variant, _)| {
            let pattern = pattern(variant, &[]);
            quote!(#pattern => __mcp_errors_core::__private::classified_message(self),)
        });
    let shown_arms: Vec<TokenStream> = input
        .variants
        .iter()
        .zip(resolved)
        .filter_map(|(variant, r)| Some((variant, &r.mapped()?.shown_to_model)))
        .filter(|(_, shown)| !shown.is_empty())
        .map(|(variant, shown)| shown_arm(variant, shown))
        .collect();
    // Type-checked, never run: each field a text the model reads shows is no `ToolError`.
    let shown_checks = (!shown_arms.is_empty()).then(|| {
        quote! {
            if false {
                use __mcp_errors_core::__private::{ShownToolError as _, ShownValue as _};
                #[allow(unreachable_patterns)]
                match self {
                    #(#shown_arms)*
                    _ => {}
                }
            }
        }
    });
    let hint_arms = input
        .variants
        .iter()
        .zip(resolved)
        .filter_map(|(variant, r)| {
            let (template, lit) = (r.mapped()?.hint.as_ref()?, variant.attrs.hint.as_ref()?);
            Some(hint_arm(variant, template, lit))
        });
    // The arms of `details()` hand their entries, as an array, to one function of the core
    // (no `vec!` or map-building code to expand per variant).
    let details_helpers = quote! {
        use __mcp_errors_core::__private::{
            detail as __mcp_errors_detail, details as __mcp_errors_details,
        };
    };
    let detail_arms: Vec<TokenStream> = input
        .variants
        .iter()
        .zip(resolved)
        .filter_map(|(variant, r)| Some((variant, &r.mapped()?.details)))
        .filter(|(_, details)| !details.is_empty())
        .map(|(variant, details)| detail_arm(variant, details))
        .collect();
    let details_helpers = (!detail_arms.is_empty()).then_some(details_helpers);
    let retry_after_arms = input
        .variants
        .iter()
        .zip(resolved)
        .filter_map(|(variant, r)| {
            let field = r.mapped()?.retry_after.as_ref()?.field;
            Some(retry_after_arm(variant, field))
        });

    // A reference to an empty enum is not uninhabited to the exhaustiveness check; the enum
    // itself is. The other methods end on a `_` arm, which an empty enum accepts.
    let descriptor_match = if input.variants.is_empty() {
        quote!(match *self {})
    } else {
        quote! {
            let __mcp_errors_index: ::core::primitive::usize = match self {
                #(#descriptor_arms)*
            };
            &<Self as __mcp_errors_core::ToolError>::descriptors()[__mcp_errors_index]
        }
    };

    let self_ty = quote!(#ident #ty_generics);
    let self_is_error = generics::self_is_error(input.generics);
    let own_predicates_in_from = generics::own_predicates_as(input.generics, &self_ty);
    // The trait path carries the type's span, so an unmet bound of this impl is not presented
    // as one a `derive` added to a type parameter.
    let tool_error_trait = quote_spanned!(ident.span()=> __mcp_errors_core::ToolError);
    let is_tool_error =
        generics::is_tool_error(input.generics, &self_ty, &core_alias).map(|bound| quote!(#bound,));
    // At the type's name: when the type is not an `Error`, this is the one place that says so.
    let to_failure = quote_spanned! {ident.span()=>
        __mcp_errors_core::__private::tool_failure(&error)
    };
    // Outside the block below, whose `allow(deprecated)` would silence them: one warning per
    // stable code made of generic words, raised by the use of a deprecated constant, at the
    // variant's name.
    let generic_code_warnings = input
        .variants
        .iter()
        .zip(resolved)
        .filter_map(|(variant, r)| Some((variant, r.mapped()?.generic_code.as_ref()?)))
        .map(|(variant, note)| {
            quote_spanned! {variant.ident.span()=>
                const _: () = {
                    #[deprecated(note = #note)]
                    #[allow(non_upper_case_globals)]
                    const generic_stable_code: () = ();
                    generic_stable_code
                };
            }
        });
    let redacted_debug = crate::debug::first_sensitive(input)
        .map(|span| crate::debug::expand(input, span, &core_alias));
    quote! {
        #(#generic_code_warnings)*
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
                    #shown_checks
                    #[allow(unreachable_patterns)]
                    match self {
                        #(#forward_message)*
                        #(#message_arms)*
                        #(#classified_message_arms)*
                        _ => __mcp_errors_core::__private::display_string(self),
                    }
                }

                fn hint(
                    &self,
                ) -> ::std::option::Option<::std::borrow::Cow<'static, ::core::primitive::str>> {
                    #[allow(unused_imports)]
                    use ::std::borrow::Cow::{
                        Borrowed as __McpErrorsBorrowed, Owned as __McpErrorsOwned,
                    };
                    #[allow(unused_imports)]
                    use ::std::option::Option::Some as __McpErrorsSome;
                    #[allow(unused_imports)]
                    use __mcp_errors_core::__private::format_string as __mcp_errors_format_string;
                    #[allow(unreachable_patterns)]
                    match self {
                        #(#forward_hint)*
                        #(#hint_arms)*
                        _ => ::std::option::Option::None,
                    }
                }

                fn details(
                    &self,
                ) -> __mcp_errors_core::__private::Map<
                    ::std::string::String,
                    __mcp_errors_core::__private::Value,
                > {
                    #details_helpers
                    #[allow(unreachable_patterns)]
                    match self {
                        #(#forward_details)*
                        #(#detail_arms)*
                        _ => __mcp_errors_core::__private::Map::new(),
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

                #classification
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

            #redacted_debug
        };
    }
}

/// For `#[retry_after]` on a variant whose retryability is its category's default, which the
/// core decides: an assertion on the variant's descriptor, evaluated when the catalog is
/// compiled, whose error points at the attribute. It stands inside `descriptors`, after
/// `DESCRIPTORS`.
fn retryable_assertion(index: usize, variant: &Variant, r: &Mapped) -> Option<TokenStream> {
    let retry_after = r.retry_after.as_ref()?;
    let message = retry_after.assert_retryable.as_ref()?;
    let span = variant.fields[retry_after.field].attrs.retry_after?;
    let index = Literal::usize_unsuffixed(index);
    Some(quote_spanned! {span=>
        const _: () = ::core::assert!(DESCRIPTORS[#index].is_retryable(), #message);
    })
}

/// An arm that probes each field at `shown`, spanned at the field, so a field that is a
/// `ToolError` is reported there by the core's `NotShownToTheModel`.
fn shown_arm(variant: &Variant, shown: &[usize]) -> TokenStream {
    let pattern = pattern(variant, shown);
    let probes = shown.iter().map(|&i| {
        let field = &variant.fields[i];
        let binding = &field.binding;
        quote_spanned! {field.span=>
            __mcp_errors_core::__private::shown_to_the_model(
                #binding,
                (&&__mcp_errors_core::__private::ShownField(#binding)).kind(),
            );
        }
    });
    quote!(#pattern => { #(#probes)* })
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
        let Some(field) = variant
            .fields
            .first()
            .filter(|_| matches!(r, Resolved::Transparent))
        else {
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
            __mcp_errors_core::ErrorCatalog::new(
                <Self as __mcp_errors_core::ToolError>::descriptors(),
            )
            .with_origin(::core::any::type_name::<Self>())
            #(#composed)*
        }
    })
}

/// A pattern matching `variant` that binds the fields at `used` (and nothing else) to their
/// locals: `Self::V { r#type: __field_type, .. }`, `Self::V(_, __field_1, ..)`.
fn pattern(variant: &Variant, used: &[usize]) -> TokenStream {
    let path = if variant.in_enum {
        let ident = &variant.ident;
        quote!(Self::#ident)
    } else {
        quote!(Self)
    };
    match variant.style {
        darling::ast::Style::Unit => path,
        darling::ast::Style::Struct => {
            let fields = used.iter().map(|&i| {
                let field = &variant.fields[i];
                let (member, binding) = (&field.member, &field.binding);
                quote!(#member: #binding)
            });
            quote!(#path { #(#fields,)* .. })
        }
        darling::ast::Style::Tuple => {
            let last = used.iter().max().map_or(0, |last| last + 1);
            let fields = (0..last).map(|i| {
                if used.contains(&i) {
                    variant.fields[i].binding.to_token_stream()
                } else {
                    quote!(_)
                }
            });
            quote!(#path(#(#fields,)* ..))
        }
    }
}

/// `__McpErrorsDescriptor::execution("V", "CODE", __MCP_ERRORS_CHANNEL_0)`, then
/// `.retryable(..)` and `.masked(..)` when written out: one entry of `DESCRIPTORS`, whose
/// category or protocol code is the local const `channel`.
fn descriptor(
    variant: &Variant,
    r: &Mapped,
    channel: &Ident,
    params: &ParamsInScope,
) -> TokenStream {
    let constructor = match r.channel {
        Channel::Execution(_) => quote!(execution),
        Channel::Protocol(_) => quote!(protocol),
    };
    let (name, code) = (variant.name(), &r.code);
    let retryable = r.retryable.map(|value| quote!(.retryable(#value)));
    let masked = r.masked.map(|value| quote!(.masked(#value)));
    let classified = r.classify.as_ref().map(|classify| {
        let ty = &variant.fields[classify.field].ty;
        // A function's categories are unknown, and a const cannot name the impl's parameters.
        if classify.with.is_some() || params.intersects(ty) {
            quote!(.classified(&__mcp_errors_core::Category::ALL))
        } else {
            let classify = feature::classify_trait(ty);
            quote_spanned!(ty.span()=> .classified(<#ty as #classify>::CATEGORIES))
        }
    });
    quote!(__McpErrorsDescriptor::#constructor(#name, #code, #channel) #retryable #masked #classified)
}

/// An arm of `hint()`: `Some(Borrowed("..."))` for a fixed hint, else
/// `Some(Owned(format_string(N, format_args!("..."))))`, through the aliases `hint()` imports.
fn hint_arm(variant: &Variant, template: &Template, lit: &LitStr) -> TokenStream {
    let pattern = pattern(variant, &template_fields(variant, template));
    let format = LitStr::new(&template.format, lit.span());
    let text = if is_formatted(template) {
        let capacity = template.capacity_hint();
        let pointers = pointer_locals(variant, template, lit);
        let formatted = quote! {
            __mcp_errors_format_string(#capacity, ::std::format_args!(#format))
        };
        if pointers.is_empty() {
            quote!(__McpErrorsOwned(#formatted))
        } else {
            quote!(__McpErrorsOwned({ #(#pointers)* #formatted }))
        }
    } else {
        quote!(__McpErrorsBorrowed(#format))
    };
    quote!(#pattern => __McpErrorsSome(#text),)
}

/// An arm of `retry_after()`: `RetryAfter::retry_after(field)`, spanned at the field's type,
/// so a type that is not a `Duration` or an `Option<Duration>` is reported there, by
/// `RetryAfter`'s own message.
fn retry_after_arm(variant: &Variant, field: usize) -> TokenStream {
    let pattern = pattern(variant, &[field]);
    let field = &variant.fields[field];
    let span = field.ty.span();
    let mut binding = field.binding.clone();
    binding.set_span(span);
    let call =
        quote_spanned!(span=> __mcp_errors_core::__private::RetryAfter::retry_after(#binding));
    quote!(#pattern => #call,)
}

/// An arm of `classification()`: `Classify::classify` of the field, named as the descriptor
/// names the trait's `CATEGORIES` and spanned at the field's type, so a type without
/// `Classify` is one error there; or, for `#[classify(with = path)]`, the function's answer,
/// spanned at the path.
fn classification_arm(variant: &Variant, classify: &Classified) -> TokenStream {
    let pattern = pattern(variant, &[classify.field]);
    let field = &variant.fields[classify.field];
    let call = match &classify.with {
        Some(path) => {
            let binding = &field.binding;
            quote_spanned! {path.span()=>
                __mcp_errors_core::__private::classify_with(#path(#binding))
            }
        }
        None => {
            let span = field.ty.span();
            let mut binding = field.binding.clone();
            binding.set_span(span);
            let ty = &field.ty;
            let classify = feature::classify_trait(ty);
            quote_spanned!(span=> <#ty as #classify>::classify(#binding))
        }
    };
    quote!(#pattern => #call,)
}

/// An arm of `details()`: `__mcp_errors_details([__mcp_errors_detail("key", field), ..])`,
/// each entry spanned at its field, so a field that is not `Serialize` is reported there.
fn detail_arm(variant: &Variant, used: &[usize]) -> TokenStream {
    let pattern = pattern(variant, used);
    let entries = used.iter().map(|&i| {
        let field = &variant.fields[i];
        let (key, binding) = (field.detail_key(), &field.binding);
        quote_spanned!(field.span=> __mcp_errors_detail(#key, #binding))
    });
    quote!(#pattern => __mcp_errors_details([#(#entries),*]),)
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
/// low and grow it), or a plain copy when there is nothing to format.
fn format_tokens(variant: &Variant, template: &Template, lit: &LitStr) -> TokenStream {
    let format = LitStr::new(&template.format, lit.span());
    if !is_formatted(template) {
        return quote!(::std::string::String::from(#format));
    }
    let capacity = template.capacity_hint();
    let pointers = pointer_locals(variant, template, lit);
    let text = quote! {
        __mcp_errors_core::__private::format_string(#capacity, ::std::format_args!(#format))
    };
    if pointers.is_empty() {
        text
    } else {
        quote!({ #(#pointers)* #text })
    }
}

/// Whether a checked template goes through `format_args!`: it has placeholders, or braces to
/// unescape.
fn is_formatted(template: &Template) -> bool {
    template.has_placeholders() || template.format.contains(['{', '}'])
}

/// The locals of the fields a template shows with `{field:p}`: each wrapped, so its own
/// `Pointer` is formatted and not the address of the borrowed field.
fn pointer_locals(variant: &Variant, template: &Template, lit: &LitStr) -> Vec<TokenStream> {
    template
        .pointers()
        .into_iter()
        .filter_map(|member| {
            let field = variant.field(member)?;
            let local = pointer_local(member, lit.span());
            let binding = &field.binding;
            Some(quote!(let #local = __mcp_errors_core::__private::Var(#binding);))
        })
        .collect()
}

/// The bounds the generated `ToolError` impl needs on field types that mention a parameter:
/// for each placeholder of `#[message]` and `#[hint]` that shows a field, the trait of its
/// spec; `Serialize` for each `#[detail]`; `RetryAfter` for the `#[retry_after]` field.
fn inferred_bounds(input: &Input, resolved: &[Resolved]) -> InferredBounds {
    let params = ParamsInScope::new(input.generics);
    let mut bounds = InferredBounds::default();
    for (variant, r) in input.variants.iter().zip(resolved) {
        let r = match r {
            Resolved::Mapped(mapped) => mapped,
            Resolved::Transparent => {
                if let Some(field) = variant.fields.first()
                    && params.intersects(&field.ty)
                {
                    bounds.insert(&field.ty, Bound::ToolError);
                }
                continue;
            }
        };
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
        if let Some(classify) = r.classify.as_ref().filter(|c| c.with.is_none()) {
            let ty = &variant.fields[classify.field].ty;
            if params.intersects(ty) {
                bounds.insert(ty, Bound::Classify);
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
    use proc_macro2::{Delimiter, TokenTree};
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

    /// The `impl` items of `tokens`, at any depth but inside a macro call (`name! { ... }`,
    /// whose `impl` is the macro's input), each with whether `#[automatically_derived]`
    /// stands right before it.
    fn impls(tokens: TokenStream, out: &mut Vec<(String, bool)>) {
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        let punct =
            |token: &TokenTree, c: char| matches!(token, TokenTree::Punct(p) if p.as_char() == c);
        for (i, token) in tokens.iter().enumerate() {
            let before = &tokens[..i];
            match token {
                TokenTree::Ident(ident) if ident == "impl" => {
                    let marked = match before {
                        [.., hash, TokenTree::Group(attr)] => {
                            punct(hash, '#') && attr.stream().to_string() == "automatically_derived"
                        }
                        _ => false,
                    };
                    let body = |t: &&TokenTree| matches!(t, TokenTree::Group(g) if g.delimiter() == Delimiter::Brace);
                    let head: TokenStream = tokens[i..]
                        .iter()
                        .take_while(|t| !body(t))
                        .cloned()
                        .collect();
                    out.push((head.to_string(), marked));
                }
                TokenTree::Group(group) if !before.last().is_some_and(|t| punct(t, '!')) => {
                    impls(group.stream(), out);
                }
                _ => {}
            }
        }
    }

    /// Every impl the derive writes, real or stub, is marked `#[automatically_derived]`, so
    /// lints and coverage tools treat it as generated code.
    #[test]
    fn every_impl_is_automatically_derived() {
        let valid: DeriveInput = parse_quote! {
            #[category(validation)]
            enum E<K> {
                #[error("a")]
                A { #[detail] k: K, #[sensitive] secret: String },
            }
        };
        let broken: DeriveInput = parse_quote! {
            #[error("s")]
            #[category(transiant)]
            struct S { #[sensitive] secret: String }
        };
        for input in [valid, broken] {
            let expanded = derive(&input);
            let mut found = Vec::new();
            impls(expanded.clone(), &mut found);
            // `ToolError`, `From<_> for ToolFailure` and the redacting `Debug`.
            assert_eq!(found.len(), 3, "{expanded}");
            for (head, marked) in found {
                assert!(marked, "not #[automatically_derived]: {head}");
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
