//! Values kept in memory the caller provides: a tag word, then the value. The tag says which
//! kind of object the memory holds once an `*_init`/`*_preset`/`*_build`/`*_start` call has
//! written it, so that a null, misaligned, never-initialised (zeroed or random) or
//! wrong-kind pointer gives an error code instead of a read of garbage as a Rust value.

use core::mem::{MaybeUninit, align_of, size_of};

/// The tag of each kind of object ("coapcc" in ASCII, then the kind).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u64)]
pub enum Tag {
    /// A configuration.
    Config = 0x6363_7061_6f63_0001,
    /// A built algorithm.
    Algorithm = 0x6363_7061_6f63_0002,
    /// A destination's state.
    State = 0x6363_7061_6f63_0003,
    /// An exchange still in flight.
    Exchange = 0x6363_7061_6f63_0004,
    /// An exchange acknowledged or given up.
    Finished = 0x6363_7061_6f63_0005,
}

/// A tagged value as laid out in the caller's memory.
#[repr(C)]
pub struct Slot<T> {
    tag: u64,
    value: MaybeUninit<T>,
}

/// Why memory does not hold the object asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlotError {
    /// A null pointer.
    Null,
    /// Not aligned for the object.
    Misaligned,
    /// Not (or no longer) an object of this kind.
    Uninitialised,
}

/// Whether `Slot<T>` fits `bytes` bytes of memory aligned to 8.
pub const fn fits<T>(bytes: usize) -> bool {
    size_of::<Slot<T>>() <= bytes && align_of::<Slot<T>>() <= 8
}

fn check<T>(p: *const Slot<T>) -> Result<(), SlotError> {
    if p.is_null() {
        Err(SlotError::Null)
    } else if (p as usize) % align_of::<Slot<T>>() != 0 {
        Err(SlotError::Misaligned)
    } else {
        Ok(())
    }
}

/// Writes `value` with `tag` into the memory at `p`.
///
/// # Safety
/// `p` is null or points to writable memory of `size_of::<Slot<T>>()` bytes.
pub unsafe fn put<T>(p: *mut Slot<T>, tag: Tag, value: T) -> Result<(), SlotError> {
    check(p)?;
    // SAFETY: checked non-null and aligned; the caller provides the bytes. The fields are
    // written through raw pointers, so no reference to uninitialised memory is made.
    unsafe {
        core::ptr::addr_of_mut!((*p).value).write(MaybeUninit::new(value));
        core::ptr::addr_of_mut!((*p).tag).write(tag as u64);
    }
    Ok(())
}

/// Marks the object at `p` (of kind `from`) as of kind `to`.
///
/// # Safety
/// As [`get_mut`].
pub unsafe fn retag<T>(p: *mut Slot<T>, from: Tag, to: Tag) -> Result<(), SlotError> {
    // SAFETY: forwarded.
    unsafe { get_mut(p, from)? };
    // SAFETY: `get_mut` checked the pointer.
    unsafe { core::ptr::addr_of_mut!((*p).tag).write(to as u64) };
    Ok(())
}

/// The value at `p` when it holds an object of kind `tag`.
///
/// # Safety
/// `p` is null or points to readable memory of `size_of::<Slot<T>>()` bytes that no one
/// writes meanwhile, and whose tag, when it equals `tag`, was written by [`put`] with a `T`.
pub unsafe fn get<'a, T>(p: *const Slot<T>, tag: Tag) -> Result<&'a T, SlotError> {
    check(p)?;
    // SAFETY: checked non-null and aligned; the tag is a plain integer.
    let found = unsafe { core::ptr::addr_of!((*p).tag).read() };
    if found != tag as u64 {
        return Err(SlotError::Uninitialised);
    }
    // SAFETY: the tag says `put` wrote a `T` here.
    Ok(unsafe { (*p).value.assume_init_ref() })
}

/// The value at `p` when it holds an object of kind `tag`, for changing it.
///
/// # Safety
/// As [`get`], and no other reference to the object is alive.
pub unsafe fn get_mut<'a, T>(p: *mut Slot<T>, tag: Tag) -> Result<&'a mut T, SlotError> {
    check(p)?;
    // SAFETY: checked non-null and aligned; the tag is a plain integer.
    let found = unsafe { core::ptr::addr_of!((*p).tag).read() };
    if found != tag as u64 {
        return Err(SlotError::Uninitialised);
    }
    // SAFETY: the tag says `put` wrote a `T` here; the caller guarantees exclusivity.
    Ok(unsafe { (*p).value.assume_init_mut() })
}
