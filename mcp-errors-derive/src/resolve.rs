//! What each variant resolves to once its own attributes and the enum's defaults are read:
//! its channel, stable code, retry advice, masking, texts and the fields they show; all that
//! expand.rs needs. The rules are `valid.rs`'s, called here in the order their errors are
//! reported; what is resolved from an input that breaks one is never expanded.

use crate::ast::{Input, Variant};
use crate::attr::{Attrs, Display};
use crate::case::upper_snake;
use crate::category::Category;
use crate::codes::{self, ProtocolCode};
use crate::fmt::{Arg, FormatTrait, Template};
use crate::symbol::*;
use crate::valid::{self, DisplayReader, Errors};

/// What one variant resolves to.
pub enum Resolved {
    /// `#[transparent]`: the one field's `ToolError` decides everything.
    Transparent,
    /// A variant mapped to a channel of its own (or through the enum's default).
    Mapped(Box<Mapped>),
}

impl Resolved {
    /// The mapping of a variant that is not `#[transparent]`.
    pub fn mapped(&self) -> Option<&Mapped> {
        match self {
            Resolved::Transparent => None,
            Resolved::Mapped(mapped) => Some(mapped),
        }
    }
}

/// A variant with a mapping: what its descriptor, texts, details and retry advice are made of.
pub struct Mapped {
    pub code: String,
    pub channel: Channel,
    /// `#[retryable]` or `#[retryable(false)]` as written on the variant or the enum; `None`
    /// leaves the category's default, which the core decides.
    pub retryable: Option<bool>,
    /// `#[mask]` (`true`) or `#[expose]` (`false`) on the variant or the enum; `None` leaves
    /// the channel's default, which the core decides.
    pub masked: Option<bool>,
    pub message: Option<Template>,
    pub hint: Option<Template>,
    pub retry_after: Option<RetryAfter>,
    /// The `#[classify]` field, whose value decides the category at run time.
    pub classify: Option<Classified>,
    /// Indices into the variant's fields, in declaration order.
    pub details: Vec<usize>,
    /// The warning a default code from generic words gets (see
    /// [`valid::generic_default_code`]).
    pub generic_code: Option<String>,
    /// The fields a text the model reads shows (`#[message]`, `#[hint]`, or `Display` when
    /// there is no `#[message]`), in declaration order; none when the variant is masked. The
    /// generated code checks that none is a `ToolError`, which only the type checker knows.
    pub shown_to_model: Vec<usize>,
}

impl Mapped {
    /// Whether the model never reads the variant's `Display`: a variant classified at run time
    /// without `#[mask]` or `#[expose]` shows its `#[message]` or its category's sentence.
    pub fn hides_display(&self) -> bool {
        self.classify.is_some() && self.masked.is_none()
    }
}

/// The `#[retry_after]` field of a variant.
pub struct RetryAfter {
    /// Index into the variant's fields.
    pub field: usize,
    /// When the variant's retryability is its category's default, only the core knows it:
    /// the message of the compile-time assertion that the variant is retryable.
    pub assert_retryable: Option<String>,
}

/// The `#[classify]` field of a variant.
pub struct Classified {
    /// Index into the variant's fields.
    pub field: usize,
    /// `#[classify(with = path)]`: the function that classifies the field.
    pub with: Option<syn::Path>,
}

/// Where a variant goes: an execution error of a category, or a JSON-RPC error.
#[derive(Clone, Copy, PartialEq)]
pub enum Channel {
    Execution(Category),
    Protocol(ProtocolCode),
}

impl Channel {
    /// Whether the model sees only a generic message when neither `#[mask]` nor `#[expose]`
    /// is written: the `internal` category and the protocol code -32603. Mirrors
    /// `masked_by_default` of `mcp_errors_core::Category` and of its `ErrorCode`, which
    /// decide what the generated code does; the derive needs it only to know whether the
    /// model reads `Display`.
    pub fn masked_by_default(self) -> bool {
        match self {
            Channel::Execution(category) => category == Category::Internal,
            Channel::Protocol(code) => code.0 == codes::INTERNAL_ERROR.code,
        }
    }
}

/// Resolves every variant of `input`, checking every rule on the way; the result is
/// meaningful only when no error was pushed.
pub fn resolve(input: &Input, errors: &mut Errors) -> Vec<Resolved> {
    if input.is_enum {
        valid::check_placement(&input.container, &ON_CONTAINER, "the enum", errors);
        valid::check_container_channel(&input.container, errors);
    }
    let resolved: Vec<Resolved> = input
        .variants
        .iter()
        .map(|variant| resolve_variant(input, variant, errors))
        .collect();
    let codes: Vec<Option<&str>> = resolved
        .iter()
        .map(|r| r.mapped().map(|mapped| mapped.code.as_str()))
        .collect();
    valid::check_unique_codes(input, &codes, errors);
    if input.is_enum {
        valid::check_enum_mask_reaches_variants(input, errors);
    }
    resolved
}

