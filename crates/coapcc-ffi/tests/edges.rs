//! Every call of the C API answers a status code for the inputs a C caller can get wrong:
//! null pointers, unknown names, bad settings, memory that was never initialised (zeroed)
//! or holds another kind of object, misaligned memory, an exchange already finished, a
//! wake-up before its time, an echo of a copy never sent, a random source without a function.

use std::ffi::{CStr, c_void};
use std::mem::MaybeUninit;
use std::ptr::{null, null_mut};

use coapcc_ffi::*;

fn zeroed<T>() -> T {
    // SAFETY: every C object of the API is an array of integers, for which zero is valid.
    unsafe { MaybeUninit::<T>::zeroed().assume_init() }
}

fn message(p: *const std::ffi::c_char) -> String {
    // SAFETY: the API returns NUL-terminated strings, never null.
    unsafe { CStr::from_ptr(p) }.to_str().unwrap().to_string()
}

/// A built algorithm with dithering off, and a fresh state.
fn built(name: &std::ffi::CStr) -> (CoapccAlgorithm, CoapccState) {
    let (mut cfg, mut alg, mut st) = (zeroed::<CoapccConfig>(), zeroed::<CoapccAlgorithm>(), zeroed::<CoapccState>());
    unsafe {
        assert_eq!(coapcc_config_preset(&mut cfg, name.as_ptr()), COAPCC_OK);
        assert_eq!(coapcc_config_set(&mut cfg, c"dither=false".as_ptr()), COAPCC_OK);
        assert_eq!(coapcc_algorithm_build(&mut alg, &mut cfg), COAPCC_OK);
        assert_eq!(coapcc_state_init(&mut st, &alg), COAPCC_OK);
    }
    (alg, st)
}

unsafe extern "C" fn zero_bits(_: *mut c_void) -> u64 {
    0
}

#[test]
fn configuration_errors_are_codes_with_a_message_naming_the_problem() {
    let mut cfg = zeroed::<CoapccConfig>();
    unsafe {
        assert_eq!(coapcc_config_preset(null_mut(), c"cocoa".as_ptr()), COAPCC_E_NULL);
        assert_eq!(coapcc_config_preset(&mut cfg, null()), COAPCC_E_NULL);
        assert_eq!(coapcc_config_preset(&mut cfg, c"reno".as_ptr()), COAPCC_E_UNKNOWN_ALGORITHM);
        assert_eq!(message(coapcc_config_error(&cfg)), "unknown algorithm `reno`");
        // A configuration whose preset failed holds only its message.
        assert_eq!(coapcc_config_set(&mut cfg, c"k=1".as_ptr()), COAPCC_E_UNINITIALISED);
        assert_eq!(coapcc_config_preset(&mut cfg, c"\xff".as_ptr()), COAPCC_E_NOT_UTF8);
        assert_eq!(coapcc_config_preset(&mut cfg, c"cocoa".as_ptr()), COAPCC_OK);
        assert_eq!(message(coapcc_config_error(&cfg)), "");
        assert_eq!(coapcc_config_set(&mut cfg, c"initial_rto_ms".as_ptr()), COAPCC_E_SYNTAX);
        assert_eq!(coapcc_config_set(&mut cfg, c"bogus=1".as_ptr()), COAPCC_E_UNKNOWN_KEY);
        assert!(message(coapcc_config_error(&cfg)).starts_with("unknown key `bogus`; valid keys: "));
        assert_eq!(coapcc_config_set(&mut cfg, c"aging=sometimes".as_ptr()), COAPCC_E_BAD_VALUE);
        assert!(message(coapcc_config_error(&cfg)).starts_with("bad value for key `aging`: "));
        assert_eq!(coapcc_config_set(&mut cfg, c"vbf={below = 4}".as_ptr()), COAPCC_E_BAD_VALUE);
        // Each key is read alone; the whole is checked when built.
        assert_eq!(coapcc_config_set(&mut cfg, c"ack_random_factor=0.5".as_ptr()), COAPCC_OK);
        let mut alg = zeroed::<CoapccAlgorithm>();
        assert_eq!(coapcc_algorithm_build(&mut alg, &mut cfg), COAPCC_E_BAD_VALUE);
        assert!(
            message(coapcc_config_error(&cfg)).contains("`ack_random_factor`"),
            "{}",
            message(coapcc_config_error(&cfg))
        );
        assert_eq!(coapcc_algorithm_build(null_mut(), &mut cfg), COAPCC_E_BAD_VALUE);
        assert_eq!(coapcc_config_set(&mut cfg, c"ack_random_factor=1.5".as_ptr()), COAPCC_OK);
        assert_eq!(coapcc_algorithm_build(null_mut(), &mut cfg), COAPCC_E_NULL);
        assert_eq!(message(coapcc_config_error(null())), message(coapcc_status_message(COAPCC_E_NULL)));
    }
}

