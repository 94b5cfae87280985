//! Every replay vector of `tests/replay/` run by `coapcc-core` on a Cortex-M4: for each, a
//! line `== NAME`, then the JSON lines `coapcc replay` prints for it (the same harness,
//! `coapcc_core::harness::StopAndWait`, the same settings through `coapcc_ffi::settings`, the
//! same generator). Then, not compared with the host, a line per algorithm
//! `stack ALGORITHM configure BYTES replay BYTES`: the most stack any of its vectors used to
//! build its controller from the preset and settings, and to replay its script (found by
//! painting the free stack before each and finding the deepest word overwritten after it).
//!
//! Output goes through semihosting; `scripts/test-embedded` runs it under QEMU and compares
//! the replay lines with the host's byte for byte.

#![no_std]
#![no_main]

use core::fmt::Write;
use core::time::Duration;

use coapcc_core::duration::Millis;
use coapcc_core::harness::script::{Command, parse_line};
use coapcc_core::harness::{Event, StopAndWait};
use coapcc_core::{ALGORITHMS, AnyController, Instant};
use coapcc_ffi::settings::{Kind, SetError};
use cortex_m_rt::entry;
use cortex_m_semihosting::{debug, hio};
use rand_core::SeedableRng;
use rand_pcg::Pcg64Mcg;

/// One replay vector.
pub struct Vector {
    name: &'static str,
    algorithm: &'static str,
    settings: &'static [&'static str],
    seed: u64,
    script: &'static str,
}

include!(concat!(env!("OUT_DIR"), "/vectors.rs"));

/// Semihosting output, a line at a time.
struct Out {
    host: hio::HostStream,
    line: [u8; 512],
    len: usize,
}

impl Write for Out {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        for &b in s.as_bytes() {
            if self.len == self.line.len() {
                self.flush()?;
            }
            self.line[self.len] = b;
            self.len += 1;
            if b == b'\n' {
                self.flush()?;
            }
        }
        Ok(())
    }
}

impl Out {
    fn flush(&mut self) -> core::fmt::Result {
        let r = self.host.write_all(&self.line[..self.len]).map_err(|_| core::fmt::Error);
        self.len = 0;
        r
    }
}

/// Milliseconds as `coapcc replay` writes them.
fn ms(d: Duration) -> Millis {
    Millis(d)
}

