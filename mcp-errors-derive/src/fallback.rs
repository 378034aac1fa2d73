//! What the derive emits when the input has errors: the errors, plus impls whose bodies are
//! never reached, so the user sees their mistakes and not a cascade of "`ToolError` is not
//! implemented" at every use of the type.

use proc_macro2::TokenStream;
use quote::quote;
use syn::DeriveInput;

use crate::generics;

/// Stub impls for `input`, importing the core from `core` as the real expansion does.
pub fn expand(input: &DeriveInput, core: &TokenStream) -> TokenStream {
    let ident = &input.ident;
    let (impl_generics, ty_generics, _) = input.generics.split_for_impl();
    let predicates = generics::own_predicates(&input.generics);
    let self_ty = quote!(#ident #ty_generics);
    let self_is_error = generics::self_is_error(&input.generics);
    let predicates_in_from = generics::own_predicates_as(&input.generics, &self_ty);
    let is_tool_error =
        generics::is_tool_error(&input.generics, &self_ty, &quote!(__mcp_errors_core))
            .map(|bound| quote!(#bound,));
    let redacted_debug =
        crate::debug::first_sensitive_in(input).map(|span| crate::debug::stub(input, span));
    quote! {
        #[allow(deprecated, unused_qualifications, clippy::all)]
        const _: () = {
            use #core as __mcp_errors_core;

            #[automatically_derived]
            impl #impl_generics __mcp_errors_core::ToolError for #self_ty
            where
                #(#predicates,)*
                #self_is_error,
            {
                fn descriptors() -> &'static [__mcp_errors_core::ErrorDescriptor] {
                    &[]
                }
                fn descriptor(&self) -> &'static __mcp_errors_core::ErrorDescriptor {
                    ::core::unreachable!()
                }
                fn message(&self) -> ::std::string::String {
                    ::core::unreachable!()
                }
                fn hint(
                    &self,
                ) -> ::std::option::Option<::std::borrow::Cow<'static, ::core::primitive::str>> {
                    ::core::unreachable!()
                }
                fn details(
                    &self,
                ) -> __mcp_errors_core::__private::Map<
                    ::std::string::String,
                    __mcp_errors_core::__private::Value,
                > {
                    ::core::unreachable!()
                }
                fn retry_after(
                    &self,
                ) -> ::std::option::Option<__mcp_errors_core::__private::Duration> {
                    ::core::unreachable!()
                }
            }

            #[automatically_derived]
            impl #impl_generics ::core::convert::From<#self_ty> for __mcp_errors_core::ToolFailure
            where
                #(#predicates_in_from,)*
                #is_tool_error
            {
                fn from(_: #self_ty) -> Self {
                    ::core::unreachable!()
                }
            }

            __mcp_errors_core::__impl_rmcp! {
                impl [#impl_generics] for #self_ty where [#(#predicates,)* #is_tool_error]
            }

            #redacted_debug
        };
    }
}
