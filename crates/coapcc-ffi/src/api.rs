//! The C API's objects and calls. Every object lives in memory the caller provides (a struct
//! of the documented size whose alignment is 8); every call checks its pointers (null,
//! alignment, the object's kind) and answers with a status code, never undefined behaviour
//! for those inputs and never a panic.

use core::ffi::{CStr, c_char};
use core::mem::size_of;

use coapcc_core::{
    Ack, AnyConfig, AnyController, AnyExchangeState, AnyState, Controller, Echo, EchoMode, Fired, Instant, Outstanding,
};

use crate::random::{CallbackRng, CoapccRng};
use crate::settings::{self, MAX_MESSAGE, SetError};
use crate::slot::{self, Slot, Tag};
use crate::status::*;

/// Bytes of a `coapcc_config` (alignment 8).
pub const COAPCC_CONFIG_SIZE: usize = 440;
/// Bytes of a `coapcc_algorithm` (alignment 8).
pub const COAPCC_ALGORITHM_SIZE: usize = 272;
/// Bytes of a `coapcc_state`: one destination's congestion-control state (alignment 8).
pub const COAPCC_STATE_SIZE: usize = 248;
/// Bytes of a `coapcc_exchange`: one exchange in flight (alignment 8).
pub const COAPCC_EXCHANGE_SIZE: usize = 120;
/// Alignment of every object.
pub const COAPCC_ALIGN: usize = 8;

/// A configuration being built: a preset, with settings applied. Holds the message of its
/// last error (`coapcc_config_error`).
#[repr(C)]
pub struct CoapccConfig {
    opaque: [u64; 55],
}

/// An algorithm built from a checked configuration: immutable, shared by every destination.
#[repr(C)]
pub struct CoapccAlgorithm {
    opaque: [u64; 34],
}

/// The congestion-control state of one destination endpoint.
#[repr(C)]
pub struct CoapccState {
    opaque: [u64; 31],
}

/// One exchange (a confirmable request until it is acknowledged or given up).
#[repr(C)]
pub struct CoapccExchange {
    opaque: [u64; 15],
}

/// What `coapcc_exchange_fire` did: `kind` is `COAPCC_FIRED_SENT` (a copy leaves now,
/// `copy` and `timer_ns` set), `COAPCC_FIRED_HELD` (the controller holds the copy until
/// `until_ns`) or `COAPCC_FIRED_GAVE_UP` (the exchange is abandoned).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CoapccFired {
    /// `COAPCC_FIRED_SENT`, `COAPCC_FIRED_HELD` or `COAPCC_FIRED_GAVE_UP`.
    pub kind: u32,
    /// The copy sent (1 is the first retransmission), for `COAPCC_FIRED_SENT`.
    pub copy: u32,
    /// The timer armed for that copy, in nanoseconds, for `COAPCC_FIRED_SENT`.
    pub timer_ns: u64,
    /// When the held copy may leave, in nanoseconds, for `COAPCC_FIRED_HELD`.
    pub until_ns: u64,
}

/// `coapcc_fired.kind`: a copy leaves now.
pub const COAPCC_FIRED_SENT: u32 = 0;
/// `coapcc_fired.kind`: the copy is held until `until_ns`.
pub const COAPCC_FIRED_HELD: u32 = 1;
/// `coapcc_fired.kind`: the exchange is abandoned.
pub const COAPCC_FIRED_GAVE_UP: u32 = 2;

/// `coapcc_algorithm_echo_mode`: acknowledgements need not name the copy they answer.
pub const COAPCC_ECHO_NONE: u32 = 0;
/// `coapcc_algorithm_echo_mode`: the copy number travels in one extra token byte.
pub const COAPCC_ECHO_TOKEN: u32 = 1;
/// `coapcc_algorithm_echo_mode`: the copy number travels in a transmission-count option.
pub const COAPCC_ECHO_OPTION: u32 = 2;

struct ConfigValue {
    config: Option<AnyConfig>,
    message: [u8; MAX_MESSAGE + 1],
}

type ExchangeValue = Outstanding<AnyExchangeState>;

