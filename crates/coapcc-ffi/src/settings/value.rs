//! A setting's value text read without an allocator, as `coapcc --set KEY=VALUE` reads it: an
//! exact ratio for `N/D`, a TOML scalar when the text is one (`20`, `1.5`, `false`,
//! `"quoted"`), a TOML array of scalars (`[1.5, 2, 2, 2]`), else the text itself as a string
//! (`makarem`, `off`). Inline tables are the one TOML form not read here.

use super::error::{Kind, SetError};

/// Most items an array value may hold (the longest configuration list has four).
pub const MAX_ITEMS: usize = 8;
/// Most bytes of one string value (after unescaping).
pub const MAX_TEXT: usize = 48;

/// A string kept inline.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Text {
    bytes: [u8; MAX_TEXT],
    len: u8,
}

impl Text {
    /// `s`, or an error when it is longer than [`MAX_TEXT`] bytes.
    pub fn new(s: &str) -> Result<Text, SetError> {
        let mut t = Text { bytes: [0; MAX_TEXT], len: 0 };
        for c in s.chars() {
            t.push(c)?;
        }
        Ok(t)
    }

    /// Appends `c`, or an error when the string would be longer than [`MAX_TEXT`] bytes.
    pub fn push(&mut self, c: char) -> Result<(), SetError> {
        let mut buf = [0; 4];
        let enc = c.encode_utf8(&mut buf).as_bytes();
        let at = usize::from(self.len);
        let end = at + enc.len();
        if end > MAX_TEXT {
            return Err(SetError::new(Kind::BadValue, format_args!("a string longer than {MAX_TEXT} bytes")));
        }
        self.bytes[at..end].copy_from_slice(enc);
        self.len = end as u8;
        Ok(())
    }

    /// The string.
    pub fn as_str(&self) -> &str {
        // Only whole characters are pushed, so the bytes are UTF-8.
        core::str::from_utf8(&self.bytes[..usize::from(self.len)]).unwrap_or("")
    }
}

/// One scalar value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    /// `true` / `false`.
    Bool(bool),
    /// A signed integer (TOML integers).
    I64(i64),
    /// An unsigned integer (as a configuration serialises a `u8`, `u32`, …).
    U64(u64),
    /// A float.
    F64(f64),
    /// A string.
    Str(Text),
}

/// A value: a scalar or an array of scalars.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    /// One scalar.
    Scalar(Scalar),
    /// An array of up to [`MAX_ITEMS`] scalars.
    Seq {
        /// The items; `len` of them are meaningful.
        items: [Scalar; MAX_ITEMS],
        /// How many.
        len: u8,
    },
}

impl Value {
    /// The items of an array (one item for a scalar is not an array: empty).
    #[cfg(test)]
    pub fn items(&self) -> &[Scalar] {
        match self {
            Value::Scalar(_) => &[],
            Value::Seq { items, len } => &items[..usize::from(*len)],
        }
    }
}

/// Reads value text as the command line does (see the module docs).
pub fn parse(text: &str) -> Result<Value, SetError> {
    if let Some(r) = ratio(text) {
        return Ok(Value::Scalar(Scalar::Str(Text::new(r)?)));
    }
    let t = text.trim_matches(|c| c == ' ' || c == '\t');
    if t.starts_with('{') {
        return Err(SetError::new(Kind::BadValue, format_args!("inline tables are not supported here")));
    }
    if let Some(inner) = t.strip_prefix('[') {
        if let Some(v) = array(inner)? {
            return Ok(v);
        }
        return Ok(Value::Scalar(Scalar::Str(Text::new(text)?)));
    }
    match scalar(t)? {
        Some(s) => Ok(Value::Scalar(s)),
        None => Ok(Value::Scalar(Scalar::Str(Text::new(text)?))),
    }
}

/// `N/D` with decimal digits only, canonical (no leading zeros), D not 0: kept as the text.
fn ratio(text: &str) -> Option<&str> {
    let (n, d) = text.split_once('/')?;
    let canonical = |s: &str| {
        !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) && (s == "0" || !s.starts_with('0')) && s.len() <= 20
    };
    let fits = |s: &str| s.parse::<u64>().is_ok();
    (canonical(n) && canonical(d) && fits(n) && fits(d) && d.bytes().any(|b| b != b'0')).then_some(text)
}