#[test]
fn zeroed_or_wrong_kind_or_misaligned_memory_is_refused() {
    let (alg, mut st) = built(c"fasor");
    let mut zero_alg = zeroed::<CoapccAlgorithm>();
    let mut at = 0;
    unsafe {
        assert_eq!(coapcc_earliest_send(&zero_alg, &mut st, 0, &mut at), COAPCC_E_UNINITIALISED);
        assert_eq!(coapcc_state_init(&mut zeroed(), &zero_alg), COAPCC_E_UNINITIALISED);
        // A state where an algorithm is expected.
        let as_alg = (&raw const st).cast::<CoapccAlgorithm>();
        assert_eq!(coapcc_earliest_send(as_alg, &mut st, 0, &mut at), COAPCC_E_UNINITIALISED);
        assert_eq!(coapcc_earliest_send(&alg, &mut st, 0, null_mut()), COAPCC_E_NULL);
        assert_eq!(coapcc_earliest_send(&alg, &mut st, 5, &mut at), COAPCC_OK);
        assert_eq!(at, 5);
        // Memory 4 bytes off an 8-byte boundary.
        let mut words = [0u64; COAPCC_STATE_SIZE / 8 + 1];
        let off = words.as_mut_ptr().cast::<u8>().add(4).cast::<CoapccState>();
        assert_eq!(coapcc_state_init(off, &alg), COAPCC_E_MISALIGNED);
        zero_alg = zeroed();
        assert_eq!(coapcc_algorithm_echo_mode(&zero_alg, &mut 0), COAPCC_E_UNINITIALISED);
    }
}

#[test]
fn an_exchange_runs_to_its_end_and_is_then_refused() {
    let (alg, mut st) = built(c"default");
    let mut pcg = zeroed::<CoapccPcg>();
    let rng = CoapccRng { next_u64: Some(coapcc_pcg_next_u64), ctx: (&raw mut pcg).cast() };
    let no_rng = CoapccRng { next_u64: None, ctx: null_mut() };
    let mut ex = zeroed::<CoapccExchange>();
    let (mut timer, mut wake, mut fired) = (0, 0, CoapccFired::default());
    unsafe {
        assert_eq!(coapcc_pcg_seed(&mut pcg, 1), COAPCC_OK);
        assert_eq!(coapcc_exchange_wake_at(&mut ex, &mut wake), COAPCC_E_UNINITIALISED);
        assert_eq!(coapcc_exchange_start(&alg, &mut st, &mut ex, 0, 0, &no_rng, &mut timer), COAPCC_E_NO_RANDOM);
        assert_eq!(coapcc_exchange_start(&alg, &mut st, &mut ex, 0, 0, null(), &mut timer), COAPCC_E_NO_RANDOM);
        assert_eq!(coapcc_exchange_start(&alg, &mut st, &mut ex, 0, 0, &rng, &mut timer), COAPCC_OK);
        // RFC 7252 §4.2 undithered: ACK_TIMEOUT, then doubling.
        assert_eq!(timer, 2_000_000_000);
        assert_eq!(coapcc_exchange_wake_at(&mut ex, &mut wake), COAPCC_OK);
        assert_eq!(wake, 2_000_000_000);
        assert_eq!(coapcc_exchange_fire(&alg, &mut st, &mut ex, wake - 1, &rng, &mut fired), COAPCC_E_TOO_EARLY);
        assert_eq!(coapcc_exchange_fire(&alg, &mut st, &mut ex, wake, &rng, &mut fired), COAPCC_OK);
        assert_eq!(fired, CoapccFired { kind: COAPCC_FIRED_SENT, copy: 1, timer_ns: 4_000_000_000, until_ns: 0 });
        assert_eq!(coapcc_exchange_ack_echo(&alg, &mut st, &mut ex, wake + 1, 2, 0), COAPCC_E_COPY_NOT_SENT);
        assert_eq!(coapcc_exchange_ack_echo(&alg, &mut st, &mut ex, wake + 1, 256, 0), COAPCC_E_COPY_NOT_SENT);
        assert_eq!(coapcc_exchange_ack_echo(&alg, &mut st, &mut ex, wake + 1, 1, wake), COAPCC_OK);
        assert_eq!(coapcc_exchange_ack(&alg, &mut st, &mut ex, wake + 2), COAPCC_E_FINISHED);
        assert_eq!(coapcc_exchange_fire(&alg, &mut st, &mut ex, u64::MAX, &rng, &mut fired), COAPCC_E_FINISHED);
        // Four retransmissions (MAX_RETRANSMIT), then a give-up at the last timer's expiry.
        let zeros = CoapccRng { next_u64: Some(zero_bits), ctx: null_mut() };
        assert_eq!(coapcc_exchange_start(&alg, &mut st, &mut ex, 0, 0, &zeros, &mut timer), COAPCC_OK);
        let mut sent = 0;
        loop {
            assert_eq!(coapcc_exchange_wake_at(&mut ex, &mut wake), COAPCC_OK);
            assert_eq!(coapcc_exchange_fire(&alg, &mut st, &mut ex, wake, &zeros, &mut fired), COAPCC_OK);
            if fired.kind == COAPCC_FIRED_GAVE_UP {
                break;
            }
            sent += 1;
        }
        assert_eq!((sent, wake), (4, 62_000_000_000));
        assert_eq!(coapcc_exchange_wake_at(&mut ex, &mut wake), COAPCC_E_FINISHED);
    }
}

#[test]
fn every_status_has_a_message_and_unknown_codes_say_so() {
    for code in COAPCC_OK..=COAPCC_E_COPY_NOT_SENT {
        let m = message(coapcc_status_message(code));
        assert!(!m.is_empty() && m != "unknown status", "{code}");
    }
    assert_eq!(message(coapcc_status_message(-1)), "unknown status");
    assert_eq!(message(coapcc_status_message(i32::MAX)), "unknown status");
    assert_eq!(unsafe { coapcc_pcg_next_u64(null_mut()) }, 0);
    assert_eq!(unsafe { coapcc_pcg_seed(null_mut(), 1) }, COAPCC_E_NULL);
}
