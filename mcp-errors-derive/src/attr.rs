//! Parsing of the helper attributes. Every attribute is parsed wherever it stands; whether it
//! is allowed there is a rule of `valid.rs`.

use proc_macro2::{Span, TokenTree};
use quote::ToTokens as _;
use syn::parse::ParseStream;
use syn::spanned::Spanned as _;
use syn::{
    Attribute, Expr, ExprLit, ExprUnary, Ident, Lit, LitBool, LitFloat, LitInt, LitStr, Token, UnOp,
};

use crate::category::Category;
use crate::codes;
use crate::suggest::did_you_mean;
use crate::symbol::*;

/// A value with the span of the attribute that set it.
#[derive(Clone)]
pub struct Spanned<T> {
    pub value: T,
    pub span: Span,
}

/// A category as written: its name may be unknown, which `valid.rs` reports.
#[derive(Clone)]
pub struct CategoryName {
    pub name: String,
    pub ident: Ident,
}

/// What thiserror's `#[error(...)]` says `Display` shows.
pub enum Display {
    /// `#[error("...")]`: the format string.
    Format(LitStr),
    /// `#[error(transparent)]`: the `Display` of the single field, with the span of
    /// `transparent`.
    Transparent(Span),
    /// Anything the derive does not read, such as explicit format arguments.
    Opaque,
}

/// Every helper attribute found on one item (container, variant or field).
#[derive(Default)]
pub struct Attrs {
    pub category: Option<Spanned<CategoryName>>,
    pub protocol: Option<Spanned<i64>>,
    pub retryable: Option<Spanned<bool>>,
    pub code: Option<LitStr>,
    pub message: Option<LitStr>,
    pub hint: Option<LitStr>,
    pub mask: Option<Span>,
    pub expose: Option<Span>,
    pub detail: Option<Span>,
    pub retry_after: Option<Span>,
    pub sensitive: Option<Span>,
    /// `#[classify]` (`None` inside) or `#[classify(with = path)]`.
    pub classify: Option<Spanned<Option<syn::Path>>>,
    pub transparent: Option<Span>,
    /// `#[tool_error(crate = "...")]`: the path of the core crate in the generated code.
    pub krate: Option<syn::Path>,
    /// thiserror's `#[error(...)]` (the last one), read by [`Attrs::display`] when a rule
    /// needs it.
    pub error: Option<Attribute>,
    /// Every helper attribute by name and span, for placement checks.
    pub seen: Vec<(&'static str, Span)>,
}

impl Attrs {
    /// Parses the helper attributes of an item, pushing every malformed one to `errors`.
    pub fn parse(attrs: Vec<Attribute>, errors: &mut darling::error::Accumulator) -> Attrs {
        let mut out = Attrs::default();
        for attr in attrs {
            // One string per attribute, not one per name compared (`is_ident` makes one each
            // time, and a large enum has thousands of attributes).
            let Some(path_ident) = attr.path().get_ident() else {
                continue;
            };
            let ident = path_ident.to_string();
            if ident == ERROR {
                out.error = Some(attr);
                continue;
            }
            let Some(name) = ALL.iter().copied().find(|name| ident == *name) else {
                continue;
            };
            if out.seen.iter().any(|(seen, _)| *seen == name) {
                errors.push(spanned(
                    &attr,
                    format!("duplicate `#[{name}]`: write it once on this item"),
                ));
                continue;
            }
            // The span of a one-ident path is its ident's.
            out.seen.push((name, path_ident.span()));
            if let Err(error) = out.parse_one(name, &attr, path_ident.span()) {
                errors.push(error);
            }
        }
        out
    }

    /// What thiserror's `#[error(...)]` says `Display` shows, read (never interpreted) to see
    /// whether it shows a sensitive field; only the rules about sensitive fields ask.
    pub fn display(&self) -> Option<Display> {
        self.error.as_ref().map(thiserror_display)
    }

