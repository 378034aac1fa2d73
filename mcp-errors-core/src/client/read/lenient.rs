//! A lenient reading of JSON for the classifier: borrowed views of objects read member by
//! member ([`ObjectView`], [`Obj`]), members read whatever JSON they hold ([`Member`],
//! [`Scalar`]), and one [`Node`] over `&RawValue` and `&Value`, so that both entry points
//! share one reading.

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

use super::raw::RawResult;
use crate::wire::jsonrpc::ErrorCode;

/// A view of a JSON object, read member by member by [`Obj`].
///
/// Each call of `read` for a key replaces what an earlier occurrence of that key set, so the
/// last occurrence wins, as in a [`serde_json::Value`]. The views both entry points decode
/// read each value as a [`Member`], a raw node or a `Value`, which accept any JSON: a wrong
/// type in an earlier occurrence cannot fail the object.
pub(super) trait ObjectView<'de>: Default {
    /// Reads the value of `key` from `map` when the view has a use for it; `false` leaves the
    /// value unread, for [`Obj`] to skip.
    fn read<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<bool, A::Error>;
}

/// `T` read from a JSON object; anything else (an array too) is an error.
pub(super) struct Obj<T>(pub(super) T);

impl<'de, T: ObjectView<'de>> Deserialize<'de> for Obj<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ObjectVisitor<T>(std::marker::PhantomData<T>);
        impl<'de, T: ObjectView<'de>> Visitor<'de> for ObjectVisitor<T> {
            type Value = T;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
                let mut view = T::default();
                while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
                    if !view.read(&key, &mut map)? {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(view)
            }
        }
        deserializer
            .deserialize_map(ObjectVisitor(std::marker::PhantomData))
            .map(Obj)
    }
}

/// The value of one member, read as `T` whatever JSON it holds: reading it fails only on
/// malformed JSON. The caller decides what `null` and another type mean.
#[derive(Default)]
pub(super) enum Member<T> {
    #[default]
    Absent,
    Null,
    OtherType,
    Is(T),
}

impl<T> Member<T> {
    /// The value when it has the type, `None` otherwise (the lenient reading).
    pub(super) fn ok(self) -> Option<T> {
        match self {
            Member::Is(value) => Some(value),
            Member::Absent | Member::Null | Member::OtherType => None,
        }
    }

    /// `Ok(None)` when absent or `null`, `Err(())` when of another type (the strict reading).
    pub(super) fn strict(self) -> Result<Option<T>, ()> {
        match self {
            Member::Is(value) => Ok(Some(value)),
            Member::Absent | Member::Null => Ok(None),
            Member::OtherType => Err(()),
        }
    }
}

/// A JSON scalar a [`Member`] can hold. Each method answers one kind of JSON value; the
/// kinds a type does not accept keep the default, `None` (another type).
pub(super) trait Scalar<'de>: Sized {
    fn from_str(_: Cow<'de, str>) -> Option<Self> {
        None
    }
    fn from_bool(_: bool) -> Option<Self> {
        None
    }
    fn from_u64(_: u64) -> Option<Self> {
        None
    }
    fn from_i64(_: i64) -> Option<Self> {
        None
    }
    fn from_f64(_: f64) -> Option<Self> {
        None
    }
}

impl<'de> Scalar<'de> for Text<'de> {
    fn from_str(text: Cow<'de, str>) -> Option<Self> {
        Some(Text(text))
    }
}

impl Scalar<'_> for bool {
    fn from_bool(flag: bool) -> Option<Self> {
        Some(flag)
    }
}

/// A JSON-RPC code is a 32-bit integer; `1.0` is not one, as for [`ErrorCode`]'s own
/// `Deserialize`.
impl Scalar<'_> for ErrorCode {
    fn from_u64(n: u64) -> Option<Self> {
        i32::try_from(n).ok().map(ErrorCode)
    }
    fn from_i64(n: i64) -> Option<Self> {
        i32::try_from(n).ok().map(ErrorCode)
    }
}

/// A whole, non-negative number of milliseconds. A float is read when it is a whole number
/// that fits a `u64` (JavaScript servers write `2000.0`, and `2e3` parses as a float); a
/// fraction of a millisecond or a negative wait is no wait the server meant.
pub(super) struct Millis(pub(super) u64);

impl Scalar<'_> for Millis {
    fn from_u64(n: u64) -> Option<Self> {
        Some(Millis(n))
    }
    fn from_i64(n: i64) -> Option<Self> {
        u64::try_from(n).ok().map(Millis)
    }
    fn from_f64(n: f64) -> Option<Self> {
        // 2^64: the first float above u64::MAX.
        const LIMIT: f64 = 18_446_744_073_709_551_616.0;
        if n.fract() == 0.0 && (0.0..LIMIT).contains(&n) {
            Some(Millis(n as u64))
        } else {
            None
        }
    }
}

impl<'de, T: Scalar<'de>> Deserialize<'de> for Member<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MemberVisitor<T>(std::marker::PhantomData<T>);
        impl<T> MemberVisitor<T> {
            fn typed(value: Option<T>) -> Member<T> {
                value.map_or(Member::OtherType, Member::Is)
            }
        }
        impl<'de, T: Scalar<'de>> Visitor<'de> for MemberVisitor<T> {
            type Value = Member<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_unit<E>(self) -> Result<Member<T>, E> {
                Ok(Member::Null)
            }
            fn visit_none<E>(self) -> Result<Member<T>, E> {
                Ok(Member::Null)
            }
            fn visit_bool<E>(self, v: bool) -> Result<Member<T>, E> {
                Ok(Self::typed(T::from_bool(v)))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Member<T>, E> {
                Ok(Self::typed(T::from_u64(v)))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Member<T>, E> {
                Ok(Self::typed(T::from_i64(v)))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Member<T>, E> {
                Ok(Self::typed(T::from_f64(v)))
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Member<T>, E> {
                Ok(Self::typed(T::from_str(Cow::Borrowed(v))))
            }
            fn visit_str<E>(self, v: &str) -> Result<Member<T>, E> {
                Ok(Self::typed(T::from_str(Cow::Owned(v.to_owned()))))
            }
            fn visit_string<E>(self, v: String) -> Result<Member<T>, E> {
                Ok(Self::typed(T::from_str(Cow::Owned(v))))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Member<T>, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Member::OtherType)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Member<T>, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Member::OtherType)
            }
        }
        deserializer.deserialize_any(MemberVisitor(std::marker::PhantomData))
    }
}

/// A string that borrows from the input when it has no escapes.
#[derive(Deserialize)]
pub(super) struct Text<'a>(#[serde(borrow)] pub(super) Cow<'a, str>);

impl PartialEq for Text<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}
impl Eq for Text<'_> {}
impl std::hash::Hash for Text<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.hash(state);
    }
}

/// A borrowed piece of JSON: `&RawValue` or `&Value`.
pub(super) trait Node<'a>: Copy + 'a {
    /// The node deserialized as `T`, `None` when it is not one.
    fn decode<T: Deserialize<'a>>(self) -> Option<T>;
    /// The node kept as a result.
    fn keep(self) -> RawResult;
}

impl<'a> Node<'a> for &'a RawValue {
    fn decode<T: Deserialize<'a>>(self) -> Option<T> {
        serde_json::from_str(self.get()).ok()
    }

    fn keep(self) -> RawResult {
        RawResult::from_raw(self)
    }
}

impl<'a> Node<'a> for &'a Value {
    fn decode<T: Deserialize<'a>>(self) -> Option<T> {
        T::deserialize(self).ok()
    }

    fn keep(self) -> RawResult {
        RawResult::from_value(self)
    }
}
