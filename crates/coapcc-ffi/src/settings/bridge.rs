//! One key of a configuration replaced through the configuration's own serde impls, without
//! an allocator: the configuration type is deserialised from a map whose keys are its fields
//! (as its `Deserialize` lists them) and whose values are the preset's (captured one field at
//! a time by serialising the preset), except the key being set, which takes the new value.
//! So every key name, unit (`*_ms`), enum spelling, ratio form and range check is the one
//! `coapcc-core` declares, as when the driver applies `--set` through TOML.

use core::fmt::Write;

use serde::Serializer;
use serde::de::value::StrDeserializer;
use serde::de::{self, DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Impossible, Serialize, SerializeSeq, SerializeStruct, SerializeTuple};

use super::error::{Kind, SetError};
use super::value::{MAX_ITEMS, Scalar, Text, Value};

/// `config` with `key` set to `value` (errors name the key).
pub fn replace_key<T: Serialize + serde::de::DeserializeOwned>(
    config: &T,
    key: &str,
    value: &Value,
) -> Result<T, SetError> {
    T::deserialize(ConfigDe { preset: config, key, value })
}

fn unsupported(what: &str) -> SetError {
    SetError::new(Kind::BadValue, format_args!("a configuration value of the form {what} is not supported here"))
}

// ---------------------------------------------------------------------------------------------
// Serialising: one field of a configuration, captured as a `Value`.

/// Finds the field named `want` of a serialised struct and captures its value.
struct FieldFinder<'a> {
    want: &'a str,
}

struct StructFinder<'a> {
    want: &'a str,
    found: Option<Value>,
}

macro_rules! reject {
    ($($method:ident($($arg:ty),*) -> $ret:ty;)*) => {
        $(fn $method(self, $(_: $arg),*) -> Result<$ret, SetError> {
            Err(unsupported(stringify!($method)))
        })*
    };
}

impl<'a> Serializer for FieldFinder<'a> {
    type Ok = Option<Value>;
    type Error = SetError;
    type SerializeSeq = Impossible<Option<Value>, SetError>;
    type SerializeTuple = Impossible<Option<Value>, SetError>;
    type SerializeTupleStruct = Impossible<Option<Value>, SetError>;
    type SerializeTupleVariant = Impossible<Option<Value>, SetError>;
    type SerializeMap = Impossible<Option<Value>, SetError>;
    type SerializeStruct = StructFinder<'a>;
    type SerializeStructVariant = Impossible<Option<Value>, SetError>;

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<StructFinder<'a>, SetError> {
        Ok(StructFinder { want: self.want, found: None })
    }

    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        v: &T,
    ) -> Result<Option<Value>, SetError> {
        v.serialize(self)
    }

    fn serialize_some<T: ?Sized + Serialize>(self, v: &T) -> Result<Option<Value>, SetError> {
        v.serialize(self)
    }

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<Option<Value>, SetError> {
        Err(unsupported("newtype variant"))
    }

    fn collect_str<T: ?Sized + core::fmt::Display>(self, _: &T) -> Result<Option<Value>, SetError> {
        Err(unsupported("string"))
    }

    reject! {
        serialize_bool(bool) -> Option<Value>;
        serialize_i8(i8) -> Option<Value>;
        serialize_i16(i16) -> Option<Value>;
        serialize_i32(i32) -> Option<Value>;
        serialize_i64(i64) -> Option<Value>;
        serialize_u8(u8) -> Option<Value>;
        serialize_u16(u16) -> Option<Value>;
        serialize_u32(u32) -> Option<Value>;
        serialize_u64(u64) -> Option<Value>;
        serialize_f32(f32) -> Option<Value>;
        serialize_f64(f64) -> Option<Value>;
        serialize_char(char) -> Option<Value>;
        serialize_str(&str) -> Option<Value>;
        serialize_bytes(&[u8]) -> Option<Value>;
        serialize_none() -> Option<Value>;
        serialize_unit() -> Option<Value>;
        serialize_unit_struct(&'static str) -> Option<Value>;
        serialize_unit_variant(&'static str, u32, &'static str) -> Option<Value>;
        serialize_seq(Option<usize>) -> Self::SerializeSeq;
        serialize_tuple(usize) -> Self::SerializeTuple;
        serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant;
        serialize_map(Option<usize>) -> Self::SerializeMap;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Self::SerializeStructVariant;
    }
}

