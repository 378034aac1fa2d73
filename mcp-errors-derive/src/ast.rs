//! The intermediate form: the input as darling receives it, then each item with its parsed
//! helper attributes.

use darling::ast::{Data, Fields, Style};
use darling::{FromDeriveInput, FromField, FromVariant};
use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::spanned::Spanned;
use syn::{Attribute, DeriveInput, Generics, Ident, Member, Type};

use crate::attr::Attrs;

// darling takes the input apart: an enum or a struct (a union is refused before, with a
// message of its own), its variants, their fields and their style. Each item's attributes are
// forwarded whole and read by `Attrs::parse`, because the attribute language is not darling's:
// darling parses one attribute of named options (`#[name(key = value, flag)]`), while each of
// ours is an attribute of its own with a positional value (`#[category(validation)]`,
// `#[protocol(-32602)]`, `#[retryable(false)]`) or none (`#[mask]`), with a message of its own
// for each mistake, and thiserror's `#[error]` is read to know what `Display` shows.
// `#[tool_error(crate = "...")]` is in darling's grammar, but when darling finds an error
// `from_derive_input` returns no input at all, and no rule of any variant would run; parsed by
// hand, it is reported with every other mistake of the input.
#[derive(FromDeriveInput)]
#[darling(supports(enum_any, struct_any), forward_attrs)]
struct InputReceiver {
    ident: Ident,
    attrs: Vec<Attribute>,
    data: Data<VariantReceiver, FieldReceiver>,
}

#[derive(FromVariant)]
#[darling(forward_attrs)]
struct VariantReceiver {
    ident: Ident,
    attrs: Vec<Attribute>,
    fields: Fields<FieldReceiver>,
}

#[derive(FromField)]
#[darling(forward_attrs)]
struct FieldReceiver {
    ident: Option<Ident>,
    ty: Type,
    attrs: Vec<Attribute>,
}

/// The derive's input, parsed.
pub struct Input<'a> {
    pub ident: Ident,
    pub generics: &'a Generics,
    /// An enum's own attributes (defaults for all variants); empty for a struct, whose
    /// attributes are those of its single variant.
    pub container: Attrs,
    pub is_enum: bool,
    pub variants: Vec<Variant>,
}

/// One variant (or the struct itself).
pub struct Variant {
    pub ident: Ident,
    /// Whether it is an enum's variant, named `Self::Name`, or the struct itself, `Self`.
    pub in_enum: bool,
    pub style: Style,
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
        let InputReceiver { ident, attrs, data } = InputReceiver::from_derive_input(input)?;
        let (container, is_enum, variants) = match data {
            Data::Enum(variants) => {
                let container = Attrs::parse(attrs, errors);
                let variants = variants
                    .into_iter()
                    .map(|variant| {
                        Variant::new(variant.ident, true, variant.attrs, variant.fields, errors)
                    })
                    .collect();
                (container, true, variants)
            }
            Data::Struct(fields) => {
                let variant = Variant::new(ident.clone(), false, attrs, fields, errors);
                (Attrs::default(), false, vec![variant])
            }
        };
        Ok(Input {
            ident,
            generics: &input.generics,
            container,
            is_enum,
            variants,
        })
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
        in_enum: bool,
        attrs: Vec<Attribute>,
        fields: Fields<FieldReceiver>,
        errors: &mut darling::error::Accumulator,
    ) -> Variant {
        let attrs = Attrs::parse(attrs, errors);
        let style = fields.style;
        let fields = fields
            .fields
            .into_iter()
            .enumerate()
            .map(|(index, field)| Field::new(index, field, errors))
            .collect();
        Variant {
            ident,
            in_enum,
            style,
            attrs,
            fields,
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
    fn new(index: usize, field: FieldReceiver, errors: &mut darling::error::Accumulator) -> Field {
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
            attrs: Attrs::parse(field.attrs, errors),
            span,
        }
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
