//! The compile-time rules. Each rule is a function with a literal message that says what
//! is wrong and what to write instead. `resolve.rs` calls them, in the order they stand
//! here, and all errors of an input are reported at once.

use proc_macro2::Span;
use syn::{LitStr, Member};

use crate::ast::{Field, Input, Variant};
use crate::attr::{Attrs, Display};
use crate::category::Category;
use crate::codes::{self, ProtocolCode};
use crate::fmt::Template;
use crate::sensitive::sensitive_uses;
use crate::suggest::did_you_mean;
use crate::symbol::*;

pub type Errors = darling::error::Accumulator;

fn error(span: Span, message: impl std::fmt::Display) -> darling::Error {
    darling::Error::custom(message).with_span(&span)
}

/// Rule: an attribute stands where it has a meaning.
pub fn check_placement(attrs: &Attrs, allowed: &[&str], place: &str, errors: &mut Errors) {
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
pub fn check_container_channel(attrs: &Attrs, errors: &mut Errors) {
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
    }
    check_mask_expose(attrs, errors);
}

/// Rules of field flags that contradict each other.
pub fn check_field_flags(field: &Field, errors: &mut Errors) {
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

/// Rules of `#[classify]`: on one field of a variant, and only on an execution-error variant
/// (a protocol error has no category to pick). Returns the index of the first such field.
pub fn check_classify(variant: &Variant, is_protocol: bool, errors: &mut Errors) -> Option<usize> {
    let mut fields = variant
        .fields
        .iter()
        .enumerate()
        .filter_map(|(i, field)| Some((i, field.attrs.classify.as_ref()?.span)));
    let (first, span) = fields.next()?;
    for (_, again) in fields {
        errors.push(error(
            again,
            format!(
                "`{}` has more than one `#[classify]` field: the kind of the failure comes \
                 from one value; keep `#[classify]` on the field that knows it",
                variant.ident
            ),
        ));
    }
    if is_protocol {
        errors.push(error(
            span,
            format!(
                "`#[classify]` picks a tool-execution category at run time, but `{}` is a \
                 protocol error: drop `#[classify]`, or map the variant with \
                 `#[category(...)]` (the category a failure takes when its value does not say)",
                variant.ident
            ),
        ));
    }
    Some(first)
}

/// Rule: `#[mask]` and `#[expose]` contradict each other.
pub fn check_mask_expose(attrs: &Attrs, errors: &mut Errors) {
    if let (Some(_), Some(expose)) = (attrs.mask, attrs.expose) {
        errors.push(error(
            expose,
            "`#[mask]` and `#[expose]` contradict each other: keep `#[mask]` to hide the \
             message behind a correlation id, or `#[expose]` to show it",
        ));
    }
}

/// Rules of `#[transparent]`: it wraps exactly one field, and nothing else is said of the
/// variant or its field, since the wrapped error decides it all.
pub fn check_transparent(variant: &Variant, errors: &mut Errors) {
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

/// Rule: a variant has one channel.
pub fn check_one_channel(variant: &Variant, errors: &mut Errors) {
    if let (Some(_), Some(protocol)) = (&variant.attrs.category, &variant.attrs.protocol) {
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
}

/// Rules: a protocol code is one a tool error can have, and one the spec defines or one
/// outside the reserved range.
pub fn check_protocol_code(code: i64, span: Span, errors: &mut Errors) -> Option<ProtocolCode> {
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

/// Rule: a category name is one of the nine.
pub fn check_category_name(span: Span, name: &str, errors: &mut Errors) -> Option<Category> {
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

/// Rule: a variant that is not `#[transparent]` is mapped to a channel, by its own
/// `#[category]` or `#[protocol]` or by the enum's.
pub fn check_mapped(input: &Input, variant: &Variant, errors: &mut Errors) {
    // A mapping whose attribute failed to parse was already reported.
    let attempted = |attrs: &Attrs| {
        attrs
            .seen
            .iter()
            .any(|(name, _)| [CATEGORY, PROTOCOL].contains(name))
    };
    let mapped = |attrs: &Attrs| attrs.category.is_some() || attrs.protocol.is_some();
    if [&variant.attrs, &input.container]
        .into_iter()
        .any(|attrs| mapped(attrs) || attempted(attrs))
    {
        return;
    }
    let kind = if input.is_enum { "variant" } else { "struct" };
    let on_enum = if input.is_enum {
        ", or put one on the enum to cover every variant"
    } else {
        ""
    };
    let classify = match variant.fields.iter().find_map(classifiable) {
        Some((field, ty)) => format!(
            "; help: field `{}` is a `{ty}`, whose value says what went wrong: mark it \
             `#[classify]` to take the category from it at run time",
            member_name(&field.member)
        ),
        None => String::new(),
    };
    errors.push(error(
        variant.ident.span(),
        format!(
            "{kind} `{}` is not mapped to a channel: add `#[category(...)]` (a tool-execution \
             error the model reads, e.g. `#[category(validation)]`) or `#[protocol(...)]` (a \
             JSON-RPC error, e.g. `#[protocol(invalid_params)]`){on_enum}{classify}",
            variant.ident
        ),
    ));
}

/// The field and the name of its type when the core implements `Classify` for that type,
/// read from the type's path as written: `io::Error`, `io::ErrorKind`, `StatusCode`,
/// `reqwest::Error`, `sqlx::Error`. A bare `Error` could be any error type, so it is not one.
fn classifiable(field: &Field) -> Option<(&Field, String)> {
    let syn::Type::Path(path) = &field.ty else {
        return None;
    };
    let names: Vec<String> = path
        .path
        .segments
        .iter()
        .map(|segment| segment.ident.to_string())
        .collect();
    let known = match names.as_slice() {
        [.., last] if last == "ErrorKind" || last == "StatusCode" => true,
        [.., crate_or_module, last] if last == "Error" => {
            ["io", "reqwest", "sqlx"].contains(&crate_or_module.as_str())
        }
        _ => false,
    };
    known.then(|| (field, names.join("::")))
}

/// Rule: a stable code written with `#[code("...")]` is one a client can match on.
pub fn check_code(lit: &LitStr, errors: &mut Errors) {
    let code = lit.value();
    if let Some(problem) = code_problem(&code) {
        errors.push(error(
            lit.span(),
            format!(
                "stable code \"{code}\" {problem}: a code is UPPER_SNAKE_CASE (A-Z, 0-9 and \
                 single underscores, starting with a letter), at most 63 characters, e.g. \
                 \"UNKNOWN_DEPARTMENT\""
            ),
        ));
    }
}

/// Rule: without `#[code]`, the variant's name gives a valid stable code (`code`).
pub fn check_default_code(variant: &Variant, code: &str, errors: &mut Errors) {
    if code_problem(code).is_some() {
        errors.push(error(
            variant.ident.span(),
            format!(
                "the name `{}` gives no valid stable code: set one with \
                 `#[code(\"UPPER_SNAKE_CASE\")]`",
                variant.ident
            ),
        ));
    }
}

/// Words that say only that something failed, or where: a stable code made of them alone
/// (`OTHER`, `API_ERROR`, `DATABASE`) tells an agent nothing it can act on.
const GENERIC_WORDS: &[&str] = &[
    "API",
    "BACKEND",
    "CLIENT",
    "DATABASE",
    "DB",
    "DESERIALIZE",
    "ERROR",
    "ERR",
    "FAILED",
    "FAILURE",
    "GENERIC",
    "HTTP",
    "INTERNAL",
    "INVALID",
    "IO",
    "JSON",
    "MISC",
    "NETWORK",
    "OTHER",
    "PARSE",
    "QUERY",
    "REQUEST",
    "RESPONSE",
    "SERDE",
    "SERIALIZE",
    "SERVER",
    "SQL",
    "UNEXPECTED",
    "UNKNOWN",
    "UPSTREAM",
];

/// Warning: without `#[code]`, a name made only of generic words (`Other`, `Api`, `Io`,
/// `RequestError`) gives a stable code the agent reads as a contract but that says nothing.
/// The message for the warning the generated code raises, or `None` when the code says
/// something.
pub fn generic_default_code(variant: &Variant, code: &str) -> Option<String> {
    if variant.attrs.code.is_some() || !says_nothing(code) {
        return None;
    }
    Some(format!(
        "the stable code `{code}` comes from the name `{}` and says nothing an agent can act \
         on: name what failed with `#[code(\"...\")]`, or keep this code with \
         `#[code(\"{code}\")]` (a stable code is a contract: renaming the variant renames \
         its code)",
        variant.ident
    ))
}

/// Whether every word of `code` is one of [`GENERIC_WORDS`].
fn says_nothing(code: &str) -> bool {
    code.split('_').all(|word| GENERIC_WORDS.contains(&word))
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

/// Rules: a template says something, and names existing, non-sensitive fields only.
pub fn check_template(
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

fn member_name(member: &Member) -> String {
    match member {
        Member::Named(ident) => ident.to_string(),
        Member::Unnamed(index) => index.index.to_string(),
    }
}

/// Rules of `#[retry_after]`: one per variant, on a retryable variant; on a protocol variant,
/// one that says so with `#[retryable]` (it gives no retry advice otherwise). Whether a
/// execution-error variant that takes its category's default is retryable is known to the core
/// only, so that rule becomes an assertion in the generated code, with the message of
/// [`retry_after_not_retryable`]; whether the field is a `Duration` is the type checker's,
/// through the core's `RetryAfter`.
pub fn check_retry_after(
    variant: &Variant,
    retryable: Option<bool>,
    is_protocol: bool,
    errors: &mut Errors,
) {
    let mut found = false;
    for field in &variant.fields {
        let Some(span) = field.attrs.retry_after else {
            continue;
        };
        if found {
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
        found = true;
        if is_protocol && retryable.is_none() {
            let why = "a protocol error without retry advice";
            errors.push(error(span, retry_after_not_retryable(variant, why)));
        } else if retryable == Some(false) {
            errors.push(error(
                span,
                retry_after_not_retryable(variant, "not retryable"),
            ));
        }
    }
}

/// The message for `#[retry_after]` on a variant that is not retryable, being `why`.
pub fn retry_after_not_retryable(variant: &Variant, why: &str) -> String {
    format!(
        "`#[retry_after]` on `{}`, which is {why}: add `#[retryable]` to the variant, or drop \
         `#[retry_after]`",
        variant.ident
    )
}

/// Who reads a variant's `Display`.
#[derive(Clone, Copy, PartialEq)]
pub enum DisplayReader {
    /// The model, when the variant is not masked and has no `#[message]`.
    Model,
    /// The log line of a masked variant.
    Log,
}

/// Rules: the `Display` the model reads, or the one a masked variant logs, does not show a
/// `#[sensitive]` field (whole, as a width or precision, or through `{self}`); the model reads
/// only a `Display` the derive can check.
pub fn check_display_hides_sensitive(
    variant: &Variant,
    reader: DisplayReader,
    errors: &mut Errors,
) {
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

/// Rule: on a protocol error, details share JSON-RPC `data` with the keys the library writes
/// there (`code`, `retryable`, `retryAfterMs`, `hint`, `correlationId`), so no detail takes one
/// of them. The snake_case spellings of the camelCase keys are refused with them: a client
/// that converts snake_case to camelCase reads both as one key.
pub fn check_protocol_detail_keys(variant: &Variant, errors: &mut Errors) {
    for field in &variant.fields {
        if field.attrs.detail.is_none() {
            continue;
        }
        let key = field.detail_key();
        let clash = match key.as_str() {
            "code" => "the key that holds the stable code",
            "retryable" => "the key that holds the retry advice",
            "retryAfterMs" => "the key that holds how long to wait before calling again",
            "retry_after_ms" => {
                "which a client converting snake_case to camelCase reads as `retryAfterMs`, the \
                 key that holds how long to wait before calling again"
            }
            "hint" => "the key that holds the hint",
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

/// Rule: stable codes are unique within an enum. `codes` holds each variant's code, `None`
/// for a `#[transparent]` one, which has none of its own.
pub fn check_unique_codes(input: &Input, codes: &[Option<&str>], errors: &mut Errors) {
    for (i, (variant, this)) in input.variants.iter().zip(codes).enumerate() {
        let Some(this) = this else {
            continue;
        };
        let first = codes[..i].iter().position(|other| *other == Some(*this));
        if let Some(first) = first {
            let span = variant
                .attrs
                .code
                .as_ref()
                .map_or_else(|| variant.ident.span(), LitStr::span);
            errors.push(error(
                span,
                format!(
                    "duplicate stable code \"{this}\": variant `{}` already uses it; give one of \
                     them another code with `#[code(\"...\")]`",
                    input.variants[first].ident
                ),
            ));
        }
    }
}

/// Rule: `#[mask]` on the enum masks every variant it reaches, and it does not reach a
/// `#[transparent]` variant, whose masking is the wrapped error's; a type that reads as all
/// masked must be.
pub fn check_enum_mask_reaches_variants(input: &Input, errors: &mut Errors) {
    let Some(mask) = input.container.mask else {
        return;
    };
    for variant in &input.variants {
        if variant.attrs.transparent.is_none() {
            continue;
        }
        let wrapped = match variant.fields.first().map(|field| &field.ty) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::upper_snake;

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
    fn codes_of_generic_words_alone_say_nothing() {
        for name in [
            "Other",
            "Api",
            "Io",
            "Database",
            "RequestError",
            "HTTPError",
            "Internal",
        ] {
            assert!(says_nothing(&upper_snake(name)), "{name}");
        }
        for name in [
            "Timeout",
            "LedgerDown",
            "UnknownDepartment",
            "ApiKeyExpired",
            "Error2",
        ] {
            assert!(!says_nothing(&upper_snake(name)), "{name}");
        }
    }
}
