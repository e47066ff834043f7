// Audio over `/api/v1/audio`: RX Opus decoded with WebCodecs into the AudioWorklet's
// jitter ring (adaptive 100–200 ms target), PCM16 where WebCodecs or AudioWorklet are
// missing (plain-HTTP pages from another host get neither), a latency readout, volume
// and mute; and the TX path for the PTT: `audio_start` tx with the control socket's
// session, then the microphone's frames.
import { Channel } from './conn.js';
import { parseAudioFrame, buildTxAudioFrame, pcm16ToFloat, SeqTracker, CODEC_OPUS } from './frames.js';
import { audioSupport, rxCodec } from './protocol.js';
import { JitterRing } from './jitter.js';
import { loadWorklets } from './worklets.js';
import { MicEncoder } from './audio_tx.js';

/** Frames per ScriptProcessor callback where there is no AudioWorklet. */
const SCRIPT_BUFFER = 2048;
/** The longest wait for the server's `audio_started` of TX, ms. */
const TX_START_MS = 4000;

export class AudioEngine {
  /** `hooks`: `status(text, kind)`, `session()`, `netMs()`, `caps()`, `changed()`,
   * `txLost(why)` (TX audio cannot reach the server any more). */
  constructor(api, hooks) {
    this.api = api;
    this.hooks = hooks;
    this.support = audioSupport(window);
    this.ctx = null;
    this.gain = null;
    this.node = null;
    this.fallbackRing = null;
    this.decoder = null;
    this.listening = false;
    this.available = null; // null: not tried; false: the server has no audio channel
    this.opusBroken = false; // the Opus decoder failed here: PCM16 from then on
    this.volume = 0.8;
    this.muted = false;
    this.seq = new SeqTracker();
    this.codec = null;
    this.rxChannels = 2;
    this.stats = { frames: 0, lost: 0, underruns: 0, peak: 0, levelMs: 0, targetMs: 0, decodeMs: 0, latencyMs: null, codec: null };
    this.decodeStart = [];
    this.mic = new MicEncoder(() => this.context(), this.support);
    // `run` counts TX starts and stops: a start overtaken by a stop gives up
    this.tx = { active: false, run: 0, seq: 0, pending: null, confirmed: false };
    this.channel = new Channel('audio', () => api.wsUrl('/api/v1/audio'), {
      open: () => this.onOpen(),
      text: (m) => this.onText(m),
      binary: (b) => this.onBinary(b),
      close: (info) => {
        const pending = this.tx.pending;
        this.tx.pending = null;
        this.tx.confirmed = false;
        if (pending) pending.reject(new Error('the audio channel closed'));
        // transmitting with no way for the audio: the radio must not stay keyed
        else if (this.tx.active && info.opened) this.hooks.txLost('the audio connection to the server dropped');
      },
      unavailable: () => {
        this.available = false;
        this.hooks.status('This server has no audio channel yet: the scope and controls work, audio does not.', 'warn');
        this.hooks.changed();
      },
    }, { probe: true });
  }

  /** The AudioContext (created on the first user gesture: browsers require one). */
  async context() {
    // iOS: play through the ringer switch like a media player (Safari's Audio Session API)
    if (navigator.audioSession && navigator.audioSession.type === 'auto') navigator.audioSession.type = 'playback';
    if (!this.ctx) {
      const Ctx = window.AudioContext || window.webkitAudioContext;
      try {
        this.ctx = new Ctx({ sampleRate: 48000, latencyHint: 'interactive' });
      } catch {
        this.ctx = new Ctx({ latencyHint: 'interactive' });
      }
      this.gain = this.ctx.createGain();
      this.gain.connect(this.ctx.destination);
      this.applyGain();
    }
    if (this.ctx.state === 'suspended') await this.ctx.resume();
    return this.ctx;
  }

  applyGain() {
    if (this.gain) this.gain.gain.value = this.muted ? 0 : this.volume * this.volume;
  }

  setVolume(v) {
    this.volume = Math.max(0, Math.min(1, v));
    this.applyGain();
  }

  setMuted(m) {
    this.muted = m;
    this.applyGain();
  }

  /** Starts listening (call from a click or key handler). */
  async listen() {
    if (this.listening) return;
    this.listening = true;
    this.hooks.changed();
    await this.context();
    this.codec = this.opusBroken ? 'pcm16' : rxCodec(this.support);
    if (this.codec === 'opus') {
      try {
        const r = await AudioDecoder.isConfigSupported({ codec: 'opus', sampleRate: 48000, numberOfChannels: 2 });
        if (!r.supported) this.codec = 'pcm16';
      } catch {
        this.codec = 'pcm16';
      }
    }
    if (this.support.worklet) await loadWorklets(this.ctx);
    this.hooks.status(`Connecting audio (${this.codec === 'opus' ? 'Opus' : 'PCM16'})…`, 'info');
    if (this.channel.isOpen) this.sendRxStart();
    else this.channel.start();
  }

