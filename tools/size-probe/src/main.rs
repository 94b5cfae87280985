//! A bare-metal program that drives the algorithms of a coapcc-core build (one algorithm, or
//! all, chosen by a cargo feature) through the registry, `AnyController` and the
//! `StopAndWait` harness, so that the linker keeps exactly the code an application using it
//! would need. `measure` links it for thumbv7em-none-eabihf and reports the `.text` size.
#![no_std]
#![no_main]

use coapcc_core::harness::StopAndWait;
use coapcc_core::{Duration, Instant};

struct XorShift(u64);
impl rand_core_shim::TryRng for XorShift {
    type Error = core::convert::Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        self.try_next_u64().map(|v| v as u32)
    }
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        Ok(self.0)
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        for b in dst {
            *b = self.try_next_u64()? as u8;
        }
        Ok(())
    }
}

mod rand_core_shim {
    pub use coapcc_core::random::Rng;
    pub use rand_core::TryRng;
}

/// The algorithm `sel` of the registry (only the algorithms this build enabled are in it),
/// built through `AnyConfig::build`.
fn controller(sel: u32) -> coapcc_core::AnyController {
    let all = coapcc_core::ALGORITHMS;
    if all.is_empty() {
        loop {}
    }
    let info = &all[sel as usize % all.len()];
    match (info.preset)().build() {
        Ok(c) => c,
        Err(_) => loop {},
    }
}

/// Entry point: inputs come from memory the linker cannot see through, so nothing folds away.
#[unsafe(no_mangle)]
pub extern "C" fn probe_entry(sel: u32, steps: *const u32, n: usize) -> u32 {
    let mut h = StopAndWait::new(controller(sel));
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15 ^ u64::from(sel));
    let mut now = Instant::ZERO;
    let mut acc = 0u32;
    for i in 0..n {
        let step = opaque(steps, i);
        let mut emit = |_e| acc = acc.wrapping_add(1);
        match step & 3 {
            0 => {
                let _ = h.send(now, &mut rng, &mut emit);
            }
            1 => {
                let _ = h.ack(now, Some((step >> 2) as u16 & 7), &mut rng, &mut emit);
            }
            _ => {
                now = now + Duration::from_micros(u64::from(step >> 2));
                h.advance_to(now, &mut rng, &mut emit);
            }
        }
    }
    acc
}

/// A step value the optimiser cannot predict: derived from the caller's pointer (never read).
fn opaque(steps: *const u32, i: usize) -> u32 {
    (steps as usize).wrapping_add(i).rotate_left(7) as u32
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}
