// Talking to the server: HTTP with the bearer token, and WebSockets that reconnect with
// backoff. A stream channel that the server does not have (its upgrade is refused, e.g.
// 501 before the stream work is merged) is reported as unavailable so the page can fall
// back to the control socket's streams.
import { loadSetting, saveSetting } from './dom.js';
import { backoffMs, wsUrl } from './protocol.js';

/** HTTP access to `/api/v1/*` with the stored token. */
export class Api {
  constructor() {
    this.token = loadSetting('token', '');
  }

  setToken(t) {
    this.token = t;
    saveSetting('token', t);
  }

  /** GET `path`: `{status, body}` (body parsed as JSON when it is). Throws on network
   * failure. */
  async get(path) {
    const headers = {};
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    const r = await fetch(path, { headers, cache: 'no-store' });
    let body = null;
    const text = await r.text();
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = text;
    }
    return { status: r.status, body };
  }

  /** POST `path` with a JSON `body`: `{status, body}` as `get`. Throws on network failure. */
  async post(path, body) {
    const headers = { 'Content-Type': 'application/json' };
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    const r = await fetch(path, { method: 'POST', headers, body: JSON.stringify(body), cache: 'no-store' });
    const text = await r.text();
    let parsed = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = text;
    }
    return { status: r.status, body: parsed };
  }

  /** The URL of a WebSocket route with the token. */
  wsUrl(path, params) {
    return wsUrl(window.location, path, this.token, params);
  }
}

/** One WebSocket route, reopened with backoff after it drops. Handlers: `open(ch)`,
 * `text(msg)`, `binary(ArrayBuffer)`, `close({everOpened, code, reason})`,
 * `unavailable()` (a probe whose first upgrade failed: no retries then). */
export class Channel {
  constructor(name, urlFn, handlers, { probe = false } = {}) {
    this.name = name;
    this.urlFn = urlFn;
    this.handlers = handlers;
    this.probe = probe;
    this.ws = null;
    this.attempt = 0;
    this.timer = null;
    this.wanted = false;
    this.everOpened = false;
    this.state = 'idle';
    this.retryAt = 0;
  }

  get isOpen() {
    return !!this.ws && this.ws.readyState === WebSocket.OPEN;
  }

  start() {
    this.wanted = true;
    if (!this.ws && !this.timer) this.connect();
  }

  stop() {
    this.wanted = false;
    clearTimeout(this.timer);
    this.timer = null;
    if (this.ws) {
      const ws = this.ws;
      this.ws = null;
      ws.onclose = null;
      ws.close(1000);
    }
    this.state = 'idle';
  }

  /** Starts over as a probe: a server that lacked the route may have it now. */
  reprobe() {
    this.stop();
    this.everOpened = false;
    this.attempt = 0;
    this.start();
  }

  /** Reconnects now (skipping the rest of a backoff wait). */
  kick() {
    if (!this.wanted) return;
    clearTimeout(this.timer);
    this.timer = null;
    if (!this.ws) this.connect();
  }

  connect() {
    this.state = 'connecting';
    let opened = false;
    let ws;
    try {
      ws = new WebSocket(this.urlFn());
    } catch {
      this.retryLater();
      return;
    }
    ws.binaryType = 'arraybuffer';
    this.ws = ws;
    ws.onopen = () => {
      opened = true;
      this.everOpened = true;
      this.attempt = 0;
      this.state = 'open';
      if (this.handlers.open) this.handlers.open(this);
    };
    ws.onmessage = (ev) => {
      if (typeof ev.data === 'string') {
        let msg;
        try {
          msg = JSON.parse(ev.data);
        } catch {
          return;
        }
        if (this.handlers.text) this.handlers.text(msg);
      } else if (this.handlers.binary) {
        this.handlers.binary(ev.data);
      }
    };
    ws.onclose = (ev) => {
      if (this.ws !== ws) return;
      this.ws = null;
      const unavailable = this.wanted && !opened && this.probe && !this.everOpened;
      if (unavailable) this.state = 'unavailable';
      else if (this.wanted) this.retryLater();
      if (this.handlers.close) this.handlers.close({ opened, code: ev.code, reason: ev.reason });
      if (unavailable && this.handlers.unavailable) this.handlers.unavailable();
    };
  }

  /** Schedules the next attempt after the backoff delay. */
  retryLater() {
    const delay = backoffMs(this.attempt++, Math.random());
    this.state = 'waiting';
    this.retryAt = performance.now() + delay;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.wanted) this.connect();
    }, delay);
  }

  /** Sends a JSON message; false when the socket is not open. */
  send(obj) {
    if (!this.isOpen) return false;
    this.ws.send(JSON.stringify(obj));
    return true;
  }

  /** Sends a binary frame; false when not open or when the socket has `maxBuffered`
   * bytes queued already (a slow link: drop rather than delay). */
  sendBinary(buf, maxBuffered = 64 * 1024) {
    if (!this.isOpen || this.ws.bufferedAmount > maxBuffered) return false;
    this.ws.send(buf);
    return true;
  }
}

/** The control socket (`/api/v1/ws`): commands with promised responses. */
export class Control {
  constructor(api, handlers) {
    this.api = api;
    this.handlers = handlers;
    this.nextId = 1;
    this.pending = new Map();
    this.hello = null;
    this.rttMs = null;
    this.channel = new Channel('control', () => api.wsUrl('/api/v1/ws'), {
      open: () => {},
      text: (m) => this.onText(m),
      binary: (b) => handlers.binary(b),
      close: (info) => {
        this.hello = null;
        for (const p of this.pending.values()) p.reject({ error: 'disconnected', message: 'the connection to the server was lost' });
        this.pending.clear();
        handlers.close(info);
      },
    });
  }

  start() {
    this.channel.start();
  }

  get online() {
    return this.channel.isOpen && !!this.hello;
  }

  onText(m) {
    if (m.type === 'hello') {
      this.hello = m;
      this.handlers.hello(m);
    } else if (m.type === 'response' && this.pending.has(String(m.id))) {
      const p = this.pending.get(String(m.id));
      this.pending.delete(String(m.id));
      clearTimeout(p.timer);
      const rtt = performance.now() - p.sent;
      this.rttMs = this.rttMs === null ? rtt : Math.min(rtt, this.rttMs * 1.05);
      if (m.ok) p.resolve(m.result || {});
      else p.reject({ error: m.error, message: m.message });
    } else {
      this.handlers.message(m);
    }
  }

  /** Sends a command; resolves with its result, rejects with `{error, message}`. */
  cmd(name, params = {}, timeoutMs = 12000) {
    return new Promise((resolve, reject) => {
      if (!this.online) {
        reject({ error: 'disconnected', message: 'not connected to the server' });
        return;
      }
      const id = `c${this.nextId++}`;
      const timer = setTimeout(() => {
        if (this.pending.delete(id)) reject({ error: 'timeout', message: `no answer to ${name}` });
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer, sent: performance.now() });
      this.channel.send({ type: 'cmd', id, name, params });
    });
  }

  /** Sends `subscribe` (the server answers with a fresh snapshot). */
  subscribe(streams, extra = {}) {
    return this.channel.send({ type: 'subscribe', id: `s${this.nextId++}`, streams, ...extra });
  }
}
