//! What the derive emits when the input has errors: the errors, plus impls whose bodies are
//! never reached, so the user sees their mistakes and not a cascade of "`ToolError` is not
//! implemented" at every use of the type.

use proc_macro2::TokenStream;
use quote::quote;
use syn::DeriveInput;

use crate::generics;

pub fn expand(input: &DeriveInput) -> TokenStream {
    let ident = &input.ident;
    let (impl_generics, ty_generics, _) = input.generics.split_for_impl();
    let predicates = generics::own_predicates(&input.generics);
    let self_ty = quote!(#ident #ty_generics);
    quote! {
        #[allow(unused_qualifications, clippy::all)]
        const _: () = {
            impl #impl_generics ::mcp_errors_core::ToolError for #self_ty
            where
                #(#predicates,)*
                Self: ::std::error::Error,
            {
                fn catalog() -> &'static [::mcp_errors_core::ErrorDescriptor] {
                    &[]
                }
                fn descriptor(&self) -> &'static ::mcp_errors_core::ErrorDescriptor {
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
                fn details(&self) -> ::mcp_errors_core::Details {
                    ::core::unreachable!()
                }
                fn retry_after(
                    &self,
                ) -> ::std::option::Option<::mcp_errors_core::__private::Duration> {
                    ::core::unreachable!()
                }
            }

            impl #impl_generics ::core::convert::From<#self_ty> for ::mcp_errors_core::ToolFailure
            where
                #(#predicates,)*
                #self_ty: ::mcp_errors_core::ToolError,
            {
                fn from(_: #self_ty) -> Self {
                    ::core::unreachable!()
                }
            }

            ::mcp_errors_core::__impl_rmcp! {
                impl [#impl_generics] for #self_ty where [#(#predicates,)*]
            }
        };
    }
}
