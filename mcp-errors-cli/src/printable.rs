//! What the check prints of a server's strings: names, versions, texts, on stdout and stderr,
//! in the terminal report and in JSON. A server may put terminal escapes in any of them (a
//! clipboard write, a window title, a cleared screen) or characters that reorder or hide text.

use std::borrow::Cow;

use serde_json::Value;
use unicode_general_category::{GeneralCategory, get_general_category};

/// `text` without what a terminal or a reader would not show as text: every control character
/// (C0, DEL, C1, newlines included) becomes a space; every format character (Unicode's general
/// category `Cf`: the bidirectional controls, the zero-width space, joiner and non-joiner,
/// the word joiner, U+FEFF, the tag characters, ...), the line and paragraph separators
/// (`Zl` U+2028, `Zp` U+2029), the Hangul fillers (U+115F, U+1160, U+3164, U+FFA0, letters
/// that draw nothing) and the whole tag block U+E0000..U+E007F are removed. Returned as is when
/// it holds none.
pub fn printable(text: &str) -> Cow<'_, str> {
    if text.bytes().all(|b| matches!(b, b' '..=b'~'))
        || !text.chars().any(|c| c.is_control() || is_hidden(c))
    {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.chars()
            .filter(|&c| !is_hidden(c))
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect(),
    )
}

/// A character [`printable`] removes.
fn is_hidden(c: char) -> bool {
    matches!(
        c,
        '\u{115F}' | '\u{1160}' | '\u{3164}' | '\u{FFA0}' | '\u{E0000}'..='\u{E007F}'
    ) || matches!(
        get_general_category(c),
        GeneralCategory::Format
            | GeneralCategory::LineSeparator
            | GeneralCategory::ParagraphSeparator
    )
}

/// `value` with [`printable`] applied to every string in it, object keys included.
pub fn printable_value(value: Value) -> Value {
    match value {
        Value::String(s) => Value::String(match printable(&s) {
            Cow::Borrowed(_) => s,
            Cow::Owned(clean) => clean,
        }),
        Value::Array(items) => Value::Array(items.into_iter().map(printable_value).collect()),
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| (printable(&k).into_owned(), printable_value(v)))
                .collect(),
        ),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn escapes_become_spaces_and_hidden_characters_go() {
        // OSC 52 (clipboard), OSC 0 (title), a cleared screen, a C1 CSI, a right-to-left
        // override, tag characters.
        let hostile =
            "a\u{1b}]52;c;ZXZpbA==\u{7}b\u{1b}]0;t\u{7}\u{1b}[2J\u{9b}31m\u{202e}c\u{e0041}d\r\n";
        assert_eq!(printable(hostile), "a ]52;c;ZXZpbA== b ]0;t  [2J 31mcd  ");
        assert_eq!(
            printable("a\u{7f}b\u{85}c\u{2066}\u{200b}d\u{feff}"),
            "a b cd"
        );
    }

    #[test]
    fn printable_text_is_not_copied() {
        for text in ["plain", "naïve — 東京 👩💻", "\u{fe0f}"] {
            assert!(matches!(printable(text), Cow::Borrowed(t) if t == text));
        }
    }

    #[test]
    fn format_characters_separators_and_fillers_go() {
        // Each draws nothing, or breaks a line where the report has none.
        let invisible = [
            '\u{00AD}',
            '\u{0600}',
            '\u{06DD}',
            '\u{115F}',
            '\u{1160}',
            '\u{180E}',
            '\u{200C}',
            '\u{200D}',
            '\u{2028}',
            '\u{2029}',
            '\u{2060}',
            '\u{2064}',
            '\u{206F}',
            '\u{3164}',
            '\u{FFA0}',
            '\u{FFF9}',
            '\u{110BD}',
            '\u{1D173}',
            '\u{E0001}',
            '\u{E0000}',
        ];
        for c in invisible {
            assert_eq!(printable(&format!("a{c}b")), "ab", "U+{:04X}", c as u32);
        }
        assert_eq!(printable("ta\u{2060}ke\u{3164}n"), "taken");
    }

    #[test]
    fn every_string_of_a_value_is_cleaned_keys_included() {
        let value = json!({"n\u{1b}": ["\u{9b}x", {"k": "\u{202e}y"}], "m": 1});
        assert_eq!(
            printable_value(value),
            json!({"n ": [" x", {"k": "y"}], "m": 1})
        );
    }
}
