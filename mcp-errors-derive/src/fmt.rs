//! `{field}` interpolation in `#[message]` and `#[hint]`, as thiserror does it: the format
//! string is rewritten so every field it names is a local of the match arm, then handed to
//! `format_args!` with implicit capture. No expression is parsed.
//!
//! A placeholder is `{NAME}` or `{NAME:SPEC}` with `NAME` a field name (written without `r#`),
//! a tuple index or `self`, and `SPEC` Rust's format spec, whose width and precision may name
//! fields too (`{name:>width$.precision$}`).

use proc_macro2::Span;
use syn::{Ident, Index, LitStr, Member};

/// A parsed format string.
pub struct Template {
    /// The format string with every field renamed to its local (see [`local`]).
    pub format: String,
    /// Each placeholder, in order.
    pub placeholders: Vec<Placeholder>,
}

/// One `{...}` of a template.
pub struct Placeholder {
    /// What the placeholder shows.
    pub shown: Arg,
    /// The trait its spec asks for (`{x:?}` is `Debug`).
    pub format_trait: FormatTrait,
    /// The fields whose values are its width or precision (`w` and `p` in `{x:w$.p$}`).
    pub counts: Vec<Member>,
}

/// What a placeholder names.
#[derive(Clone, PartialEq)]
pub enum Arg {
    /// A field of the variant.
    Field(Member),
    /// `{self}`: the whole value.
    SelfValue,
}

/// The formatting trait a placeholder's spec selects.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum FormatTrait {
    Display,
    Debug,
    LowerHex,
    UpperHex,
    Octal,
    Binary,
    LowerExp,
    UpperExp,
    Pointer,
}

impl FormatTrait {
    /// Its name in `::core::fmt`.
    pub fn name(self) -> &'static str {
        match self {
            FormatTrait::Display => "Display",
            FormatTrait::Debug => "Debug",
            FormatTrait::LowerHex => "LowerHex",
            FormatTrait::UpperHex => "UpperHex",
            FormatTrait::Octal => "Octal",
            FormatTrait::Binary => "Binary",
            FormatTrait::LowerExp => "LowerExp",
            FormatTrait::UpperExp => "UpperExp",
            FormatTrait::Pointer => "Pointer",
        }
    }
}

/// The local a match arm binds a field to, and the name a template uses for it: `__field_name`
/// for a named field (`r#type` gives `__field_type`), `__field_0` for a tuple field. Prefixed,
/// so it can never be mistaken for a constant or unit struct of the user's in a pattern.
pub fn local(member: &Member, span: Span) -> Ident {
    Ident::new(&local_name(member), span)
}

/// The name of [`local`].
fn local_name(member: &Member) -> String {
    match member {
        Member::Named(ident) => format!("__field_{}", unraw(ident)),
        Member::Unnamed(index) => format!("__field_{}", index.index),
    }
}

/// The local a `{field:p}` placeholder formats: the field's own `Pointer`, not the address of
/// the borrowed field.
pub fn pointer_local(member: &Member, span: Span) -> Ident {
    Ident::new(&pointer_local_name(member), span)
}

/// The name of [`pointer_local`].
fn pointer_local_name(member: &Member) -> String {
    format!("__pointer_{}", local_name(member).trim_start_matches('_'))
}

/// A name without its `r#`.
pub fn unraw(ident: &Ident) -> String {
    let name = ident.to_string();
    match name.strip_prefix("r#") {
        Some(plain) => plain.to_owned(),
        None => name,
    }
}

impl Template {
    /// Whether the string has any placeholder at all (if not, it is copied as is).
    pub fn has_placeholders(&self) -> bool {
        !self.placeholders.is_empty()
    }

    /// Every field the template uses, shown or as a width or precision, once each, in order
    /// of first use.
    pub fn members(&self) -> Vec<&Member> {
        let mut members: Vec<&Member> = Vec::new();
        for placeholder in &self.placeholders {
            let shown = match &placeholder.shown {
                Arg::Field(member) => Some(member),
                Arg::SelfValue => None,
            };
            for member in shown.into_iter().chain(&placeholder.counts) {
                if !members.contains(&member) {
                    members.push(member);
                }
            }
        }
        members
    }

