// The microphone for transmitting: captured without echo cancellation, noise
// suppression or automatic gain (the radio's own processing and the operator's ears
// decide), cut into 20 ms frames at 48 kHz and encoded with WebCodecs' Opus encoder,
// or sent as PCM16 where there is none.
import { floatToPcm16, CODEC_OPUS, CODEC_PCM16 } from './frames.js';
import { loadWorklets } from './worklets.js';

/** How long the microphone stays open after the last transmission, ms. */
const MIC_IDLE_MS = 30000;

export class MicEncoder {
  constructor(getContext, support) {
    this.getContext = getContext;
    this.support = support;
    this.stream = null;
    this.node = null;
    this.source = null;
    this.encoder = null;
    this.onPacket = null;
    this.codec = null;
    this.closeTimer = null;
    this.timestamp = 0;
    this.level = 0;
    /** How long the microphone stays open after a transmission, ms. */
    this.idleMs = MIC_IDLE_MS;
    // start()/stop() generation: a start overtaken by a stop gives up
    this.run = 0;
    // the getUserMedia in flight, and whether it was closed before it answered
    this.opening = null;
    this.dropOpening = false;
  }

  /** The codec to send: Opus when an encoder for it exists here. */
  async chooseCodec() {
    if (this.codec) return this.codec;
    this.codec = 'pcm16';
    if (this.support.encoder) {
      try {
        const r = await AudioEncoder.isConfigSupported({ codec: 'opus', sampleRate: 48000, numberOfChannels: 1, bitrate: 32000 });
        if (r.supported) this.codec = 'opus';
      } catch {
        // keep PCM16
      }
    }
    return this.codec;
  }

  /** Opens the microphone (asking the browser's permission the first time). Calls while
   * the browser asks share that one request. */
  async open() {
    clearTimeout(this.closeTimer);
    this.closeTimer = null;
    this.dropOpening = false;
    if (this.stream && this.stream.active) return;
    if (!this.support.mic) throw new Error('no microphone access on this page');
    if (!this.opening) {
      this.opening = this.openStream().finally(() => {
        this.opening = null;
      });
    }
    await this.opening;
  }

  async openStream() {
    const ctx = await this.getContext();
    await loadWorklets(ctx);
    if (navigator.audioSession) navigator.audioSession.type = 'play-and-record';
    const stream = await navigator.mediaDevices.getUserMedia({
      audio: { echoCancellation: false, noiseSuppression: false, autoGainControl: false, channelCount: 1 },
      video: false,
    });
    if (this.dropOpening) {
      // closed while the browser asked: let go of the microphone at once
      for (const t of stream.getTracks()) t.stop();
      throw new Error('the microphone was closed while it opened');
    }
    this.stream = stream;
    this.source = ctx.createMediaStreamSource(stream);
    this.node = new AudioWorkletNode(ctx, 'rigweb-tx', { numberOfInputs: 1, numberOfOutputs: 1, outputChannelCount: [1] });
    const sink = ctx.createGain();
    sink.gain.value = 0;
    this.source.connect(this.node).connect(sink).connect(ctx.destination);
    this.node.port.onmessage = (e) => this.onFrame(e.data);
  }

  /** Starts sending packets to `onPacket(codecByte, bytes)`; false when a stop() came
   * first (nothing is sent then). */
  async start(onPacket) {
    const run = ++this.run;
    await this.open();
    const codec = await this.chooseCodec();
    if (run !== this.run) return false;
    this.onPacket = onPacket;
    if (codec === 'opus' && !this.encoder) {
      this.encoder = new AudioEncoder({
        output: (chunk) => {
          const b = new Uint8Array(chunk.byteLength);
          chunk.copyTo(b);
          if (this.onPacket) this.onPacket(CODEC_OPUS, b);
        },
        error: () => {
          this.encoder = null;
          this.codec = 'pcm16';
        },
      });
      this.encoder.configure({ codec: 'opus', sampleRate: 48000, numberOfChannels: 1, bitrate: 32000 });
    }
    return true;
  }

  onFrame(f32) {
    let sum = 0;
    for (let i = 0; i < f32.length; i++) sum += f32[i] * f32[i];
    this.level = Math.sqrt(sum / f32.length);
    if (!this.onPacket) return;
    if (this.codec === 'opus' && this.encoder && this.encoder.state === 'configured') {
      const ad = new AudioData({ format: 'f32-planar', sampleRate: 48000, numberOfFrames: f32.length, numberOfChannels: 1, timestamp: this.timestamp, data: f32 });
      this.timestamp += 20000;
      this.encoder.encode(ad);
      ad.close();
    } else {
      this.onPacket(CODEC_PCM16, floatToPcm16(f32));
    }
  }

  /** Stops sending (a start() still on its way gives up); the microphone closes after
   * `idleMs`. */
  stop() {
    this.run++;
    this.onPacket = null;
    clearTimeout(this.closeTimer);
    this.closeTimer = setTimeout(() => this.close(), this.idleMs);
  }

  /** Closes the microphone now (one still opening is let go of when it answers). */
  close() {
    clearTimeout(this.closeTimer);
    this.closeTimer = null;
    this.run++;
    this.onPacket = null;
    if (this.opening) this.dropOpening = true;
    if (this.stream) for (const t of this.stream.getTracks()) t.stop();
    if (this.node) this.node.disconnect();
    if (this.source) this.source.disconnect();
    if (this.encoder && this.encoder.state !== 'closed') this.encoder.close();
    this.stream = null;
    this.node = null;
    this.source = null;
    this.encoder = null;
  }
}
