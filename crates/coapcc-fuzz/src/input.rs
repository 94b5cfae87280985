//! Reading structured choices from fuzz input bytes, without ever failing: past the end,
//! every read gives zero.

/// The unread rest of a fuzz input.
pub(crate) struct Input<'a> {
    bytes: &'a [u8],
}

impl<'a> Input<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Input { bytes }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    pub(crate) fn byte(&mut self) -> u8 {
        let (first, rest) = self.bytes.split_first().map_or((0, &[][..]), |(b, r)| (*b, r));
        self.bytes = rest;
        first
    }

    pub(crate) fn u16(&mut self) -> u16 {
        u16::from_be_bytes([self.byte(), self.byte()])
    }

    /// Up to `n` bytes (fewer at the end of the input).
    pub(crate) fn take(&mut self, n: usize) -> &'a [u8] {
        let (taken, rest) = self.bytes.split_at(n.min(self.bytes.len()));
        self.bytes = rest;
        taken
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_past_the_end_give_zeros_and_short_takes() {
        let mut i = Input::new(&[1, 2, 3]);
        assert_eq!(i.byte(), 1);
        assert_eq!(i.u16(), 0x0203);
        assert!(i.is_empty());
        assert_eq!(i.byte(), 0);
        assert_eq!(i.take(5), &[] as &[u8]);
        let mut j = Input::new(&[9, 8, 7]);
        assert_eq!(j.take(2), &[9, 8]);
        assert_eq!(j.take(2), &[7]);
    }
}