    /// The fields shown with `{field:p}`, once each.
    pub fn pointers(&self) -> Vec<&Member> {
        let mut members: Vec<&Member> = Vec::new();
        for placeholder in &self.placeholders {
            if let (Arg::Field(member), FormatTrait::Pointer) =
                (&placeholder.shown, placeholder.format_trait)
                && !members.contains(&member)
            {
                members.push(member);
            }
        }
        members
    }

    /// A capacity for the formatted string that usually avoids growing it: the format's
    /// own length (braces and names included) plus a typical field's length per placeholder.
    pub fn capacity_hint(&self) -> usize {
        self.format.len() + 24 * self.placeholders.len()
    }

    /// Parses `lit`, or says which placeholder cannot be read.
    pub fn parse(lit: &LitStr) -> Result<Template, String> {
        let span = lit.span();
        let source = lit.value();
        let mut format = String::with_capacity(source.len());
        let mut placeholders = Vec::new();
        let mut rest = source.as_str();
        while let Some(at) = rest.find(['{', '}']) {
            format.push_str(&rest[..at]);
            let brace = &rest[at..];
            if brace.starts_with("{{") || brace.starts_with("}}") {
                format.push_str(&brace[..2]);
                rest = &brace[2..];
                continue;
            }
            if brace.starts_with('}') {
                return Err(
                    "unmatched `}` in format string: write `}}` for a literal brace".into(),
                );
            }
            let close = brace.find('}').ok_or_else(|| {
                "unclosed `{` in format string: write `{{` for a literal brace".to_owned()
            })?;
            let inner = &brace[1..close];
            let (name, spec) = match inner.find(':') {
                Some(colon) => (&inner[..colon], &inner[colon + 1..]),
                None => (inner, ""),
            };
            let shown = to_arg(name.trim(), span)?;
            let spec = Spec::parse(spec, inner, span)?;
            format.push('{');
            match &shown {
                Arg::Field(member) if spec.format_trait == FormatTrait::Pointer => {
                    format.push_str(&pointer_local_name(member));
                }
                Arg::Field(member) => format.push_str(&local_name(member)),
                Arg::SelfValue => format.push_str("self"),
            }
            if !spec.rewritten.is_empty() {
                format.push(':');
                format.push_str(&spec.rewritten);
            }
            format.push('}');
            placeholders.push(Placeholder {
                shown,
                format_trait: spec.format_trait,
                counts: spec.counts,
            });
            rest = &brace[close + 1..];
        }
        format.push_str(rest);
        Ok(Template {
            format,
            placeholders,
        })
    }
}

/// The part of a placeholder after the colon, with its width and precision arguments
/// renamed to the fields' locals.
struct Spec {
    rewritten: String,
    format_trait: FormatTrait,
    counts: Vec<Member>,
}

