//! Scripts the tests and the UI benchmark run inside the page.

/// Builds RX frames in the page: a 440 Hz tone, Opus-encoded by WebCodecs (or PCM16),
/// 20 ms each, handed to the audio engine as if they came from `/api/v1/audio`.
pub const FEED_TONE: &str = r#"
(async (codec) => {
  const a = window.rigweb.parts.audio;
  await a.listen();
  a.setupRx({ direction: 'rx', codec, sample_rate: 48000, channels: 1 });
  const frames = [];
  const pcm = (n) => { const f = new Float32Array(960); for (let i = 0; i < 960; i++) f[i] = 0.3 * Math.sin(2 * Math.PI * 440 * (n * 960 + i) / 48000); return f; };
  const header = (c, seq, len) => { const b = new Uint8Array(8 + len); const d = new DataView(b.buffer); d.setUint8(0, 0x10); d.setUint8(1, c); d.setUint16(2, seq, true); d.setUint16(4, 480, true); d.setUint8(6, 1); d.setUint8(7, 20); return b; };
  if (codec === 'opus') {
    const enc = new AudioEncoder({ output: (chunk) => { const b = header(1, frames.length, chunk.byteLength); chunk.copyTo(b.subarray(8)); frames.push(b.buffer); }, error: (e) => { throw e; } });
    enc.configure({ codec: 'opus', sampleRate: 48000, numberOfChannels: 1, bitrate: 32000 });
    for (let n = 0; n < 150; n++) enc.encode(new AudioData({ format: 'f32-planar', sampleRate: 48000, numberOfFrames: 960, numberOfChannels: 1, timestamp: n * 20000, data: pcm(n) }));
    await enc.flush();
  } else {
    for (let n = 0; n < 150; n++) { const f = pcm(n); const b = header(2, n, 1920); const d = new DataView(b.buffer); for (let i = 0; i < 960; i++) d.setInt16(8 + 2 * i, Math.round(f[i] * 32767), true); frames.push(b.buffer); }
  }
  let i = 0;
  window.__feed = setInterval(() => { if (i < frames.length) a.onBinary(frames[i++]); else clearInterval(window.__feed); }, 20);
  return frames.length;
})
"#;
