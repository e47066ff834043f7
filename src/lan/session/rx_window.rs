//! Receive-side sequence tracking for one stream (spec §1.6, §1.8): duplicates are
//! dropped, gaps are remembered and requested a bounded number of times, and tracked
//! packets are delivered exactly once, in order (or at once, for audio).

use std::collections::VecDeque;

use crate::wire::lan::Packet;

/// What the window knows about one sequence number at or after the next expected one.
#[derive(Debug)]
enum Slot {
    /// Not received yet; `requests` retransmit requests sent so far.
    Missing { requests: u8 },
    /// Received. `Some` while it waits for earlier packets (ordered delivery).
    Received(Option<Packet>),
    /// Given up after the last request; delivery skips it.
    Abandoned,
}

/// Counters kept by the window.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RxCounters {
    /// Tracked packets seen twice (or older than the window).
    pub duplicates: u64,
    /// Missing packets given up after the last retransmit request.
    pub abandoned: u64,
    /// Gaps larger than the window that reset the bookkeeping.
    pub resets: u64,
}

/// The receive window of one stream.
#[derive(Debug)]
pub struct RxWindow {
    ordered: bool,
    max_missing: u16,
    max_requests: u8,
    /// The next sequence number to deliver; `None` before the first tracked packet.
    expected: Option<u16>,
    /// `pending[i]` describes seq `expected + i`.
    pending: VecDeque<Slot>,
    counters: RxCounters,
}

/// Outcome of [`RxWindow::accept`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Accepted {
    /// A new packet (delivered now or held for order).
    New,
    /// A new packet that opened a gap: retransmit requests are due soon.
    NewWithGap,
    /// Seen before; dropped.
    Duplicate,
}

impl RxWindow {
    /// A window that delivers in order (`ordered`) or at once, tracks at most `max_missing`
    /// missing packets and requests each at most `max_requests` times.
    pub fn new(ordered: bool, max_missing: u16, max_requests: u8) -> RxWindow {
        RxWindow {
            ordered,
            max_missing,
            max_requests,
            expected: None,
            pending: VecDeque::new(),
            counters: RxCounters::default(),
        }
    }

    /// Counters so far.
    pub fn counters(&self) -> RxCounters {
        self.counters
    }

    /// The next sequence number to deliver, once a tracked packet was seen.
    pub fn expected_seq(&self) -> Option<u16> {
        self.expected
    }

    /// Forgets the sequence bookkeeping (the counters stay): the peer restarted its
    /// sequence, and its next tracked packet is taken as the first one.
    pub fn restart(&mut self) {
        self.expected = None;
        self.pending.clear();
    }

    /// True while some packet is missing.
    pub fn has_missing(&self) -> bool {
        self.pending
            .iter()
            .any(|s| matches!(s, Slot::Missing { .. }))
    }

    /// Takes tracked packet `seq` (`pkt` is `None` for an idle, which has nothing to deliver)
    /// and appends what can now be delivered, in order, to `out`.
    pub fn accept(&mut self, seq: u16, pkt: Option<Packet>, out: &mut Vec<Packet>) -> Accepted {
        let Some(expected) = self.expected else {
            self.expected = Some(seq.wrapping_add(1));
            out.extend(pkt);
            return Accepted::New;
        };
        let d = seq.wrapping_sub(expected);
        if d >= 0x8000 {
            self.counters.duplicates += 1;
            return Accepted::Duplicate;
        }
        if d == 0 {
            if let Some(Slot::Received(_)) = self.pending.front() {
                self.counters.duplicates += 1;
                return Accepted::Duplicate;
            }
            self.pending.pop_front();
            self.expected = Some(expected.wrapping_add(1));
            out.extend(pkt);
            self.advance(out);
            return Accepted::New;
        }
        if d > self.max_missing {
            self.counters.resets += 1;
            for slot in self.pending.drain(..) {
                if let Slot::Received(Some(p)) = slot {
                    out.push(p);
                }
            }
            self.expected = Some(seq.wrapping_add(1));
            out.extend(pkt);
            return Accepted::New;
        }
        let d = d as usize;
        // a gap opens when slots before `d` had to be created as missing
        let gap = d > self.pending.len();
        while self.pending.len() <= d {
            self.pending.push_back(Slot::Missing { requests: 0 });
        }
        match self.pending[d] {
            Slot::Received(_) => {
                self.counters.duplicates += 1;
                Accepted::Duplicate
            }
            Slot::Missing { .. } | Slot::Abandoned => {
                self.pending[d] = if self.ordered {
                    Slot::Received(pkt)
                } else {
                    out.extend(pkt);
                    Slot::Received(None)
                };
                if gap {
                    Accepted::NewWithGap
                } else {
                    Accepted::New
                }
            }
        }
    }