impl Spec {
    /// Parses `[[fill]align][sign]['#']['0'][width]['.' precision][type]`, where width and
    /// precision are a number or an argument followed by `$`.
    fn parse(spec: &str, placeholder: &str, span: Span) -> Result<Spec, String> {
        let mut out = Spec {
            rewritten: String::with_capacity(spec.len()),
            format_trait: FormatTrait::Display,
            counts: Vec::new(),
        };
        let mut rest = spec;
        let mut chars = rest.chars();
        let first = chars.next();
        let second = chars.next();
        // Fill and alignment: `>`, or a fill character and then `<`, `^` or `>`.
        if let Some(fill) = first
            && matches!(second, Some('<' | '^' | '>'))
        {
            let skip = fill.len_utf8() + 1;
            out.rewritten.push_str(&rest[..skip]);
            rest = &rest[skip..];
        } else if matches!(first, Some('<' | '^' | '>')) {
            out.rewritten.push_str(&rest[..1]);
            rest = &rest[1..];
        }
        for flag in ['+', '-', '#'] {
            if let Some(after) = rest.strip_prefix(flag) {
                out.rewritten.push(flag);
                rest = after;
            }
        }
        // `0` is the zero-padding flag, unless it is the argument of `0$`.
        if rest.starts_with('0') && !rest[1..].starts_with('$') {
            out.rewritten.push('0');
            rest = &rest[1..];
        }
        rest = out.count(rest, span)?;
        if let Some(after) = rest.strip_prefix('.') {
            out.rewritten.push('.');
            if after.starts_with('*') {
                return Err(format!(
                    "`{{{placeholder}}}` takes its precision from the next positional argument \
                     (`.*`), and a template has none: name a field, as in `{{x:.precision$}}`, \
                     or write a number, as in `{{x:.2}}`"
                ));
            }
            rest = out.count(after, span)?;
            if rest.len() == after.len() {
                return Err(format!(
                    "`{{{placeholder}}}` has a `.` without a precision: write a number or a \
                     field, as in `{{x:.2}}` or `{{x:.precision$}}`"
                ));
            }
        }
        out.format_trait = match rest {
            "" => FormatTrait::Display,
            "?" | "x?" | "X?" => FormatTrait::Debug,
            "x" => FormatTrait::LowerHex,
            "X" => FormatTrait::UpperHex,
            "o" => FormatTrait::Octal,
            "b" => FormatTrait::Binary,
            "e" => FormatTrait::LowerExp,
            "E" => FormatTrait::UpperExp,
            "p" => FormatTrait::Pointer,
            other => {
                return Err(format!(
                    "`{{{placeholder}}}` ends with `{other}`, which is not a format trait: end \
                     the spec with `?` (Debug), `x`, `X`, `o`, `b`, `e`, `E`, `p`, or nothing \
                     (Display)"
                ));
            }
        };
        out.rewritten.push_str(rest);
        Ok(out)
    }

    /// A width or precision at the start of `rest`: a number, or an argument followed by `$`
    /// (renamed to its field's local). Returns what follows it; `rest` itself when there is
    /// none (a word not followed by `$` is the format trait).
    fn count<'a>(&mut self, rest: &'a str, span: Span) -> Result<&'a str, String> {
        // An integer, or an identifier (which cannot start with a digit).
        let end = if rest.starts_with(|c: char| c.is_ascii_digit()) {
            rest.find(|c: char| !c.is_ascii_digit())
        } else {
            rest.find(|c: char| !(c == '_' || c.is_alphanumeric()))
        }
        .unwrap_or(rest.len());
        let (word, after) = rest.split_at(end);
        if word == "r" && after.starts_with('#') {
            let plain = after[1..].split('$').next().unwrap_or_default();
            return Err(format!(
                "`r#{plain}$`: a template names a field without `r#`: write `{plain}$`"
            ));
        }
        if word.is_empty() {
            return Ok(rest);
        }
        if let Some(after_dollar) = after.strip_prefix('$') {
            let member = match to_arg(word, span)? {
                Arg::Field(member) => member,
                Arg::SelfValue => {
                    return Err(
                        "`self$` is not a width or precision: name a field of type `usize`, as \
                         in `{x:>width$}`"
                            .into(),
                    );
                }
            };
            self.rewritten.push_str(&local_name(&member));
            self.rewritten.push('$');
            if !self.counts.contains(&member) {
                self.counts.push(member);
            }
            return Ok(after_dollar);
        }
        if word.starts_with(|c: char| c.is_ascii_digit()) {
            self.rewritten.push_str(word);
            return Ok(after);
        }
        Ok(rest)
    }
}

