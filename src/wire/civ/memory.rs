//! Memory channels on the wire: the channel number (`08 <ch×2>`, `1A 00 <ch×2>`: 2-byte
//! big-endian BCD, channel 1 = `00 01`) and the memory content of `1A 00`, in the layout
//! of the IC-7610 / IC-7300 CI-V reference (the spec is silent on it):
//!
//! ```text
//! <select/split> <freq×5> <mode> <filter> <data<<4 | tone type> <tone×3> <tsql×3>   RX
//!                <freq×5> <mode> <filter> <data<<4 | tone type> <tone×3> <tsql×3>   TX (split)
//! <name×10, ASCII, space padded>
//! ```
//!
//! An empty channel's content is one byte `FF`. Parsing never indexes past the buffer.

use super::bcd::{bcd_byte, bcd_to_freq, freq_to_bcd, from_bcd_byte};

/// The content byte of an empty channel.
pub const EMPTY: u8 = 0xFF;
/// Characters of a channel name.
pub const NAME_LEN: usize = 10;
/// Bytes of one frequency block (frequency, mode, filter, DATA/tone, tone, TSQL).
const BLOCK_LEN: usize = 14;
/// Bytes of a channel's content.
pub const CONTENT_LEN: usize = 1 + 2 * BLOCK_LEN + NAME_LEN;

/// What a memory channel holds (its RX side; the TX side is written equal).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryContent {
    /// Frequency, Hz.
    pub freq_hz: u64,
    /// CI-V mode code.
    pub mode: u8,
    /// Filter 1..3.
    pub filter: u8,
    /// DATA mode (0 off).
    pub data: u8,
    /// Name, at most [`NAME_LEN`] characters, trailing spaces removed.
    pub name: String,
}

/// The two bytes of channel `ch` (0..=9999).
pub fn channel_bytes(ch: u16) -> Option<[u8; 2]> {
    if ch > 9999 {
        return None;
    }
    Some([
        bcd_byte((ch / 100) as u8).ok()?,
        bcd_byte((ch % 100) as u8).ok()?,
    ])
}

/// The channel of two bytes.
pub fn channel_of(b: &[u8]) -> Option<u16> {
    match b {
        [hi, lo] => {
            let hi = from_bcd_byte(*hi).ok()?;
            let lo = from_bcd_byte(*lo).ok()?;
            Some(u16::from(hi) * 100 + u16::from(lo))
        }
        _ => None,
    }
}

/// Parses a channel's content: `Ok(None)` for an empty channel, `Err` with what is wrong.
pub fn parse(content: &[u8]) -> Result<Option<MemoryContent>, String> {
    if content == [EMPTY] {
        return Ok(None);
    }
    if content.len() < CONTENT_LEN {
        return Err(format!(
            "memory content of {} bytes, expected {CONTENT_LEN}",
            content.len()
        ));
    }
    let freq_hz = bcd_to_freq(&content[1..6]).map_err(|e| format!("frequency: {e}"))?;
    let filter = from_bcd_byte(content[7])
        .ok()
        .filter(|f| (1..=3).contains(f))
        .ok_or_else(|| format!("filter byte {:02X}", content[7]))?;
    let name_at = 1 + 2 * BLOCK_LEN;
    let name: String = content[name_at..name_at + NAME_LEN]
        .iter()
        .map(|&b| {
            if b.is_ascii_graphic() || b == b' ' {
                char::from(b)
            } else {
                '?'
            }
        })
        .collect();
    Ok(Some(MemoryContent {
        freq_hz,
        mode: content[6],
        filter,
        data: (content[8] >> 4).min(3),
        name: name.trim_end().to_string(),
    }))
}

/// The content bytes of `m` (simplex: TX equal to RX, tones 88.5 Hz, tone off).
pub fn encode(m: &MemoryContent) -> Option<Vec<u8>> {
    let mut block = Vec::with_capacity(BLOCK_LEN);
    block.extend(freq_to_bcd(m.freq_hz).ok()?);
    block.push(m.mode);
    block.push(bcd_byte(m.filter).ok()?);
    block.push(m.data.min(3) << 4);
    block.extend([0x00, 0x88, 0x05, 0x00, 0x88, 0x05]);
    let mut out = Vec::with_capacity(CONTENT_LEN);
    out.push(0x00);
    out.extend(&block);
    out.extend(&block);
    let mut name: Vec<u8> = m
        .name
        .bytes()
        .filter(|b| b.is_ascii_graphic() || *b == b' ')
        .take(NAME_LEN)
        .collect();
    name.resize(NAME_LEN, b' ');
    out.extend(name);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn channels_are_two_bcd_bytes() {
        assert_eq!(channel_bytes(1), Some([0x00, 0x01]));
        assert_eq!(channel_bytes(99), Some([0x00, 0x99]));
        assert_eq!(channel_bytes(101), Some([0x01, 0x01]));
        assert_eq!(channel_bytes(10_000), None);
        assert_eq!(channel_of(&[0x01, 0x01]), Some(101));
        assert_eq!(channel_of(&[0x0A, 0x01]), None, "bad BCD");
        assert_eq!(channel_of(&[0x01]), None);
    }

    #[test]
    fn content_round_trips_and_bad_content_is_an_error() {
        let m = MemoryContent {
            freq_hz: 14_074_000,
            mode: 0x01,
            filter: 2,
            data: 1,
            name: "FT8 20m".into(),
        };
        let bytes = encode(&m).unwrap();
        assert_eq!(bytes.len(), CONTENT_LEN);
        assert_eq!(&bytes[1..6], &[0x00, 0x40, 0x07, 0x14, 0x00]);
        assert_eq!(&bytes[29..], b"FT8 20m   ");
        assert_eq!(parse(&bytes), Ok(Some(m)));
        assert_eq!(parse(&[EMPTY]), Ok(None));
        for n in 0..CONTENT_LEN {
            assert!(parse(&bytes[..n]).is_err(), "{n} bytes");
        }
        let mut bad = bytes.clone();
        bad[7] = 0x04;
        assert!(parse(&bad).unwrap_err().contains("filter"));
        bad[1] = 0xAA;
        assert!(parse(&bad).unwrap_err().contains("frequency"));
        let long = MemoryContent {
            name: "A NAME LONGER THAN TEN".into(),
            ..parse(&bytes).unwrap().unwrap()
        };
        assert_eq!(
            parse(&encode(&long).unwrap()).unwrap().unwrap().name,
            "A NAME LON"
        );
    }
}