    /// Parses `#[name...]`; `path_span` is the span of `name`.
    fn parse_one(
        &mut self,
        name: &'static str,
        attr: &Attribute,
        path_span: Span,
    ) -> darling::Result<()> {
        match name {
            // Parse #[category(validation)]
            CATEGORY => {
                let (ident, name, span) = match single_token(attr) {
                    // The common case, without a parser: one of the names, which is no
                    // keyword, and the span of the first (the only) argument is its own.
                    Some(TokenTree::Ident(ident))
                        if Category::from_name(&ident.to_string()).is_some() =>
                    {
                        let name = ident.to_string();
                        let span = ident.span();
                        (ident, name, span)
                    }
                    _ => {
                        let ident: Ident = parse_args(attr, "#[category(validation)]")?;
                        let name = ident.to_string();
                        (ident, name, args_span(attr, path_span))
                    }
                };
                self.category = Some(Spanned {
                    value: CategoryName { name, ident },
                    span,
                });
            }
            // Parse #[protocol(-32602)] or #[protocol(invalid_params)]
            PROTOCOL => {
                let (code, span) = attr
                    .parse_args_with(parse_protocol_code)
                    .map_err(darling::Error::from)?;
                self.protocol = Some(Spanned { value: code, span });
            }
            // Parse #[retryable] or #[retryable(false)]
            RETRYABLE => {
                let span = args_span(attr, path_span);
                let value = match &attr.meta {
                    syn::Meta::Path(_) => true,
                    _ => parse_args::<LitBool>(attr, "#[retryable] or #[retryable(false)]")?.value,
                };
                self.retryable = Some(Spanned { value, span });
            }
            // Parse #[code("STABLE_CODE")]
            CODE => self.code = Some(parse_lit_str(attr, "#[code(\"STABLE_CODE\")]")?),
            // Parse #[message("text with {field}")]
            MESSAGE => {
                self.message = Some(parse_lit_str(attr, "#[message(\"text with {field}\")]")?);
            }
            // Parse #[hint("text with {field}")]
            HINT => self.hint = Some(parse_lit_str(attr, "#[hint(\"text with {field}\")]")?),
            // Parse #[mask], #[expose], #[detail], #[retry_after], #[sensitive], #[transparent]
            MASK | EXPOSE | DETAIL | RETRY_AFTER | SENSITIVE | TRANSPARENT => {
                attr.meta.require_path_only().map_err(|_| {
                    spanned(
                        attr,
                        format!("`{name}` takes no arguments: write `#[{name}]`"),
                    )
                })?;
                let span = args_span(attr, path_span);
                let slot = match name {
                    MASK => &mut self.mask,
                    EXPOSE => &mut self.expose,
                    DETAIL => &mut self.detail,
                    RETRY_AFTER => &mut self.retry_after,
                    TRANSPARENT => &mut self.transparent,
                    _ => &mut self.sensitive,
                };
                *slot = Some(span);
            }
            // Parse #[classify] or #[classify(with = path::to::function)]
            CLASSIFY => {
                let span = args_span(attr, path_span);
                let with = match &attr.meta {
                    syn::Meta::Path(_) => None,
                    _ => Some(attr.parse_args_with(parse_classify_with).map_err(|error| {
                        darling::Error::custom(format!(
                            "{error}; the syntax is `#[classify]` or `#[classify(with = path::to::function)]`"
                        ))
                        .with_span(&error.span())
                    })?),
                };
                self.classify = Some(Spanned { value: with, span });
            }
            // Parse #[tool_error(crate = "path::to::mcp_errors_core")]
            TOOL_ERROR => self.krate = Some(parse_tool_error(attr)?),
            _ => unreachable!("every name of symbol::ALL has a branch"),
        }
        Ok(())
    }
}

/// `with = path`: the function `#[classify]` calls with the field.
fn parse_classify_with(input: ParseStream) -> syn::Result<syn::Path> {
    let key: Ident = input.parse()?;
    if key != "with" {
        return Err(syn::Error::new(
            key.span(),
            format!("unknown option `{key}` of `#[classify]`"),
        ));
    }
    input.parse::<Token![=]>()?;
    let path = input.parse()?;
    if !input.is_empty() {
        return Err(input.error("unexpected tokens after the function's path"));
    }
    Ok(path)
}

/// Errors point at the attribute's name: a span cannot cover a whole attribute on stable.
fn spanned(attr: &Attribute, message: String) -> darling::Error {
    darling::Error::custom(message).with_span(&attr.path().span())
}

/// The span of an attribute's first argument (`-32602` in `#[protocol(-32602)]`), or of its
/// name (`path_span`) when it has none.
fn args_span(attr: &Attribute, path_span: Span) -> Span {
    match &attr.meta {
        syn::Meta::List(list) => list
            .tokens
            .clone()
            .into_iter()
            .next()
            .map_or(path_span, |token| token.span()),
        _ => path_span,
    }
}

/// The one token inside the parentheses of `#[name(...)]`, if that is all they hold.
fn single_token(attr: &Attribute) -> Option<TokenTree> {
    let syn::Meta::List(list) = &attr.meta else {
        return None;
    };
    let mut tokens = list.tokens.clone().into_iter();
    let first = tokens.next()?;
    tokens.next().is_none().then_some(first)
}

/// `#[name("...")]`: the string literal, as `parse_args` reads it. The common case is read
/// without a parser; anything else goes through `parse_args`, which reports it.
fn parse_lit_str(attr: &Attribute, syntax: &str) -> darling::Result<LitStr> {
    if let Some(TokenTree::Literal(literal)) = single_token(attr)
        && let Lit::Str(lit) = Lit::new(literal)
    {
        return Ok(lit);
    }
    parse_args(attr, syntax)
}

fn parse_args<T: syn::parse::Parse>(attr: &Attribute, syntax: &str) -> darling::Result<T> {
    match &attr.meta {
        syn::Meta::List(_) => attr.parse_args::<T>().map_err(|error| {
            darling::Error::custom(format!("{error}; the syntax is `{syntax}`"))
                .with_span(&error.span())
        }),
        _ => Err(spanned(attr, format!("expected `{syntax}`"))),
    }
}

/// `-32602`, `4001` or a name of `codes::NAMED`, with the span of the number or name.
/// Whether the code may be used is a rule of `valid.rs`.
fn parse_protocol_code(input: ParseStream) -> syn::Result<(i64, Span)> {
    if input.peek(Ident) {
        let ident: Ident = input.parse()?;
        let name = ident.to_string();
        if let Some(named) = codes::by_name(&name) {
            return Ok((i64::from(named.code), ident.span()));
        }
        let names = codes::names();
        let mut message = format!("unknown protocol error name `{name}`");
        if let Some(best) = did_you_mean(&name, &names) {
            message.push_str(&format!("; did you mean `{best}`?"));
        }
        message.push_str(&format!(
            " Write a JSON-RPC code such as `-32602` or one of: {}",
            names.join(", ")
        ));
        return Err(syn::Error::new(ident.span(), message));
    }
    let expr: Expr = input.parse()?;
    let (negative, lit) = match &expr {
        Expr::Unary(ExprUnary {
            op: UnOp::Neg(_),
            expr,
            ..
        }) => match &**expr {
            Expr::Lit(ExprLit { lit, .. }) => (true, lit),
            _ => return Err(not_a_code(expr)),
        },
        Expr::Lit(ExprLit { lit, .. }) => (false, lit),
        _ => return Err(not_a_code(&expr)),
    };
    let sign = if negative { "-" } else { "" };
    let lit = match lit {
        Lit::Int(lit) => lit,
        Lit::Float(lit) => return Err(not_an_integer(lit, sign)),
        Lit::Str(lit) if !negative => return Err(quoted_code(lit)),
        _ => return Err(not_a_code(&expr)),
    };
    if !lit.suffix().is_empty() {
        return Err(syn::Error::new(
            lit.span(),
            format!(
                "`{sign}{lit}` has a type suffix: a JSON-RPC error code is written without one, \
                 as in `#[protocol({sign}{})]`",
                lit.base10_digits()
            ),
        ));
    }
    let magnitude = parse_int(lit)?;
    Ok((if negative { -magnitude } else { magnitude }, lit.span()))
}

fn parse_int(lit: &LitInt) -> syn::Result<i64> {
    lit.base10_parse::<i64>().map_err(|_| {
        syn::Error::new(
            lit.span(),
            "a JSON-RPC error code must fit a 32-bit integer",
        )
    })
}

fn not_a_code(expr: &Expr) -> syn::Error {
    syn::Error::new(
        expr.span(),
        "expected a JSON-RPC error code such as `-32602` or a name such as `invalid_params`",
    )
}

/// `#[protocol(-32602.0)]`: suggests the integer when the number is one.
fn not_an_integer(lit: &LitFloat, sign: &str) -> syn::Error {
    let whole = lit
        .base10_parse::<f64>()
        .ok()
        .filter(|value| value.fract() == 0.0 && value.abs() <= f64::from(i32::MAX));
    let instead = match whole {
        Some(value) => format!("{sign}{value}"),
        None => "-32602".to_owned(),
    };
    syn::Error::new(
        lit.span(),
        format!(
            "`{sign}{lit}` is not an integer: a JSON-RPC error code is a whole number, as in \
             `#[protocol({instead})]`"
        ),
    )
}

/// `#[protocol("invalid_params")]`: suggests the same code without quotes when it is one.
fn quoted_code(lit: &LitStr) -> syn::Error {
    let value = lit.value();
    let value = value.trim();
    let known = codes::by_name(value).is_some() || value.parse::<i32>().is_ok();
    let instead = if known {
        format!("`#[protocol({value})]`")
    } else {
        "a JSON-RPC code such as `#[protocol(-32602)]` or a name such as \
         `#[protocol(invalid_params)]`"
            .to_owned()
    };
    syn::Error::new(
        lit.span(),
        format!("a protocol error code is written without quotes: {instead}"),
    )
}

/// The options of `#[tool_error(...)]`; `crate` is the only one.
fn parse_tool_error(attr: &Attribute) -> darling::Result<syn::Path> {
    const SYNTAX: &str = "#[tool_error(crate = \"path::to::mcp_errors_core\")]";
    if !matches!(attr.meta, syn::Meta::List(_)) {
        return Err(spanned(attr, format!("expected `{SYNTAX}`")));
    }
    let mut krate = None;
    attr.parse_nested_meta(|meta| {
        if !meta.path.is_ident(CRATE) {
            let name = meta.path.to_token_stream().to_string().replace(' ', "");
            let mut message = format!("unknown option `{name}` of `#[tool_error]`");
            match did_you_mean(&name, &TOOL_ERROR_OPTIONS) {
                Some(best) => message.push_str(&format!("; did you mean `{best}`?")),
                None => message.push_str(&format!("; the syntax is `{SYNTAX}`")),
            }
            return Err(meta.error(message));
        }
        let value = meta
            .value()
            .map_err(|error| syn::Error::new(error.span(), format!("expected `{SYNTAX}`")))?;
        let lit: LitStr = value.parse().map_err(|error| {
            syn::Error::new(
                error.span(),
                format!("`crate` takes the path as a string: write `{SYNTAX}`"),
            )
        })?;
        let path = lit.parse_with(syn::Path::parse_mod_style).map_err(|_| {
            syn::Error::new(
                lit.span(),
                format!(
                    "`{}` is not a path: write the path of the core crate, such as \
                     `::mcp_errors_core` or `my_facade::mcp_errors_core`",
                    lit.value()
                ),
            )
        })?;
        krate = Some(path);
        Ok(())
    })?;
    krate.ok_or_else(|| spanned(attr, format!("expected `{SYNTAX}`")))
}

/// What thiserror's `#[error(...)]` shows: its format string, `transparent`, or something
/// the derive does not read (a non-literal, explicit format arguments).
fn thiserror_display(attr: &Attribute) -> Display {
    // The common cases, without a parser: a format string alone, a format string with
    // arguments, `transparent`. Anything else is read by the parser below.
    if let syn::Meta::List(list) = &attr.meta {
        let mut tokens = list.tokens.clone().into_iter();
        match (tokens.next(), tokens.next()) {
            (Some(TokenTree::Literal(literal)), None) => {
                if let Lit::Str(lit) = Lit::new(literal) {
                    return Display::Format(lit);
                }
            }
            // With arguments (or a literal that is no string, which the parser refuses).
            (Some(TokenTree::Literal(_)), Some(TokenTree::Punct(punct)))
                if punct.as_char() == ',' =>
            {
                return Display::Opaque;
            }
            (Some(TokenTree::Ident(ident)), None) if ident == "transparent" => {
                return Display::Transparent(ident.span());
            }
            _ => {}
        }
    }
    attr.parse_args_with(|input: ParseStream| {
        if input.peek(Ident) {
            let ident: Ident = input.parse()?;
            if ident == "transparent" && input.is_empty() {
                return Ok(Display::Transparent(ident.span()));
            }
            return Ok(Display::Opaque);
        }
        let lit: LitStr = input.parse()?;
        // Explicit arguments (`"{}", self.x`) are not read: they are opaque to us.
        if input.peek(Token![,]) {
            return Ok(Display::Opaque);
        }
        Ok(Display::Format(lit))
    })
    .unwrap_or(Display::Opaque)
}