/// One event as `coapcc replay` writes it (`coapcc_driver::replay::format_event`).
fn write_event(out: &mut Out, e: &Event) -> core::fmt::Result {
    match *e {
        Event::Transmit { at, exchange, copy, timer } => writeln!(
            out,
            r#"{{"t_ms":{},"event":"transmit","exchange":{exchange},"copy":{copy},"timer_ms":{}}}"#,
            ms(at.since_epoch()),
            ms(timer)
        ),
        Event::GiveUp { at, exchange } => {
            writeln!(out, r#"{{"t_ms":{},"event":"give_up","exchange":{exchange}}}"#, ms(at.since_epoch()))
        }
        Event::Ack { at, exchange, copy, rto } => {
            write!(out, r#"{{"t_ms":{},"event":"ack","exchange":{exchange},"copy":"#, ms(at.since_epoch()))?;
            match copy {
                Some(c) => write!(out, "{c}")?,
                None => out.write_str("null")?,
            }
            out.write_str(r#","rto_ms":"#)?;
            match rto {
                Some(r) => write!(out, "{}", ms(r))?,
                None => out.write_str("null")?,
            }
            out.write_str("}\n")
        }
    }
}

/// Parks the core once semihosting has asked QEMU to exit.
fn halt() -> ! {
    loop {
        cortex_m::asm::wfi();
    }
}

/// The vector's controller: its algorithm's preset with its settings, as `coapcc replay`
/// configures it (the settings through the same serde impls, without an allocator).
#[allow(clippy::result_large_err)] // the error carries its message inline (no allocator)
fn configure(v: &Vector) -> Result<AnyController, SetError> {
    let mut config = coapcc_ffi::settings::preset(v.algorithm)?;
    for s in v.settings {
        coapcc_ffi::settings::apply(&mut config, s)?;
    }
    config
        .build()
        .map_err(|e| SetError::new(Kind::BadValue, format_args!("bad value for key `{}`: {}", e.key, e.problem)))
}

/// Runs one vector's script as `coapcc replay` does (`coapcc_driver::replay::run_with`).
fn replay(out: &mut Out, v: &Vector, controller: &AnyController) -> core::fmt::Result {
    let mut harness = StopAndWait::new(controller);
    let mut rng = Pcg64Mcg::seed_from_u64(v.seed);
    let mut now = Instant::ZERO;
    let mut failed = None;
    let mut emit = |e: Event| {
        if failed.is_none() {
            failed = write_event(out, &e).err();
        }
    };
    for (i, line) in v.script.lines().enumerate() {
        let result = match parse_line(line) {
            Ok(None) => Ok(()),
            Ok(Some(Command::Send)) => harness.send(now, &mut rng, &mut emit),
            Ok(Some(Command::Wait(d))) => {
                now = now.saturating_add(d);
                harness.advance_to(now, &mut rng, &mut emit);
                Ok(())
            }
            Ok(Some(Command::Ack(copy))) => harness.ack(now, copy, &mut rng, &mut emit),
            Err(e) => return writeln!(out, "line {}: {e}", i + 1),
        };
        if let Err(e) = result {
            return writeln!(out, "line {}: {e}", i + 1);
        }
    }
    failed.map_or(Ok(()), Err)
}

const PAINT: u32 = 0x5EED_C0DE;

unsafe extern "C" {
    /// The end of the static data (cortex-m-rt's linker script): the stack grows down to it.
    static mut __sheap: u32;
    /// The top of the stack (cortex-m-rt's linker script).
    static _stack_start: u32;
}

/// Paints the free stack below the current stack pointer (less a margin for this function).
fn paint() {
    let bottom = core::ptr::addr_of_mut!(__sheap);
    let sp = cortex_m::register::msp::read() as usize - 256;
    let mut p = bottom;
    while (p as usize) < sp {
        // SAFETY: between the end of the static data and below the live stack: free memory.
        unsafe {
            p.write_volatile(PAINT);
            p = p.add(1);
        }
    }
}

/// Bytes of stack used since [`paint`]: from the top to the deepest overwritten word.
fn stack_used() -> usize {
    let bottom = core::ptr::addr_of_mut!(__sheap);
    let top = core::ptr::addr_of!(_stack_start) as usize;
    let mut p = bottom;
    // SAFETY: reads of the painted region, which is memory of this program.
    while (p as usize) < top && unsafe { p.read_volatile() } == PAINT {
        // SAFETY: stays below the top of the stack.
        p = unsafe { p.add(1) };
    }
    top - p as usize
}

#[entry]
fn main() -> ! {
    let Ok(host) = hio::hstdout() else {
        debug::exit(debug::EXIT_FAILURE);
        halt()
    };
    let mut out = Out { host, line: [0; 512], len: 0 };
    // Per algorithm (in the order of ALGORITHMS): the most stack configuring and replaying took.
    let mut stack = [(0usize, 0usize); 32];
    let mut ok = true;
    for v in VECTORS {
        ok &= writeln!(out, "== {}", v.name).is_ok();
        paint();
        let controller = configure(v);
        let configuring = stack_used();
        paint();
        ok &= match &controller {
            Ok(c) => replay(&mut out, v, c).is_ok(),
            Err(e) => {
                let _ = writeln!(out, "error: {e}");
                false
            }
        };
        let replaying = stack_used();
        if let Some(i) = ALGORITHMS.iter().position(|a| a.name == v.algorithm) {
            stack[i] = (stack[i].0.max(configuring), stack[i].1.max(replaying));
        }
    }
    for (a, (configuring, replaying)) in ALGORITHMS.iter().zip(stack) {
        if replaying > 0 {
            ok &= writeln!(out, "stack {} configure {configuring} replay {replaying}", a.name).is_ok();
        }
    }
    debug::exit(if ok { debug::EXIT_SUCCESS } else { debug::EXIT_FAILURE });
    halt()
}
