//! Pacing mechanisms shared by the rate-based controllers (MBC, BDP; spec §8): a fixed
//! window of the latest samples and division of a spacing by a pacing gain.

use core::time::Duration;

use crate::ratio::Ratio;

/// The largest measurement window this implementation stores (the ring is a fixed array).
pub const MAX_WINDOW: usize = 16;
/// A fixed-capacity window of the latest values: pushing beyond the capacity overwrites the
/// oldest. No allocation; the capacity in use is passed to each call (at most
/// [`MAX_WINDOW`]). Order inside does not matter to its users (min, max, counts).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window<T> {
    /// The stored values; only the first `len` are meaningful.
    pub slots: [T; MAX_WINDOW],
    /// How many slots hold values.
    pub len: u8,
    /// The slot the next push writes.
    pub next: u8,
}

impl<T: Copy + Default> Default for Window<T> {
    fn default() -> Self {
        Window { slots: [T::default(); MAX_WINDOW], len: 0, next: 0 }
    }
}

impl<T: Copy + Default> Window<T> {
    fn capacity(capacity: u8) -> usize {
        usize::from(capacity).clamp(1, MAX_WINDOW)
    }

    /// Adds `value`, dropping the oldest value beyond `capacity`.
    pub fn push(&mut self, value: T, capacity: u8) {
        let cap = Self::capacity(capacity);
        let i = usize::from(self.next) % cap;
        if let Some(slot) = self.slots.get_mut(i) {
            *slot = value;
        }
        self.next = ((i + 1) % cap) as u8;
        self.len = (usize::from(self.len) + 1).min(cap) as u8;
    }

    /// The most recently pushed value.
    pub fn newest_mut(&mut self, capacity: u8) -> Option<&mut T> {
        let cap = Self::capacity(capacity);
        if self.len == 0 {
            return None;
        }
        let i = (usize::from(self.next) + cap - 1) % cap;
        self.slots.get_mut(i)
    }

    /// The stored values, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.slots.iter().take(usize::from(self.len))
    }

    /// How many values are stored.
    pub fn len(&self) -> usize {
        usize::from(self.len).min(MAX_WINDOW)
    }

    /// Whether no value is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// `d / gain` for a non-zero gain, exact to the nanosecond (rounded half up), saturating.
pub fn div_gain(d: Duration, gain: Ratio) -> Duration {
    Ratio::new(gain.denom(), gain.numer()).mul_duration(d)
}
