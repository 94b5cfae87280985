//! The error of a setting: its kind and a message kept inline (no allocator).

use core::fmt::{self, Write};

/// Most bytes of a message (longer messages are cut at a character boundary).
pub const MAX_MESSAGE: usize = 200;

/// What kind of error a setting met.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// No algorithm has the name.
    UnknownAlgorithm,
    /// `KEY=VALUE` is not of that form.
    Syntax,
    /// The algorithm has no such key.
    UnknownKey,
    /// The value has the wrong type or is out of range.
    BadValue,
}

/// A setting's error: its kind and what is wrong, in words.
#[derive(Clone, Copy)]
pub struct SetError {
    kind: Kind,
    message: [u8; MAX_MESSAGE],
    len: u8,
}

impl SetError {
    /// An error of `kind` with the message `args`.
    pub fn new(kind: Kind, args: fmt::Arguments<'_>) -> SetError {
        let mut e = SetError { kind, message: [0; MAX_MESSAGE], len: 0 };
        // A full buffer only cuts the message.
        let _ = e.write_fmt(args);
        e
    }

    /// The same message with another kind.
    pub fn with_kind(mut self, kind: Kind) -> SetError {
        self.kind = kind;
        self
    }

    /// Its kind.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// The message.
    pub fn message(&self) -> &str {
        core::str::from_utf8(&self.message[..usize::from(self.len)]).unwrap_or("")
    }
}

impl Write for SetError {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let mut at = usize::from(self.len);
        for c in s.chars() {
            let mut buf = [0; 4];
            let enc = c.encode_utf8(&mut buf).as_bytes();
            if at + enc.len() > MAX_MESSAGE.min(usize::from(u8::MAX)) {
                return Err(fmt::Error);
            }
            self.message[at..at + enc.len()].copy_from_slice(enc);
            at += enc.len();
            self.len = at as u8;
        }
        Ok(())
    }
}

impl fmt::Debug for SetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SetError").field("kind", &self.kind).field("message", &self.message()).finish()
    }
}

impl fmt::Display for SetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl core::error::Error for SetError {}

impl serde::de::Error for SetError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        SetError::new(Kind::BadValue, format_args!("{msg}"))
    }
}

impl serde::ser::Error for SetError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        SetError::new(Kind::BadValue, format_args!("{msg}"))
    }
}