/// A TOML array of scalars (`inner` is the text after `[`); `None` when it is not one.
fn array(inner: &str) -> Result<Option<Value>, SetError> {
    let Some(body) = inner.trim_end().strip_suffix(']') else { return Ok(None) };
    let mut items = [Scalar::Bool(false); MAX_ITEMS];
    let mut len = 0usize;
    let mut rest = body.trim();
    while !rest.is_empty() {
        let (item, tail) = split_item(rest);
        let Some(s) = scalar(item.trim())? else { return Ok(None) };
        if len == MAX_ITEMS {
            return Err(SetError::new(Kind::BadValue, format_args!("an array of more than {MAX_ITEMS} items")));
        }
        items[len] = s;
        len += 1;
        match tail {
            // A trailing comma is allowed.
            Some(t) => rest = t.trim(),
            None => break,
        }
    }
    Ok(Some(Value::Seq { items, len: len as u8 }))
}

/// The first item of an array body and the text after its comma (commas in quotes kept).
fn split_item(s: &str) -> (&str, Option<&str>) {
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        match quote {
            Some('"') if escaped => escaped = false,
            Some('"') if c == '\\' => escaped = true,
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '"' || c == '\'' => quote = Some(c),
            None if c == ',' => return (&s[..i], Some(&s[i + 1..])),
            None => {}
        }
    }
    (s, None)
}

/// A TOML scalar (boolean, integer, float, quoted string); `None` when `t` is not one.
fn scalar(t: &str) -> Result<Option<Scalar>, SetError> {
    Ok(match t {
        "true" => Some(Scalar::Bool(true)),
        "false" => Some(Scalar::Bool(false)),
        _ if t.starts_with('"') => basic_string(t)?.map(Scalar::Str),
        _ if t.starts_with('\'') => match t[1..].strip_suffix('\'') {
            Some(s) if !s.contains('\'') && t.len() >= 2 => Some(Scalar::Str(Text::new(s)?)),
            _ => None,
        },
        _ => integer(t).map(Scalar::I64).or_else(|| float(t).map(Scalar::F64)),
    })
}

/// A TOML basic string `"…"` with its escapes.
fn basic_string(t: &str) -> Result<Option<Text>, SetError> {
    let Some(body) = t.strip_prefix('"').and_then(|b| b.strip_suffix('"')) else { return Ok(None) };
    if t.len() < 2 {
        return Ok(None);
    }
    let mut out = Text::new("")?;
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        let c = match c {
            '"' => return Ok(None),
            '\\' => match chars.next() {
                Some('b') => '\u{8}',
                Some('t') => '\t',
                Some('n') => '\n',
                Some('f') => '\u{c}',
                Some('r') => '\r',
                Some('e') => '\u{1b}',
                Some('"') => '"',
                Some('\\') => '\\',
                Some(u @ ('u' | 'U')) => {
                    let n = if u == 'u' { 4 } else { 8 };
                    let mut code = 0u32;
                    for _ in 0..n {
                        match chars.next().and_then(|h| h.to_digit(16)) {
                            Some(d) => code = code * 16 + d,
                            None => return Ok(None),
                        }
                    }
                    match char::from_u32(code) {
                        Some(c) => c,
                        None => return Ok(None),
                    }
                }
                _ => return Ok(None),
            },
            c => c,
        };
        out.push(c)?;
    }
    Ok(Some(out))
}

/// Digits with single underscores between them (TOML), underscores removed, into `buf`.
fn digits<'b>(s: &str, radix: u32, buf: &'b mut [u8; 64]) -> Option<&'b str> {
    let mut n = 0;
    let mut prev_digit = false;
    for b in s.bytes() {
        if b == b'_' {
            if !prev_digit {
                return None;
            }
            prev_digit = false;
            continue;
        }
        if !(b as char).is_digit(radix) || n == buf.len() {
            return None;
        }
        buf[n] = b;
        n += 1;
        prev_digit = true;
    }
    if !prev_digit {
        return None;
    }
    core::str::from_utf8(&buf[..n]).ok()
}

