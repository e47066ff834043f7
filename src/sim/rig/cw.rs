//! Sending CW (`17 <ascii…>`, `17 FF` stops): the radio keys its CW transmitter at the
//! key speed (`14 0C`, `round(raw/6.071 + 6)` WPM) for as long as the message lasts,
//! with PARIS timing (dot 1.2 s / WPM, dash 3 dots, 1 dot between elements, 3 between
//! characters, 7 between words), as if break-in were on. Only in CW / CW-R, and only
//! where the radio can transmit (else `FA`). A message sent while one is being sent is
//! queued behind it.
//!
//! While it sends, `1C 00` reads 01, the TX meters follow the keying, the scope shows the
//! carrier at the TX frequency while the key is down, and the RX audio (muted while
//! transmitting) carries the sidetone at the CW pitch.

use std::time::Duration;

use super::SimRig;
use super::codec::Reply;
use super::state::CwKeying;
use crate::sim::audio_synth::mode;
use crate::wire::civ::cmd;

/// Most characters in one `17` command.
pub(super) const MAX_MESSAGE: usize = 30;
/// Most characters in one transmission (messages queued behind each other).
const MAX_QUEUED: usize = 4 * MAX_MESSAGE;

/// The Morse code of a character (`.` dot, `-` dash), for the characters the radio
/// sends: letters (either case), digits and `/ ? . , - = + @ :`.
fn morse(c: u8) -> Option<&'static str> {
    Some(match c.to_ascii_uppercase() {
        b'A' => ".-",
        b'B' => "-...",
        b'C' => "-.-.",
        b'D' => "-..",
        b'E' => ".",
        b'F' => "..-.",
        b'G' => "--.",
        b'H' => "....",
        b'I' => "..",
        b'J' => ".---",
        b'K' => "-.-",
        b'L' => ".-..",
        b'M' => "--",
        b'N' => "-.",
        b'O' => "---",
        b'P' => ".--.",
        b'Q' => "--.-",
        b'R' => ".-.",
        b'S' => "...",
        b'T' => "-",
        b'U' => "..-",
        b'V' => "...-",
        b'W' => ".--",
        b'X' => "-..-",
        b'Y' => "-.--",
        b'Z' => "--..",
        b'0' => "-----",
        b'1' => ".----",
        b'2' => "..---",
        b'3' => "...--",
        b'4' => "....-",
        b'5' => ".....",
        b'6' => "-....",
        b'7' => "--...",
        b'8' => "---..",
        b'9' => "----.",
        b'/' => "-..-.",
        b'?' => "..--..",
        b'.' => ".-.-.-",
        b',' => "--..--",
        b'-' => "-....-",
        b'=' => "-...-",
        b'+' => ".-.-.",
        b'@' => ".--.-.",
        b':' => "---...",
        _ => return None,
    })
}

/// Key-down intervals of `text` in dot units from 0 (`None` if a character has no
/// Morse code). Spaces make word gaps; the list is empty for a text of spaces.
pub(super) fn keying_units(text: &[u8]) -> Option<Vec<(u32, u32)>> {
    let mut out = Vec::new();
    let mut t = 0u32;
    let mut gap = 0u32; // the gap owed before the next element
    for &c in text {
        if c == b' ' {
            gap = if out.is_empty() { 0 } else { 7 };
            continue;
        }
        let code = morse(c)?;
        t += gap;
        for (i, e) in code.bytes().enumerate() {
            if i > 0 {
                t += 1;
            }
            let len = if e == b'-' { 3 } else { 1 };
            out.push((t, t + len));
            t += len;
        }
        gap = 3;
    }
    Some(out)
}

impl SimRig {
    /// `17 <ascii…>` sends CW, `17 FF` stops it.
    pub(super) fn cmd_send_cw(&mut self, data: &[u8]) -> Reply {
        if data == [cmd::CW_STOP] {
            self.state.cw = None;
            return Reply::Ack;
        }
        if data.is_empty() || data.len() > MAX_MESSAGE {
            return Reply::Nak;
        }
        let Some(units) = keying_units(data) else {
            return Reply::Nak;
        };
        let cw_mode = self
            .state
            .vfo(self.tx_slot())
            .is_some_and(|v| matches!(v.mode, mode::CW | mode::CW_R));
        if !cw_mode || !self.can_transmit() {
            return Reply::Nak;
        }
        let queued = self.state.cw.as_ref().map_or(0, |c| c.text.len());
        if queued + data.len() > MAX_QUEUED {
            return Reply::Nak;
        }
        self.key_cw(data, &units);
        Reply::Ack
    }

    /// Appends a message to what is being sent (or starts sending it now).
    fn key_cw(&mut self, text: &[u8], units: &[(u32, u32)]) {
        let dot = Duration::from_nanos((1.2e9 / f64::from(self.state.cw_wpm())).round() as u64);
        let now = self.now;
        if self.state.cw.is_none() && !self.state.ptt {
            self.tx_level = Default::default();
        }
        let audio_now = Duration::try_from_secs_f64(self.audio_time).unwrap_or_default();
        let job = self.state.cw.get_or_insert_with(|| CwKeying {
            text: String::new(),
            elements: Vec::new(),
            start: now,
            audio_start: audio_now,
        });
        let origin = match job.elements.last() {
            Some(&(_, end)) => end.max(now).saturating_add(dot.saturating_mul(3)),
            None => now,
        };
        let at = |units: u32| origin.saturating_add(dot.saturating_mul(units));
        job.text
            .extend(text.iter().map(|c| char::from(c.to_ascii_uppercase())));
        job.elements
            .extend(units.iter().map(|&(a, b)| (at(a), at(b))));
        if job.elements.is_empty() {
            // only spaces: nothing to key
            self.state.cw = None;
        }
    }

    /// True if the CW key is down at `t` (radio clock).
    pub(super) fn cw_key_down(&self, t: Duration) -> bool {
        self.state.cw.as_ref().is_some_and(|c| c.key_down(t))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paris_is_fifty_units() {
        // "PARIS " is the standard word: 50 dot units including the word gap
        let u = keying_units(b"PARIS").unwrap();
        assert_eq!(u.last().unwrap().1 + 7, 50);
        assert_eq!(&u[..4], &[(0, 1), (2, 5), (6, 9), (10, 11)], "P = .--.");
        assert_eq!(u[4], (14, 15), "3 units between characters");
        let two = keying_units(b"E E").unwrap();
        assert_eq!(two, vec![(0, 1), (8, 9)], "7 units between words");
        assert_eq!(keying_units(b"e").unwrap(), vec![(0, 1)]);
        assert_eq!(keying_units(b"  ").unwrap(), vec![]);
        assert!(keying_units(b"A#").is_none());
        assert!(keying_units(&[0xFF]).is_none());
    }
}
