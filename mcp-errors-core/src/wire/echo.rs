//! The message as the text after a code shows it: without a leading repetition of the code's
//! words, so `INVALID_SQL` and `Invalid SQL: near "x"` read `INVALID_SQL: near "x"`.

/// `message` without a leading repetition of `code`'s words.
///
/// The message starts with every word of the code (split at `_`), in order and in any case,
/// each a whole word, separated by spaces, `_` or `-`; then, after optional spaces, a `:` or
/// a `-` followed by a space. What follows is the message; when nothing follows, the message
/// stays whole. `INVALID_SQL` drops `Invalid SQL: ` and `invalid sql - `, not `Invalid
/// SQLite: ` (a longer word), `Invalid SQL query: ` (a word more) or `http://` (no space
/// after the `:`).
pub(crate) fn without_code_echo<'a>(code: &str, message: &'a str) -> &'a str {
    strip_code_words(code, message).unwrap_or(message)
}

/// The rest of `message` after the code's words and the separator, or `None` when the message
/// does not start with them or nothing follows.
fn strip_code_words<'a>(code: &str, message: &'a str) -> Option<&'a str> {
    let mut rest = message.trim_start();
    for (i, word) in code.split('_').enumerate() {
        if word.is_empty() {
            return None;
        }
        if i > 0 {
            rest = skip_word_gap(rest)?;
        }
        let head = rest.get(..word.len())?;
        if !head.eq_ignore_ascii_case(word) {
            return None;
        }
        rest = &rest[word.len()..];
    }
    // The last word ends here: a `:` or a `-`, after optional spaces, then a space.
    let rest = rest.trim_start_matches(' ');
    let rest = rest.strip_prefix([':', '-'])?;
    if !rest.starts_with(char::is_whitespace) {
        return None;
    }
    let rest = rest.trim_start();
    (!rest.is_empty()).then_some(rest)
}

/// `text` after the gap between two words: spaces, or one `_` or `-`.
fn skip_word_gap(text: &str) -> Option<&str> {
    if let Some(rest) = text.strip_prefix(['_', '-']) {
        return Some(rest);
    }
    let rest = text.trim_start_matches(' ');
    (rest.len() < text.len()).then_some(rest)
}

#[cfg(test)]
mod tests {
    use super::without_code_echo;

    #[test]
    fn drops_the_code_words_and_their_separator() {
        let cases = [
            ("INVALID_SQL", "Invalid SQL: near \"x\"", "near \"x\""),
            ("INVALID_SQL", "invalid sql - near \"x\"", "near \"x\""),
            ("INVALID_SQL", "INVALID_SQL: near \"x\"", "near \"x\""),
            ("INVALID_SQL", "Invalid-SQL: near \"x\"", "near \"x\""),
            ("INVALID_SQL", "invalid  sql : near", "near"),
            ("NOT_FOUND", "Not found: order 42", "order 42"),
            ("TIMEOUT", "timeout - backend after 5s", "backend after 5s"),
            ("OAUTH2_EXPIRED", "OAuth2 expired: sign in", "sign in"),
        ];
        for (code, message, expected) in cases {
            assert_eq!(
                without_code_echo(code, message),
                expected,
                "{code} {message:?}"
            );
        }
    }

    #[test]
    fn keeps_a_message_that_only_starts_alike() {
        let cases = [
            // A longer word, a word more, a word less.
            ("INVALID_SQL", "Invalid SQLite: near \"x\""),
            ("INVALID_SQL", "Invalid SQL query: near \"x\""),
            ("INVALID_SQL", "Invalid: near \"x\""),
            ("INVALID_SQL", "InvalidSQL: near \"x\""),
            // No separator, or none followed by a space.
            ("INVALID_SQL", "invalid sql near \"x\""),
            ("HTTP", "http://example.com is down"),
            ("E", "e-mail bounced"),
            ("TIMEOUT", "timeout;retry"),
            // Nothing after the separator: the message is all there is.
            ("INVALID_SQL", "Invalid SQL:"),
            ("INVALID_SQL", "Invalid SQL: "),
            ("INVALID_SQL", "Invalid SQL"),
            // The masked text names its category, not its code.
            (
                "INTERNAL",
                "internal error; the details were logged under the correlation id",
            ),
            // Codes that are not the derive's.
            ("", ": x"),
            ("A__B", "a b: x"),
            ("ÉCHEC", "échec: x"),
        ];
        for (code, message) in cases {
            assert_eq!(
                without_code_echo(code, message),
                message,
                "{code} {message:?}"
            );
        }
    }

    #[test]
    fn a_multibyte_message_is_cut_at_a_character() {
        assert_eq!(without_code_echo("ÉCHEC", "ÉCHEC: x"), "x");
        assert_eq!(without_code_echo("AB", "aé: x"), "aé: x");
        assert_eq!(without_code_echo("ABC", "é"), "é");
    }

    proptest::proptest! {
        /// The result is the message or a suffix of it, never empty unless the message is,
        /// for any code and message.
        #[test]
        fn is_a_suffix_of_the_message(code in "[A-Za-z0-9_é]{0,12}", message in "\\PC{0,40}") {
            let rest = without_code_echo(&code, &message);
            proptest::prop_assert!(message.ends_with(rest));
            proptest::prop_assert!(rest == message || !rest.is_empty());
        }

        /// A code's words, in any case, then `: ` and a message: the message.
        #[test]
        fn drops_any_code_written_as_words(
            words in proptest::collection::vec("[A-Z][A-Z0-9]{0,6}", 1..4),
            lower in proptest::bool::ANY,
            message in "[a-z][a-z ]{0,20}",
        ) {
            let code = words.join("_");
            let spoken = words.join(" ");
            let spoken = if lower { spoken.to_lowercase() } else { spoken };
            let full = format!("{spoken}: {message}");
            proptest::prop_assert_eq!(without_code_echo(&code, &full), message.trim_start());
        }
    }
}