/// A TOML integer: decimal (sign allowed, no leading zero), or `0x`, `0o`, `0b`.
fn integer(t: &str) -> Option<i64> {
    let mut buf = [0; 64];
    for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] {
        if let Some(rest) = t.strip_prefix(prefix) {
            return i64::from_str_radix(digits(rest, radix, &mut buf)?, radix).ok();
        }
    }
    let unsigned = t.strip_prefix(['+', '-']).unwrap_or(t);
    if unsigned.len() > 1 && unsigned.starts_with('0') {
        return None;
    }
    let d = digits(unsigned, 10, &mut buf)?;
    let v: i64 = if t.starts_with('-') {
        // Parse with the sign so that i64::MIN reads.
        let mut signed = [0u8; 65];
        signed[0] = b'-';
        signed[1..=d.len()].copy_from_slice(d.as_bytes());
        core::str::from_utf8(&signed[..=d.len()]).ok()?.parse().ok()?
    } else {
        d.parse().ok()?
    };
    Some(v)
}

/// A TOML float: `[+-] int (frac | [frac] exp)`, or `inf` / `nan` with an optional sign.
fn float(t: &str) -> Option<f64> {
    let (negative, unsigned) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let sign = if negative { -1.0 } else { 1.0 };
    match unsigned {
        "inf" => return Some(sign * f64::INFINITY),
        "nan" => return Some(f64::NAN),
        _ => {}
    }
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(i) => (&unsigned[..i], Some(&unsigned[i + 1..])),
        None => (unsigned, None),
    };
    let (int, frac) = match mantissa.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (mantissa, None),
    };
    if frac.is_none() && exponent.is_none() {
        return None;
    }
    if int.len() > 1 && int.starts_with('0') {
        return None;
    }
    let mut text = [0u8; 200];
    let mut n = 0;
    let mut put = |s: &str| -> Option<()> {
        let end = n + s.len();
        text.get_mut(n..end)?.copy_from_slice(s.as_bytes());
        n = end;
        Some(())
    };
    let mut buf = [0; 64];
    if negative {
        put("-")?;
    }
    put(digits(int, 10, &mut buf)?)?;
    if let Some(f) = frac {
        put(".")?;
        put(digits(f, 10, &mut buf)?)?;
    }
    if let Some(e) = exponent {
        put("e")?;
        let (esign, edigits) = match e.as_bytes().first() {
            Some(b'-') => ("-", &e[1..]),
            Some(b'+') => ("", &e[1..]),
            _ => ("", e),
        };
        put(esign)?;
        put(digits(edigits, 10, &mut buf)?)?;
    }
    core::str::from_utf8(&text[..n]).ok()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scalar_of(s: &str) -> Scalar {
        match parse(s).unwrap() {
            Value::Scalar(s) => s,
            v => panic!("{v:?}"),
        }
    }

    #[test]
    fn toml_numbers_read_as_toml_reads_them() {
        assert_eq!(scalar_of("1_000"), Scalar::I64(1000));
        assert_eq!(scalar_of("-7"), Scalar::I64(-7));
        assert_eq!(scalar_of("0x1f"), Scalar::I64(31));
        assert_eq!(scalar_of("1.5"), Scalar::F64(1.5));
        assert_eq!(scalar_of("2e3"), Scalar::F64(2000.0));
        // Not TOML numbers: kept as text.
        assert_eq!(scalar_of(".5"), Scalar::Str(Text::new(".5").unwrap()));
        assert_eq!(scalar_of("01"), Scalar::Str(Text::new("01").unwrap()));
        assert_eq!(scalar_of("1."), Scalar::Str(Text::new("1.").unwrap()));
    }

    #[test]
    fn a_ratio_a_word_and_a_quoted_string_read_as_strings() {
        assert_eq!(scalar_of("1/4"), Scalar::Str(Text::new("1/4").unwrap()));
        assert_eq!(scalar_of("makarem"), Scalar::Str(Text::new("makarem").unwrap()));
        assert_eq!(scalar_of("\"a\\tb\""), Scalar::Str(Text::new("a\tb").unwrap()));
    }

    #[test]
    fn an_array_of_scalars_keeps_its_items_in_order() {
        let v = parse("[1.5, 2, \"x,y\",]").unwrap();
        assert_eq!(v.items(), [Scalar::F64(1.5), Scalar::I64(2), Scalar::Str(Text::new("x,y").unwrap())]);
    }
}
