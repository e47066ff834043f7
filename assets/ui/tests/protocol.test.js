import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyDelta, getPath, revisionFollows, backoffMs, wsUrl, audioSupport, rxCodec, errorText } from '../protocol.js';

test('deltas merge changed leaves and drop removed paths', () => {
  const s = { main: { freqHz: 1, mode: 'USB' }, sub: { freqHz: 2 }, scope: { spanHz: 5 }, revision: 1 };
  applyDelta(s, { main: { freqHz: 3 }, scope: { spanHz: 10, refDb: 0 }, revision: 2 }, ['sub']);
  assert.deepEqual(s, { main: { freqHz: 3, mode: 'USB' }, scope: { spanHz: 10, refDb: 0 }, revision: 2 });
  applyDelta(s, { main: { vfoA: { freqHz: 9 } } }, ['main.mode']);
  assert.deepEqual(s.main, { freqHz: 3, vfoA: { freqHz: 9 } });
  applyDelta(s, { ptt: null, main: null }, []);
  assert.equal(s.main, null);
  applyDelta(s, { main: { freqHz: 4 } }, ['no.such.path']);
  assert.deepEqual(s.main, { freqHz: 4 });
});

test('dotted paths read nested values', () => {
  const s = { scope: { spanHz: 25000 }, main: null };
  assert.equal(getPath(s, 'scope.spanHz'), 25000);
  assert.equal(getPath(s, 'main.freqHz'), undefined);
  assert.equal(getPath(s, 'x.y'), undefined);
});

test('revision gaps are noticed', () => {
  assert.equal(revisionFollows(41, 42), true);
  assert.equal(revisionFollows(41, 43), false);
  assert.equal(revisionFollows(undefined, 1), false);
});

test('backoff grows to 10 s with jitter', () => {
  assert.equal(backoffMs(0, 0.5), 500);
  assert.ok(backoffMs(1, 0.5) > 500);
  assert.equal(backoffMs(20, 0.5), 10000);
  assert.equal(backoffMs(20, 1), 12000);
  assert.equal(backoffMs(0, 0), 400);
});

test('WebSocket URLs follow the page: wss for https, token percent-encoded', () => {
  assert.equal(wsUrl({ protocol: 'http:', host: 'pi:8080' }, '/api/v1/ws', ''), 'ws://pi:8080/api/v1/ws');
  assert.equal(
    wsUrl({ protocol: 'https:', host: 'pi' }, '/api/v1/scope', 'a b&c', { fps: 30, receiver: 0 }),
    'wss://pi/api/v1/scope?fps=30&receiver=0&token=a%20b%26c',
  );
});

test('plain HTTP from another host: no WebCodecs, worklet or microphone, so PCM16', () => {
  const g = { isSecureContext: false, AudioDecoder() {}, EncodedAudioChunk() {}, AudioWorkletNode() {},
    navigator: { mediaDevices: { getUserMedia() {} } } };
  const insecure = audioSupport(g);
  assert.deepEqual(insecure, { secure: false, webcodecs: false, encoder: false, worklet: false, mic: false });
  assert.equal(rxCodec(insecure), 'pcm16');
  const secure = audioSupport({ ...g, isSecureContext: true });
  assert.equal(secure.worklet && secure.webcodecs && secure.mic, true);
  assert.equal(rxCodec(secure), 'opus');
  assert.equal(rxCodec(audioSupport({ ...g, isSecureContext: true, AudioDecoder: undefined })), 'pcm16');
});

test('error text names the message and the code', () => {
  assert.equal(errorText({ error: 'ptt_busy', message: 'another client transmits' }), 'another client transmits (ptt_busy)');
  assert.equal(errorText('x'), 'x');
  assert.equal(errorText(null), 'unknown error');
});