// Every object fits its documented size and alignment (a test checks the sizes are tight),
// and the C structs have those sizes.
const _: () = assert!(size_of::<CoapccConfig>() == COAPCC_CONFIG_SIZE);
const _: () = assert!(size_of::<CoapccAlgorithm>() == COAPCC_ALGORITHM_SIZE);
const _: () = assert!(size_of::<CoapccState>() == COAPCC_STATE_SIZE);
const _: () = assert!(size_of::<CoapccExchange>() == COAPCC_EXCHANGE_SIZE);
const _: () = assert!(slot::fits::<ConfigValue>(COAPCC_CONFIG_SIZE));
const _: () = assert!(slot::fits::<AnyController>(COAPCC_ALGORITHM_SIZE));
const _: () = assert!(slot::fits::<AnyState>(COAPCC_STATE_SIZE));
const _: () = assert!(slot::fits::<ExchangeValue>(COAPCC_EXCHANGE_SIZE));

fn config_slot(p: *mut CoapccConfig) -> *mut Slot<ConfigValue> {
    p.cast()
}
fn algorithm_slot(p: *const CoapccAlgorithm) -> *const Slot<AnyController> {
    p.cast()
}
fn state_slot(p: *mut CoapccState) -> *mut Slot<AnyState> {
    p.cast()
}
fn exchange_slot(p: *mut CoapccExchange) -> *mut Slot<ExchangeValue> {
    p.cast()
}

/// Evaluates a `Result<T, i32>`, returning the code from the function on error.
macro_rules! tri {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(code) => return code,
        }
    };
}

/// A C string argument as UTF-8.
///
/// # Safety
/// `s` is null or a NUL-terminated string.
unsafe fn text<'a>(s: *const c_char) -> Result<&'a str, i32> {
    if s.is_null() {
        return Err(COAPCC_E_NULL);
    }
    // SAFETY: non-null and NUL-terminated (the caller's promise).
    unsafe { CStr::from_ptr(s) }.to_str().map_err(|_| COAPCC_E_NOT_UTF8)
}

fn message_of(e: &SetError) -> [u8; MAX_MESSAGE + 1] {
    let mut m = [0; MAX_MESSAGE + 1];
    // A message has no NUL of its own (it is written from Rust strings of names and values);
    // one would only cut it short.
    let bytes = e.message().as_bytes();
    m[..bytes.len()].copy_from_slice(bytes);
    m
}

/// Sets `cfg` to the preset configuration of algorithm `name` (`"cocoa"`, `"fasor"`, … as
/// listed by `coapcc algorithms`). On `COAPCC_E_UNKNOWN_ALGORITHM` the configuration holds
/// only the error message.
///
/// # Safety
/// `cfg` is null or points to writable memory of `COAPCC_CONFIG_SIZE` bytes; `name` is null
/// or a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn coapcc_config_preset(cfg: *mut CoapccConfig, name: *const c_char) -> i32 {
    // SAFETY: forwarded from the caller.
    let name = tri!(unsafe { text(name) });
    let (config, message, status) = match settings::preset(name) {
        Ok(c) => (Some(c), [0; MAX_MESSAGE + 1], COAPCC_OK),
        Err(e) => (None, message_of(&e), of_setting(&e)),
    };
    // SAFETY: forwarded from the caller.
    tri!(unsafe { slot::put(config_slot(cfg), Tag::Config, ConfigValue { config, message }) }.map_err(of_slot));
    status
}

/// Applies one `KEY=VALUE` setting to `cfg`, as `coapcc --set KEY=VALUE` does (e.g.
/// `"initial_rto_ms=500"`, `"vbf=makarem"`, `"dither=false"`); `coapcc algorithms NAME`
/// lists the keys. On an error the configuration is unchanged and `coapcc_config_error`
/// says what is wrong.
///
/// # Safety
/// `cfg` is null or points to memory initialised by `coapcc_config_preset`, not used by
/// another thread meanwhile; `setting` is null or a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn coapcc_config_set(cfg: *mut CoapccConfig, setting: *const c_char) -> i32 {
    // SAFETY: forwarded from the caller.
    let value = tri!(unsafe { slot::get_mut(config_slot(cfg), Tag::Config) }.map_err(of_slot));
    let Some(config) = value.config.as_mut() else { return COAPCC_E_UNINITIALISED };
    // SAFETY: forwarded from the caller.
    let setting = tri!(unsafe { text(setting) });
    match settings::apply(config, setting) {
        Ok(()) => {
            value.message = [0; MAX_MESSAGE + 1];
            COAPCC_OK
        }
        Err(e) => {
            value.message = message_of(&e);
            of_setting(&e)
        }
    }
}

