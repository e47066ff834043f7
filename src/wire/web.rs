//! Binary WebSocket frames of the web interface (interface.md §2.5), little-endian.

use crate::util::vocabulary::vocabulary;
use crate::wire::{Result, WireError, field, need};

/// `msg_type` of a scope frame.
pub const SCOPE_FRAME: u8 = 0x01;
/// `msg_type` of an RX audio frame.
pub const AUDIO_RX_FRAME: u8 = 0x10;
/// `msg_type` of a TX audio frame.
pub const AUDIO_TX_FRAME: u8 = 0x11;
/// `msg_type` of a meter frame.
pub const METER_FRAME: u8 = 0x20;

vocabulary! {
    /// Codec of an audio frame on `/api/v1/audio`: its name in `audio_start`, its value
    /// the `codec` byte of the frame header.
    pub enum AudioCodec: u8 {
        /// One Opus packet per frame.
        Opus = "opus" => 0x01,
        /// Interleaved i16 little-endian samples.
        Pcm16 = "pcm16" => 0x02,
    }
}

impl AudioCodec {
    /// The `codec` byte of the frame header.
    pub fn byte(self) -> u8 {
        self.value()
    }
}

/// Length of the scope frame header.
pub const SCOPE_HEADER_LEN: usize = 16;
/// Length of the audio frame header.
pub const AUDIO_HEADER_LEN: usize = 8;

/// A spectrum sweep as sent on `/api/v1/scope`: 16-byte header then one byte per pixel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScopeFrame {
    /// 0 = Main, 1 = Sub.
    pub receiver: u8,
    /// 0 center, 1 fixed, 2 scroll-C, 3 scroll-F.
    pub mode: u8,
    /// Lower edge, Hz.
    pub start_freq: u32,
    /// Upper edge, Hz.
    pub end_freq: u32,
    /// Wrapping frame counter.
    pub sequence: u16,
    /// The radio said "out of range": no valid pixels.
    pub out_of_range: bool,
    /// Amplitudes, 0..=160 on the web scale.
    pub pixels: Vec<u8>,
}

impl ScopeFrame {
    /// The bytes of this frame.
    pub fn emit(&self) -> Vec<u8> {
        let mut buf = vec![0u8; SCOPE_HEADER_LEN + self.pixels.len()];
        buf[0] = SCOPE_FRAME;
        buf[1] = self.receiver;
        buf[2] = self.mode;
        field::put_u32le(&mut buf, 3, self.start_freq);
        field::put_u32le(&mut buf, 7, self.end_freq);
        field::put_u16le(&mut buf, 11, self.sequence);
        buf[13] = u8::from(self.out_of_range);
        field::put_u16le(&mut buf, 14, self.pixels.len() as u16);
        buf[SCOPE_HEADER_LEN..].copy_from_slice(&self.pixels);
        buf
    }

    /// Parses a scope frame; the length must be exactly 16 + `pixel_count`.
    pub fn parse(buf: &[u8]) -> Result<ScopeFrame> {
        need(buf, SCOPE_HEADER_LEN)?;
        if buf[0] != SCOPE_FRAME {
            return Err(WireError::BadValue("scope msg_type"));
        }
        let count = field::u16le(buf, 14) as usize;
        crate::wire::exact(buf, SCOPE_HEADER_LEN + count)?;
        Ok(ScopeFrame {
            receiver: buf[1],
            mode: buf[2],
            start_freq: field::u32le(buf, 3),
            end_freq: field::u32le(buf, 7),
            sequence: field::u16le(buf, 11),
            out_of_range: buf[13] & 1 != 0,
            pixels: buf[SCOPE_HEADER_LEN..].to_vec(),
        })
    }
}

/// A set of meter readings as sent on `/api/v1/meters`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MeterFrame {
    /// Wrapping frame counter.
    pub sequence: u16,
    /// `(meter_id, value)` pairs; ids 0x01..=0x09 (interface.md §2.5).
    pub readings: Vec<(u8, u16)>,
}

impl MeterFrame {
    /// The bytes of this frame (at most 255 readings are written).
    pub fn emit(&self) -> Vec<u8> {
        let n = self.readings.len().min(255);
        let mut buf = vec![0u8; 4 + 3 * n];
        buf[0] = METER_FRAME;
        field::put_u16le(&mut buf, 1, self.sequence);
        buf[3] = n as u8;
        for (i, (id, v)) in self.readings.iter().take(n).enumerate() {
            buf[4 + 3 * i] = *id;
            field::put_u16le(&mut buf, 5 + 3 * i, *v);
        }
        buf
    }

    /// Parses a meter frame; the length must be exactly 4 + 3·count.
    pub fn parse(buf: &[u8]) -> Result<MeterFrame> {
        need(buf, 4)?;
        if buf[0] != METER_FRAME {
            return Err(WireError::BadValue("meter msg_type"));
        }
        let n = buf[3] as usize;
        crate::wire::exact(buf, 4 + 3 * n)?;
        let readings = (0..n)
            .map(|i| (buf[4 + 3 * i], field::u16le(buf, 5 + 3 * i)))
            .collect();
        Ok(MeterFrame {
            sequence: field::u16le(buf, 1),
            readings,
        })
    }
}

/// An audio frame on `/api/v1/audio`: 8-byte header then the codec payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AudioFrame {
    /// [`AUDIO_RX_FRAME`] or [`AUDIO_TX_FRAME`].
    pub msg_type: u8,
    /// 0x01 Opus, 0x02 PCM16.
    pub codec: u8,
    /// Wrapping frame counter.
    pub sequence: u16,
    /// Sample rate in Hz (sent divided by 100).
    pub sample_rate: u32,
    /// 1 mono, 2 stereo.
    pub channels: u8,
    /// Frame duration, ms (20).
    pub frame_ms: u8,
    /// Codec data.
    pub payload: Vec<u8>,
}

impl AudioFrame {
    /// The bytes of this frame.
    pub fn emit(&self) -> Vec<u8> {
        let mut buf = vec![0u8; AUDIO_HEADER_LEN + self.payload.len()];
        buf[0] = self.msg_type;
        buf[1] = self.codec;
        field::put_u16le(&mut buf, 2, self.sequence);
        field::put_u16le(
            &mut buf,
            4,
            (self.sample_rate / 100).min(u32::from(u16::MAX)) as u16,
        );
        buf[6] = self.channels;
        buf[7] = self.frame_ms;
        buf[AUDIO_HEADER_LEN..].copy_from_slice(&self.payload);
        buf
    }

    /// Parses an audio frame.
    pub fn parse(buf: &[u8]) -> Result<AudioFrame> {
        need(buf, AUDIO_HEADER_LEN)?;
        if buf[0] != AUDIO_RX_FRAME && buf[0] != AUDIO_TX_FRAME {
            return Err(WireError::BadValue("audio msg_type"));
        }
        if buf[6] != 1 && buf[6] != 2 {
            return Err(WireError::BadValue("audio channels"));
        }
        Ok(AudioFrame {
            msg_type: buf[0],
            codec: buf[1],
            sequence: field::u16le(buf, 2),
            sample_rate: u32::from(field::u16le(buf, 4)) * 100,
            channels: buf[6],
            frame_ms: buf[7],
            payload: buf[AUDIO_HEADER_LEN..].to_vec(),
        })
    }
}
