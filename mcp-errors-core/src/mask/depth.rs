//! A `Serialize` value to JSON without deep recursion: a [`Serializer`] adapter that passes
//! every call on to the inner serializer, and stands [`TRUNCATED_DETAIL`] in for any part too
//! deep, without asking that part to serialize itself. However deep the input, the stack holds
//! at most [`max_nested_calls`] nested calls.
//!
//! serde_json builds a nested value by serializing each element into a [`Value`] of its own,
//! so the adapter wraps each element, key and field in [`Limited`], which serializes it through
//! the adapter again, one level deeper.

use serde::ser::{
    Serialize, SerializeMap, SerializeSeq, SerializeStruct, SerializeStructVariant, SerializeTuple,
    SerializeTupleStruct, SerializeTupleVariant, Serializer,
};
use serde_json::Value;

use super::TRUNCATED_DETAIL;

/// How many nested calls to `Serialize` a value may take, for a depth limit of `max_depth`
/// arrays and objects: `Option`s, newtypes and enum variants nest without adding a level of
/// JSON, and this leaves room for three of them per level.
pub(crate) const fn max_nested_calls(max_depth: usize) -> usize {
    4 * max_depth
}

/// `value` as JSON, every array or object nested deeper than `max_depth` replaced by
/// [`TRUNCATED_DETAIL`], as are values reached through more than
/// [`max_nested_calls`]`(max_depth)` nested calls.
pub(crate) fn to_value_within_depth<T: Serialize + ?Sized>(
    value: &T,
    max_depth: usize,
) -> Result<Value, serde_json::Error> {
    let level = Level {
        depth: 1,
        calls: 0,
        max_depth,
    };
    serde_json::to_value(Limited { value, level })
}

/// Where a value stands: `depth` is the JSON depth an array or object here would have, `calls`
/// the number of nested calls that led here.
#[derive(Clone, Copy)]
struct Level {
    depth: usize,
    calls: usize,
    max_depth: usize,
}

impl Level {
    /// One call deeper, in the same JSON container (an `Option`'s value, a newtype's field, a
    /// map key).
    fn call(self) -> Level {
        Level {
            calls: self.calls + 1,
            ..self
        }
    }

    /// One call deeper, inside a container that is `levels` deep (two for a tuple or struct
    /// variant, which is an object holding an array or object).
    fn inside(self, levels: usize) -> Level {
        Level {
            depth: self.depth + levels,
            calls: self.calls + 1,
            max_depth: self.max_depth,
        }
    }

    fn too_deep(self) -> bool {
        self.depth > self.max_depth
    }
}

/// A value to serialize through the adapter at `level`.
struct Limited<'a, T: ?Sized> {
    value: &'a T,
    level: Level,
}

impl<T: Serialize + ?Sized> Serialize for Limited<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.level.calls > max_nested_calls(self.level.max_depth) {
            return serializer.serialize_str(TRUNCATED_DETAIL);
        }
        self.value.serialize(LimitedSerializer {
            inner: serializer,
            level: self.level,
        })
    }
}

/// The adapter: `inner` does the work, at `level`.
struct LimitedSerializer<S> {
    inner: S,
    level: Level,
}

impl<S: Serializer> LimitedSerializer<S> {
    fn wrap<'a, T: ?Sized>(&self, value: &'a T, level: Level) -> Limited<'a, T> {
        Limited { value, level }
    }

    /// The placeholder written in place of an array or object one level too deep.
    fn truncated<C>(self) -> Result<Compound<C, S::Ok>, S::Error> {
        self.inner
            .serialize_str(TRUNCATED_DETAIL)
            .map(Compound::Truncated)
    }

    /// An array or object opened by `open`, or the placeholder where it would be too deep.
    fn compound<C>(
        self,
        open: impl FnOnce(S) -> Result<C, S::Error>,
    ) -> Result<Compound<C, S::Ok>, S::Error> {
        if self.level.too_deep() {
            return self.truncated();
        }
        let level = self.level.inside(1);
        Ok(Compound::Live {
            inner: open(self.inner)?,
            level,
        })
    }

    /// An enum variant holding an array or object, `{"variant": [...]}` or
    /// `{"variant": {...}}`: two levels, the object and what it holds, each cut where too deep.
    fn variant_compound<C>(
        self,
        (name, index, variant): (&'static str, u32, &'static str),
        open: impl FnOnce(S) -> Result<C, S::Error>,
    ) -> Result<Compound<C, S::Ok>, S::Error> {
        if self.level.too_deep() {
            return self.truncated();
        }
        if self.level.inside(1).too_deep() {
            return self
                .inner
                .serialize_newtype_variant(name, index, variant, TRUNCATED_DETAIL)
                .map(Compound::Truncated);
        }
        let level = self.level.inside(2);
        Ok(Compound::Live {
            inner: open(self.inner)?,
            level,
        })
    }
}