fn resolve_variant(input: &Input, variant: &Variant, errors: &mut Errors) -> Resolved {
    let (place, allowed): (_, &[&str]) = if input.is_enum {
        ("a variant", &ON_VARIANT)
    } else {
        ("the struct", &ON_STRUCT)
    };
    valid::check_placement(&variant.attrs, allowed, place, errors);
    for field in &variant.fields {
        valid::check_placement(&field.attrs, &ON_FIELD, "a field", errors);
        valid::check_field_flags(field, errors);
    }
    valid::check_mask_expose(&variant.attrs, errors);
    if variant.attrs.transparent.is_some() {
        valid::check_transparent(variant, errors);
        return Resolved::Transparent;
    }

    let channel = resolve_channel(input, variant, errors);
    let classify = valid::check_classify(variant, matches!(channel, Channel::Protocol(_)), errors)
        .map(|field| Classified {
            field,
            with: variant.fields[field]
                .attrs
                .classify
                .as_ref()
                .and_then(|classify| classify.value.clone()),
        });
    let retryable = resolve_retryable(input, variant);
    let masked = resolve_masked(input, variant);
    let code = resolve_code(variant, errors);
    let generic_code = valid::generic_default_code(variant, &code);
    let message = variant
        .attrs
        .message
        .as_ref()
        .and_then(|lit| valid::check_template(variant, lit, MESSAGE, errors));
    let hint = variant
        .attrs
        .hint
        .as_ref()
        .and_then(|lit| valid::check_template(variant, lit, HINT, errors));
    let retry_after = resolve_retry_after(variant, retryable, channel, classify.is_some(), errors);
    // A variant classified at run time is masked or shown as its value says, unless written;
    // shown, it shows its `#[message]` (or its category's sentence), never its `Display`,
    // which is logged.
    let (maybe_masked, maybe_shown) = match masked {
        Some(masked) => (masked, !masked),
        None if classify.is_some() => (true, true),
        None => {
            let masked = channel.masked_by_default();
            (masked, !masked)
        }
    };
    let display_shown = maybe_shown && !(classify.is_some() && masked.is_none());
    if maybe_masked {
        valid::check_display_hides_sensitive(variant, DisplayReader::Log, errors);
    }
    if display_shown && variant.attrs.message.is_none() {
        valid::check_display_hides_sensitive(variant, DisplayReader::Model, errors);
    }
    if let Channel::Protocol(_) = channel {
        valid::check_protocol_detail_keys(variant, errors);
    }
    let details = (0..variant.fields.len())
        .filter(|&i| variant.fields[i].attrs.detail.is_some())
        .collect();
    let shown_to_model = if maybe_shown {
        shown_to_model(variant, message.as_ref(), hint.as_ref(), display_shown)
    } else {
        Vec::new()
    };
    Resolved::Mapped(Box::new(Mapped {
        code,
        channel,
        retryable,
        masked,
        message,
        hint,
        retry_after,
        classify,
        details,
        generic_code,
        shown_to_model,
    }))
}

/// The fields the model reads of an unmasked variant: those that `#[message]` (or `Display`
/// without one, when `display_shown`) and `#[hint]` show, the fields `Display` shows for a `{self}` and every field
/// for a `{self:?}`. Widths and precisions are `usize`s, not shown values.
fn shown_to_model(
    variant: &Variant,
    message: Option<&Template>,
    hint: Option<&Template>,
    display_shown: bool,
) -> Vec<usize> {
    let display = match variant.attrs.display() {
        Some(Display::Format(lit)) => Template::parse(&lit).ok(),
        _ => None,
    };
    let display_fields = || -> Vec<usize> {
        match (variant.attrs.display(), &display) {
            (Some(Display::Format(_)), Some(template)) => template
                .placeholders
                .iter()
                .filter_map(|placeholder| match &placeholder.shown {
                    Arg::Field(member) => variant.field_index(member),
                    Arg::SelfValue => None,
                })
                .collect(),
            (Some(Display::Transparent(_)), _) if variant.fields.len() == 1 => vec![0],
            // A `Display` the derive cannot read: what it shows is unknown.
            _ => Vec::new(),
        }
    };
    let read = match message {
        Some(message) => Some(message),
        None if variant.attrs.message.is_none() => None,
        // A `#[message]` that failed its checks was reported.
        None => return Vec::new(),
    };
    let mut shown = if read.is_none() && display_shown {
        display_fields()
    } else {
        Vec::new()
    };
    for template in read.into_iter().chain(hint) {
        for placeholder in &template.placeholders {
            match (&placeholder.shown, placeholder.format_trait) {
                (Arg::Field(member), _) => shown.extend(variant.field_index(member)),
                (Arg::SelfValue, FormatTrait::Debug) => shown.extend(0..variant.fields.len()),
                (Arg::SelfValue, _) => shown.extend(display_fields()),
            }
        }
    }
    shown.sort_unstable();
    shown.dedup();
    shown
}

