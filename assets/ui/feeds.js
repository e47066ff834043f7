// Where scope and meter frames come from: the dedicated channels `/api/v1/scope` and
// `/api/v1/meters` when the server has them, else the control socket's `scope` and
// `meters` streams. Probed after every (re)connect of the control socket, which is then
// subscribed (interface.md §3 rule 4) once the probes have settled. A hidden tab takes
// no frames at all.
import { Channel } from './conn.js';
import { frameType, parseScopeFrame, parseMeterFrame, FRAME_SCOPE, FRAME_METERS } from './frames.js';

/** The longest wait for the probes before subscribing anyway, ms. */
const PROBE_WAIT_MS = 3000;
/** Scope frames per second asked for. */
const SCOPE_FPS = 30;
/** Meter frames per second asked for. */
const METER_FPS = 10;

export class Feeds {
  /** `sink`: `scope(frame)`, `meters({name: raw})`, `changed()`. */
  constructor(api, control, sink) {
    this.control = control;
    this.sink = sink;
    this.scopeRx = 0;
    this.via = { scope: null, meters: null };
    this.meterNames = new Map();
    this.visible = !document.hidden;
    this.waitTimer = null;
    this.subscribed = false;
    this.scopeCh = new Channel('scope', () => api.wsUrl('/api/v1/scope', { fps: SCOPE_FPS, receiver: this.scopeRx }), {
      open: () => this.settle('scope', 'channel'),
      binary: (b) => this.binary(b),
      unavailable: () => this.settle('scope', 'control'),
    }, { probe: true });
    this.metersCh = new Channel('meters', () => api.wsUrl('/api/v1/meters'), {
      open: (ch) => {
        ch.send({ type: 'meters_start', fps: METER_FPS });
        this.settle('meters', 'channel');
      },
      binary: (b) => this.binary(b),
      unavailable: () => this.settle('meters', 'control'),
    }, { probe: true });
    document.addEventListener('visibilitychange', () => this.setVisible(!document.hidden));
  }

  /** Binary frames from any socket. */
  binary(buf) {
    const t = frameType(buf);
    if (t === FRAME_SCOPE) {
      const f = parseScopeFrame(buf);
      if (f) this.sink.scope(f);
    } else if (t === FRAME_METERS) {
      const f = parseMeterFrame(buf, this.meterNames);
      if (!f) return;
      const m = {};
      for (const r of f.readings) m[r.name] = r.value;
      this.sink.meters(m);
    }
  }

  /** The names of the meter frame's ids: `meterIds` of the capabilities (`{name: id}`). */
  setMeterNames(meterIds) {
    this.meterNames = new Map(Object.entries(meterIds || {}).map(([name, id]) => [id, name]));
  }

  /** The control socket said hello: probe the channels, then subscribe. */
  controlReady() {
    this.via = { scope: null, meters: null };
    this.subscribed = false;
    clearTimeout(this.waitTimer);
    this.waitTimer = setTimeout(() => this.subscribe(), PROBE_WAIT_MS);
    if (this.visible) {
      this.scopeCh.reprobe();
      this.metersCh.reprobe();
    } else {
      this.subscribe();
    }
  }

  settle(kind, via) {
    const changed = this.via[kind] !== via;
    this.via[kind] = via;
    this.sink.changed();
    if (!this.control.online) return;
    if (this.via.scope && this.via.meters && (!this.subscribed || changed)) this.subscribe();
  }

  /** (Re)subscribes the control socket: events, plus the streams no channel carries. */
  subscribe() {
    clearTimeout(this.waitTimer);
    if (!this.control.online) return;
    const streams = ['events'];
    if (this.visible) {
      if (this.via.scope !== 'channel') streams.push('scope');
      if (this.via.meters !== 'channel') streams.push('meters');
    }
    this.subscribed = true;
    this.control.subscribe(streams, { scope_fps: SCOPE_FPS, scope_receiver: this.scopeRx });
  }

  /** Shows receiver `r`'s scope (1 = SUB on two-receiver radios). */
  setScopeReceiver(r) {
    this.scopeRx = r;
    if (this.via.scope === 'channel') {
      this.scopeCh.send({ type: 'subscribe', scope_fps: SCOPE_FPS, scope_receiver: r });
    } else {
      this.subscribe();
    }
  }

  /** Closes the stream channels (the control socket is gone for good). */
  stop() {
    clearTimeout(this.waitTimer);
    this.scopeCh.stop();
    this.metersCh.stop();
  }

  setVisible(v) {
    if (v === this.visible) return;
    this.visible = v;
    if (!v) {
      this.scopeCh.stop();
      this.metersCh.stop();
      this.subscribe();
    } else if (this.control.online) {
      this.controlReady();
    }
  }
}
