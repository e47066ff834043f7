//! Spectrum sweep assembly from CI-V `27 00` frames (spec §5.2, §5.3): one frame per
//! sweep over LAN (`seq = seqmax = 1`), or a header frame plus pixel frames over USB
//! (`seqmax` 11 or 15). Independent state per receiver; partial sweeps older than 5 s
//! are dropped; out-of-range sweeps carry no pixels.

use std::time::{Duration, Instant};

use crate::wire::civ::{Frame, Receiver, bcd_to_freq, cmd, from_bcd_byte};
use crate::wire::{Result, WireError};

/// Longest sweep accepted, in pixels.
pub const MAX_PIXELS: usize = 4096;

/// One assembled sweep, amplitudes on the radio's scale.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScopeSweep {
    /// The receiver swept.
    pub receiver: Receiver,
    /// 0 center, 1 fixed, 2 scroll-C, 3 scroll-F.
    pub mode: u8,
    /// Lower edge, Hz.
    pub start_hz: u64,
    /// Upper edge, Hz.
    pub end_hz: u64,
    /// The radio said "out of range"; `pixels` is empty.
    pub out_of_range: bool,
    /// Amplitudes, 0..=amp_max of the radio.
    pub pixels: Vec<u8>,
}

impl ScopeSweep {
    /// What the sweep says about the scope's edges.
    pub fn edges(&self) -> SweepEdges {
        SweepEdges {
            receiver: self.receiver,
            mode: self.mode,
            start_hz: self.start_hz,
            end_hz: self.end_hz,
            out_of_range: self.out_of_range,
        }
    }
}

/// The edges a sweep shows: the state's scope shows those of the last sweep of the
/// receiver it shows (fed to the engine, the state's one writer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SweepEdges {
    /// The receiver swept.
    pub receiver: Receiver,
    /// 0 center, 1 fixed, 2 scroll-C, 3 scroll-F.
    pub mode: u8,
    /// Lower edge, Hz.
    pub start_hz: u64,
    /// Upper edge, Hz.
    pub end_hz: u64,
    /// The radio said "out of range".
    pub out_of_range: bool,
}

#[derive(Debug)]
struct Partial {
    started: Instant,
    seq_max: u8,
    next_seq: u8,
    sweep: ScopeSweep,
}

/// Assembles sweeps for both receivers.
#[derive(Debug)]
pub struct ScopeAssembler {
    parts: [Option<Partial>; 2],
    max_age: Duration,
    errors: u64,
}

impl Default for ScopeAssembler {
    fn default() -> Self {
        ScopeAssembler {
            parts: [None, None],
            max_age: Duration::from_secs(5),
            errors: 0,
        }
    }
}

impl ScopeAssembler {
    /// Frames rejected so far.
    pub fn errors(&self) -> u64 {
        self.errors
    }

    /// Takes one `27 00` frame; returns a sweep when one is complete. Malformed frames
    /// are counted, drop the partial sweep of their receiver and return an error.
    pub fn push(&mut self, frame: &Frame, now: Instant) -> Result<Option<ScopeSweep>> {
        let r = self.push_inner(frame, now);
        if r.is_err() {
            self.errors += 1;
        }
        r
    }

    fn push_inner(&mut self, frame: &Frame, now: Instant) -> Result<Option<ScopeSweep>> {
        let d = &frame.data;
        if frame.cmd != cmd::SCOPE || d.first() != Some(&cmd::scope::WAVE) {
            return Err(WireError::BadValue("not a scope wave frame"));
        }
        if d.len() < 4 {
            return Err(WireError::Truncated {
                needed: 4,
                got: d.len(),
            });
        }
        let Some(rx) = Receiver::from_code(d[1]) else {
            return Err(WireError::BadValue("scope receiver"));
        };
        let slot = rx.index();
        let (seq, seq_max) = (from_bcd_byte(d[2])?, from_bcd_byte(d[3])?);
        if seq == 0 || seq_max == 0 || seq > seq_max {
            self.parts[slot] = None;
            return Err(WireError::BadValue("scope seq / seqmax"));
        }
        let body = &d[4..];
        if self.parts[slot]
            .as_ref()
            .is_some_and(|p| now.saturating_duration_since(p.started) > self.max_age)
        {
            self.parts[slot] = None;
        }
        if seq == 1 {
            self.parts[slot] = None;
            if body.len() < 12 {
                return Err(WireError::Truncated {
                    needed: 16,
                    got: d.len(),
                });
            }
            let mode = body[0];
            if mode > 3 {
                return Err(WireError::BadValue("scope mode"));
            }
            let f1 = bcd_to_freq(&body[1..6])?;
            let f2 = bcd_to_freq(&body[6..11])?;
            let out_of_range = match body[11] {
                0 => false,
                1 => true,
                _ => return Err(WireError::BadValue("scope out-of-range flag")),
            };
            let (start_hz, end_hz) = if mode == 0 {
                (f1.saturating_sub(f2), f1.saturating_add(f2))
            } else {
                (f1, f2)
            };
            let mut sweep = ScopeSweep {
                receiver: rx,
                mode,
                start_hz,
                end_hz,
                out_of_range,
                pixels: Vec::new(),
            };
            if out_of_range {
                return Ok(Some(sweep));
            }
            let pixels = &body[12..];
            if pixels.len() > MAX_PIXELS {
                return Err(WireError::BadValue("too many scope pixels"));
            }
            if seq == seq_max {
                sweep.pixels = pixels.to_vec();
                return Ok(Some(sweep));
            }
            sweep.pixels.extend_from_slice(pixels);
            self.parts[slot] = Some(Partial {
                started: now,
                seq_max,
                next_seq: 2,
                sweep,
            });
            return Ok(None);
        }
        let Some(mut p) = self.parts[slot].take() else {
            return Err(WireError::BadValue("scope frame without its header frame"));
        };
        if seq != p.next_seq || seq_max != p.seq_max {
            return Err(WireError::BadValue("scope frame out of order"));
        }
        if p.sweep.pixels.len() + body.len() > MAX_PIXELS {
            return Err(WireError::BadValue("too many scope pixels"));
        }
        p.sweep.pixels.extend_from_slice(body);
        if seq == seq_max {
            return Ok(Some(p.sweep));
        }
        p.next_seq += 1;
        self.parts[slot] = Some(p);
        Ok(None)
    }
}

