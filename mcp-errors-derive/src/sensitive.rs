//! The sensitive-field analysis: where a text shows a `#[sensitive]` field, and the message
//! for each way it does, by who reads the text.

use syn::Member;

use crate::ast::{Field, Variant};
use crate::fmt::{Arg, FormatTrait, Template};

/// A way a template shows a `#[sensitive]` field.
pub enum Leak<'a> {
    /// `{password}`.
    Shown(&'a Field),
    /// `{user:>pin$}`, `{x:.pin$}`: its value as a width or precision.
    Count(&'a Field),
    /// `{self}` or `{self:?}`, as written, in a variant that has this sensitive field.
    WholeValue(&'static str, &'a Field),
}

impl Leak<'_> {
    fn same_as(&self, other: &Leak<'_>) -> bool {
        match (self, other) {
            (Leak::Shown(a), Leak::Shown(b)) | (Leak::Count(a), Leak::Count(b)) => {
                a.detail_key() == b.detail_key()
            }
            (Leak::WholeValue(a, _), Leak::WholeValue(b, _)) => a == b,
            _ => false,
        }
    }
}

/// Rule: no placeholder of a template shows a `#[sensitive]` field, whole or as a width or
/// precision, and none shows the whole value of a variant that has one. One rule for
/// `#[message]`, `#[hint]` and a `#[error]` the model reads. Each leak once, in order.
pub fn sensitive_uses<'a>(variant: &'a Variant, template: &Template) -> Vec<Leak<'a>> {
    let sensitive = |member: &Member| {
        variant
            .field(member)
            .filter(|field| field.attrs.sensitive.is_some())
    };
    let mut leaks = Vec::new();
    for placeholder in &template.placeholders {
        match &placeholder.shown {
            Arg::Field(member) => leaks.extend(sensitive(member).map(Leak::Shown)),
            Arg::SelfValue => {
                let written = match placeholder.format_trait {
                    FormatTrait::Debug => "{self:?}",
                    _ => "{self}",
                };
                let first = variant.fields.iter().find(|f| f.attrs.sensitive.is_some());
                leaks.extend(first.map(|field| Leak::WholeValue(written, field)));
            }
        }
        leaks.extend(
            placeholder
                .counts
                .iter()
                .filter_map(sensitive)
                .map(Leak::Count),
        );
    }
    let mut unique: Vec<Leak<'a>> = Vec::with_capacity(leaks.len());
    for leak in leaks {
        if !unique.iter().any(|seen| seen.same_as(&leak)) {
            unique.push(leak);
        }
    }
    unique
}

impl Leak<'_> {
    /// The message for `#[message]` or `#[hint]`.
    pub fn in_template(&self, attr: &str, variant: &Variant) -> String {
        match self {
            Leak::Shown(field) => format!(
                "`#[{attr}]` interpolates `{{{}}}`, a `#[sensitive]` field, which would reach \
                 the model: leave it out of the text",
                field.detail_key()
            ),
            Leak::Count(field) => format!(
                "`#[{attr}]` uses `{}$`, a `#[sensitive]` field, as a width or precision, which \
                 would reveal its value to the model: write a number instead, as in `{{x:>8}}`, \
                 or a field that is not `#[sensitive]`",
                field.detail_key()
            ),
            Leak::WholeValue(written, field) => format!(
                "`#[{attr}]` shows `{written}`, the whole value, and `{}` has the `#[sensitive]` \
                 field `{}`, which would reach the model: name the fields to show instead, as \
                 in `{{{}}}`",
                variant.ident,
                field.detail_key(),
                shown_example(variant)
            ),
        }
    }

    /// The message for thiserror's `#[error]` when the model reads `Display`. Masking the
    /// variant is no way out: a masked variant's `Display` is logged, and must not show the
    /// field either.
    pub fn in_display(&self, variant: &Variant) -> String {
        match self {
            Leak::Shown(field) => format!(
                "the model reads `Display` of `{}`, and it shows the `#[sensitive]` field `{}`: \
                 add `#[message(\"...\")]` without it, or leave `{{{}}}` out of \
                 `#[error(\"...\")]`",
                variant.ident,
                field.detail_key(),
                field.detail_key()
            ),
            Leak::Count(field) => format!(
                "the model reads `Display` of `{}`, and it uses the `#[sensitive]` field `{}` as \
                 a width or precision, which reveals its value: write a number instead, as in \
                 `{{x:>8}}`, or add `#[message(\"...\")]` without it",
                variant.ident,
                field.detail_key()
            ),
            Leak::WholeValue(written, field) => format!(
                "the model reads `Display` of `{}`, and it shows `{written}`, the whole value \
                 with the `#[sensitive]` field `{}`: add `#[message(\"...\")]` that names the \
                 fields to show, as in `{{{}}}`",
                variant.ident,
                field.detail_key(),
                shown_example(variant)
            ),
        }
    }

    /// The message for thiserror's `#[error]` of a masked variant, whose `Display` is logged.
    pub fn in_log(&self, variant: &Variant) -> String {
        let prefix = format!("`{}` is masked, so its `Display` is logged", variant.ident);
        match self {
            Leak::Shown(field) => format!(
                "{prefix}, and it shows the `#[sensitive]` field `{}`, which must not reach the \
                 log either: leave `{{{}}}` out of `#[error(\"...\")]`",
                field.detail_key(),
                field.detail_key()
            ),
            Leak::Count(field) => format!(
                "{prefix}, and it uses the `#[sensitive]` field `{}` as a width or precision, \
                 which reveals its value in the log: write a number instead, as in `{{x:>8}}`",
                field.detail_key()
            ),
            Leak::WholeValue(written, field) => format!(
                "{prefix}, and it shows `{written}`, the whole value with the `#[sensitive]` \
                 field `{}`, which must not reach the log either: name the fields to show \
                 instead, as in `{{{}}}`",
                field.detail_key(),
                shown_example(variant)
            ),
        }
    }
}

/// A field the text may show, for a message's example: the first that is not sensitive.
fn shown_example(variant: &Variant) -> String {
    variant
        .fields
        .iter()
        .find(|field| field.attrs.sensitive.is_none())
        .map_or_else(|| "field".to_owned(), Field::detail_key)
}

#[cfg(test)]
mod tests {
    use proc_macro2::Span;
    use syn::LitStr;

    use super::*;
    use crate::ast::Input;

    #[test]
    fn one_rule_finds_every_sensitive_use_once() {
        let input: syn::DeriveInput = syn::parse_quote! {
            enum E { V { user: String, #[sensitive] r#pin: usize } }
        };
        let mut errors = darling::Error::accumulator();
        let input = Input::from_syn(&input, &mut errors).unwrap();
        errors.finish().unwrap();
        let lit = LitStr::new(
            "{pin} {user:>pin$} {pin} {user:.pin$} {self:?} {user}",
            Span::call_site(),
        );
        let template = Template::parse(&lit).unwrap();
        let variant = &input.variants[0];
        let leaks: Vec<String> = sensitive_uses(variant, &template)
            .iter()
            .map(|leak| leak.in_template("hint", variant))
            .collect();
        assert_eq!(leaks.len(), 3, "{leaks:#?}");
        assert!(leaks[0].starts_with("`#[hint]` interpolates `{pin}`"));
        assert!(leaks[1].starts_with("`#[hint]` uses `pin$`"));
        assert!(leaks[2].starts_with("`#[hint]` shows `{self:?}`"));
        assert!(leaks[2].ends_with("as in `{user}`"));
    }
}
