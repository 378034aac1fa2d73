//! Secret arguments kept out of what a run leaves: a value is secret by its name (`password`,
//! `apiKey`, `x_auth_token`, ...) or by the tool's input schema (`writeOnly`, `format:
//! "password"`), and is replaced by [`REDACTED`].

use serde_json::{Map, Value};

/// What a secret value is replaced by.
pub(crate) const REDACTED: &str = "<redacted>";

/// Words that make a name secret wherever they appear in it, once it is lowercased and its
/// separators dropped (`API-KEY`, `api_key` and `apiKey` all read `apikey`).
const SECRET_PARTS: [&str; 9] = [
    "password",
    "passwd",
    "passphrase",
    "secret",
    "apikey",
    "privatekey",
    "authorization",
    "cookie",
    "credential",
];

/// `arguments` with every secret value replaced by [`REDACTED`], at any depth: a member whose
/// name reads as a secret ([`is_secret_name`]), or that `schema` (the tool's `inputSchema`)
/// marks `writeOnly: true` or `format: "password"` in its `properties` (and the `items` of an
/// array, the `properties` of a nested object).
pub(crate) fn redact_arguments(arguments: &Value, schema: Option<&Value>) -> Value {
    let mut arguments = arguments.clone();
    redact_value(&mut arguments, schema);
    arguments
}

/// A request's `_meta` with the values of secret names replaced by [`REDACTED`], at any depth.
pub(crate) fn redact_meta(meta: &Map<String, Value>) -> Map<String, Value> {
    let mut meta = meta.clone();
    redact_members(&mut meta, None);
    meta
}

fn redact_value(value: &mut Value, schema: Option<&Value>) {
    match value {
        Value::Object(members) => redact_members(members, schema),
        Value::Array(items) => {
            let item_schema = schema.and_then(|s| s.get("items"));
            for item in items {
                redact_value(item, item_schema);
            }
        }
        _ => {}
    }
}

fn redact_members(members: &mut Map<String, Value>, schema: Option<&Value>) {
    let properties = schema.and_then(|s| s.get("properties"));
    for (name, value) in members.iter_mut() {
        let property = properties.and_then(|p| p.get(name));
        if is_secret_name(name) || property.is_some_and(marks_secret) {
            *value = Value::from(REDACTED);
        } else {
            redact_value(value, property);
        }
    }
}

/// Whether a property's schema marks its value secret: `writeOnly: true` (JSON Schema's word for
/// a value sent but never shown back) or `format: "password"` (OpenAPI's).
fn marks_secret(property: &Value) -> bool {
    property.get("writeOnly") == Some(&Value::Bool(true))
        || property.get("format").and_then(Value::as_str) == Some("password")
}

/// Whether a name reads as a secret in any case and with any separators: it holds one of
/// [`SECRET_PARTS`] (`password`, `client_secret`, `apiKey`, `X-API-KEY`, `private_key`,
/// `Authorization`, `Cookie`, `credentials`, ...), has the word `token` (`token`, `authTokenId`),
/// or ends with it (`x_auth_token`, `accesstoken`); `max_tokens` and `tokenizer` do not.
pub(crate) fn is_secret_name(name: &str) -> bool {
    let compact: String = name
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    SECRET_PARTS.iter().any(|part| compact.contains(part))
        || compact.ends_with("token")
        || words(name).any(|word| word.eq_ignore_ascii_case("token"))
}

/// The words of a name: split at anything but a letter or a digit, and where a lowercase letter
/// or a digit is followed by an uppercase one (`authTokenId` is `auth`, `Token`, `Id`).
fn words(name: &str) -> impl Iterator<Item = &str> {
    name.split(|c: char| !c.is_ascii_alphanumeric())
        .flat_map(|part| {
            let mut starts = vec![0];
            let bytes = part.as_bytes();
            for i in 1..bytes.len() {
                if bytes[i].is_ascii_uppercase() && !bytes[i - 1].is_ascii_uppercase() {
                    starts.push(i);
                }
            }
            starts.push(part.len());
            starts
                .windows(2)
                .map(|w| &part[w[0]..w[1]])
                .collect::<Vec<_>>()
        })
        .filter(|word| !word.is_empty())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{REDACTED, is_secret_name, redact_arguments, redact_meta};

    #[test]
    fn names_that_read_as_secrets_in_any_case_and_separator() {
        for name in [
            "password",
            "PASSWORD",
            "db_passwd",
            "passphrase",
            "client_secret",
            "api_key",
            "apiKey",
            "API-KEY",
            "X-Api-Key",
            "private_key",
            "privateKey",
            "Authorization",
            "cookie",
            "Set-Cookie",
            "credentials",
            "token",
            "x_auth_token",
            "accessToken",
            "accesstoken",
            "authTokenId",
            "refresh-token",
        ] {
            assert!(is_secret_name(name), "{name}");
        }
        for name in [
            "max_tokens",
            "tokenizer",
            "order_id",
            "keywords",
            "key",
            "author",
            "",
        ] {
            assert!(!is_secret_name(name), "{name}");
        }
    }

    #[test]
    fn secret_members_are_redacted_at_any_depth_and_the_rest_kept() {
        let arguments = json!({
            "order_id": "A-1",
            "apiKey": "sk-live-1",
            "auth": {"x_auth_token": "t-2", "user": "ann"},
            "headers": [{"Authorization": "Bearer t-3", "Accept": "json"}],
            "password": {"nested": "whole value goes"},
        });
        assert_eq!(
            redact_arguments(&arguments, None),
            json!({
                "order_id": "A-1",
                "apiKey": REDACTED,
                "auth": {"x_auth_token": REDACTED, "user": "ann"},
                "headers": [{"Authorization": REDACTED, "Accept": "json"}],
                "password": REDACTED,
            })
        );
        assert_eq!(redact_arguments(&json!("plain"), None), json!("plain"));
    }

    #[test]
    fn members_the_schema_marks_are_redacted() {
        let schema = json!({
            "type": "object",
            "properties": {
                "pin": {"type": "string", "writeOnly": true},
                "phrase": {"type": "string", "format": "password"},
                "note": {"type": "string", "writeOnly": false},
                "account": {
                    "type": "object",
                    "properties": {"iban": {"type": "string", "writeOnly": true}}
                },
                "cards": {
                    "type": "array",
                    "items": {"type": "object", "properties": {"cvv": {"writeOnly": true}}}
                }
            }
        });
        let arguments = json!({
            "pin": "1234",
            "phrase": "open sesame",
            "note": "hello",
            "account": {"iban": "DE00", "owner": "ann"},
            "cards": [{"cvv": "123", "last4": "4242"}],
        });
        assert_eq!(
            redact_arguments(&arguments, Some(&schema)),
            json!({
                "pin": REDACTED,
                "phrase": REDACTED,
                "note": "hello",
                "account": {"iban": REDACTED, "owner": "ann"},
                "cards": [{"cvv": REDACTED, "last4": "4242"}],
            })
        );
        // Without the schema, only names count.
        assert_eq!(redact_arguments(&arguments, None), arguments);
    }

    #[test]
    fn secret_names_in_meta_are_redacted() {
        let meta = json!({"traceparent": "00-ab-cd-01", "api_token": "t"});
        let redacted = redact_meta(meta.as_object().unwrap());
        assert_eq!(
            serde_json::Value::Object(redacted),
            json!({"traceparent": "00-ab-cd-01", "api_token": REDACTED})
        );
    }
}