impl SerializeStruct for StructFinder<'_> {
    type Ok = Option<Value>;
    type Error = SetError;

    fn serialize_field<T: ?Sized + Serialize>(&mut self, key: &'static str, value: &T) -> Result<(), SetError> {
        if key == self.want {
            self.found = Some(value.serialize(Capture)?);
        }
        Ok(())
    }

    fn end(self) -> Result<Option<Value>, SetError> {
        Ok(self.found)
    }
}

/// Captures a scalar or an array of scalars.
struct Capture;

/// Captures the items of an array.
struct SeqCapture {
    items: [Scalar; MAX_ITEMS],
    len: usize,
}

impl SeqCapture {
    fn push<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<(), SetError> {
        let Value::Scalar(s) = v.serialize(Capture)? else { return Err(unsupported("nested array")) };
        let slot = self.items.get_mut(self.len).ok_or_else(|| unsupported("long array"))?;
        *slot = s;
        self.len += 1;
        Ok(())
    }

    fn value(self) -> Value {
        Value::Seq { items: self.items, len: self.len as u8 }
    }
}

impl SerializeSeq for SeqCapture {
    type Ok = Value;
    type Error = SetError;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<(), SetError> {
        self.push(v)
    }
    fn end(self) -> Result<Value, SetError> {
        Ok(self.value())
    }
}

impl SerializeTuple for SeqCapture {
    type Ok = Value;
    type Error = SetError;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<(), SetError> {
        self.push(v)
    }
    fn end(self) -> Result<Value, SetError> {
        Ok(self.value())
    }
}

fn scalar(s: Scalar) -> Result<Value, SetError> {
    Ok(Value::Scalar(s))
}

/// `serialize_*` methods that capture a number or boolean as the scalar kind named.
macro_rules! capture {
    ($($method:ident($ty:ty) => $kind:ident;)*) => {
        $(fn $method(self, v: $ty) -> Result<Value, SetError> {
            scalar(Scalar::$kind(v.into()))
        })*
    };
}

impl Serializer for Capture {
    type Ok = Value;
    type Error = SetError;
    type SerializeSeq = SeqCapture;
    type SerializeTuple = SeqCapture;
    type SerializeTupleStruct = Impossible<Value, SetError>;
    type SerializeTupleVariant = Impossible<Value, SetError>;
    type SerializeMap = Impossible<Value, SetError>;
    type SerializeStruct = Impossible<Value, SetError>;
    type SerializeStructVariant = Impossible<Value, SetError>;