fn to_arg(name: &str, span: Span) -> Result<Arg, String> {
    if name.is_empty() {
        return Err(
            "`{}` has no argument to take: name a field instead, as in `{field}` or `{0}`".into(),
        );
    }
    if name == "self" {
        return Ok(Arg::SelfValue);
    }
    if let Ok(index) = name.parse::<u32>() {
        return Ok(Arg::Field(Member::Unnamed(Index { index, span })));
    }
    if let Some(plain) = name.strip_prefix("r#") {
        return Err(format!(
            "`{{{name}}}`: a template names a field without `r#`: write `{{{plain}}}`"
        ));
    }
    let valid_ident = name
        .chars()
        .next()
        .is_some_and(|c| c == '_' || c.is_alphabetic())
        && name.chars().all(|c| c == '_' || c.is_alphanumeric());
    if !valid_ident {
        return Err(format!(
            "`{{{name}}}` is not a field: only field names and tuple indices can be interpolated, \
             as in `{{field}}` or `{{0:?}}`"
        ));
    }
    Ok(Arg::Field(Member::Named(Ident::new(name, span))))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Template, String> {
        Template::parse(&LitStr::new(s, Span::call_site()))
    }

    fn named(name: &str) -> Member {
        Member::Named(Ident::new(name, Span::call_site()))
    }

    #[test]
    fn renames_fields_and_keeps_specs() {
        let t = parse("after {0:?} for {name} {{literal}} {name:>8} {self}").unwrap();
        assert_eq!(
            t.format,
            "after {__field_0:?} for {__field_name} {{literal}} {__field_name:>8} {self}"
        );
        assert_eq!(t.members().len(), 2);
        assert_eq!(t.placeholders.len(), 4);
        assert!(t.placeholders[3].shown == Arg::SelfValue);
        assert!(t.has_placeholders());
    }

    #[test]
    fn width_and_precision_name_fields() {
        let t = parse("{x:>w$} {x:.p$} {x:*^w$.p$e} {x:0$} {x:08.3} {x:1$}").unwrap();
        assert_eq!(
            t.format,
            "{__field_x:>__field_w$} {__field_x:.__field_p$} {__field_x:*^__field_w$.__field_p$e} \
             {__field_x:__field_0$} {__field_x:08.3} {__field_x:__field_1$}"
        );
        assert!(t.placeholders[0].counts == [named("w")]);
        assert!(t.placeholders[2].counts == [named("w"), named("p")]);
        assert_eq!(t.placeholders[2].format_trait, FormatTrait::LowerExp);
        let members: Vec<String> = t
            .members()
            .iter()
            .map(|m| quote::quote!(#m).to_string())
            .collect();
        assert_eq!(members, ["x", "w", "p", "0", "1"]);
    }

    #[test]
    fn format_traits() {
        let cases = [
            ("{v}", FormatTrait::Display),
            ("{v:>8}", FormatTrait::Display),
            ("{v:?}", FormatTrait::Debug),
            ("{v:#?}", FormatTrait::Debug),
            ("{v:>8?}", FormatTrait::Debug),
            ("{v:x?}", FormatTrait::Debug),
            ("{v:x}", FormatTrait::LowerHex),
            ("{v:#X}", FormatTrait::UpperHex),
            ("{v:o}", FormatTrait::Octal),
            ("{v:b}", FormatTrait::Binary),
            ("{v:e}", FormatTrait::LowerExp),
            ("{v:E}", FormatTrait::UpperExp),
            ("{v:p}", FormatTrait::Pointer),
            ("{v:x<4}", FormatTrait::Display),
            ("{v:8e}", FormatTrait::LowerExp),
            ("{v:+.3E}", FormatTrait::UpperExp),
        ];
        for (template, expected) in cases {
            assert_eq!(
                parse(template).unwrap().placeholders[0].format_trait,
                expected,
                "{template}"
            );
        }
        assert_eq!(parse("{v:p}").unwrap().format, "{__pointer_field_v:p}");
    }

    #[test]
    fn raw_identifiers_are_written_plain() {
        let t = parse("{type}").unwrap();
        assert_eq!(t.format, "{__field_type}");
        assert!(parse("{r#type}").err().unwrap().contains("write `{type}`"));
        assert!(
            parse("{x:>r#loop$}")
                .err()
                .unwrap()
                .contains("write `loop$`")
        );
        assert_eq!(
            parse("{x:>loop$}").unwrap().format,
            "{__field_x:>__field_loop$}"
        );
    }

    #[test]
    fn rejects_what_a_template_cannot_hold() {
        assert!(parse("{}").is_err());
        assert!(parse("{:>8}").is_err());
        assert!(parse("{x").is_err());
        assert!(parse("x}").is_err());
        assert!(parse("{a.b}").is_err());
        assert!(parse("{x:.*}").is_err());
        assert!(parse("{x:.}").is_err());
        assert!(parse("{x:z}").is_err());
        assert!(parse("{x:self$}").is_err());
        assert!(!parse("plain").unwrap().has_placeholders());
    }
}
