//! Status codes: every function of the C API returns one (`COAPCC_OK` is 0, errors are
//! positive), and [`coapcc_status_message`] names it.

use core::ffi::c_char;

use crate::settings::{Kind, SetError};
use crate::slot::SlotError;

/// Success.
pub const COAPCC_OK: i32 = 0;
/// A pointer argument is null.
pub const COAPCC_E_NULL: i32 = 1;
/// An object's memory is not aligned to 8 bytes.
pub const COAPCC_E_MISALIGNED: i32 = 2;
/// An object was not initialised by its `*_init`/`*_preset`/`*_build`/`*_start` call (or is
/// of another kind).
pub const COAPCC_E_UNINITIALISED: i32 = 3;
/// A string argument is not UTF-8.
pub const COAPCC_E_NOT_UTF8: i32 = 4;
/// No algorithm has the name.
pub const COAPCC_E_UNKNOWN_ALGORITHM: i32 = 5;
/// A setting is not of the form `KEY=VALUE`.
pub const COAPCC_E_SYNTAX: i32 = 6;
/// The algorithm has no such configuration key.
pub const COAPCC_E_UNKNOWN_KEY: i32 = 7;
/// A configuration value has the wrong type or is out of range.
pub const COAPCC_E_BAD_VALUE: i32 = 8;
/// The random source has no function.
pub const COAPCC_E_NO_RANDOM: i32 = 9;
/// The exchange was already acknowledged or given up.
pub const COAPCC_E_FINISHED: i32 = 10;
/// `coapcc_exchange_fire` before the exchange's wake-up time.
pub const COAPCC_E_TOO_EARLY: i32 = 11;
/// An acknowledgement names a copy that was not sent.
pub const COAPCC_E_COPY_NOT_SENT: i32 = 12;

/// Each code's message, NUL-terminated.
const MESSAGES: [&[u8]; 13] = [
    b"ok\0",
    b"a pointer argument is null\0",
    b"an object's memory is not aligned to 8 bytes\0",
    b"the object was not initialised (or is of another kind)\0",
    b"a string argument is not UTF-8\0",
    b"unknown algorithm name\0",
    b"expected a setting KEY=VALUE\0",
    b"the algorithm has no such configuration key\0",
    b"a configuration value has the wrong type or is out of range\0",
    b"the random source has no function\0",
    b"the exchange was already acknowledged or given up\0",
    b"the exchange's wake-up time has not come\0",
    b"the acknowledgement names a copy that was not sent\0",
];

/// A static, NUL-terminated English message for a status code (`"unknown status"` for a code
/// no function returns). Never null.
#[unsafe(no_mangle)]
pub extern "C" fn coapcc_status_message(status: i32) -> *const c_char {
    let m: &[u8] = usize::try_from(status).ok().and_then(|i| MESSAGES.get(i)).copied().unwrap_or(b"unknown status\0");
    m.as_ptr().cast()
}

/// The code of a memory error.
pub fn of_slot(e: SlotError) -> i32 {
    match e {
        SlotError::Null => COAPCC_E_NULL,
        SlotError::Misaligned => COAPCC_E_MISALIGNED,
        SlotError::Uninitialised => COAPCC_E_UNINITIALISED,
    }
}

/// The code of a setting's error.
pub fn of_setting(e: &SetError) -> i32 {
    match e.kind() {
        Kind::UnknownAlgorithm => COAPCC_E_UNKNOWN_ALGORITHM,
        Kind::Syntax => COAPCC_E_SYNTAX,
        Kind::UnknownKey => COAPCC_E_UNKNOWN_KEY,
        Kind::BadValue => COAPCC_E_BAD_VALUE,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_message_is_one_nul_terminated_line() {
        for m in MESSAGES {
            assert_eq!(m.iter().filter(|&&b| b == 0).count(), 1);
            assert_eq!(m.last(), Some(&0));
        }
        assert_eq!(MESSAGES.len() as i32, COAPCC_E_COPY_NOT_SENT + 1);
    }
}
