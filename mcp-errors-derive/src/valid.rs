//! The compile-time rules. Each rule is a function with a literal message that says what
//! is wrong and what to write instead; all errors of an input are reported at once.

use proc_macro2::Span;
use syn::{LitStr, Member};

use crate::ast::{Field, Input, Variant};
use crate::attr::{Attrs, Display};
use crate::category::Category;
use crate::codes::{self, ProtocolCode};
use crate::fmt::{Arg, FormatTrait, Template};
use crate::suggest::did_you_mean;
use crate::symbol::*;

/// What the rules conclude about one variant; everything expand.rs needs.
pub struct Resolved {
    /// `#[transparent]`: everything comes from the one field's `ToolError`, and the fields
    /// below are unused.
    pub transparent: bool,
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
    /// Indices into the variant's fields, in declaration order.
    pub details: Vec<usize>,
    /// The fields a text the model reads shows (`#[message]`, `#[hint]`, or `Display` when
    /// there is no `#[message]`), in declaration order; none when the variant is masked. The
    /// generated code checks that none is a `ToolError`, which only the type checker knows.
    pub shown_to_model: Vec<usize>,
}

/// The `#[retry_after]` field of a variant.
pub struct RetryAfter {
    /// Index into the variant's fields.
    pub field: usize,
    /// When the variant's retryability is its category's default, only the core knows it:
    /// the message of the compile-time assertion that the variant is retryable.
    pub assert_retryable: Option<String>,
}

/// Where a variant goes: a tool-execution error of a category, or a JSON-RPC error.
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

type Errors = darling::error::Accumulator;

fn error(span: Span, message: impl std::fmt::Display) -> darling::Error {
    darling::Error::custom(message).with_span(&span)
}

/// Checks every rule on `input`, returning the resolved variants (meaningful only when no
/// error was pushed).
pub fn check(input: &Input, errors: &mut Errors) -> Vec<Resolved> {
    if input.is_enum {
        check_placement(&input.container, &ON_CONTAINER, "the enum", errors);
        check_container_channel(&input.container, errors);
    }
    let resolved: Vec<Resolved> = input
        .variants
        .iter()
        .map(|variant| check_variant(input, variant, errors))
        .collect();
    check_unique_codes(input, &resolved, errors);
    if input.is_enum {
        check_enum_mask_reaches_variants(input, errors);
    }
    resolved
}

