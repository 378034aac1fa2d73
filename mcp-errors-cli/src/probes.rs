//! The provocations: calls built from a tool's input schema that a correct server must refuse
//! (or, for an oversize value, survive), plus the user's own calls.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// The name the unknown-tool provocation calls; no server lists it.
pub const UNKNOWN_TOOL: &str = "mcp_errors_check_no_such_tool";

/// The length of the oversize string.
pub const OVERSIZE_CHARS: usize = 100_000;

/// What a provocation does.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Provocation {
    /// `{}` to a tool with required arguments.
    MissingRequired {
        /// The required properties.
        fields: Vec<String>,
    },
    /// One property of the wrong JSON type, the others plausible.
    WrongType {
        /// The property.
        field: String,
        /// The type(s) its schema asks for.
        expected: String,
        /// The type sent.
        sent: String,
    },
    /// A huge value for one property.
    Oversize {
        /// The property.
        field: String,
    },
    /// A value outside a property's `enum`.
    UnknownEnum {
        /// The property.
        field: String,
        /// The values its schema allows.
        allowed: Vec<Value>,
    },
    /// A call of a tool the server does not list.
    UnknownTool,
    /// `{}` to a read-only tool whose schema requires no argument: a call it should answer.
    NoArguments,
    /// A call from the user's file.
    UserCall {
        /// Its place in the file, from 1.
        index: usize,
        /// What the user expects.
        expect: Expectation,
    },
}

impl Provocation {
    /// A short description for the report.
    pub fn describe(&self) -> String {
        match self {
            Provocation::MissingRequired { fields } => {
                format!("{{}} without required {}", fields.join(", "))
            }
            Provocation::WrongType {
                field,
                expected,
                sent,
            } => {
                format!("`{field}` as {sent} (expects {expected})")
            }
            Provocation::Oversize { field } => format!("`{field}` oversize"),
            Provocation::UnknownEnum { field, .. } => format!("`{field}` outside its enum"),
            Provocation::UnknownTool => "an unknown tool name".into(),
            Provocation::NoArguments => "{} (requires no argument)".into(),
            Provocation::UserCall { index, .. } => format!("your call #{index}"),
        }
    }

    /// Whether a correct server refuses this call as invalid input.
    pub fn is_invalid_input(&self) -> bool {
        matches!(
            self,
            Provocation::MissingRequired { .. }
                | Provocation::WrongType { .. }
                | Provocation::UnknownEnum { .. }
        )
    }
}

/// The outcome a user's call should have.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Expectation {
    /// `success`, `execution_error` (an `isError` result), `protocol_error` or `error`
    /// (either failure).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<String>,
    /// The category the failure should carry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    /// The stable code the failure should carry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// Whether the failure should say it is retryable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retryable: Option<bool>,
}

/// One call of the user's file (`--calls`).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UserCall {
    /// The tool.
    pub tool: String,
    /// Its arguments.
    #[serde(default = "empty_object")]
    pub arguments: Value,
    /// What should come back.
    #[serde(default)]
    pub expect: Expectation,
}

fn empty_object() -> Value {
    Value::Object(Map::new())
}

/// One call to make.
#[derive(Clone, Debug)]
pub struct Planned {
    /// What it provokes.
    pub provocation: Provocation,
    /// The arguments sent.
    pub arguments: Value,
}

/// The JSON types a property's schema allows, `null` left out.
pub fn types_of(schema: &Value) -> Vec<String> {
    let mut types = Vec::new();
    match schema.get("type") {
        Some(Value::String(t)) => types.push(t.clone()),
        Some(Value::Array(list)) => {
            types.extend(list.iter().filter_map(Value::as_str).map(str::to_owned))
        }
        _ => {}
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(list) = schema.get(key).and_then(Value::as_array) {
            for branch in list {
                types.extend(types_of(branch));
            }
        }
    }
    if types.is_empty() && (schema.get("enum").is_some() || schema.get("const").is_some()) {
        let values = schema
            .get("enum")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        for value in values.iter().chain(schema.get("const")) {
            let t = match value {
                Value::String(_) => "string",
                Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
                Value::Number(_) => "number",
                Value::Bool(_) => "boolean",
                _ => continue,
            };
            types.push(t.to_owned());
        }
    }
    types.retain(|t| t != "null");
    types.dedup();
    types
}

