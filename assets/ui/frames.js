// Binary frames of docs/API.md / interface.md §2.5 (little-endian): parsing what the
// server sends (scope, meters, RX audio) and building what the page sends (TX audio).

export const FRAME_SCOPE = 0x01;
export const FRAME_AUDIO_RX = 0x10;
export const FRAME_AUDIO_TX = 0x11;
export const FRAME_METERS = 0x20;
export const CODEC_OPUS = 0x01;
export const CODEC_PCM16 = 0x02;
const SCOPE_HEADER = 16;
const AUDIO_HEADER = 8;

function view(buf) {
  return buf instanceof ArrayBuffer
    ? new DataView(buf)
    : new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
}

/** The message type byte of a binary frame, or -1 when it is empty. */
export function frameType(buf) {
  return buf.byteLength > 0 ? view(buf).getUint8(0) : -1;
}

/** A scope frame, or null when the bytes are not a whole one. */
export function parseScopeFrame(buf) {
  const dv = view(buf);
  if (dv.byteLength < SCOPE_HEADER || dv.getUint8(0) !== FRAME_SCOPE) return null;
  const count = dv.getUint16(14, true);
  if (SCOPE_HEADER + count > dv.byteLength) return null;
  const startHz = dv.getUint32(3, true);
  const endHz = dv.getUint32(7, true);
  return {
    receiver: dv.getUint8(1),
    mode: dv.getUint8(2),
    startHz,
    endHz,
    seq: dv.getUint16(11, true),
    outOfRange: (dv.getUint8(13) & 1) === 1,
    pixels: new Uint8Array(dv.buffer, dv.byteOffset + SCOPE_HEADER, count),
  };
}

/** A meter frame `{seq, readings: [{id, name, value}]}`, or null when malformed; `names`
 * maps meter ids to names (the capabilities' `meterIds`, inverted). */
export function parseMeterFrame(buf, names) {
  const dv = view(buf);
  if (dv.byteLength < 4 || dv.getUint8(0) !== FRAME_METERS) return null;
  const count = dv.getUint8(3);
  if (4 + count * 3 > dv.byteLength) return null;
  const readings = [];
  for (let i = 0; i < count; i++) {
    const o = 4 + i * 3;
    const id = dv.getUint8(o);
    readings.push({ id, name: names.get(id) || `meter${id}`, value: dv.getUint16(o + 1, true) });
  }
  return { seq: dv.getUint16(1, true), readings };
}

/** An audio frame (RX or TX), or null when the header is short or the codec unknown. */
export function parseAudioFrame(buf) {
  const dv = view(buf);
  if (dv.byteLength < AUDIO_HEADER) return null;
  const type = dv.getUint8(0);
  const codec = dv.getUint8(1);
  if ((type !== FRAME_AUDIO_RX && type !== FRAME_AUDIO_TX) || (codec !== CODEC_OPUS && codec !== CODEC_PCM16)) {
    return null;
  }
  const channels = dv.getUint8(6);
  if (channels < 1 || channels > 2) return null;
  return {
    type,
    codec,
    seq: dv.getUint16(2, true),
    sampleRate: dv.getUint16(4, true) * 100,
    channels,
    frameMs: dv.getUint8(7),
    payload: new Uint8Array(dv.buffer, dv.byteOffset + AUDIO_HEADER, dv.byteLength - AUDIO_HEADER),
  };
}

/** A TX audio frame (mono) around `payload` (an Opus packet or i16 LE samples). */
export function buildTxAudioFrame(codec, seq, sampleRate, payload, frameMs = 20) {
  const out = new Uint8Array(AUDIO_HEADER + payload.byteLength);
  const dv = new DataView(out.buffer);
  dv.setUint8(0, FRAME_AUDIO_TX);
  dv.setUint8(1, codec);
  dv.setUint16(2, seq & 0xffff, true);
  dv.setUint16(4, Math.round(sampleRate / 100), true);
  dv.setUint8(6, 1);
  dv.setUint8(7, frameMs);
  out.set(payload, AUDIO_HEADER);
  return out.buffer;
}

/** Interleaved i16 LE samples to one Float32Array per channel. */
export function pcm16ToFloat(payload, channels) {
  const dv = view(payload);
  const frames = Math.floor(dv.byteLength / 2 / channels);
  const out = [];
  for (let c = 0; c < channels; c++) out.push(new Float32Array(frames));
  for (let i = 0; i < frames; i++) {
    for (let c = 0; c < channels; c++) out[c][i] = dv.getInt16((i * channels + c) * 2, true) / 32768;
  }
  return out;
}

/** Float samples (−1..1, clipped) to i16 LE bytes. */
export function floatToPcm16(samples) {
  const out = new Uint8Array(samples.length * 2);
  const dv = new DataView(out.buffer);
  for (let i = 0; i < samples.length; i++) {
    const s = Math.max(-1, Math.min(1, samples[i]));
    dv.setInt16(i * 2, s < 0 ? Math.round(s * 32768) : Math.round(s * 32767), true);
  }
  return out;
}

/** Counts frames lost between wrapping 16-bit sequence numbers. */
export class SeqTracker {
  constructor() {
    this.last = null;
    this.lost = 0;
    this.frames = 0;
  }

  /** Notes `seq`; returns how many frames were skipped before it (0 when in order). */
  note(seq) {
    this.frames++;
    let gap = 0;
    if (this.last !== null) {
      const d = (seq - this.last - 1) & 0xffff;
      // a large "gap" is a repeat or a reorder, not 60 000 lost frames
      gap = d < 0x8000 ? d : 0;
    }
    this.last = seq;
    this.lost += gap;
    return gap;
  }
}