/// The message of the last failed call on `cfg` (empty after a success), NUL-terminated and
/// valid until the next call on `cfg`; a static message when `cfg` itself is unusable. Never
/// null.
///
/// # Safety
/// `cfg` is null or points to memory of `COAPCC_CONFIG_SIZE` bytes not written meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn coapcc_config_error(cfg: *const CoapccConfig) -> *const c_char {
    // SAFETY: forwarded from the caller.
    match unsafe { slot::get(config_slot(cfg.cast_mut()).cast_const(), Tag::Config) } {
        Ok(v) => v.message.as_ptr().cast(),
        Err(e) => coapcc_status_message(of_slot(e)),
    }
}

/// Checks `cfg` as a whole and builds the algorithm into `alg`. On `COAPCC_E_BAD_VALUE`
/// `coapcc_config_error(cfg)` names the key.
///
/// # Safety
/// `cfg` as for `coapcc_config_set`; `alg` is null or points to writable memory of
/// `COAPCC_ALGORITHM_SIZE` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn coapcc_algorithm_build(alg: *mut CoapccAlgorithm, cfg: *mut CoapccConfig) -> i32 {
    // SAFETY: forwarded from the caller.
    let value = tri!(unsafe { slot::get_mut(config_slot(cfg), Tag::Config) }.map_err(of_slot));
    let Some(config) = value.config else { return COAPCC_E_UNINITIALISED };
    match config.build() {
        Ok(c) => {
            value.message = [0; MAX_MESSAGE + 1];
            // SAFETY: forwarded from the caller.
            tri!(unsafe { slot::put(alg.cast::<Slot<AnyController>>(), Tag::Algorithm, c) }.map_err(of_slot));
            COAPCC_OK
        }
        Err(e) => {
            let e =
                SetError::new(settings::Kind::BadValue, format_args!("bad value for key `{}`: {}", e.key, e.problem));
            value.message = message_of(&e);
            COAPCC_E_BAD_VALUE
        }
    }
}

/// How acknowledgements must name the copy they answer for `alg` to get the RTT samples it
/// is specified with: `COAPCC_ECHO_NONE`, `COAPCC_ECHO_TOKEN` or `COAPCC_ECHO_OPTION`.
///
/// # Safety
/// `alg` is null or points to memory initialised by `coapcc_algorithm_build`; `mode` is
/// null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn coapcc_algorithm_echo_mode(alg: *const CoapccAlgorithm, mode: *mut u32) -> i32 {
    // SAFETY: forwarded from the caller.
    let c = tri!(unsafe { slot::get(algorithm_slot(alg), Tag::Algorithm) }.map_err(of_slot));
    let m = match c.echo_mode() {
        EchoMode::None => COAPCC_ECHO_NONE,
        EchoMode::Token => COAPCC_ECHO_TOKEN,
        EchoMode::Option => COAPCC_ECHO_OPTION,
    };
    // SAFETY: forwarded from the caller.
    tri!(unsafe { out(mode, m) });
    COAPCC_OK
}

/// Writes `v` to `p`.
///
/// # Safety
/// `p` is null or writable.
unsafe fn out<T>(p: *mut T, v: T) -> Result<(), i32> {
    if p.is_null() {
        return Err(COAPCC_E_NULL);
    }
    // SAFETY: non-null; writable by the caller's promise. Unaligned, so any pointer the C
    // type allows is fine.
    unsafe { p.write_unaligned(v) };
    Ok(())
}

/// Sets `st` to the state of a destination nothing has been exchanged with yet, for `alg`.
///
/// # Safety
/// `alg` as for `coapcc_algorithm_echo_mode`; `st` is null or points to writable memory
/// of `COAPCC_STATE_SIZE` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn coapcc_state_init(st: *mut CoapccState, alg: *const CoapccAlgorithm) -> i32 {
    // SAFETY: forwarded from the caller.
    let c = tri!(unsafe { slot::get(algorithm_slot(alg), Tag::Algorithm) }.map_err(of_slot));
    // SAFETY: forwarded from the caller.
    tri!(unsafe { slot::put(state_slot(st), Tag::State, c.new_state()) }.map_err(of_slot));
    COAPCC_OK
}