/// A value of a type the schema does not allow, with that type's name; `None` when the schema
/// allows every type.
fn wrong_value(types: &[String]) -> Option<(Value, &'static str)> {
    let allows = |t: &str| {
        types
            .iter()
            .any(|x| x == t || (t == "integer" && x == "number"))
    };
    let candidates: [(Value, &'static str); 5] = [
        (json!(12345), "integer"),
        (json!("not-a-number"), "string"),
        (json!(true), "boolean"),
        (json!({"unexpected": "object"}), "object"),
        (json!(["unexpected", "array"]), "array"),
    ];
    if types.is_empty() {
        return None;
    }
    // A string is the most telling wrong value for anything but a string.
    let order: &[usize] = if allows("string") {
        &[0, 2, 3]
    } else {
        &[1, 0, 2]
    };
    order
        .iter()
        .map(|&i| candidates[i].clone())
        .find(|(_, t)| !allows(t))
}

/// A plausible value for a property: its `const`, `default`, first `enum` value or example,
/// else one of its type.
pub fn plausible(schema: &Value) -> Value {
    if let Some(v) = schema.get("const") {
        return v.clone();
    }
    if let Some(v) = schema.get("default").filter(|v| !v.is_null()) {
        return v.clone();
    }
    if let Some(v) = schema
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        return v.clone();
    }
    if let Some(v) = schema
        .get("examples")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        return v.clone();
    }
    let types = types_of(schema);
    match types.first().map(String::as_str) {
        Some("integer") | Some("number") => {
            let min = schema
                .get("minimum")
                .and_then(Value::as_f64)
                .unwrap_or(1.0)
                .max(1.0);
            let max = schema
                .get("maximum")
                .and_then(Value::as_f64)
                .unwrap_or(f64::MAX);
            json!(min.min(max) as i64)
        }
        Some("boolean") => json!(false),
        Some("array") => json!([]),
        Some("object") => {
            let mut object = Map::new();
            if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                for name in required(schema) {
                    if let Some(p) = props.get(&name) {
                        object.insert(name, plausible(p));
                    }
                }
            }
            Value::Object(object)
        }
        _ => match schema.get("format").and_then(Value::as_str) {
            Some("date-time") => json!("2026-01-01T00:00:00Z"),
            Some("date") => json!("2026-01-01"),
            Some("uri") | Some("url") => json!("https://example.com/"),
            Some("email") => json!("someone@example.com"),
            _ => json!("example"),
        },
    }
}

/// Whether a call with `{}` is one the schema allows: it names no required property.
pub fn requires_nothing(input_schema: &Value) -> bool {
    required(input_schema).is_empty()
}

fn required(schema: &Value) -> Vec<String> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

fn oversize(types: &[String]) -> Option<Value> {
    match types.first().map(String::as_str) {
        Some("string") => Some(json!("x".repeat(OVERSIZE_CHARS))),
        Some("array") => Some(Value::Array(vec![json!("x"); 10_000])),
        Some("integer") => Some(json!(u64::MAX)),
        Some("number") => Some(json!(1e308)),
        _ => None,
    }
}

/// The provocations for one tool, in the order they run.
pub fn plan(input_schema: &Value) -> Vec<Planned> {
    let properties = input_schema
        .get("properties")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let required = required(input_schema);
    let mut base = Map::new();
    for name in &required {
        if let Some(schema) = properties.get(name) {
            base.insert(name.clone(), plausible(schema));
        }
    }
    let with = |field: &str, value: Value| {
        let mut arguments = base.clone();
        arguments.insert(field.to_owned(), value);
        Value::Object(arguments)
    };
    let mut planned = Vec::new();
    if !required.is_empty() {
        planned.push(Planned {
            provocation: Provocation::MissingRequired {
                fields: required.clone(),
            },
            arguments: json!({}),
        });
    }
    for (field, schema) in &properties {
        let types = types_of(schema);
        if let Some((value, sent)) = wrong_value(&types) {
            planned.push(Planned {
                provocation: Provocation::WrongType {
                    field: field.clone(),
                    expected: types.join(" or "),
                    sent: sent.into(),
                },
                arguments: with(field, value),
            });
        }
    }
    // A string first: the value most servers echo.
    let is_string = |schema: &Value| types_of(schema).first().is_some_and(|t| t == "string");
    let oversized = properties
        .iter()
        .filter(|(_, schema)| is_string(schema))
        .chain(properties.iter().filter(|(_, schema)| !is_string(schema)))
        .find_map(|(field, schema)| oversize(&types_of(schema)).map(|v| (field.clone(), v)));
    if let Some((field, value)) = oversized {
        planned.push(Planned {
            provocation: Provocation::Oversize {
                field: field.clone(),
            },
            arguments: with(&field, value),
        });
    }
    if let Some((field, allowed)) = properties.iter().find_map(|(field, schema)| {
        let allowed = schema.get("enum").and_then(Value::as_array)?;
        allowed
            .iter()
            .all(Value::is_string)
            .then(|| (field.clone(), allowed.clone()))
    }) {
        planned.push(Planned {
            provocation: Provocation::UnknownEnum {
                field: field.clone(),
                allowed,
            },
            arguments: with(&field, json!("mcp-errors-check-not-a-member")),
        });
    }
    planned
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_one_of_each_from_a_schema() {
        let schema = json!({
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "limit": {"type": ["integer", "null"]},
                "mode": {"type": "string", "enum": ["fast", "slow"]},
                "free": {}
            },
            "required": ["name", "mode"]
        });
        let planned = plan(&schema);
        let kinds: Vec<_> = planned.iter().map(|p| p.provocation.describe()).collect();
        assert_eq!(
            kinds,
            [
                "{} without required name, mode",
                "`limit` as string (expects integer)",
                "`mode` as integer (expects string)",
                "`name` as integer (expects string)",
                "`mode` oversize",
                "`mode` outside its enum",
            ]
        );
        // The other required properties keep plausible values.
        assert_eq!(
            planned[1].arguments,
            json!({"name": "example", "mode": "fast", "limit": "not-a-number"})
        );
        assert!(plan(&json!({"type": "object"})).is_empty());
    }
}