/// The variant's channel: its own `#[category]` or `#[protocol]`, else the enum's.
fn resolve_channel(input: &Input, variant: &Variant, errors: &mut Errors) -> Channel {
    let attrs = &variant.attrs;
    valid::check_one_channel(variant, errors);
    // A variant's own mapping wins over the enum's default.
    let (category, protocol) = match (&attrs.category, &attrs.protocol) {
        (None, None) => (&input.container.category, &input.container.protocol),
        own => own,
    };
    // The enum's default was checked with the enum.
    if let Some(protocol) = protocol {
        let code = if attrs.protocol.is_some() {
            valid::check_protocol_code(protocol.value, protocol.span, errors)
        } else {
            i32::try_from(protocol.value).ok().map(ProtocolCode)
        };
        return Channel::Protocol(code.unwrap_or(ProtocolCode(codes::INTERNAL_ERROR.code)));
    }
    if let Some(category) = category {
        let known = if attrs.category.is_some() {
            valid::check_category_name(category.value.ident.span(), &category.value.name, errors)
        } else {
            Category::from_name(&category.value.name)
        };
        return Channel::Execution(known.unwrap_or(Category::Internal));
    }
    // Classified at run time, a variant without a category falls back to `internal`.
    if !variant
        .fields
        .iter()
        .any(|field| field.attrs.classify.is_some())
    {
        valid::check_mapped(input, variant, errors);
    }
    Channel::Execution(Category::Internal)
}

/// `#[retryable]` as written for a variant, or on the enum; `None` leaves the category's
/// default, or on a protocol variant gives no retry advice.
fn resolve_retryable(input: &Input, variant: &Variant) -> Option<bool> {
    variant
        .attrs
        .retryable
        .as_ref()
        .or(input.container.retryable.as_ref())
        .map(|retryable| retryable.value)
}

/// `#[mask]` or `#[expose]` as written for a variant; `None` leaves the channel's default.
fn resolve_masked(input: &Input, variant: &Variant) -> Option<bool> {
    let explicit = |attrs: &Attrs| match (attrs.mask, attrs.expose) {
        (Some(_), _) => Some(true),
        (None, Some(_)) => Some(false),
        (None, None) => None,
    };
    explicit(&variant.attrs).or_else(|| explicit(&input.container))
}

/// `#[code("...")]`, or the variant's name in UPPER_SNAKE_CASE.
fn resolve_code(variant: &Variant, errors: &mut Errors) -> String {
    match &variant.attrs.code {
        Some(lit) => {
            valid::check_code(lit, errors);
            lit.value()
        }
        None => {
            let code = upper_snake(&variant.ident.to_string());
            valid::check_default_code(variant, &code, errors);
            code
        }
    }
}

/// The first `#[retry_after]` field. When the variant takes its category's retryability,
/// whether it is retryable is known to the core only, so that rule becomes an assertion in
/// the generated code; a variant classified at run time uses the wait when its value makes it
/// retryable.
fn resolve_retry_after(
    variant: &Variant,
    retryable: Option<bool>,
    channel: Channel,
    classified: bool,
    errors: &mut Errors,
) -> Option<RetryAfter> {
    let is_protocol = matches!(channel, Channel::Protocol(_));
    valid::check_retry_after(variant, retryable, is_protocol, errors);
    let field = variant
        .fields
        .iter()
        .position(|field| field.attrs.retry_after.is_some())?;
    let assert_retryable = (!is_protocol && retryable.is_none() && !classified)
        .then(|| valid::retry_after_not_retryable(variant, "not retryable"));
    Some(RetryAfter {
        field,
        assert_retryable,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masked_by_default_are_internal_and_internal_error() {
        assert!(Channel::Execution(Category::Internal).masked_by_default());
        assert!(!Channel::Execution(Category::Transient).masked_by_default());
        assert!(Channel::Protocol(ProtocolCode(-32603)).masked_by_default());
        assert!(!Channel::Protocol(ProtocolCode(-32602)).masked_by_default());
    }
}
