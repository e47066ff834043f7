import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  parseScopeFrame, parseMeterFrame, parseAudioFrame, buildTxAudioFrame, pcm16ToFloat,
  floatToPcm16, SeqTracker, frameType, CODEC_OPUS, CODEC_PCM16, FRAME_AUDIO_TX,
} from '../frames.js';

function scopeBytes({ receiver = 0, mode = 0, start = 14049000, end = 14099000, seq = 7, flags = 0, pixels = [1, 2, 3] }) {
  const b = new Uint8Array(16 + pixels.length);
  const dv = new DataView(b.buffer);
  dv.setUint8(0, 1);
  dv.setUint8(1, receiver);
  dv.setUint8(2, mode);
  dv.setUint32(3, start, true);
  dv.setUint32(7, end, true);
  dv.setUint16(11, seq, true);
  dv.setUint8(13, flags);
  dv.setUint16(14, pixels.length, true);
  b.set(pixels, 16);
  return b;
}

test('a scope frame parses field by field', () => {
  const f = parseScopeFrame(scopeBytes({ receiver: 1, mode: 1, seq: 65535, flags: 1, pixels: [0, 80, 160] }).buffer);
  assert.equal(f.receiver, 1);
  assert.equal(f.mode, 1);
  assert.equal(f.startHz, 14049000);
  assert.equal(f.endHz, 14099000);
  assert.equal(f.seq, 65535);
  assert.equal(f.outOfRange, true);
  assert.deepEqual([...f.pixels], [0, 80, 160]);
});

test('a scope frame inside a larger buffer (a view with an offset) parses', () => {
  const inner = scopeBytes({ pixels: [5, 6] });
  const outer = new Uint8Array(inner.length + 10);
  outer.set(inner, 10);
  const f = parseScopeFrame(outer.subarray(10));
  assert.deepEqual([...f.pixels], [5, 6]);
  assert.equal(f.startHz, 14049000);
});

test('truncated or foreign scope frames are refused, never read past the end', () => {
  const whole = scopeBytes({ pixels: [1, 2, 3, 4] });
  assert.equal(parseScopeFrame(whole.subarray(0, 19)), null);
  assert.equal(parseScopeFrame(whole.subarray(0, 10)), null);
  assert.equal(parseScopeFrame(new Uint8Array(0)), null);
  const meter = new Uint8Array(whole);
  meter[0] = 0x20;
  assert.equal(parseScopeFrame(meter), null);
  assert.equal(frameType(new Uint8Array(0)), -1);
  assert.equal(frameType(whole), 1);
});

test('meter frames give readings named as the capabilities name the ids; a short one is refused', () => {
  // `meterIds` of the capabilities, inverted
  const names = new Map([[1, 'smeter'], [4, 'swr']]);
  const b = new Uint8Array([0x20, 0x34, 0x12, 3, 0x01, 120, 0, 0x04, 0x2c, 0x01, 0x09, 5, 0]);
  const f = parseMeterFrame(b, names);
  assert.equal(f.seq, 0x1234);
  assert.deepEqual(f.readings, [
    { id: 1, name: 'smeter', value: 120 },
    { id: 4, name: 'swr', value: 300 },
    { id: 9, name: 'meter9', value: 5 },
  ]);
  assert.equal(parseMeterFrame(b.subarray(0, 12), names), null);
  assert.equal(parseMeterFrame(new Uint8Array([0x20, 0, 0]), names), null);
});

test('audio frames: header fields and payload; unknown codec or channel count refused', () => {
  const b = new Uint8Array([0x10, CODEC_PCM16, 3, 0, 0xe0, 0x01, 2, 20, 1, 2, 3, 4]);
  const f = parseAudioFrame(b);
  assert.equal(f.codec, CODEC_PCM16);
  assert.equal(f.seq, 3);
  assert.equal(f.sampleRate, 48000);
  assert.equal(f.channels, 2);
  assert.equal(f.frameMs, 20);
  assert.deepEqual([...f.payload], [1, 2, 3, 4]);
  const bad = new Uint8Array(b);
  bad[1] = 9;
  assert.equal(parseAudioFrame(bad), null);
  const mono0 = new Uint8Array(b);
  mono0[6] = 0;
  assert.equal(parseAudioFrame(mono0), null);
  assert.equal(parseAudioFrame(b.subarray(0, 7)), null);
});

test('a TX frame round-trips through the parser', () => {
  const payload = new Uint8Array([9, 8, 7]);
  const buf = buildTxAudioFrame(CODEC_OPUS, 0x10001, 48000, payload);
  const f = parseAudioFrame(buf);
  assert.equal(f.type, FRAME_AUDIO_TX);
  assert.equal(f.codec, CODEC_OPUS);
  assert.equal(f.seq, 1, 'the sequence wraps at 16 bits');
  assert.equal(f.sampleRate, 48000);
  assert.equal(f.channels, 1);
  assert.deepEqual([...f.payload], [9, 8, 7]);
});

test('PCM16 converts both ways, interleaved channels split, clipped at full scale', () => {
  const pcm = floatToPcm16(new Float32Array([0, 0.5, -0.5, 1, -1, 2]));
  const dv = new DataView(pcm.buffer);
  assert.equal(dv.getInt16(2, true), 16384);
  assert.equal(dv.getInt16(6, true), 32767);
  assert.equal(dv.getInt16(8, true), -32768);
  assert.equal(dv.getInt16(10, true), 32767);
  const [l, r] = pcm16ToFloat(pcm.subarray(0, 8), 2);
  assert.deepEqual([...l], [0, -0.5]);
  assert.deepEqual([...r].map((x) => Math.round(x * 1000) / 1000), [0.5, 1]);
});

test('sequence gaps are counted across the wrap; repeats are not losses', () => {
  const t = new SeqTracker();
  assert.equal(t.note(65534), 0);
  assert.equal(t.note(65535), 0);
  assert.equal(t.note(2), 2);
  assert.equal(t.note(2), 0);
  assert.equal(t.lost, 2);
  assert.equal(t.frames, 4);
});