/// The algorithm and a destination's state, checked.
///
/// # Safety
/// As for `coapcc_earliest_send`.
unsafe fn pair<'a>(
    alg: *const CoapccAlgorithm,
    st: *mut CoapccState,
) -> Result<(&'a AnyController, &'a mut AnyState), i32> {
    // SAFETY: forwarded from the caller.
    let c = unsafe { slot::get(algorithm_slot(alg), Tag::Algorithm) }.map_err(of_slot)?;
    // SAFETY: forwarded from the caller.
    let s = unsafe { slot::get_mut(state_slot(st), Tag::State) }.map_err(of_slot)?;
    Ok((c, s))
}

/// The earliest time (ns) the next copy to the destination may leave, at `now_ns`: `now_ns`
/// except for the rate-based algorithms (IDC, MBC, BDP), which may hold it.
///
/// # Safety
/// `alg` as for `coapcc_algorithm_echo_mode`; `st` is null or points to memory initialised
/// by `coapcc_state_init` and not used by another thread meanwhile; `at_ns` is null or
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn coapcc_earliest_send(
    alg: *const CoapccAlgorithm,
    st: *mut CoapccState,
    now_ns: u64,
    at_ns: *mut u64,
) -> i32 {
    // SAFETY: forwarded from the caller.
    let (c, s) = tri!(unsafe { pair(alg, st) });
    let at = c.earliest_send(s, Instant::from_nanos(now_ns));
    // SAFETY: forwarded from the caller.
    tri!(unsafe { out(at_ns, at.as_nanos()) });
    COAPCC_OK
}

/// The undithered timer (ns) the algorithm would arm for an original transmission at
/// `now_ns`; `*has_rto` is false where that notion does not apply (then `*rto_ns` is 0).
///
/// # Safety
/// As for `coapcc_earliest_send`; `rto_ns` and `has_rto` are null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn coapcc_rto(
    alg: *const CoapccAlgorithm,
    st: *mut CoapccState,
    now_ns: u64,
    rto_ns: *mut u64,
    has_rto: *mut bool,
) -> i32 {
    if rto_ns.is_null() || has_rto.is_null() {
        return COAPCC_E_NULL;
    }
    // SAFETY: forwarded from the caller.
    let (c, s) = tri!(unsafe { pair(alg, st) });
    let rto = c.rto(s, Instant::from_nanos(now_ns));
    // SAFETY: checked non-null above; writable by the caller's promise.
    unsafe {
        tri!(out(rto_ns, rto.map_or(0, coapcc_core::duration::nanos)));
        tri!(out(has_rto, rto.is_some()));
    }
    COAPCC_OK
}

/// Starts an exchange into `ex` whose original copy leaves at `now_ns` (ask
/// `coapcc_earliest_send` first for rate-based algorithms), with `in_flight` other
/// exchanges outstanding to the destination; `*timer_ns` is the timer armed for it. Call
/// `coapcc_exchange_fire` at `coapcc_exchange_wake_at`.
///
/// # Safety
/// As for `coapcc_earliest_send`; `ex` is null or points to writable memory of
/// `COAPCC_EXCHANGE_SIZE` bytes; `rng` is null or a valid `coapcc_rng`; `timer_ns` is null
/// or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn coapcc_exchange_start(
    alg: *const CoapccAlgorithm,
    st: *mut CoapccState,
    ex: *mut CoapccExchange,
    now_ns: u64,
    in_flight: u32,
    rng: *const CoapccRng,
    timer_ns: *mut u64,
) -> i32 {
    if ex.is_null() || timer_ns.is_null() {
        return COAPCC_E_NULL;
    }
    // SAFETY: forwarded from the caller.
    let (c, s) = tri!(unsafe { pair(alg, st) });
    // SAFETY: forwarded from the caller.
    let Some(mut rng) = (unsafe { CallbackRng::new(rng) }) else { return COAPCC_E_NO_RANDOM };
    let o = Outstanding::start(c, s, Instant::from_nanos(now_ns), in_flight as usize, &mut rng);
    let timer = coapcc_core::duration::nanos(o.exchange().timer());
    // SAFETY: forwarded from the caller.
    tri!(unsafe { slot::put(exchange_slot(ex), Tag::Exchange, o) }.map_err(of_slot));
    // SAFETY: checked non-null above.
    tri!(unsafe { out(timer_ns, timer) });
    COAPCC_OK
}