/// Rescales radio amplitudes (0..=`amp_max`) to the web scale 0..=160.
pub fn to_web_scale(pixels: &[u8], amp_max: u8) -> Vec<u8> {
    if amp_max == 160 || amp_max == 0 {
        return pixels.iter().map(|&p| p.min(160)).collect();
    }
    let max = u32::from(amp_max);
    pixels
        .iter()
        .map(|&p| ((u32::from(p.min(amp_max)) * 160 + max / 2) / max) as u8)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::civ::freq_to_bcd;

    fn header(rx: u8, seq: u8, max: u8, mode: u8, f1: u64, f2: u64, oor: u8) -> Vec<u8> {
        let mut d = vec![0x00, rx, seq, max, mode];
        d.extend(freq_to_bcd(f1).unwrap());
        d.extend(freq_to_bcd(f2).unwrap());
        d.push(oor);
        d
    }

    fn frame(data: Vec<u8>) -> Frame {
        Frame::new(0xE0, 0x98, 0x27, &data)
    }

    #[test]
    fn lan_single_frame_center_mode() {
        let mut a = ScopeAssembler::default();
        let mut d = header(0, 0x01, 0x01, 0, 14_074_000, 25_000, 0);
        d.extend(vec![7u8; 689]);
        let f = frame(d);
        // the full CI-V frame of a 689-pixel LAN sweep is 22 + 689 bytes
        assert_eq!(f.emit().len(), 711);
        let s = a.push(&f, Instant::now()).unwrap().unwrap();
        assert_eq!(
            (s.start_hz, s.end_hz, s.pixels.len()),
            (14_049_000, 14_099_000, 689)
        );
    }

    #[test]
    fn usb_multi_frame_fixed_mode() {
        let mut a = ScopeAssembler::default();
        let t = Instant::now();
        assert!(
            a.push(&frame(header(1, 0x01, 0x11, 1, 7_000_000, 7_300_000, 0)), t)
                .unwrap()
                .is_none()
        );
        for seq in 2..11u8 {
            let mut d = vec![0x00, 1, crate::wire::civ::bcd_byte(seq).unwrap(), 0x11];
            d.extend(vec![seq; 50]);
            assert!(a.push(&frame(d), t).unwrap().is_none());
        }
        let mut d = vec![0x00, 1, 0x11, 0x11];
        d.extend(vec![99u8; 25]);
        let s = a.push(&frame(d), t).unwrap().unwrap();
        assert_eq!(s.pixels.len(), 475);
        assert_eq!(
            (s.receiver, s.mode, s.start_hz, s.end_hz),
            (Receiver::Sub, 1, 7_000_000, 7_300_000)
        );
    }

    #[test]
    fn out_of_range_has_no_pixels() {
        let mut a = ScopeAssembler::default();
        let s = a
            .push(&frame(header(0, 1, 1, 0, 1, 1, 1)), Instant::now())
            .unwrap()
            .unwrap();
        assert!(s.out_of_range && s.pixels.is_empty());
    }

    #[test]
    fn bad_frames_are_errors_not_panics() {
        let mut a = ScopeAssembler::default();
        let t = Instant::now();
        assert!(
            a.push(&frame(vec![0x00, 0, 0x02, 0x11, 1, 2, 3]), t)
                .is_err(),
            "no header"
        );
        assert!(
            a.push(&frame(vec![0x00, 0, 0x1A, 0x11]), t).is_err(),
            "bcd nibble"
        );
        assert!(a.push(&frame(vec![0x00, 2, 1, 1]), t).is_err(), "receiver");
        assert!(
            a.push(&frame(vec![0x00, 0, 1, 1, 0]), t).is_err(),
            "truncated header"
        );
        assert!(
            a.push(&frame(header(0, 1, 1, 9, 1, 1, 0)), t).is_err(),
            "mode"
        );
        assert_eq!(a.errors(), 5);
    }

    #[test]
    fn stale_partials_are_dropped() {
        let mut a = ScopeAssembler::default();
        let t = Instant::now();
        a.push(&frame(header(0, 1, 0x11, 0, 14_000_000, 5_000, 0)), t)
            .unwrap();
        let mut d = vec![0x00, 0, 0x02, 0x11];
        d.extend([1u8; 50]);
        assert!(a.push(&frame(d), t + Duration::from_secs(6)).is_err());
    }

    #[test]
    fn web_scale() {
        assert_eq!(
            to_web_scale(&[0, 100, 200, 255], 200),
            vec![0, 80, 160, 160]
        );
        assert_eq!(to_web_scale(&[0, 160, 170], 160), vec![0, 160, 160]);
    }
}