/// An array or object being written by the inner serializer, or the placeholder that stands
/// in for one too deep (its elements are dropped unserialized).
enum Compound<C, Ok> {
    Live { inner: C, level: Level },
    Truncated(Ok),
}

macro_rules! forward {
    ($($method:ident($($arg:ident: $ty:ty),*);)*) => {
        $(
            fn $method(self, $($arg: $ty),*) -> Result<S::Ok, S::Error> {
                self.inner.$method($($arg),*)
            }
        )*
    };
}

impl<S: Serializer> Serializer for LimitedSerializer<S> {
    type Ok = S::Ok;
    type Error = S::Error;
    type SerializeSeq = Compound<S::SerializeSeq, S::Ok>;
    type SerializeTuple = Compound<S::SerializeTuple, S::Ok>;
    type SerializeTupleStruct = Compound<S::SerializeTupleStruct, S::Ok>;
    type SerializeTupleVariant = Compound<S::SerializeTupleVariant, S::Ok>;
    type SerializeMap = Compound<S::SerializeMap, S::Ok>;
    type SerializeStruct = Compound<S::SerializeStruct, S::Ok>;
    type SerializeStructVariant = Compound<S::SerializeStructVariant, S::Ok>;

    forward! {
        serialize_bool(v: bool);
        serialize_i8(v: i8);
        serialize_i16(v: i16);
        serialize_i32(v: i32);
        serialize_i64(v: i64);
        serialize_i128(v: i128);
        serialize_u8(v: u8);
        serialize_u16(v: u16);
        serialize_u32(v: u32);
        serialize_u64(v: u64);
        serialize_u128(v: u128);
        serialize_f32(v: f32);
        serialize_f64(v: f64);
        serialize_char(v: char);
        serialize_str(v: &str);
        serialize_bytes(v: &[u8]);
        serialize_none();
        serialize_unit();
        serialize_unit_struct(name: &'static str);
        serialize_unit_variant(name: &'static str, index: u32, variant: &'static str);
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<S::Ok, S::Error> {
        let value = self.wrap(value, self.level.call());
        self.inner.serialize_some(&value)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<S::Ok, S::Error> {
        let value = self.wrap(value, self.level.call());
        self.inner.serialize_newtype_struct(name, &value)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<S::Ok, S::Error> {
        if self.level.too_deep() {
            return self.inner.serialize_str(TRUNCATED_DETAIL);
        }
        let value = self.wrap(value, self.level.inside(1));
        self.inner
            .serialize_newtype_variant(name, index, variant, &value)
    }

    fn serialize_seq(self, len: Option<usize>) -> Result<Self::SerializeSeq, S::Error> {
        self.compound(|inner| inner.serialize_seq(len))
    }

    fn serialize_tuple(self, len: usize) -> Result<Self::SerializeTuple, S::Error> {
        self.compound(|inner| inner.serialize_tuple(len))
    }

    fn serialize_tuple_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleStruct, S::Error> {
        self.compound(|inner| inner.serialize_tuple_struct(name, len))
    }

    fn serialize_tuple_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleVariant, S::Error> {
        self.variant_compound((name, index, variant), |inner| {
            inner.serialize_tuple_variant(name, index, variant, len)
        })
    }

    fn serialize_map(self, len: Option<usize>) -> Result<Self::SerializeMap, S::Error> {
        self.compound(|inner| inner.serialize_map(len))
    }

    fn serialize_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStruct, S::Error> {
        self.compound(|inner| inner.serialize_struct(name, len))
    }

    fn serialize_struct_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStructVariant, S::Error> {
        self.variant_compound((name, index, variant), |inner| {
            inner.serialize_struct_variant(name, index, variant, len)
        })
    }

    fn is_human_readable(&self) -> bool {
        self.inner.is_human_readable()
    }
}

/// The element methods of the compound traits: a live compound passes each element on,
/// wrapped one level deeper; a truncated one drops it.
macro_rules! compound {
    ($trait:ident, $($method:ident($($arg:ident: $ty:ty),*);)*) => {
        impl<C: $trait> $trait for Compound<C, C::Ok> {
            type Ok = C::Ok;
            type Error = C::Error;

            $(
                fn $method<T: Serialize + ?Sized>(
                    &mut self,
                    $($arg: $ty,)*
                    value: &T,
                ) -> Result<(), C::Error> {
                    match self {
                        Compound::Live { inner, level } => {
                            inner.$method($($arg,)* &Limited { value, level: *level })
                        }
                        Compound::Truncated(_) => Ok(()),
                    }
                }
            )*

            fn end(self) -> Result<C::Ok, C::Error> {
                match self {
                    Compound::Live { inner, .. } => inner.end(),
                    Compound::Truncated(ok) => Ok(ok),
                }
            }
        }
    };
}

compound!(SerializeSeq, serialize_element(););
compound!(SerializeTuple, serialize_element(););
compound!(SerializeTupleStruct, serialize_field(););
compound!(SerializeTupleVariant, serialize_field(););
compound!(SerializeStruct, serialize_field(key: &'static str););
compound!(SerializeStructVariant, serialize_field(key: &'static str););

impl<C: SerializeMap> SerializeMap for Compound<C, C::Ok> {
    type Ok = C::Ok;
    type Error = C::Error;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), C::Error> {
        match self {
            Compound::Live { inner, level } => inner.serialize_key(&Limited {
                value: key,
                level: *level,
            }),
            Compound::Truncated(_) => Ok(()),
        }
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), C::Error> {
        match self {
            Compound::Live { inner, level } => inner.serialize_value(&Limited {
                value,
                level: *level,
            }),
            Compound::Truncated(_) => Ok(()),
        }
    }

    fn end(self) -> Result<C::Ok, C::Error> {
        match self {
            Compound::Live { inner, .. } => inner.end(),
            Compound::Truncated(ok) => Ok(ok),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mask::truncate_depth;
    use proptest::prelude::*;

    /// Serializes as a one-element array holding itself with one level less, down to a
    /// string: `levels` deep in JSON, without a deep Rust value.
    struct Nest(u32);

    impl Serialize for Nest {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            match self.0 {
                0 => serializer.serialize_str("bottom"),
                n => {
                    let mut seq = serializer.serialize_seq(Some(1))?;
                    seq.serialize_element(&Nest(n - 1))?;
                    seq.end()
                }
            }
        }
    }

    /// Like [`Nest`], through `Option`s and newtypes, which add no level of JSON.
    struct Wrap(u32);

    impl Serialize for Wrap {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            match self.0 {
                0 => serializer.serialize_str("bottom"),
                n if n % 2 == 0 => serializer.serialize_some(&Wrap(n - 1)),
                n => serializer.serialize_newtype_struct("Wrap", &Wrap(n - 1)),
            }
        }
    }

    /// Runs `f` on a thread with a 256 KiB stack, where deep recursion would overflow.
    fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
        std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(f)
            .unwrap()
            .join()
            .unwrap()
    }

    fn depth_of_arrays(mut value: &Value) -> usize {
        let mut depth = 0;
        while let Value::Array(items) = value {
            depth += 1;
            value = &items[0];
        }
        depth
    }

    #[test]
    fn a_hundred_thousand_levels_are_cut_at_the_limit_on_a_small_stack() {
        let value = on_small_stack(|| to_value_within_depth(&Nest(100_000), 32).unwrap());
        assert_eq!(depth_of_arrays(&value), 32);
        let mut leaf = &value;
        while let Value::Array(items) = leaf {
            leaf = &items[0];
        }
        assert_eq!(leaf, TRUNCATED_DETAIL);
    }

    #[test]
    fn endless_options_and_newtypes_are_cut_after_the_nested_calls_allowed() {
        let value = on_small_stack(|| to_value_within_depth(&Wrap(100_000), 32).unwrap());
        assert_eq!(value, TRUNCATED_DETAIL);
        // Within the allowance, four nested calls per level as `MAX_DETAIL_DEPTH` documents,
        // they are what serde_json makes of them.
        let allowed = 4 * 32;
        assert_eq!(to_value_within_depth(&Wrap(allowed), 32).unwrap(), "bottom");
        assert_eq!(
            to_value_within_depth(&Wrap(allowed + 1), 32).unwrap(),
            TRUNCATED_DETAIL
        );
    }

    /// `levels` arrays of one element, each element reached through `options` nested `Some`s.
    struct Layers {
        levels: u32,
        options: u32,
    }

    impl Serialize for Layers {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            Step(self.levels, self.options, self.options).serialize(serializer)
        }
    }

    /// What is left of [`Layers`]: levels, options per level, options left on this level.
    struct Step(u32, u32, u32);

    impl Serialize for Step {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            match *self {
                Step(0, _, _) => serializer.serialize_str("bottom"),
                Step(levels, options, 0) => {
                    let mut seq = serializer.serialize_seq(Some(1))?;
                    seq.serialize_element(&Step(levels - 1, options, options))?;
                    seq.end()
                }
                Step(levels, options, left) => {
                    serializer.serialize_some(&Step(levels, options, left - 1))
                }
            }
        }
    }

    fn leaf(mut value: &Value) -> &Value {
        while let Value::Array(items) = value {
            value = &items[0];
        }
        value
    }

    #[test]
    fn arrays_count_toward_the_nested_calls_allowed() {
        // Three `Option`s per level of JSON fit the allowance at the depth limit...
        let within = Layers {
            levels: 32,
            options: 3,
        };
        let value = to_value_within_depth(&within, 32).unwrap();
        assert_eq!(
            (depth_of_arrays(&value), leaf(&value).as_str()),
            (32, Some("bottom"))
        );
        // ... and four do not, though they are fewer than the allowance without the arrays.
        let beyond = Layers {
            levels: 26,
            options: 4,
        };
        assert!(26 * 4 < max_nested_calls(32));
        let value = to_value_within_depth(&beyond, 32).unwrap();
        assert_eq!(leaf(&value), TRUNCATED_DETAIL);
    }

    #[derive(serde::Serialize)]
    enum Shape {
        Unit,
        Newtype(Box<Shape>),
        Tuple(u8, Box<Shape>),
        Struct { inner: Box<Shape> },
    }

    #[test]
    fn enum_variants_count_as_serde_json_nests_them() {
        let shapes = [
            Shape::Newtype(Box::new(Shape::Newtype(Box::new(Shape::Unit)))),
            Shape::Tuple(1, Box::new(Shape::Tuple(2, Box::new(Shape::Unit)))),
            Shape::Struct {
                inner: Box::new(Shape::Struct {
                    inner: Box::new(Shape::Unit),
                }),
            },
            Shape::Tuple(
                1,
                Box::new(Shape::Struct {
                    inner: Box::new(Shape::Newtype(Box::new(Shape::Unit))),
                }),
            ),
        ];
        for shape in &shapes {
            for max_depth in 0..8 {
                let mut expected = serde_json::to_value(shape).unwrap();
                truncate_depth(&mut expected, max_depth);
                let actual = to_value_within_depth(shape, max_depth).unwrap();
                assert_eq!(actual, expected, "max depth {max_depth}");
            }
        }
    }

    #[test]
    fn map_keys_and_failures_behave_as_in_serde_json() {
        let mut map = std::collections::BTreeMap::new();
        map.insert(7, vec![1, 2]);
        assert_eq!(
            to_value_within_depth(&map, 32).unwrap(),
            serde_json::json!({"7": [1, 2]})
        );
        let mut bad = std::collections::BTreeMap::new();
        bad.insert(vec![1], 1);
        assert!(to_value_within_depth(&bad, 32).is_err());
    }

    #[test]
    fn types_that_ask_whether_the_format_is_human_readable_get_serde_json_s_answer() {
        // An address is text in a human-readable format, an array of octets in a binary one.
        let address = std::net::Ipv4Addr::new(192, 0, 2, 7);
        assert_eq!(
            to_value_within_depth(&address, 32).unwrap(),
            serde_json::to_value(address).unwrap()
        );
        assert_eq!(to_value_within_depth(&address, 32).unwrap(), "192.0.2.7");
    }

    fn any_json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            "[a-z]{0,4}".prop_map(Value::from),
        ];
        leaf.prop_recursive(12, 64, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::btree_map("[a-z]{1,3}", inner, 0..4)
                    .prop_map(|map| Value::Object(map.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn cuts_exactly_where_cutting_the_built_value_would(value in any_json(), max_depth in 0usize..10) {
            let mut expected = value.clone();
            truncate_depth(&mut expected, max_depth);
            prop_assert_eq!(to_value_within_depth(&value, max_depth).unwrap(), expected);
        }
    }
}