/// When (ns) `coapcc_exchange_fire` must next be called for `ex`: the end of a hold, or
/// the expiry of the latest copy's timer.
///
/// # Safety
/// `ex` is null or points to memory initialised by `coapcc_exchange_start`, not written
/// meanwhile; `at_ns` is null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn coapcc_exchange_wake_at(ex: *mut CoapccExchange, at_ns: *mut u64) -> i32 {
    // SAFETY: forwarded from the caller.
    let o = tri!(unsafe { live(ex) });
    let at = o.wake_at().as_nanos();
    // SAFETY: forwarded from the caller.
    tri!(unsafe { out(at_ns, at) });
    COAPCC_OK
}

/// The exchange at `ex` when it is still in flight.
///
/// # Safety
/// As for `coapcc_exchange_wake_at`.
unsafe fn live<'a>(ex: *mut CoapccExchange) -> Result<&'a mut ExchangeValue, i32> {
    // SAFETY: forwarded from the caller.
    unsafe { slot::get_mut(exchange_slot(ex), Tag::Exchange) }.map_err(|e| match e {
        // SAFETY: the same pointer, checked for the other tag.
        slot::SlotError::Uninitialised if unsafe { slot::get(exchange_slot(ex), Tag::Finished) }.is_ok() => {
            COAPCC_E_FINISHED
        }
        e => of_slot(e),
    })
}

/// Handles the wake-up of `ex` at `now_ns` (at or after `coapcc_exchange_wake_at`): a held
/// copy leaves; an expired timer retransmits at once (the controller's retransmission timer
/// is armed), holds the copy, or gives up (the controller has applied what a failure
/// teaches; the exchange is finished). `*fired` says which.
///
/// # Safety
/// As for `coapcc_exchange_start`, with `ex` initialised by it; `fired` is null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn coapcc_exchange_fire(
    alg: *const CoapccAlgorithm,
    st: *mut CoapccState,
    ex: *mut CoapccExchange,
    now_ns: u64,
    rng: *const CoapccRng,
    fired: *mut CoapccFired,
) -> i32 {
    if fired.is_null() {
        return COAPCC_E_NULL;
    }
    // SAFETY: forwarded from the caller.
    let (c, s) = tri!(unsafe { pair(alg, st) });
    // SAFETY: forwarded from the caller.
    let o = tri!(unsafe { live(ex) });
    // SAFETY: forwarded from the caller.
    let Some(mut rng) = (unsafe { CallbackRng::new(rng) }) else { return COAPCC_E_NO_RANDOM };
    let now = Instant::from_nanos(now_ns);
    if now < o.wake_at() {
        return COAPCC_E_TOO_EARLY;
    }
    let f = match o.fire(c, s, now, &mut rng) {
        Fired::Sent { copy, timer } => CoapccFired {
            kind: COAPCC_FIRED_SENT,
            copy: copy.into(),
            timer_ns: coapcc_core::duration::nanos(timer),
            until_ns: 0,
        },
        Fired::Held { until } => {
            CoapccFired { kind: COAPCC_FIRED_HELD, copy: 0, timer_ns: 0, until_ns: until.as_nanos() }
        }
        Fired::GaveUp => {
            // SAFETY: `live` checked the pointer and tag.
            tri!(unsafe { slot::retag(exchange_slot(ex), Tag::Exchange, Tag::Finished) }.map_err(of_slot));
            CoapccFired { kind: COAPCC_FIRED_GAVE_UP, ..CoapccFired::default() }
        }
    };
    // SAFETY: checked non-null above.
    tri!(unsafe { out(fired, f) });
    COAPCC_OK
}

/// `ex` is acknowledged at `now_ns` (the first acknowledgement; pass no duplicates) by an
/// acknowledgement that does not say which copy it answers. The exchange is finished.
///
/// # Safety
/// As for `coapcc_exchange_fire`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn coapcc_exchange_ack(
    alg: *const CoapccAlgorithm,
    st: *mut CoapccState,
    ex: *mut CoapccExchange,
    now_ns: u64,
) -> i32 {
    // SAFETY: forwarded from the caller.
    unsafe { ack(alg, st, ex, now_ns, None) }
}

