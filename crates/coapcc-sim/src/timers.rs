//! [`TimerHeap`]: one re-armable timer per slot (a client's wake-up), kept in an indexed
//! binary min-heap so that re-arming moves the entry instead of leaving a stale one behind.
//!
//! A re-armed timer in a plain priority queue leaves its old entry to be popped and skipped
//! later; in a congested run the queue then holds several dead entries per client and every
//! operation walks a deeper, colder heap. Here each slot is in the heap at most once, so the
//! heap never holds more entries than there are slots. Heap nodes are 16 bytes (the instant
//! and the slot); the full key, with its sequence number, is looked up only to break a tie.

/// A heap node: the timer's instant (the key's upper half) and its slot.
#[derive(Clone, Copy, Debug)]
struct Node {
    at: u64,
    slot: u32,
}

/// Indexed min-heap of `(key, slot)`; keys are unique (the simulator's keys end in the event
/// sequence number) and ordered as `u128`, with the instant in the upper 64 bits.
#[derive(Clone, Debug, Default)]
pub struct TimerHeap {
    heap: Vec<Node>,
    /// Per slot: its full key and its position in `heap` ([`ABSENT`] when disarmed).
    slots: Vec<(u128, u32)>,
}

const ABSENT: u32 = u32::MAX;

impl TimerHeap {
    /// An empty heap for slots `0..slots`.
    pub fn new(slots: usize) -> Self {
        TimerHeap { heap: Vec::with_capacity(slots), slots: vec![(0, ABSENT); slots] }
    }

    /// Arms (or re-arms) `slot` to fire at `key`. Slots beyond those given to
    /// [`TimerHeap::new`] are added.
    pub fn set(&mut self, slot: u32, key: u128) {
        let s = slot as usize;
        if s >= self.slots.len() {
            self.slots.resize(s + 1, (0, ABSENT));
        }
        let node = Node { at: (key >> 64) as u64, slot };
        let (old, pos) = self.slots[s];
        self.slots[s].0 = key;
        match pos {
            ABSENT => {
                self.heap.push(node);
                self.sift_up(self.heap.len() - 1, node);
            }
            p if key < old => self.sift_up(p as usize, node),
            p => self.sift_down(p as usize, node),
        }
    }

    /// Disarms `slot` (nothing happens if it is not armed).
    pub fn clear(&mut self, slot: u32) {
        match self.slots.get(slot as usize) {
            Some(&(_, p)) if p != ABSENT => self.remove_at(p as usize),
            _ => {}
        }
    }

    /// The earliest timer.
    pub fn peek(&self) -> Option<(u128, u32)> {
        self.heap.first().map(|n| (self.slots[n.slot as usize].0, n.slot))
    }

    /// Disarms `slot` if it is still armed at `key` (a timer that fired and was neither
    /// re-armed nor disarmed while it was handled).
    pub fn clear_if_at(&mut self, slot: u32, key: u128) {
        match self.slots.get(slot as usize) {
            Some(&(k, p)) if p != ABSENT && k == key => self.remove_at(p as usize),
            _ => {}
        }
    }

    /// Removes and returns the earliest timer.
    #[cfg(test)]
    pub fn pop(&mut self) -> Option<(u128, u32)> {
        let top = self.peek()?;
        self.remove_at(0);
        Some(top)
    }

    /// Armed timers.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether no timer is armed.
    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Whether `a` fires before `b`: by instant, then (rarely needed) by full key.
    #[inline]
    fn before(&self, a: Node, b: Node) -> bool {
        a.at < b.at || (a.at == b.at && self.slots[a.slot as usize].0 < self.slots[b.slot as usize].0)
    }

    fn remove_at(&mut self, i: usize) {
        let gone = self.heap[i].slot;
        self.slots[gone as usize].1 = ABSENT;
        let Some(last) = self.heap.pop() else { return };
        if i >= self.heap.len() {
            return;
        }
        if i == 0 {
            // The last node is usually among the latest: walk the hole down to a leaf along the
            // earlier children (one comparison per level), then sift the last node up from there.
            let mut hole = 0;
            while let Some(c) = self.earlier_child(hole) {
                self.place(hole, self.heap[c]);
                hole = c;
            }
            self.sift_up(hole, last);
        } else if self.before(last, self.heap[(i - 1) / 2]) {
            // The last node fills the gap and sifts whichever way it must.
            self.sift_up(i, last);
        } else {
            self.sift_down(i, last);
        }
    }