/// Rule: `#[mask]` on the enum masks every variant it reaches, and it does not reach a
/// `#[transparent]` variant, whose masking is the wrapped error's; a type that reads as all
/// masked must be.
fn check_enum_mask_reaches_variants(input: &Input, errors: &mut Errors) {
    let Some(mask) = input.container.mask else {
        return;
    };
    for variant in &input.variants {
        if variant.attrs.transparent.is_none() {
            continue;
        }
        let wrapped = match variant.fields.first().map(|field| field.ty) {
            Some(syn::Type::Path(ty)) if ty.qself.is_none() => {
                let ty = &ty.path;
                format!("`{}`", quote::quote!(#ty).to_string().replace(' ', ""))
            }
            _ => "the error it wraps".to_owned(),
        };
        errors.push(error(
            mask,
            format!(
                "`#[mask]` on the enum does not reach `{}`, which is `#[transparent]`: {wrapped} \
                 decides its masking; `#[mask]` the variants of {wrapped}, or drop \
                 `#[transparent]` and map `{}` with its own `#[category(...)]`",
                variant.ident, variant.ident
            ),
        ));
    }
}

fn check_variant(input: &Input, variant: &Variant, errors: &mut Errors) -> Resolved {
    let (place, allowed): (_, &[&str]) = if input.is_enum {
        ("a variant", &ON_VARIANT)
    } else {
        ("the struct", &ON_STRUCT)
    };
    check_placement(&variant.attrs, allowed, place, errors);
    for field in &variant.fields {
        check_placement(&field.attrs, &ON_FIELD, "a field", errors);
        check_field_flags(field, errors);
    }
    check_mask_expose(&variant.attrs, errors);
    if variant.attrs.transparent.is_some() {
        check_transparent(variant, errors);
        return Resolved::transparent();
    }

    let channel = resolve_channel(input, variant, errors);
    let retryable = resolve_retryable(input, variant, channel, errors);
    let masked = resolve_masked(input, variant);
    let code = resolve_code(variant, errors);
    let message = variant
        .attrs
        .message
        .as_ref()
        .and_then(|lit| check_template(variant, lit, MESSAGE, errors));
    let hint = variant
        .attrs
        .hint
        .as_ref()
        .and_then(|lit| check_template(variant, lit, HINT, errors));
    let retry_after = check_retry_after(variant, retryable, channel, errors);
    if masked.unwrap_or(channel.masked_by_default()) {
        check_display_hides_sensitive(variant, DisplayReader::Log, errors);
    } else if variant.attrs.message.is_none() {
        check_display_hides_sensitive(variant, DisplayReader::Model, errors);
    }
    if let Channel::Protocol(_) = channel {
        check_protocol_detail_keys(variant, errors);
    }
    let details = (0..variant.fields.len())
        .filter(|&i| variant.fields[i].attrs.detail.is_some())
        .collect();
    let shown_to_model = if masked.unwrap_or(channel.masked_by_default()) {
        Vec::new()
    } else {
        shown_to_model(variant, message.as_ref(), hint.as_ref())
    };
    Resolved {
        transparent: false,
        code,
        channel,
        retryable,
        masked,
        message,
        hint,
        retry_after,
        details,
        shown_to_model,
    }
}

/// The fields the model reads of an unmasked variant: those that `#[message]` (or `Display`
/// without one) and `#[hint]` show, the fields `Display` shows for a `{self}` and every field
/// for a `{self:?}`. Widths and precisions are `usize`s, not shown values.
fn shown_to_model(
    variant: &Variant,
    message: Option<&Template>,
    hint: Option<&Template>,
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
    let mut shown = if read.is_none() {
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

impl Resolved {
    /// A `#[transparent]` variant: nothing of its own.
    fn transparent() -> Resolved {
        Resolved {
            transparent: true,
            code: String::new(),
            channel: Channel::Execution(Category::Internal),
            retryable: None,
            masked: None,
            message: None,
            hint: None,
            retry_after: None,
            details: Vec::new(),
            shown_to_model: Vec::new(),
        }
    }
}

/// Rules of `#[transparent]`: it wraps exactly one field, and nothing else is said of the
/// variant or its field, since the wrapped error decides it all.
fn check_transparent(variant: &Variant, errors: &mut Errors) {
    let span = variant
        .attrs
        .transparent
        .unwrap_or_else(|| variant.ident.span());
    if variant.fields.len() != 1 {
        let has = match variant.fields.len() {
            0 => "no field".to_owned(),
            n => format!("{n} fields"),
        };
        errors.push(error(
            span,
            format!(
                "`#[transparent]` forwards everything to the one error `{}` wraps, but it has \
                 {has}: wrap exactly one field whose type implements `ToolError`, as in \
                 `Store(StoreError)`",
                variant.ident
            ),
        ));
    }
    let said = variant.attrs.seen.iter().chain(
        variant
            .fields
            .iter()
            .flat_map(|field| field.attrs.seen.iter()),
    );
    for (name, attr_span) in said {
        if *name == TRANSPARENT || *name == TOOL_ERROR {
            continue;
        }
        errors.push(error(
            *attr_span,
            format!(
                "`#[{name}]` has no meaning on `{}`, which is `#[transparent]`: the error it \
                 wraps decides the channel, code, retry advice, text, details and masking; \
                 drop `#[{name}]`",
                variant.ident
            ),
        ));
    }
}

/// Rule: an attribute stands where it has a meaning.
fn check_placement(attrs: &Attrs, allowed: &[&str], place: &str, errors: &mut Errors) {
    for (name, span) in &attrs.seen {
        if allowed.contains(name) {
            continue;
        }
        let belongs = if *name == TOOL_ERROR {
            "on the enum or struct itself"
        } else if ON_FIELD.contains(name) {
            "on a field of a variant"
        } else if ON_CONTAINER.contains(name) {
            "on a variant or on the enum"
        } else {
            "on a variant (or on a struct)"
        };
        errors.push(error(
            *span,
            format!("`#[{name}]` is not allowed on {place}: it belongs {belongs}"),
        ));
    }
}

/// Rule: an enum-level default is one channel.
fn check_container_channel(attrs: &Attrs, errors: &mut Errors) {
    if let Some(category) = &attrs.category {
        check_category_name(category.value.ident.span(), &category.value.name, errors);
    }
    if let (Some(_), Some(protocol)) = (&attrs.category, &attrs.protocol) {
        errors.push(error(
            protocol.span,
            "`#[category]` and `#[protocol]` cannot both be enum-wide defaults: keep the one \
             most variants need and set the other on the variants that differ",
        ));
    }
    if let Some(protocol) = &attrs.protocol {
        check_protocol_code(protocol.value, protocol.span, errors);
        if let Some(retryable) = &attrs.retryable {
            errors.push(error(
                retryable.span,
                "`#[retryable]` on the enum sets the retry advice of its tool-execution variants, \
                 but the enum's `#[protocol]` makes its variants protocol errors, which the model \
                 never retries: put `#[retryable]` on the variants that have a \
                 `#[category(...)]`, or drop it",
            ));
        }
    }
    check_mask_expose(attrs, errors);
}

/// Rule: a category name is one of the nine.
fn check_category_name(span: Span, name: &str, errors: &mut Errors) -> Option<Category> {
    if let Some(category) = Category::from_name(name) {
        return Some(category);
    }
    let names = Category::names();
    let mut message = format!("unknown category `{name}`");
    match did_you_mean(name, &names) {
        Some(best) => message.push_str(&format!("; did you mean `{best}`?")),
        None => message.push_str(&format!("; the categories are: {}", names.join(", "))),
    }
    errors.push(error(span, message));
    None
}

/// Rules: a protocol code is one a tool error can have, and one the spec defines or one
/// outside the reserved range.
fn check_protocol_code(code: i64, span: Span, errors: &mut Errors) -> Option<ProtocolCode> {
    let Ok(code32) = i32::try_from(code) else {
        errors.push(error(
            span,
            format!("protocol code {code} does not fit the 32-bit integer JSON-RPC codes are"),
        ));
        return None;
    };
    if let Some(named) = codes::by_code(code)
        && let Some(says) = named.says_of_request
    {
        errors.push(error(
            span,
            format!(
                "protocol code {code} (`{}`) says {says}, which no tool error can say: a tool \
                 runs only once its `tools/call` request was parsed, found valid and routed to \
                 it; use `#[protocol(invalid_params)]` for arguments the tool refuses, or a \
                 category such as `#[category(validation)]` for a failure the model reads",
                named.name
            ),
        ));
        return None;
    }
    if code >= 0 {
        let instead = if code > 0 && !codes::RESERVED.contains(&-code) {
            -code
        } else {
            -1
        };
        errors.push(error(
            span,
            format!(
                "protocol code {code} is not negative: JSON-RPC leaves such codes to \
                 applications, but MCP SDKs give some of them meanings of their own (the Python \
                 SDK answers a timeout with 408), so a client may misread it; use a negative \
                 application code outside -32768..=-32000, such as `#[protocol({instead})]`"
            ),
        ));
        return None;
    }
    if !codes::is_allowed(code) {
        let (reserved, own) = (&codes::RESERVED, &codes::IMPLEMENTATION_DEFINED);
        let defined: Vec<String> = codes::answerable().map(|n| n.code.to_string()).collect();
        errors.push(error(
            span,
            format!(
                "protocol code {code} is in the range {}..={} that JSON-RPC reserves, and \
                 neither JSON-RPC nor MCP defines it: use a defined code ({}), an \
                 implementation-defined one in {}..={}, or an application code outside the \
                 reserved range",
                reserved.start(),
                reserved.end(),
                defined.join(", "),
                own.start(),
                own.end(),
            ),
        ));
        return None;
    }
    Some(ProtocolCode(code32))
}

fn resolve_channel(input: &Input, variant: &Variant, errors: &mut Errors) -> Channel {
    let attrs = &variant.attrs;
    if let (Some(_), Some(protocol)) = (&attrs.category, &attrs.protocol) {
        errors.push(error(
            protocol.span,
            format!(
                "`{}` has both `#[category]` and `#[protocol]`: a failure is either a \
                 tool-execution error the model reads (`#[category]`) or a JSON-RPC error the \
                 client handles (`#[protocol]`); keep one",
                variant.ident
            ),
        ));
    }
    // A variant's own mapping wins over the enum's default.
    let (category, protocol) = match (&attrs.category, &attrs.protocol) {
        (None, None) => (&input.container.category, &input.container.protocol),
        own => own,
    };
    if let Some(protocol) = protocol {
        let code = if attrs.protocol.is_some() {
            check_protocol_code(protocol.value, protocol.span, errors)
        } else {
            i32::try_from(protocol.value).ok().map(ProtocolCode)
        };
        return Channel::Protocol(code.unwrap_or(ProtocolCode(codes::INTERNAL_ERROR.code)));
    }
    if let Some(category) = category {
        let known = if attrs.category.is_some() {
            check_category_name(category.value.ident.span(), &category.value.name, errors)
        } else {
            Category::from_name(&category.value.name)
        };
        return Channel::Execution(known.unwrap_or(Category::Internal));
    }
    // A mapping whose attribute failed to parse was already reported.
    let attempted = |attrs: &Attrs| {
        attrs
            .seen
            .iter()
            .any(|(name, _)| [CATEGORY, PROTOCOL].contains(name))
    };
    if attempted(attrs) || attempted(&input.container) {
        return Channel::Execution(Category::Internal);
    }
    let kind = if input.is_enum { "variant" } else { "struct" };
    let on_enum = if input.is_enum {
        ", or put one on the enum to cover every variant"
    } else {
        ""
    };
    errors.push(error(
        variant.ident.span(),
        format!(
            "{kind} `{}` is not mapped to a channel: add `#[category(...)]` (a tool-execution \
             error the model reads, e.g. `#[category(validation)]`) or `#[protocol(...)]` (a \
             JSON-RPC error, e.g. `#[protocol(invalid_params)]`){on_enum}",
            variant.ident
        ),
    ));
    Channel::Execution(Category::Internal)
}

/// `#[retryable]` as written for a variant; `None` leaves the category's default.
fn resolve_retryable(
    input: &Input,
    variant: &Variant,
    channel: Channel,
    errors: &mut Errors,
) -> Option<bool> {
    match channel {
        Channel::Protocol(_) => {
            if let Some(retryable) = &variant.attrs.retryable {
                let by_enum = if variant.attrs.protocol.is_none() {
                    " by the enum's `#[protocol]`"
                } else {
                    ""
                };
                errors.push(error(
                    retryable.span,
                    format!(
                        "`#[retryable]` has no meaning on `{}`, a protocol error{by_enum}: retry \
                         advice reaches the model only on tool-execution errors; map it with \
                         `#[category(...)]` instead, or drop `#[retryable]`",
                        variant.ident
                    ),
                ));
            }
            None
        }
        Channel::Execution(_) => variant
            .attrs
            .retryable
            .as_ref()
            .or(input.container.retryable.as_ref())
            .map(|retryable| retryable.value),
    }
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

/// Rule: `#[mask]` and `#[expose]` contradict each other.
fn check_mask_expose(attrs: &Attrs, errors: &mut Errors) {
    if let (Some(_), Some(expose)) = (attrs.mask, attrs.expose) {
        errors.push(error(
            expose,
            "`#[mask]` and `#[expose]` contradict each other: keep `#[mask]` to hide the \
             message behind a correlation id, or `#[expose]` to show it",
        ));
    }
}

fn resolve_code(variant: &Variant, errors: &mut Errors) -> String {
    match &variant.attrs.code {
        Some(lit) => {
            let code = lit.value();
            if let Some(problem) = code_problem(&code) {
                errors.push(error(
                    lit.span(),
                    format!(
                        "stable code \"{code}\" {problem}: a code is UPPER_SNAKE_CASE (A-Z, 0-9 \
                         and single underscores, starting with a letter), at most 63 characters, \
                         e.g. \"UNKNOWN_DEPARTMENT\""
                    ),
                ));
            }
            code
        }
        None => {
            let code = upper_snake(&variant.ident.to_string());
            if code_problem(&code).is_some() {
                errors.push(error(
                    variant.ident.span(),
                    format!(
                        "the name `{}` gives no valid stable code: set one with \
                         `#[code(\"UPPER_SNAKE_CASE\")]`",
                        variant.ident
                    ),
                ));
            }
            code
        }
    }
}

/// What is wrong with a stable code, if anything.
fn code_problem(code: &str) -> Option<&'static str> {
    if code.is_empty() {
        return Some("is empty");
    }
    if code.len() > 63 {
        return Some("is longer than 63 characters");
    }
    if !code.starts_with(|c: char| c.is_ascii_uppercase()) {
        return Some("does not start with an upper-case letter");
    }
    if !code
        .chars()
        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
    {
        return Some("holds characters other than A-Z, 0-9 and `_`");
    }
    if code.ends_with('_') || code.contains("__") {
        return Some("has a trailing or doubled underscore");
    }
    None
}

/// The default stable code of a variant named `name`: its words in UPPER_SNAKE_CASE.
///
/// A word starts at a capital that follows a lower-case letter or a digit, and at the last
/// capital of a run that a lower-case letter follows (`XMLHttpRequest` -> `XML_HTTP_REQUEST`);
/// digits stay with the word before them (`Version2Beta` -> `VERSION2_BETA`). A capital that
/// would be a word alone starts the next word (`OAuth2Expired` -> `OAUTH2_EXPIRED`, `IPv4Invalid`
/// -> `IPV4_INVALID`), except `A`, the article (`IsADirectory` -> `IS_A_DIRECTORY`). Underscores
/// are kept as written; a raw identifier loses its `r#`.
pub fn upper_snake(name: &str) -> String {
    let name = name.trim_start_matches("r#");
    let mut out = String::with_capacity(name.len() + 4);
    for (i, segment) in name.split('_').enumerate() {
        if i > 0 {
            out.push('_');
        }
        let words = join_lone_capitals(camel_words(segment));
        for (j, word) in words.iter().enumerate() {
            if j > 0 {
                out.push('_');
            }
            out.extend(word.chars().flat_map(char::to_uppercase));
        }
    }
    out
}

/// `XMLHttpRequest` -> `XML`, `Http`, `Request`; `IPv4` -> `I`, `Pv4`.
fn camel_words(segment: &str) -> Vec<&str> {
    let chars: Vec<(usize, char)> = segment.char_indices().collect();
    let mut words = Vec::new();
    let mut start = 0;
    for (k, &(at, c)) in chars.iter().enumerate().skip(1) {
        let prev = chars[k - 1].1;
        let next_is_lower = chars.get(k + 1).is_some_and(|&(_, n)| n.is_lowercase());
        let starts_word = c.is_uppercase()
            && (prev.is_lowercase() || prev.is_numeric() || (prev.is_uppercase() && next_is_lower));
        if starts_word {
            words.push(&segment[start..at]);
            start = at;
        }
    }
    if start < segment.len() {
        words.push(&segment[start..]);
    }
    words
}

/// `I`, `Pv4` -> `IPv4`: a lone capital other than `A` is the first letter of the next word.
fn join_lone_capitals(words: Vec<&str>) -> Vec<String> {
    let is_lone_capital = |word: &str| {
        let mut chars = word.chars();
        matches!((chars.next(), chars.next()), (Some(c), None) if c.is_uppercase() && c != 'A')
    };
    let mut out: Vec<String> = Vec::with_capacity(words.len());
    let mut carried = String::new();
    for (i, word) in words.iter().enumerate() {
        carried.push_str(word);
        if is_lone_capital(word) && i + 1 < words.len() {
            continue;
        }
        out.push(std::mem::take(&mut carried));
    }
    out
}

/// Rule: stable codes are unique within an enum.
fn check_unique_codes(input: &Input, resolved: &[Resolved], errors: &mut Errors) {
    for (i, (variant, this)) in input.variants.iter().zip(resolved).enumerate() {
        if this.transparent {
            continue;
        }
        let first = resolved[..i]
            .iter()
            .position(|other| !other.transparent && other.code == this.code);
        if let Some(first) = first {
            let span = variant
                .attrs
                .code
                .as_ref()
                .map_or_else(|| variant.ident.span(), LitStr::span);
            errors.push(error(
                span,
                format!(
                    "duplicate stable code \"{}\": variant `{}` already uses it; give one of \
                     them another code with `#[code(\"...\")]`",
                    this.code, input.variants[first].ident
                ),
            ));
        }
    }
}

/// Rules: a template says something, and names existing, non-sensitive fields only.
fn check_template(
    variant: &Variant,
    lit: &LitStr,
    attr: &str,
    errors: &mut Errors,
) -> Option<Template> {
    let text = lit.value();
    if text.trim().is_empty() {
        let problem = if text.is_empty() {
            "is empty"
        } else {
            "holds only whitespace"
        };
        let instead = if attr == MESSAGE {
            "write what went wrong, for the model, or drop `#[message]` to show `Display`"
        } else {
            "write what the model should do next, or drop `#[hint]`"
        };
        errors.push(error(
            lit.span(),
            format!("`#[{attr}]` {problem}: {instead}"),
        ));
        return None;
    }
    let template = match Template::parse(lit) {
        Ok(template) => template,
        Err(problem) => {
            errors.push(error(lit.span(), format!("in `#[{attr}]`: {problem}")));
            return None;
        }
    };
    let mut ok = true;
    for member in template.members() {
        if variant.field(member).is_some() {
            continue;
        }
        ok = false;
        let names: Vec<String> = variant.fields.iter().map(Field::detail_key).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let wanted = member_name(member);
        let mut message = format!(
            "`#[{attr}]` names `{{{wanted}}}`, but `{}` has no field `{wanted}`",
            variant.ident
        );
        match did_you_mean(&wanted, &names) {
            Some(best) => message.push_str(&format!("; did you mean `{{{best}}}`?")),
            None if names.is_empty() => message.push_str("; it has no fields at all"),
            None => message.push_str(&format!("; its fields are: {}", names.join(", "))),
        }
        errors.push(error(lit.span(), message));
    }
    for leak in sensitive_uses(variant, &template) {
        ok = false;
        errors.push(error(lit.span(), leak.in_template(attr, variant)));
    }
    ok.then_some(template)
}

/// A way a template shows a `#[sensitive]` field.
enum Leak<'a> {
    /// `{password}`.
    Shown(&'a Field<'a>),
    /// `{user:>pin$}`, `{x:.pin$}`: its value as a width or precision.
    Count(&'a Field<'a>),
    /// `{self}` or `{self:?}`, as written, in a variant that has this sensitive field.
    WholeValue(&'static str, &'a Field<'a>),
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
fn sensitive_uses<'a>(variant: &'a Variant, template: &Template) -> Vec<Leak<'a>> {
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
    fn in_template(&self, attr: &str, variant: &Variant) -> String {
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
    fn in_display(&self, variant: &Variant) -> String {
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
    fn in_log(&self, variant: &Variant) -> String {
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

fn member_name(member: &Member) -> String {
    match member {
        Member::Named(ident) => ident.to_string(),
        Member::Unnamed(index) => index.index.to_string(),
    }
}

/// Rules of field flags that contradict each other.
fn check_field_flags(field: &Field, errors: &mut Errors) {
    let Some(sensitive) = field.attrs.sensitive else {
        return;
    };
    if field.attrs.detail.is_some() {
        errors.push(error(
            sensitive,
            "a field cannot be both `#[detail]` (sent to the client) and `#[sensitive]` (never \
             sent): keep one",
        ));
    }
    if field.attrs.retry_after.is_some() {
        errors.push(error(
            sensitive,
            "a field cannot be both `#[retry_after]` (sent as `retryAfterMs` and in the text) \
             and `#[sensitive]` (never sent): keep one",
        ));
    }
}

/// Rule: on a protocol error, details share JSON-RPC `data` with the keys the library writes
/// there, so no detail takes one of them. `correlation_id` is refused with `correlationId`:
/// a client that converts snake_case to camelCase reads both as one key.
fn check_protocol_detail_keys(variant: &Variant, errors: &mut Errors) {
    for field in &variant.fields {
        if field.attrs.detail.is_none() {
            continue;
        }
        let key = field.detail_key();
        let clash = match key.as_str() {
            "code" => "the key that holds the stable code",
            "correlationId" => "the key that holds the correlation id",
            "correlation_id" => {
                "which a client converting snake_case to camelCase reads as `correlationId`, the \
                 key that holds the correlation id"
            }
            _ => continue,
        };
        errors.push(error(
            field.span,
            format!(
                "the `#[detail]` field `{key}` of `{}` would go into JSON-RPC `data` as \
                 `{key}`, {clash}: rename the field (a detail is keyed by its field's name)",
                variant.ident
            ),
        ));
    }
}

/// Rules of `#[retry_after]`: one per variant, on a retryable variant. Whether a variant that
/// takes its category's default is retryable is known to the core only, so that rule becomes
/// an assertion in the generated code; whether the field is a `Duration` is the type
/// checker's, through the core's `RetryAfter`.
fn check_retry_after(
    variant: &Variant,
    retryable: Option<bool>,
    channel: Channel,
    errors: &mut Errors,
) -> Option<RetryAfter> {
    let mut found = None;
    for (index, field) in variant.fields.iter().enumerate() {
        let Some(span) = field.attrs.retry_after else {
            continue;
        };
        if found.is_some() {
            errors.push(error(
                span,
                format!(
                    "`{}` has more than one `#[retry_after]` field: keep it on the one field \
                     that says how long to wait",
                    variant.ident
                ),
            ));
            continue;
        }
        let not_retryable = |why: &str| {
            format!(
                "`#[retry_after]` on `{}`, which is {why}: add `#[retryable]` to the variant, or \
                 drop `#[retry_after]`",
                variant.ident
            )
        };
        let assert_retryable = match (channel, retryable) {
            (Channel::Protocol(_), _) => {
                let why = "a protocol error, which is never retried by the model";
                errors.push(error(span, not_retryable(why)));
                None
            }
            (Channel::Execution(_), Some(false)) => {
                errors.push(error(span, not_retryable("not retryable")));
                None
            }
            (Channel::Execution(_), Some(true)) => None,
            (Channel::Execution(_), None) => Some(not_retryable("not retryable")),
        };
        found = Some(RetryAfter {
            field: index,
            assert_retryable,
        });
    }
    found
}

/// Who reads a variant's `Display`.
#[derive(Clone, Copy, PartialEq)]
enum DisplayReader {
    /// The model, when the variant is not masked and has no `#[message]`.
    Model,
    /// The log line of a masked variant.
    Log,
}

/// Rules: the `Display` the model reads, or the one a masked variant logs, does not show a
/// `#[sensitive]` field (whole, as a width or precision, or through `{self}`); the model reads
/// only a `Display` the derive can check.
fn check_display_hides_sensitive(variant: &Variant, reader: DisplayReader, errors: &mut Errors) {
    let Some(sensitive) = variant.fields.iter().find(|f| f.attrs.sensitive.is_some()) else {
        return;
    };
    let name = sensitive.detail_key();
    let unreadable = || {
        error(
            variant.ident.span(),
            format!(
                "`{}` has the `#[sensitive]` field `{name}`, and the model would read a \
                 `Display` that cannot be checked here: add `#[message(\"...\")]`, or `#[mask]` \
                 the variant",
                variant.ident
            ),
        )
    };
    match (variant.attrs.display(), reader) {
        (Some(Display::Format(lit)), _) => match Template::parse(&lit) {
            Ok(template) => {
                if let Some(leak) = sensitive_uses(variant, &template).first() {
                    let message = match reader {
                        DisplayReader::Model => leak.in_display(variant),
                        DisplayReader::Log => leak.in_log(variant),
                    };
                    errors.push(error(lit.span(), message));
                }
            }
            Err(_) if reader == DisplayReader::Model => errors.push(unreadable()),
            Err(_) => {}
        },
        // `#[error(transparent)]` stands on a variant of one field: the sensitive one.
        (Some(Display::Transparent(span)), _) => {
            let message = match reader {
                DisplayReader::Model => format!(
                    "the model reads `Display` of `{}`, and `#[error(transparent)]` shows the \
                     `#[sensitive]` field `{name}`: add `#[message(\"...\")]` without it",
                    variant.ident
                ),
                DisplayReader::Log => format!(
                    "`{}` is masked, so its `Display` is logged, and `#[error(transparent)]` \
                     shows the `#[sensitive]` field `{name}`, which must not reach the log \
                     either: write `#[error(\"...\")]` without it",
                    variant.ident
                ),
            };
            errors.push(error(span, message));
        }
        // A masked variant's `Display` that cannot be read is trusted: the log is for
        // operators, and many such variants wrap an error with `#[error(transparent)]`.
        (_, DisplayReader::Log) => {}
        (_, DisplayReader::Model) => errors.push(unreadable()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upper_snake_splits_words_as_a_reader_does() {
        for (name, code) in [
            ("Timeout", "TIMEOUT"),
            ("UnknownDepartment", "UNKNOWN_DEPARTMENT"),
            ("HTTPError", "HTTP_ERROR"),
            ("XMLHttpRequest", "XML_HTTP_REQUEST"),
            ("IOError", "IO_ERROR"),
            ("Error2", "ERROR2"),
            ("Version2Beta", "VERSION2_BETA"),
            ("Oauth2Expired", "OAUTH2_EXPIRED"),
            ("OAuth2Expired", "OAUTH2_EXPIRED"),
            ("IPv4Invalid", "IPV4_INVALID"),
            ("InvalidIPv6", "INVALID_IPV6"),
            ("HTTP2Error", "HTTP2_ERROR"),
            ("X509Expired", "X509_EXPIRED"),
            ("IsADirectory", "IS_A_DIRECTORY"),
            ("NotAFile", "NOT_A_FILE"),
            ("PlanB", "PLAN_B"),
            ("PlanBFailed", "PLAN_BFAILED"),
            ("Seat_Taken", "SEAT_TAKEN"),
            ("r#Type", "TYPE"),
        ] {
            assert_eq!(upper_snake(name), code, "{name}");
        }
    }

    #[test]
    fn names_that_give_no_valid_code_are_caught() {
        for name in ["_Private", "Double__Underscore", "Trailing_", "Größe"] {
            assert!(code_problem(&upper_snake(name)).is_some(), "{name}");
        }
    }

    #[test]
    fn code_rules() {
        assert!(code_problem("SEAT_TAKEN").is_none());
        assert!(code_problem("seat_taken").is_some());
        assert!(code_problem("SEAT__TAKEN").is_some());
        assert!(code_problem(&"A".repeat(64)).is_some());
        assert!(code_problem("9LIVES").is_some());
    }

    #[test]
    fn reserved_code_message_lists_the_allowed_codes() {
        let mut errors = darling::Error::accumulator();
        assert!(check_protocol_code(-32010, Span::call_site(), &mut errors).is_some());
        assert!(check_protocol_code(-32050, Span::call_site(), &mut errors).is_none());
        assert!(check_protocol_code(-4001, Span::call_site(), &mut errors).is_some());
        assert_eq!(
            errors.finish().unwrap_err().to_string(),
            "protocol code -32050 is in the range -32768..=-32000 that JSON-RPC reserves, and \
             neither JSON-RPC nor MCP defines it: use a defined code (-32602, -32603, -32002, \
             -32020, -32021, -32022, -32042), an implementation-defined one in -32019..=-32000, \
             or an application code outside the reserved range"
        );
    }

    #[test]
    fn codes_that_are_not_negative_are_refused_with_a_negative_one_to_write() {
        for (code, instead) in [(0, "-1"), (408, "-408"), (4001, "-4001"), (32000, "-1")] {
            let mut errors = darling::Error::accumulator();
            assert!(check_protocol_code(code, Span::call_site(), &mut errors).is_none());
            let message = errors.finish().unwrap_err().to_string();
            assert!(message.contains("is not negative"), "{message}");
            assert!(
                message.contains(&format!("#[protocol({instead})]")),
                "{message}"
            );
        }
    }

    #[test]
    fn codes_no_tool_error_can_have_are_refused_by_number_and_by_name() {
        for code in [-32700, -32600, -32601] {
            let mut errors = darling::Error::accumulator();
            assert!(check_protocol_code(code, Span::call_site(), &mut errors).is_none());
            let message = errors.finish().unwrap_err().to_string();
            assert!(message.contains("no tool error can say"), "{message}");
        }
    }

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

    #[test]
    fn masked_by_default_are_internal_and_internal_error() {
        assert!(Channel::Execution(Category::Internal).masked_by_default());
        assert!(!Channel::Execution(Category::Transient).masked_by_default());
        assert!(Channel::Protocol(ProtocolCode(-32603)).masked_by_default());
        assert!(!Channel::Protocol(ProtocolCode(-32602)).masked_by_default());
    }
}