/// `ex` is acknowledged at `now_ns` by an acknowledgement that echoes copy `copy` (0 is the
/// original), which the caller sent at `copy_sent_ns` (an echoed token byte, Rexmit-Cnt or
/// Transmission Count option). `COAPCC_E_COPY_NOT_SENT` when `copy` was not sent (the
/// exchange is unchanged). The exchange is finished.
///
/// # Safety
/// As for `coapcc_exchange_fire`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn coapcc_exchange_ack_echo(
    alg: *const CoapccAlgorithm,
    st: *mut CoapccState,
    ex: *mut CoapccExchange,
    now_ns: u64,
    copy: u32,
    copy_sent_ns: u64,
) -> i32 {
    // SAFETY: forwarded from the caller.
    unsafe { ack(alg, st, ex, now_ns, Some((copy, copy_sent_ns))) }
}

/// # Safety
/// As for `coapcc_exchange_fire`.
unsafe fn ack(
    alg: *const CoapccAlgorithm,
    st: *mut CoapccState,
    ex: *mut CoapccExchange,
    now_ns: u64,
    echo: Option<(u32, u64)>,
) -> i32 {
    // SAFETY: forwarded from the caller.
    let (c, s) = tri!(unsafe { pair(alg, st) });
    // SAFETY: forwarded from the caller.
    let o = tri!(unsafe { live(ex) });
    let echo = match echo {
        None => None,
        Some((copy, sent)) => match u8::try_from(copy) {
            Ok(k) if k <= o.exchange().retransmissions() => Some(Echo { copy: k, sent: Instant::from_nanos(sent) }),
            _ => return COAPCC_E_COPY_NOT_SENT,
        },
    };
    c.on_ack(s, Instant::from_nanos(now_ns), o.exchange(), &Ack { echo });
    // SAFETY: `live` checked the pointer and tag.
    tri!(unsafe { slot::retag(exchange_slot(ex), Tag::Exchange, Tag::Finished) }.map_err(of_slot));
    COAPCC_OK
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::mem::align_of;

    #[test]
    fn the_documented_sizes_are_those_of_the_objects_and_every_object_is_aligned_to_8() {
        // Exact on a 64-bit host (the target the header is generated on); the constant
        // assertions above keep every other target (e.g. thumbv7em) within them.
        #[cfg(target_pointer_width = "64")]
        {
            assert_eq!(COAPCC_CONFIG_SIZE, size_of::<Slot<ConfigValue>>());
            assert_eq!(COAPCC_ALGORITHM_SIZE, size_of::<Slot<AnyController>>());
            assert_eq!(COAPCC_STATE_SIZE, size_of::<Slot<AnyState>>());
            assert_eq!(COAPCC_EXCHANGE_SIZE, size_of::<Slot<ExchangeValue>>());
        }
        for (c_size, c_align) in [
            (size_of::<CoapccConfig>(), align_of::<CoapccConfig>()),
            (size_of::<CoapccAlgorithm>(), align_of::<CoapccAlgorithm>()),
            (size_of::<CoapccState>(), align_of::<CoapccState>()),
            (size_of::<CoapccExchange>(), align_of::<CoapccExchange>()),
        ] {
            assert_eq!(c_align, COAPCC_ALIGN);
            assert_eq!(c_size % COAPCC_ALIGN, 0);
        }
        assert_eq!(size_of::<CoapccConfig>(), COAPCC_CONFIG_SIZE);
        assert_eq!(size_of::<CoapccAlgorithm>(), COAPCC_ALGORITHM_SIZE);
        assert_eq!(size_of::<CoapccState>(), COAPCC_STATE_SIZE);
        assert_eq!(size_of::<CoapccExchange>(), COAPCC_EXCHANGE_SIZE);
        for a in [
            align_of::<Slot<ConfigValue>>(),
            align_of::<Slot<AnyController>>(),
            align_of::<Slot<AnyState>>(),
            align_of::<Slot<ExchangeValue>>(),
        ] {
            assert!(a <= COAPCC_ALIGN);
        }
    }
}
