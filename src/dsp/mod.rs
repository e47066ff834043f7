//! Signal processing, all sans-IO and synchronous: the rational [`resample`]r between
//! the radio's rate and 48 kHz, [`rate_detect`]ion of what the radio really sends, the
//! gate that holds it to [`realtime`], [`reframe`] into 20 ms frames, Opus
//! ([`opus_codec`]) and the audio-FFT scope ([`audio_fft`]). The threads that use them
//! live in `radio/` and `web/`.

pub mod audio_fft;
pub mod opus_codec;
pub mod rate_detect;
pub mod realtime;
pub mod reframe;
pub mod resample;

/// The web's audio rate, Hz.
pub const WEB_RATE: u32 = 48_000;
/// Samples per channel of one 20 ms frame at [`WEB_RATE`].
pub const WEB_FRAME: usize = 960;