    capture! {
        serialize_bool(bool) => Bool;
        serialize_i8(i8) => I64;
        serialize_i16(i16) => I64;
        serialize_i32(i32) => I64;
        serialize_i64(i64) => I64;
        serialize_u8(u8) => U64;
        serialize_u16(u16) => U64;
        serialize_u32(u32) => U64;
        serialize_u64(u64) => U64;
        serialize_f32(f32) => F64;
        serialize_f64(f64) => F64;
    }
    fn serialize_char(self, v: char) -> Result<Value, SetError> {
        let mut buf = [0; 4];
        scalar(Scalar::Str(Text::new(v.encode_utf8(&mut buf))?))
    }
    fn serialize_str(self, v: &str) -> Result<Value, SetError> {
        scalar(Scalar::Str(Text::new(v)?))
    }
    fn collect_str<T: ?Sized + core::fmt::Display>(self, v: &T) -> Result<Value, SetError> {
        let mut w = TextWriter(Text::new("")?);
        write!(w, "{v}").map_err(|_| unsupported("long string"))?;
        scalar(Scalar::Str(w.0))
    }
    fn serialize_some<T: ?Sized + Serialize>(self, v: &T) -> Result<Value, SetError> {
        v.serialize(self)
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<Value, SetError> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _: &'static str, v: &T) -> Result<Value, SetError> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<Value, SetError> {
        Err(unsupported("newtype variant"))
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<SeqCapture, SetError> {
        Ok(SeqCapture { items: [Scalar::Bool(false); MAX_ITEMS], len: 0 })
    }
    fn serialize_tuple(self, n: usize) -> Result<SeqCapture, SetError> {
        self.serialize_seq(Some(n))
    }

    reject! {
        serialize_bytes(&[u8]) -> Value;
        serialize_none() -> Value;
        serialize_unit() -> Value;
        serialize_unit_struct(&'static str) -> Value;
        serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant;
        serialize_map(Option<usize>) -> Self::SerializeMap;
        serialize_struct(&'static str, usize) -> Self::SerializeStruct;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Self::SerializeStructVariant;
    }
}

struct TextWriter(Text);

impl Write for TextWriter {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        s.chars().try_for_each(|c| self.0.push(c).map_err(|_| core::fmt::Error))
    }
}

// ---------------------------------------------------------------------------------------------
// Deserialising: a value as a deserialiser, and a configuration from its fields.

/// A captured or parsed value read as a TOML value deserialiser reads one.
struct ValueDe(Value);

impl<'de> de::Deserializer<'de> for ValueDe {
    type Error = SetError;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, SetError> {
        match self.0 {
            Value::Scalar(Scalar::Bool(b)) => v.visit_bool(b),
            Value::Scalar(Scalar::I64(i)) => v.visit_i64(i),
            Value::Scalar(Scalar::U64(u)) => v.visit_u64(u),
            Value::Scalar(Scalar::F64(x)) => v.visit_f64(x),
            Value::Scalar(Scalar::Str(t)) => v.visit_str(t.as_str()),
            Value::Seq { items, len } => {
                let mut seq = Items { items: &items[..usize::from(len)], next: 0 };
                let out = v.visit_seq(&mut seq)?;
                if seq.next < seq.items.len() {
                    return Err(de::Error::invalid_length(seq.items.len(), &"fewer elements in the array"));
                }
                Ok(out)
            }
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, SetError> {
        // TOML has no null: a present value is `Some`.
        v.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _: &'static str, v: V) -> Result<V::Value, SetError> {
        v.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, SetError> {
        match self.0 {
            Value::Scalar(Scalar::Str(t)) => v.visit_enum(StrDeserializer::<SetError>::new(t.as_str())),
            other => ValueDe(other).deserialize_any(EnumExpected { name, variants, v }),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

/// Reports a non-string value where an enum's variant name is expected.
struct EnumExpected<V> {
    name: &'static str,
    variants: &'static [&'static str],
    v: V,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for EnumExpected<V> {
    type Value = V::Value;
    fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let _ = &self.v;
        write!(f, "one of the names of {} ({})", self.name, Names(self.variants))
    }
}

/// Names separated by commas.
struct Names<'a>(&'a [&'a str]);

impl core::fmt::Display for Names<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        for (i, n) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(n)?;
        }
        Ok(())
    }
}

struct Items<'a> {
    items: &'a [Scalar],
    next: usize,
}

impl<'de> SeqAccess<'de> for &mut Items<'_> {
    type Error = SetError;
    fn next_element_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<Option<S::Value>, SetError> {
        let Some(item) = self.items.get(self.next) else { return Ok(None) };
        self.next += 1;
        seed.deserialize(ValueDe(Value::Scalar(*item))).map(Some)
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len() - self.next)
    }
}

/// A configuration read from its preset's fields with one key replaced.
struct ConfigDe<'a, T> {
    preset: &'a T,
    key: &'a str,
    value: &'a Value,
}

impl<'de, T: Serialize> de::Deserializer<'de> for ConfigDe<'_, T> {
    type Error = SetError;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, SetError> {
        Err(unsupported("configuration that is not a table of keys"))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, SetError> {
        if !fields.contains(&self.key) {
            return Err(SetError::new(
                Kind::UnknownKey,
                format_args!("unknown key `{}`; valid keys: {}", self.key, Names(fields)),
            ));
        }
        v.visit_map(Fields { de: self, fields, next: 0 })
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option
        unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
    }
}

struct Fields<'a, T> {
    de: ConfigDe<'a, T>,
    fields: &'static [&'static str],
    next: usize,
}

impl<'de, T: Serialize> MapAccess<'de> for Fields<'_, T> {
    type Error = SetError;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, SetError> {
        let Some(field) = self.fields.get(self.next) else { return Ok(None) };
        seed.deserialize(field.into_deserializer()).map(Some)
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, SetError> {
        let field = self.fields.get(self.next).copied().unwrap_or("");
        self.next += 1;
        if field == self.de.key {
            return seed.deserialize(ValueDe(*self.de.value)).map_err(|e| {
                SetError::new(Kind::BadValue, format_args!("bad value for key `{field}`: {}", e.message()))
            });
        }
        match self.de.preset.serialize(FieldFinder { want: field })? {
            Some(v) => seed.deserialize(ValueDe(v)),
            None => Err(SetError::new(Kind::BadValue, format_args!("the preset has no value for key `{field}`"))),
        }
    }
}
