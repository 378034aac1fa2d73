//! `{field}` interpolation in `#[message]` and `#[hint]`, as thiserror does it: the format
//! string is rewritten so every field it names is a local of the match arm, then handed to
//! `format!` with implicit capture. No expression is parsed.

use proc_macro2::Span;
use syn::{Ident, Index, LitStr, Member};

/// A parsed format string.
pub struct Template {
    /// The format string with tuple fields renamed from `{0}` to `{__0}`.
    pub format: String,
    /// Each field the string names, in order of first use.
    pub members: Vec<Member>,
    /// Whether the string has any placeholder at all (if not, it is copied as is).
    pub has_placeholders: bool,
}

impl Template {
    /// A capacity for the formatted string that usually avoids growing it: the format's
    /// own length (braces and names included) plus a typical field's length per placeholder.
    pub fn capacity_hint(&self) -> usize {
        self.format.len() + 24 * self.members.len()
    }

    /// Parses `lit`, or says which placeholder cannot be read.
    pub fn parse(lit: &LitStr) -> Result<Template, String> {
        let source = lit.value();
        let mut format = String::with_capacity(source.len());
        let mut members: Vec<Member> = Vec::new();
        let mut has_placeholders = false;
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
                Some(colon) => (&inner[..colon], &inner[colon..]),
                None => (inner, ""),
            };
            let name = name.trim();
            let member = to_member(name, lit.span())?;
            has_placeholders = true;
            format.push('{');
            match &member {
                Member::Unnamed(index) => format.push_str(&format!("__{}", index.index)),
                Member::Named(ident) => format.push_str(&ident.to_string()),
            }
            format.push_str(spec);
            format.push('}');
            if !members.contains(&member) {
                members.push(member);
            }
            rest = &brace[close + 1..];
        }
        format.push_str(rest);
        Ok(Template {
            format,
            members,
            has_placeholders,
        })
    }
}

fn to_member(name: &str, span: Span) -> Result<Member, String> {
    if name.is_empty() {
        return Err(
            "`{}` has no argument to take: name a field instead, as in `{field}` or `{0}`".into(),
        );
    }
    if let Ok(index) = name.parse::<u32>() {
        return Ok(Member::Unnamed(Index { index, span }));
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
    Ok(Member::Named(Ident::new(name, span)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Template, String> {
        Template::parse(&LitStr::new(s, Span::call_site()))
    }

    #[test]
    fn renames_tuple_fields_and_keeps_specs() {
        let t = parse("after {0:?} for {name} {{literal}} {name}").unwrap();
        assert_eq!(t.format, "after {__0:?} for {name} {{literal}} {name}");
        assert_eq!(t.members.len(), 2);
        assert!(t.has_placeholders);
    }

    #[test]
    fn rejects_positional_and_unbalanced_braces() {
        assert!(parse("{}").is_err());
        assert!(parse("{x").is_err());
        assert!(parse("x}").is_err());
        assert!(parse("{a.b}").is_err());
        assert!(!parse("plain").unwrap().has_placeholders);
    }
}