    /// One retransmit round: returns the seqs to request now. Seqs already requested
    /// `max_requests` times are abandoned; packets held behind them are delivered to `out`.
    pub fn due_requests(&mut self, out: &mut Vec<Packet>) -> Vec<u16> {
        let Some(expected) = self.expected else {
            return Vec::new();
        };
        let mut seqs = Vec::new();
        for (i, slot) in self.pending.iter_mut().enumerate() {
            if let Slot::Missing { requests } = slot {
                if *requests >= self.max_requests {
                    *slot = Slot::Abandoned;
                    self.counters.abandoned += 1;
                } else {
                    *requests += 1;
                    seqs.push(expected.wrapping_add(i as u16));
                }
            }
        }
        self.advance(out);
        seqs
    }

    /// Delivers received packets at the front of the window and skips abandoned ones.
    fn advance(&mut self, out: &mut Vec<Packet>) {
        while let Some(front) = self.pending.front() {
            if matches!(front, Slot::Missing { .. }) {
                break;
            }
            if let Some(Slot::Received(Some(p))) = self.pending.pop_front() {
                out.push(p);
            }
            self.expected = self.expected.map(|e| e.wrapping_add(1));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::lan::ControlRepr;

    fn pkt(seq: u16) -> Packet {
        Packet::Idle(ControlRepr {
            ptype: 0,
            seq,
            sent_id: 1,
            rcvd_id: 2,
        })
    }

    fn seqs(v: &[Packet]) -> Vec<u16> {
        v.iter().map(Packet::seq).collect()
    }

    #[test]
    fn in_order_and_duplicates() {
        let mut w = RxWindow::new(true, 50, 5);
        let mut out = Vec::new();
        for s in [5, 6, 6, 7, 5] {
            w.accept(s, Some(pkt(s)), &mut out);
        }
        assert_eq!(seqs(&out), vec![5, 6, 7]);
        assert_eq!(w.counters().duplicates, 2);
    }

    #[test]
    fn ordered_holds_until_gap_filled() {
        let mut w = RxWindow::new(true, 50, 5);
        let mut out = Vec::new();
        w.accept(1, Some(pkt(1)), &mut out);
        assert_eq!(w.accept(3, Some(pkt(3)), &mut out), Accepted::NewWithGap);
        assert_eq!(w.accept(4, Some(pkt(4)), &mut out), Accepted::New);
        assert_eq!(seqs(&out), vec![1]);
        assert!(w.has_missing());
        assert_eq!(w.due_requests(&mut out), vec![2]);
        w.accept(2, Some(pkt(2)), &mut out);
        assert_eq!(seqs(&out), vec![1, 2, 3, 4]);
        assert!(!w.has_missing());
    }

    #[test]
    fn immediate_mode_delivers_at_once_but_dedupes() {
        let mut w = RxWindow::new(false, 50, 5);
        let mut out = Vec::new();
        for s in [1, 3, 2, 3, 2] {
            w.accept(s, Some(pkt(s)), &mut out);
        }
        assert_eq!(seqs(&out), vec![1, 3, 2]);
    }

    #[test]
    fn abandoned_after_max_requests_releases_held() {
        let mut w = RxWindow::new(true, 50, 5);
        let mut out = Vec::new();
        w.accept(10, Some(pkt(10)), &mut out);
        w.accept(12, Some(pkt(12)), &mut out);
        for _ in 0..5 {
            assert_eq!(w.due_requests(&mut out), vec![11]);
        }
        assert_eq!(seqs(&out), vec![10]);
        assert!(w.due_requests(&mut out).is_empty());
        assert_eq!(seqs(&out), vec![10, 12]);
        assert_eq!(w.counters().abandoned, 1);
        // a late copy of 11 is now a duplicate
        assert_eq!(w.accept(11, Some(pkt(11)), &mut out), Accepted::Duplicate);
    }

    #[test]
    fn large_gap_resets() {
        let mut w = RxWindow::new(true, 50, 5);
        let mut out = Vec::new();
        w.accept(1, Some(pkt(1)), &mut out);
        w.accept(3, Some(pkt(3)), &mut out);
        w.accept(200, Some(pkt(200)), &mut out);
        assert_eq!(seqs(&out), vec![1, 3, 200]);
        assert!(!w.has_missing());
        assert_eq!(w.counters().resets, 1);
        w.accept(201, Some(pkt(201)), &mut out);
        assert_eq!(seqs(&out), vec![1, 3, 200, 201]);
    }

    #[test]
    fn wraps_around() {
        let mut w = RxWindow::new(true, 50, 5);
        let mut out = Vec::new();
        for s in [0xFFFE, 0xFFFF, 0, 1] {
            w.accept(s, Some(pkt(s)), &mut out);
        }
        assert_eq!(seqs(&out), vec![0xFFFE, 0xFFFF, 0, 1]);
        w.accept(3, Some(pkt(3)), &mut out);
        assert_eq!(w.due_requests(&mut out), vec![2]);
    }
}