  /** Stops listening (TX, if any, keeps its channel). */
  stopListening() {
    if (!this.listening) return;
    this.listening = false;
    this.channel.send({ type: 'audio_stop', direction: 'rx' });
    this.teardownRx();
    if (!this.tx.active) this.channel.stop();
    this.stats.latencyMs = null;
    this.hooks.status('Press Listen to hear the receiver.', 'info');
    this.hooks.changed();
  }

  teardownRx() {
    if (this.node) {
      if (this.node.port) {
        this.node.port.onmessage = null;
        this.node.port.postMessage({ type: 'stop' });
      } else {
        this.node.onaudioprocess = null;
      }
      this.node.disconnect();
      this.node = null;
    }
    if (this.decoder && this.decoder.state !== 'closed') this.decoder.close();
    this.decoder = null;
    this.fallbackRing = null;
  }

  onOpen() {
    this.available = true;
    if (this.listening) this.sendRxStart();
    if (this.tx.active && !this.tx.confirmed) this.sendTxStart();
  }

  sendRxStart() {
    this.channel.send({ type: 'audio_start', direction: 'rx', codec: this.codec });
  }

  onText(m) {
    if (m.type === 'audio_started' && m.direction === 'rx') this.setupRx(m);
    else if (m.type === 'audio_started' && m.direction === 'tx') {
      if (!this.tx.active) return;
      this.tx.confirmed = true;
      if (this.tx.pending) this.tx.pending.resolve(m);
      this.tx.pending = null;
    } else if (m.type === 'error') {
      if (this.tx.pending) {
        this.tx.pending.reject(new Error(m.message || m.error));
        this.tx.pending = null;
      } else if (m.error === 'ptt_required') {
        // the server does not see our PTT (after a release it is the frames still on
        // their way: nothing to do then)
        if (this.tx.active) this.hooks.txLost(`the server refused TX audio (${m.message || 'PTT is not held'})`);
      } else {
        this.hooks.status(`Audio: ${m.message || m.error}`, 'warn');
      }
    }
  }

  setupRx(m) {
    const caps = this.hooks.caps() || {};
    const ac = caps.audioConfig || {};
    this.teardownRx();
    this.rxChannels = m.channels || 1;
    this.codec = m.codec === 'opus' ? 'opus' : 'pcm16';
    this.stats.codec = this.codec;
    const ring = { channels: this.rxChannels, inRate: m.sample_rate || 48000, minMs: ac.jitterMinMs || 100, maxMs: ac.jitterMaxMs || 200 };
    if (this.support.worklet) {
      const node = new AudioWorkletNode(this.ctx, 'rigweb-rx', { numberOfInputs: 0, numberOfOutputs: 1, outputChannelCount: [2], processorOptions: ring });
      // figures of the node playing now only (a replaced one may still send its last)
      node.port.onmessage = (e) => {
        if (this.node === node) this.onWorkletStats(e.data);
      };
      node.connect(this.gain);
      this.node = node;
    } else {
      // no AudioWorklet (plain HTTP from another host): the same ring on the main thread
      this.fallbackRing = new JitterRing({ ...ring, outRate: this.ctx.sampleRate });
      const sp = this.ctx.createScriptProcessor(SCRIPT_BUFFER, 0, 2);
      sp.onaudioprocess = (e) => {
        const outs = [e.outputBuffer.getChannelData(0), e.outputBuffer.getChannelData(1)];
        this.fallbackRing.pull(outs);
        let peak = 0;
        for (const o of outs) for (let i = 0; i < o.length; i += 8) peak = Math.max(peak, Math.abs(o[i]));
        this.onWorkletStats({ peak, ...this.fallbackRing.stats() });
      };
      sp.connect(this.gain);
      this.node = sp;
    }
    if (this.codec === 'opus') {
      const decoder = new AudioDecoder({
        output: (ad) => this.onDecoded(ad),
        error: (e) => this.opusFailed(decoder, e),
      });
      this.decoder = decoder;
      this.decoder.configure({ codec: 'opus', sampleRate: m.sample_rate || 48000, numberOfChannels: this.rxChannels });
    }
    this.hooks.status(`Listening: ${this.codec === 'opus' ? 'Opus via WebCodecs' : 'PCM16'}, ${this.rxChannels === 2 ? 'MAIN left / SUB right' : 'mono'}.`, 'ok');
    this.hooks.changed();
  }

  /** The Opus decoder failed (closed now, it would drop every frame): RX goes on in
   * PCM16 — a new `audio_start` asks the server for it (it replaces the Opus stream) —
   * and stays PCM16 for this page. */
  opusFailed(decoder, e) {
    if (decoder !== this.decoder) return;
    this.opusBroken = true;
    this.decoder = null;
    this.decodeStart = [];
    this.codec = 'pcm16';
    this.hooks.status(`Opus decoding failed (${(e && e.message) || 'error'}); switched to PCM16.`, 'warn');
    if (this.listening && this.channel.isOpen) this.sendRxStart();
    this.hooks.changed();
  }

