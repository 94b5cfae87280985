//! The random source of the C API: a function the caller supplies (with its context), drawn
//! from as `coapcc-core` draws from any [`rand_core::Rng`] (64-bit words); and the PCG
//! generator `coapcc replay --seed N` uses, for callers that want the same draws.

use core::convert::Infallible;
use core::ffi::c_void;
use core::mem::size_of;

use rand_core::{SeedableRng, TryRng};
use rand_pcg::Pcg64Mcg;

/// A random source: `next_u64(ctx)` returns 64 uniformly random bits each call. Only
/// dithered timers draw; a configuration with `dither=false` never calls it.
#[repr(C)]
pub struct CoapccRng {
    /// Returns the next 64 random bits; must not be null.
    pub next_u64: Option<unsafe extern "C" fn(ctx: *mut c_void) -> u64>,
    /// Passed to `next_u64` as is.
    pub ctx: *mut c_void,
}

/// A [`CoapccRng`] as a Rust generator (its function checked non-null).
pub struct CallbackRng {
    next_u64: unsafe extern "C" fn(ctx: *mut c_void) -> u64,
    ctx: *mut c_void,
}

impl CallbackRng {
    /// The generator of `rng`, or `None` when it is null or has no function.
    ///
    /// # Safety
    /// `rng` is null or points to a valid [`CoapccRng`] whose function may be called with its
    /// context.
    pub unsafe fn new(rng: *const CoapccRng) -> Option<CallbackRng> {
        // SAFETY: null checked by `as_ref`; the caller guarantees the rest.
        let rng = unsafe { rng.as_ref() }?;
        Some(CallbackRng { next_u64: rng.next_u64?, ctx: rng.ctx })
    }
}

impl TryRng for CallbackRng {
    type Error = Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        Ok(self.try_next_u64()? as u32)
    }
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        // SAFETY: the caller of `CallbackRng::new` vouched for the function and its context.
        Ok(unsafe { (self.next_u64)(self.ctx) })
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        for chunk in dst.chunks_mut(8) {
            let word = self.try_next_u64()?.to_le_bytes();
            chunk.copy_from_slice(&word[..chunk.len()]);
        }
        Ok(())
    }
}

/// The state of the PCG generator (PCG-64 MCG, as `rand_pcg::Pcg64Mcg`) of `coapcc replay`:
/// seeded by `coapcc_pcg_seed` with the `--seed` value, it draws what the CLI draws.
#[repr(C)]
pub struct CoapccPcg {
    opaque: [u64; 2],
}

const _: () = assert!(size_of::<Pcg64Mcg>() == size_of::<CoapccPcg>());

/// Seeds `pcg` as `coapcc replay --seed SEED` seeds its generator. Returns `COAPCC_E_NULL`
/// for a null `pcg`.
///
/// # Safety
/// `pcg` is null or points to writable memory of `sizeof(coapcc_pcg)` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn coapcc_pcg_seed(pcg: *mut CoapccPcg, seed: u64) -> i32 {
    if pcg.is_null() {
        return crate::status::COAPCC_E_NULL;
    }
    // SAFETY: non-null; the caller provides the bytes. Unaligned: the generator's u128 may
    // want more alignment than the caller's struct has.
    unsafe { pcg.cast::<Pcg64Mcg>().write_unaligned(Pcg64Mcg::seed_from_u64(seed)) };
    crate::status::COAPCC_OK
}

/// The next 64 bits of the `coapcc_pcg` at `ctx` (a `coapcc_rng` function: set
/// `next_u64 = coapcc_pcg_next_u64, ctx = &pcg`). Returns 0 for a null `ctx`.
///
/// # Safety
/// `ctx` is null or points to a `coapcc_pcg` seeded by `coapcc_pcg_seed` (any 16 bytes are
/// a state, so an unseeded one gives poor randomness, not undefined behaviour).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn coapcc_pcg_next_u64(ctx: *mut c_void) -> u64 {
    if ctx.is_null() {
        return 0;
    }
    let p = ctx.cast::<Pcg64Mcg>();
    // SAFETY: non-null; every bit pattern is a valid generator state.
    let mut g = unsafe { p.read_unaligned() };
    let v = rand_core::Rng::next_u64(&mut g);
    // SAFETY: as above.
    unsafe { p.write_unaligned(g) };
    v
}
