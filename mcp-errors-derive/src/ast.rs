//! The intermediate form: the input as darling receives it, then each item with its parsed
//! helper attributes.

use darling::ast::Style;
use darling::util::Ignored;
use darling::{FromDeriveInput, FromVariant};
use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::spanned::Spanned;
use syn::{DeriveInput, Generics, Ident, Member, Type};

use crate::attr::Attrs;

// The receivers take the input's shape (and check it is an enum or a struct) and its
// variants' names. Each item's attributes and each variant's fields are borrowed from the
// parsed input, in the same order, rather than copied (`Attrs::parse` reads ours, and
// thiserror's `error`, by name, from the one list in `symbol.rs`); a variant receiver without
// `darling::ast::Fields` also spares the span of its whole field list, which is not used.
#[derive(FromDeriveInput)]
#[darling(supports(enum_any, struct_any))]
struct InputReceiver {
    ident: Ident,
    data: darling::ast::Data<VariantReceiver, Ignored>,
}

#[derive(FromVariant)]
struct VariantReceiver {
    ident: Ident,
}

/// The derive's input, parsed.
pub struct Input<'a> {
    pub ident: Ident,
    pub generics: &'a Generics,
    /// An enum's own attributes (defaults for all variants); empty for a struct, whose
    /// attributes are those of its single variant.
    pub container: Attrs<'a>,
    pub is_enum: bool,
    pub variants: Vec<Variant<'a>>,
}

/// One variant (or the struct itself).
pub struct Variant<'a> {
    pub ident: Ident,
    /// Whether it is an enum's variant, named `Self::Name`, or the struct itself, `Self`.
    pub in_enum: bool,
    pub style: Style,
    pub attrs: Attrs<'a>,
    pub fields: Vec<Field<'a>>,
}

/// One field of a variant.
pub struct Field<'a> {
    pub member: Member,
    /// The local a pattern binds the field to (`fmt::local`): `__field_name`, or `__field_0`
    /// for a tuple field.
    pub binding: Ident,
    pub ty: &'a Type,
    pub attrs: Attrs<'a>,
    pub span: Span,
}

impl<'a> Input<'a> {
    /// Parses `input`, collecting every malformed attribute into `errors`.
    pub fn from_syn(
        input: &'a DeriveInput,
        errors: &mut darling::error::Accumulator,
    ) -> darling::Result<Input<'a>> {
        if let syn::Data::Union(data) = &input.data {
            return Err(darling::Error::custom(
                "`ToolError` cannot be derived for a union: derive it for an enum of \
                 failures, or for a struct that is a single failure",
            )
            .with_span(&data.union_token));
        }
        let receiver = InputReceiver::from_derive_input(input)?;
        match (receiver.data, &input.data) {
            (darling::ast::Data::Enum(variants), syn::Data::Enum(data)) => {
                let container = Attrs::parse(&input.attrs, errors);
                let variants = variants
                    .into_iter()
                    .zip(&data.variants)
                    .map(|(variant, syn_variant)| Variant {
                        ident: variant.ident,
                        in_enum: true,
                        style: Style::from(&syn_variant.fields),
                        attrs: Attrs::parse(&syn_variant.attrs, errors),
                        fields: Field::all(&syn_variant.fields, errors),
                    })
                    .collect();
                Ok(Input {
                    ident: receiver.ident,
                    generics: &input.generics,
                    container,
                    is_enum: true,
                    variants,
                })
            }
            (darling::ast::Data::Struct(_), syn::Data::Struct(data)) => {
                let variant = Variant {
                    ident: receiver.ident.clone(),
                    in_enum: false,
                    style: Style::from(&data.fields),
                    attrs: Attrs::parse(&input.attrs, errors),
                    fields: Field::all(&data.fields, errors),
                };
                Ok(Input {
                    ident: receiver.ident,
                    generics: &input.generics,
                    container: Attrs::default(),
                    is_enum: false,
                    variants: vec![variant],
                })
            }
            _ => unreachable!("darling receives the input in the shape syn parsed it"),
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

impl Variant<'_> {
    /// The field a format string or rule names; a template names `r#type` as `type`.
    pub fn field(&self, member: &Member) -> Option<&Field<'_>> {
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

impl<'a> Field<'a> {
    fn all(fields: &'a syn::Fields, errors: &mut darling::error::Accumulator) -> Vec<Field<'a>> {
        fields
            .iter()
            .enumerate()
            .map(|(index, syn_field)| {
                let span = syn_field
                    .ident
                    .as_ref()
                    .map_or_else(|| syn_field.ty.span(), Ident::span);
                let member = match &syn_field.ident {
                    Some(ident) => Member::Named(ident.clone()),
                    None => Member::Unnamed(syn::Index {
                        index: index as u32,
                        span,
                    }),
                };
                let binding = crate::fmt::local(&member, span);
                Field {
                    member,
                    binding,
                    ty: &syn_field.ty,
                    attrs: Attrs::parse(&syn_field.attrs, errors),
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
