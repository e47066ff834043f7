// The top bar and the banner under it: link state (with the retry countdown), the
// radio's status, the RX audio latency readout, a UTC clock; banners for a lost
// connection, a server that speaks another protocol version or refuses this page's
// origin; and the token prompt.
import { byId, h, setText } from './dom.js';
import { radioStatus } from './model.js';

export class StatusBar {
  /** `hooks`: `retry()` reconnects at once (the banner's button), `changed()` asks for a
   * redraw, `token(text)` takes a token the operator entered. */
  constructor(hooks) {
    this.hooks = hooks;
    this.retry = hooks.retry;
    this.link = 'connecting';
    byId('token-form').addEventListener('submit', () => {
      const t = byId('token-input').value.trim();
      byId('token-input').value = '';
      this.hideBanner();
      hooks.token(t);
    });
    const tick = () => {
      const d = new Date();
      setText(byId('utc'), `${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')} UTC`);
    };
    tick();
    setInterval(tick, 10000);
  }

  /** `online`, `connecting`, `offline` (with the wait before the next try), `auth` or
   * `refused` (the server refuses this page's origin: no retries). */
  setLink(state, retryMs) {
    this.link = state;
    this.retryAt = retryMs ? performance.now() + retryMs : 0;
    const el = byId('link-pill');
    el.className = `pill ${state === 'online' ? 'ok' : state === 'connecting' ? 'warn' : 'bad'}`;
    this.linkText();
    if (state === 'offline') this.banner('Lost the connection to the server. Reconnecting by itself…', 'Retry now', this.retry, false);
    this.hooks.changed();
  }

  /** Asks for the access token (`why`: what was wrong with the last one). */
  askToken(why) {
    this.setLink('auth');
    // Escape closes the dialog: the banner offers it again
    this.banner('This server needs an access token.', 'Enter token', () => this.askToken(''), true);
    const dlg = byId('token-dlg');
    const err = byId('token-error');
    err.hidden = !why;
    err.textContent = why || '';
    if (!dlg.open) dlg.showModal();
    byId('token-input').focus();
  }

  /** The server refuses this page (`message`, which names the remedy): no retries
   * until the operator presses Try again (`again()` reconnects). */
  refused(message, again) {
    this.setLink('refused');
    this.banner(`The server refused this page: ${message}`, 'Try again', () => {
      this.hideBanner();
      this.setLink('connecting');
      again();
    }, true);
  }

  linkText() {
    const left = Math.ceil((this.retryAt - performance.now()) / 1000);
    setText(byId('link-pill'), { online: 'online', connecting: 'connecting…', auth: 'token needed', refused: 'refused' }[this.link]
      || `offline${left > 0 ? ` · retry ${left} s` : ''}`);
  }

  banner(text, action, fn, bad) {
    const b = byId('banner');
    b.replaceChildren(h('span', { text }), action ? h('button', { type: 'button', text: action, on: { click: fn } }) : '');
    b.className = `banner${bad ? ' bad' : ''}`;
    b.hidden = false;
  }

  hideBanner() {
    byId('banner').hidden = true;
  }

  /** The radio pill, the audio pill and the Listen button; `live`: readings are
   * arriving (else the audio latency is not shown as if it were current). */
  render(state, audio, live) {
    if (this.link === 'offline') this.linkText();
    const pill = byId('radio-pill');
    const rs = radioStatus(state, this.link === 'online');
    setText(pill, rs.text);
    pill.title = rs.title;
    pill.className = `pill ${rs.level}`;
    const ap = byId('audio-pill');
    const st = audio.stats;
    ap.hidden = !audio.listening;
    if (audio.listening && !live) {
      setText(ap, 'RX audio —');
      ap.className = 'pill stale';
      ap.title = 'No live audio: the server or the radio is not connected';
    } else if (audio.listening) {
      setText(ap, st.latencyMs === null ? 'audio …' : `RX ${st.latencyMs} ms`);
      ap.className = 'pill plain';
      ap.title = `RX audio: ${st.codec || '?'}, buffer ${Math.round(st.avgMs || 0)} ms (target ${Math.round(st.targetMs || 0)} ms), ${st.underruns} underruns, ${st.lost} frames lost`;
    }
    byId('listen').setAttribute('aria-pressed', String(audio.listening));
    setText(byId('listen-label'), audio.listening ? 'Listening' : 'Listen');
  }
}