  onBinary(buf) {
    const f = parseAudioFrame(buf);
    if (!f || !this.listening || f.type !== 0x10) return;
    this.stats.frames++;
    this.seq.note(f.seq);
    this.stats.lost = this.seq.lost;
    if (f.codec === CODEC_OPUS) {
      if (!this.decoder || this.decoder.state !== 'configured') return;
      this.decodeStart.push(performance.now());
      if (this.decodeStart.length > 50) this.decodeStart.shift();
      this.decoder.decode(new EncodedAudioChunk({ type: 'key', timestamp: f.seq * 20000, data: f.payload }));
    } else {
      this.pushSamples(pcm16ToFloat(f.payload, f.channels));
    }
  }

  onDecoded(ad) {
    const t0 = this.decodeStart.shift();
    if (t0 !== undefined) this.stats.decodeMs = this.stats.decodeMs * 0.9 + (performance.now() - t0) * 0.1;
    const chans = [];
    for (let c = 0; c < ad.numberOfChannels; c++) {
      const a = new Float32Array(ad.numberOfFrames);
      ad.copyTo(a, { planeIndex: c, format: 'f32-planar' });
      chans.push(a);
    }
    ad.close();
    this.pushSamples(chans);
  }

  pushSamples(chans) {
    if (this.fallbackRing) this.fallbackRing.push(chans);
    else if (this.node) this.node.port.postMessage({ type: 'push', chans }, chans.map((c) => c.buffer));
  }

  onWorkletStats(s) {
    const st = this.stats;
    st.peak = s.peak;
    st.levelMs = s.levelMs;
    st.avgMs = s.avgMs;
    st.targetMs = s.targetMs;
    st.underruns = s.underruns;
    let out = this.ctx ? ((this.ctx.baseLatency || 0) + (this.ctx.outputLatency || 0)) * 1000 : 0;
    // the fallback's ScriptProcessor plays one buffer behind the ring
    if (this.fallbackRing) out += (SCRIPT_BUFFER * 1000) / this.ctx.sampleRate;
    // server send -> arrival (half the control socket's round trip) + decoding + the
    // ring + the output stage
    st.latencyMs = Math.round((this.hooks.netMs() || 0) + (this.codec === 'opus' ? st.decodeMs : 0) + s.avgMs + out);
  }

  // ---- TX ----

  /** Whether the page can send microphone audio at all, and if not why (one sentence). */
  txAudioBlocker() {
    if (!this.support.secure) {
      return 'The microphone needs HTTPS: browsers only allow it on secure pages, so open this page over https:// (rigweb --tls-auto, after trusting its certificate once) or from the server itself.';
    }
    if (!this.support.mic) return 'This browser offers no microphone access.';
    if (this.available === false) return 'This server has no audio channel yet, so PTT keys the radio without web audio.';
    if (!this.hooks.session()) return 'PTT keys the radio; this server cannot take microphone audio from the browser yet.';
    return null;
  }

  sendTxStart() {
    this.channel.send({ type: 'audio_start', direction: 'tx', codec: this.mic.codec || 'pcm16', sample_rate: 48000, channels: 1, session: this.hooks.session() });
  }

  /** Opens the microphone early (the permission prompt belongs to the first press). */
  async prepareTx() {
    if (this.txAudioBlocker()) return;
    await this.mic.open();
    await this.mic.chooseCodec();
  }

  /** Starts TX audio once PTT is confirmed; resolves true when frames flow, false when
   * stopTx() came first (then nothing keeps running). */
  async startTx() {
    const why = this.txAudioBlocker();
    if (why) throw new Error(why);
    const run = ++this.tx.run;
    const live = () => run === this.tx.run;
    // active from the start, so that a stopTx() at any point undoes all of it
    this.tx.active = true;
    this.tx.seq = 0;
    this.tx.confirmed = false;
    let timer = null;
    try {
      await this.prepareTx();
      if (!live()) return false;
      const started = new Promise((resolve, reject) => {
        this.tx.pending = { resolve, reject };
      });
      if (this.channel.isOpen) this.sendTxStart();
      else this.channel.start();
      const timeout = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('the server did not start TX audio')), TX_START_MS);
      });
      await Promise.race([started, timeout]);
      if (!live()) return false;
      await this.mic.start((codec, bytes) => {
        if (live()) this.channel.sendBinary(buildTxAudioFrame(codec, this.tx.seq++, 48000, bytes));
      });
      return live();
    } catch (e) {
      if (!live()) return false;
      this.stopTx();
      throw e;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Stops TX audio (before PTT is released), also a start still on its way; the
   * microphone closes after its idle time. */
  stopTx() {
    this.tx.run++;
    const was = this.tx.active;
    const pending = this.tx.pending;
    this.tx.active = false;
    this.tx.pending = null;
    this.tx.confirmed = false;
    if (pending) pending.reject(new Error('TX audio stopped'));
    this.mic.stop();
    if (!was) return;
    this.channel.send({ type: 'audio_stop', direction: 'tx' });
    if (!this.listening) this.channel.stop();
  }

  /** The microphone level while transmitting (RMS, 0..1). */
  micLevel() {
    return this.tx.active ? this.mic.level : 0;
  }
}
