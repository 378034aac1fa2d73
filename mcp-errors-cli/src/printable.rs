//! What the check prints of a server's strings: names, versions, texts, on stdout and stderr,
//! in the terminal report and in JSON. A server may put terminal escapes in any of them (a
//! clipboard write, a window title, a cleared screen) or characters that reorder or hide text.

use std::borrow::Cow;

use serde_json::Value;

/// `text` without what a terminal or a reader would not show as text: every control character
/// (C0, DEL, C1, newlines included) becomes a space; the bidirectional controls (U+061C,
/// U+200E, U+200F, U+202A..U+202E, U+2066..U+2069), the tag characters (U+E0000..U+E007F),
/// the zero-width space U+200B and U+FEFF are removed. Returned as is when it holds none.
pub fn printable(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| c.is_control() || is_hidden(c)) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.chars()
            .filter(|&c| !is_hidden(c))
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect(),
    )
}

fn is_hidden(c: char) -> bool {
    matches!(
        c,
        '\u{061C}'
            | '\u{200B}'
            | '\u{200E}'
            | '\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2066}'..='\u{2069}'
            | '\u{FEFF}'
            | '\u{E0000}'..='\u{E007F}'
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
        for text in ["plain", "naïve — 東京 👩‍💻", "\u{fe0f}\u{200d}"] {
            assert!(matches!(printable(text), Cow::Borrowed(t) if t == text));
        }
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