    // Both sifts move a hole from `i` instead of swapping: each step copies one node and records
    // its new position; `node` is written once, where the hole stops.
    fn sift_up(&mut self, mut i: usize, node: Node) {
        while i > 0 {
            let parent = (i - 1) / 2;
            let p = self.heap[parent];
            if !self.before(node, p) {
                break;
            }
            self.place(i, p);
            i = parent;
        }
        self.place(i, node);
    }

    fn sift_down(&mut self, mut i: usize, node: Node) {
        while let Some(c) = self.earlier_child(i) {
            let child = self.heap[c];
            if !self.before(child, node) {
                break;
            }
            self.place(i, child);
            i = c;
        }
        self.place(i, node);
    }

    /// The earlier of the children of `i`, if it has any. Chosen without a branch: a
    /// mispredicted branch per level would be most of a sift's cost.
    #[inline]
    fn earlier_child(&self, i: usize) -> Option<usize> {
        let n = self.heap.len();
        let l = 2 * i + 1;
        if l >= n {
            return None;
        }
        let r = l + 1;
        Some(l + usize::from(r < n && self.before(self.heap[r], self.heap[l])))
    }

    fn place(&mut self, i: usize, node: Node) {
        self.heap[i] = node;
        self.slots[node.slot as usize].1 = i as u32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn re_arming_a_slot_moves_its_timer_instead_of_adding_one() {
        let mut t = TimerHeap::new(3);
        t.set(0, 50);
        t.set(1, 20);
        t.set(0, 10);
        assert_eq!(t.len(), 2);
        assert_eq!(t.pop(), Some((10, 0)));
        assert_eq!(t.pop(), Some((20, 1)));
        assert_eq!(t.pop(), None);
    }

    #[test]
    fn a_cleared_slot_never_fires() {
        let mut t = TimerHeap::new(2);
        t.set(0, 5);
        t.set(1, 7);
        t.clear(0);
        t.clear(0);
        assert_eq!(t.pop(), Some((7, 1)));
        assert!(t.is_empty());
    }

    #[test]
    fn a_fired_timer_left_in_place_is_moved_by_a_re_arm_and_removed_otherwise() {
        let mut t = TimerHeap::new(3);
        t.set(0, 10);
        t.set(1, 20);
        t.set(2, 30);
        // Slot 0 fires and is re-armed while still at the top: it moves behind slot 1.
        t.set(0, 25);
        t.clear_if_at(0, 10);
        assert_eq!(t.pop(), Some((20, 1)));
        // Slot 0 fires again and is not re-armed: it goes.
        assert_eq!(t.peek(), Some((25, 0)));
        t.clear_if_at(0, 25);
        assert_eq!(t.pop(), Some((30, 2)));
        assert!(t.is_empty());
    }

    proptest! {
        /// Against a brute-force model: after any sequence of sets and clears, timers pop in key
        /// order, each armed slot exactly once with its latest key.
        #[test]
        fn pops_match_a_brute_force_model(ops in proptest::collection::vec((0u32..64, proptest::option::of(0u64..1000)), 0..400)) {
            let mut heap = TimerHeap::new(4);
            let mut model: std::collections::BTreeMap<u32, u128> = Default::default();
            for (seq, (slot, at)) in ops.into_iter().enumerate() {
                match at {
                    // Keys are unique, as in the simulator: (time, sequence number).
                    Some(t) => {
                        let key = (u128::from(t) << 64) | seq as u128;
                        heap.set(slot, key);
                        model.insert(slot, key);
                    }
                    None => {
                        heap.clear(slot);
                        model.remove(&slot);
                    }
                }
                prop_assert_eq!(heap.len(), model.len());
            }
            let mut expected: Vec<(u128, u32)> = model.into_iter().map(|(s, k)| (k, s)).collect();
            expected.sort();
            let mut got = Vec::new();
            while let Some(x) = heap.pop() {
                got.push(x);
            }
            prop_assert_eq!(got, expected);
        }
    }
}
