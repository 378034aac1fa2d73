//! An rmcp `ErrorData` that a tool returns itself, held to the bounds of the failures this
//! crate writes.

use ::rmcp::ErrorData;

use crate::mask::{self, MAX_MESSAGE_CHARS};

/// What the JSON of an error object takes besides its message and data: the keys, the code.
const FIXED_BYTES: usize = 64;

/// `error` within `max_bytes` of JSON (the whole error object, as
/// [`FailureOptions::max_bytes`](crate::FailureOptions::max_bytes) bounds a failure's): the
/// code as it is; the message cleaned as every message is and cut to 2048 characters; the
/// data cut as a failure's details are (each string cleaned and cut, arrays and objects cut
/// in items and depth) to the bytes the message leaves.
pub(super) fn bounded(error: ErrorData, max_bytes: usize) -> ErrorData {
    let ErrorData {
        code,
        message,
        data,
    } = error;
    let message = mask::clean_cow(message, MAX_MESSAGE_CHARS);
    let Some(data) = data else {
        return ErrorData::new(code, message, None);
    };
    // An error that fits (the boundary's own, converted within the bound) keeps its data
    // whole: only its strings are cleaned.
    let whole = FIXED_BYTES + message.len() + mask::json_size(&data) <= max_bytes;
    let mut room = if whole {
        max_bytes
    } else {
        max_bytes.saturating_sub(FIXED_BYTES + 2 * message.len())
    };
    loop {
        let bounded = ErrorData::new(code, message.clone(), Some(mask::bounded(&data, room)));
        // The notes of what was cut take a few bytes the walk does not count ahead.
        if room == 0 || mask::json_size(&bounded) <= max_bytes {
            return bounded;
        }
        room /= 2;
    }
}

#[cfg(test)]
mod tests {
    use ::rmcp::model::ErrorCode;
    use serde_json::{Value, json};

    use super::*;

    #[test]
    fn large_data_is_cut_to_the_bound_and_the_code_kept() {
        let huge = "x".repeat(5 * 1024 * 1024);
        let items: Vec<Value> = (0..100_000)
            .map(|i| json!({ "row": i, "text": "ab\u{202e}c" }))
            .collect();
        for data in [
            json!(huge),
            json!({ "rows": items, "note": huge }),
            json!(items),
        ] {
            let error = ErrorData::new(ErrorCode(-32050), "quota\u{1b}[2J spent", Some(data));
            let bounded = bounded(error, 16 * 1024);
            assert_eq!(bounded.code, ErrorCode(-32050));
            assert_eq!(bounded.message, "quota [2J spent");
            assert!(
                mask::json_size(&bounded) <= 16 * 1024,
                "{}",
                mask::json_size(&bounded)
            );
            assert!(
                !serde_json::to_string(&bounded)
                    .unwrap()
                    .contains('\u{202e}')
            );
        }
    }

    #[test]
    fn a_small_error_is_kept_as_it_is() {
        let error =
            ErrorData::invalid_params("bad range", Some(json!({ "field": "from", "max": 9 })));
        assert_eq!(bounded(error.clone(), 16 * 1024), error);
        let bare = ErrorData::internal_error("boom", None);
        assert_eq!(bounded(bare.clone(), 16 * 1024), bare);
    }

    #[test]
    fn a_long_message_is_cut() {
        let error = ErrorData::internal_error("m".repeat(100_000), None);
        assert_eq!(
            bounded(error, 16 * 1024).message.chars().count(),
            MAX_MESSAGE_CHARS
        );
    }
}
