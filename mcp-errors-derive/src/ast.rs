//! The intermediate form: the input as darling receives it, then each item with its parsed
//! helper attributes.

use darling::{FromDeriveInput, FromField, FromVariant};
use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::spanned::Spanned;
use syn::{Attribute, DeriveInput, Generics, Ident, Member, Type};

use crate::attr::Attrs;

#[derive(FromDeriveInput)]
// Every attribute is forwarded: `Attrs::parse` picks ours (and thiserror's `error`) by name,
// from the one list in `symbol.rs`.
#[darling(supports(enum_any, struct_any), forward_attrs)]
struct InputReceiver {
    ident: Ident,
    generics: Generics,
    data: darling::ast::Data<VariantReceiver, FieldReceiver>,
    attrs: Vec<Attribute>,
}

#[derive(FromVariant)]
#[darling(forward_attrs)]
struct VariantReceiver {
    ident: Ident,
    fields: darling::ast::Fields<FieldReceiver>,
    attrs: Vec<Attribute>,
}

#[derive(FromField)]
#[darling(forward_attrs)]
struct FieldReceiver {
    ident: Option<Ident>,
    ty: Type,
    attrs: Vec<Attribute>,
}

/// The derive's input, parsed.
pub struct Input {
    pub ident: Ident,
    pub generics: Generics,
    /// An enum's own attributes (defaults for all variants); empty for a struct, whose
    /// attributes are those of its single variant.
    pub container: Attrs,
    pub is_enum: bool,
    pub variants: Vec<Variant>,
}

/// One variant (or the struct itself).
pub struct Variant {
    pub ident: Ident,
    /// `Self::Name` for an enum variant, `Self` for a struct.
    pub path: TokenStream,
    pub style: darling::ast::Style,
    pub attrs: Attrs,
    pub fields: Vec<Field>,
}

/// One field of a variant.
pub struct Field {
    pub member: Member,
    /// The local a pattern binds the field to (`fmt::local`): `__field_name`, or `__field_0`
    /// for a tuple field.
    pub binding: Ident,
    pub ty: Type,
    pub attrs: Attrs,
    pub span: Span,
}

impl Input {
    /// Parses `input`, collecting every malformed attribute into `errors`.
    pub fn from_syn(
        input: &DeriveInput,
        errors: &mut darling::error::Accumulator,
    ) -> darling::Result<Input> {
        if let syn::Data::Union(data) = &input.data {
            return Err(darling::Error::custom(
                "`ToolError` cannot be derived for a union: derive it for an enum of \
                 failures, or for a struct that is a single failure",
            )
            .with_span(&data.union_token));
        }
        let receiver = InputReceiver::from_derive_input(input)?;
        let container = Attrs::parse(&receiver.attrs, errors);
        match receiver.data {
            darling::ast::Data::Enum(variants) => {
                let variants = variants
                    .into_iter()
                    .map(|variant| {
                        let ident = &variant.ident;
                        let path = quote!(Self::#ident);
                        Variant::new(
                            variant.ident.clone(),
                            path,
                            variant.fields,
                            &variant.attrs,
                            errors,
                        )
                    })
                    .collect();
                Ok(Input {
                    ident: receiver.ident,
                    generics: receiver.generics,
                    container,
                    is_enum: true,
                    variants,
                })
            }
            darling::ast::Data::Struct(fields) => {
                let variant = Variant {
                    ident: receiver.ident.clone(),
                    path: quote!(Self),
                    style: fields.style,
                    attrs: container,
                    fields: Field::all(fields, errors),
                };
                Ok(Input {
                    ident: receiver.ident,
                    generics: receiver.generics,
                    container: Attrs::default(),
                    is_enum: false,
                    variants: vec![variant],
                })
            }
        }
    }

    /// The path the generated code imports the core from: `#[tool_error(crate = "...")]` on
    /// the type, or `::mcp_errors_core`.
    pub fn core_path(&self) -> TokenStream {
        let attrs = match (self.is_enum, self.variants.first()) {
            (false, Some(variant)) => &variant.attrs,
            _ => &self.container,
        };
        match &attrs.krate {
            Some(path) => quote!(#path),
            None => quote!(::mcp_errors_core),
        }
    }
}

impl Variant {
    fn new(
        ident: Ident,
        path: TokenStream,
        fields: darling::ast::Fields<FieldReceiver>,
        attrs: &[Attribute],
        errors: &mut darling::error::Accumulator,
    ) -> Variant {
        Variant {
            ident,
            path,
            style: fields.style,
            attrs: Attrs::parse(attrs, errors),
            fields: Field::all(fields, errors),
        }
    }

    /// The field a format string or rule names; a template names `r#type` as `type`.
    pub fn field(&self, member: &Member) -> Option<&Field> {
        let key = member_key(member);
        self.fields.iter().find(|field| field.detail_key() == key)
    }

    /// The index of that field.
    pub fn field_index(&self, member: &Member) -> Option<usize> {
        let key = member_key(member);
        self.fields
            .iter()
            .position(|field| field.detail_key() == key)
    }

    /// The variant's name without `r#`, as `ErrorDescriptor::variant` gives it.
    pub fn name(&self) -> String {
        crate::fmt::unraw(&self.ident)
    }
}

impl Field {
    fn all(
        fields: darling::ast::Fields<FieldReceiver>,
        errors: &mut darling::error::Accumulator,
    ) -> Vec<Field> {
        fields
            .fields
            .into_iter()
            .enumerate()
            .map(|(index, field)| {
                let span = field
                    .ident
                    .as_ref()
                    .map_or_else(|| field.ty.span(), Ident::span);
                let member = match field.ident {
                    Some(ident) => Member::Named(ident),
                    None => Member::Unnamed(syn::Index {
                        index: index as u32,
                        span,
                    }),
                };
                let binding = crate::fmt::local(&member, span);
                Field {
                    member,
                    binding,
                    ty: field.ty,
                    attrs: Attrs::parse(&field.attrs, errors),
                    span,
                }
            })
            .collect()
    }

    /// The field's name in `details`: its name without `r#`, or its index for a tuple field.
    pub fn detail_key(&self) -> String {
        member_key(&self.member)
    }
}

/// A field's name without `r#`, or its index.
pub fn member_key(member: &Member) -> String {
    match member {
        Member::Named(ident) => crate::fmt::unraw(ident),
        Member::Unnamed(index) => index.index.to_string(),
    }
}
