//! Helpers shared by the stateful fuzz targets (scope assembler, state application,
//! LAN sessions, simulator, command table): a byte reader that turns the fuzz input
//! into a script of operations, the embedded profiles, and checks on CI-V frames and
//! LAN datagrams that several targets assert. The fuzzer's side of a LAN session is
//! [`crate::peer`].

use std::sync::{Arc, OnceLock};

use rigweb::profile::{Profile, ProfileRegistry};
use rigweb::wire::civ::{self, Frame, MAX_FRAME_LEN, PREAMBLE, TERMINATOR};
use rigweb::wire::lan::{HEADER_LEN, Origin, Packet, Port};

/// Largest UDP payload over IPv4.
pub const MAX_UDP_PAYLOAD: usize = 65_507;

/// Reads the fuzz input front to back; every read past the end returns zeros, so a
/// script simply ends with "nothing happens" operations (callers stop on [`Bytes::is_empty`]).
pub struct Bytes<'a> {
    data: &'a [u8],
}

impl<'a> Bytes<'a> {
    /// A reader over `data`.
    pub fn new(data: &'a [u8]) -> Bytes<'a> {
        Bytes { data }
    }

    /// True once every byte was read.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// Bytes left.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// One byte (0 when exhausted).
    pub fn u8(&mut self) -> u8 {
        match self.data.split_first() {
            Some((&b, rest)) => {
                self.data = rest;
                b
            }
            None => 0,
        }
    }

    /// A little-endian u16.
    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }

    /// A little-endian u32.
    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }

    /// A little-endian u64.
    pub fn u64(&mut self) -> u64 {
        u64::from(self.u32()) | (u64::from(self.u32()) << 32)
    }

    /// A boolean (bit 0 of one byte).
    pub fn bool(&mut self) -> bool {
        self.u8() & 1 == 1
    }

    /// Up to `n` bytes (fewer when the input ends).
    pub fn take(&mut self, n: usize) -> &'a [u8] {
        let n = n.min(self.data.len());
        let (a, b) = self.data.split_at(n);
        self.data = b;
        a
    }

    /// A length byte then that many bytes (at most `max`).
    pub fn chunk(&mut self, max: usize) -> &'a [u8] {
        let n = usize::from(self.u8()).min(max);
        self.take(n)
    }

    /// A little-endian u16 length then that many bytes (at most `max`).
    pub fn long_chunk(&mut self, max: usize) -> &'a [u8] {
        let n = usize::from(self.u16()).min(max);
        self.take(n)
    }

    /// One of `items`, by the next byte.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[usize::from(self.u8()) % items.len()]
    }
}

/// The embedded profiles, parsed once.
pub fn profiles() -> &'static [Arc<Profile>] {
    static P: OnceLock<Vec<Arc<Profile>>> = OnceLock::new();
    P.get_or_init(|| {
        let reg = ProfileRegistry::embedded();
        reg.ids()
            .iter()
            .map(|id| reg.get(id).expect("embedded profile"))
            .collect()
    })
}

/// A frequency as 5 bytes of BCD; values above the 10-digit limit are reduced into it.
pub fn freq_bcd(hz: u64) -> [u8; 5] {
    civ::freq_to_bcd(hz % (civ::MAX_FREQ_HZ + 1)).expect("in range")
}

/// A number 0..=99 as one BCD byte (reduced modulo 100).
pub fn bcd1(v: u8) -> u8 {
    civ::bcd_byte(v % 100).expect("in range")
}

/// Every frequency the 5-byte windows of `data` decode to (what a frame may write).
pub fn bcd_freq_candidates(data: &[u8]) -> Vec<u64> {
    data.windows(5)
        .filter_map(|w| civ::bcd_to_freq(w).ok())
        .collect()
}

/// A well-formed CI-V frame: no terminator inside, no leading padding byte, fits
/// `MAX_FRAME_LEN`, and (unless it is addressed from `FE`, which re-parses as padding)
/// survives emit/parse.
pub fn check_civ_frame(what: &str, f: &Frame) {
    assert!(
        f.to != TERMINATOR
            && f.from != TERMINATOR
            && f.cmd != TERMINATOR
            && !f.data.contains(&TERMINATOR),
        "{what}: frame holds FD: {f:02X?}"
    );
    let bytes = f.emit();
    assert!(
        bytes.len() <= MAX_FRAME_LEN,
        "{what}: frame of {} bytes is longer than MAX_FRAME_LEN",
        bytes.len()
    );
    if f.to != PREAMBLE {
        assert_eq!(
            Frame::parse(&bytes).as_ref(),
            Ok(f),
            "{what}: frame does not survive emit/parse"
        );
    }
}

/// A datagram a session sends: fits UDP, parses on its port as coming from `origin`,
/// and carries `my_ids` as its sender id. Returns the parsed packet.
pub fn check_datagram(what: &str, d: &[u8], port: Port, origin: Origin, my_ids: &[u32]) -> Packet {
    assert!(
        d.len() <= MAX_UDP_PAYLOAD,
        "{what}: datagram of {} bytes does not fit UDP",
        d.len()
    );
    assert!(
        d.len() >= HEADER_LEN,
        "{what}: datagram shorter than the header"
    );
    let p = match Packet::parse(d, port, origin) {
        Ok(p) => p,
        Err(e) => panic!(
            "{what}: sent a datagram that does not parse on {port:?}: {e} ({} bytes: {:02X?})",
            d.len(),
            &d[..d.len().min(64)]
        ),
    };
    let sent_id = u32::from_le_bytes([d[8], d[9], d[10], d[11]]);
    assert!(
        my_ids.contains(&sent_id),
        "{what}: datagram sent with id {sent_id:08X}, not one of ours {my_ids:08X?}"
    );
    p
}
