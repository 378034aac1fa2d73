//! Case conversion: a variant's name as the default stable code, in UPPER_SNAKE_CASE.

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
}
