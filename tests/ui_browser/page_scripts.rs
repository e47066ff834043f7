//! Scripts the tests and the UI benchmark run inside the page.

/// A script that builds RX frames in the page: a 440 Hz tone, Opus-encoded by WebCodecs
/// (or PCM16 when `codec` says so), 20 ms each, handed to the audio engine every 20 ms as
/// if they came from `/api/v1/audio` (see [`TAKE_RX`]). It evaluates to the number of
/// frames made.
pub fn feed_tone(codec: &str) -> String {
    format!("{}({codec:?})", FEED_TONE.replace("TAKE_RX", TAKE_RX))
}

const FEED_TONE: &str = r#"
(async (codec) => {
  const a = await TAKE_RX(codec);
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
  // the three seconds made, over and over with running sequence numbers, until the page
  // closes (a loaded machine may start the page's audio late)
  let i = 0;
  window.__feed = setInterval(() => { const b = frames[i % frames.length].slice(0); new DataView(b).setUint16(2, i & 0xffff, true); i++; a.onBinary(b); }, 20);
  return frames.length;
})
"#;

/// An expression (to be pasted where a function is called) for an async function of a
/// codec name that starts listening as a user would, stops the server's own RX stream
/// once the page has set it up, and sets the page up for frames the test hands it in
/// that codec; it returns the page's audio engine. The test's frames are then the only
/// ones the page plays, whenever the server's stream started.
pub const TAKE_RX: &str = r#"(async (codec) => {
  const a = window.rigweb.parts.audio;
  await a.listen();
  for (let t = 0; !a.node && t < 200; t++) await new Promise((r) => setTimeout(r, 50));
  a.channel.send({ type: 'audio_stop', direction: 'rx' });
  a.setupRx({ direction: 'rx', codec, sample_rate: 48000, channels: 1 });
  return a;
})"#;
