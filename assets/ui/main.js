// The page: loads what the server offers (info, capabilities, command catalogue, state),
// keeps the control socket and the stream feeds up, and ties the views together.
import { byId, h, toast, loadSetting, saveSetting } from './dom.js';
import { initTheme } from './theme.js';
import { Api, Control } from './conn.js';
import { Feeds } from './feeds.js';
import { applyDelta, revisionFollows, errorText, PROTO } from './protocol.js';
import { controlsFromCatalogue, commandTarget } from './catalogue.js';
import { ScopeView } from './scope.js';
import { Overlays } from './overlays.js';
import { VfoPanel } from './vfo.js';
import { ControlsView } from './controls.js';
import { TxMeters } from './meters.js';
import { AudioEngine } from './audio.js';
import { Ptt } from './ptt.js';
import { installKeyboard, toggleHelp } from './keyboard.js';
import { STEPS, stepLabel, allBands, bandOf, nextBand, tuneBy, digitCount, formatShort } from './freq.js';
import { entryPassband, clickTuneHz } from './passband.js';
import { vfoEntries, badgesOf } from './model.js';
import { StatusBar } from './status.js';
import { Tuner } from './tuning.js';

const app = {
  api: new Api(),
  info: null,
  caps: null,
  descs: [],
  state: null,
  revision: null,
  session: null,
  targetKey: null,
  meters: {},
  metersAt: 0,
  bands: [],
  lastScopeAt: 0,
  bootAttempt: 0,
};

let viewsReady = false;
const theme = initTheme(() => {
  if (viewsReady) scope.themeChanged();
});
const control = new Control(app.api, {
  hello: onHello,
  message: onMessage,
  binary: (b) => feeds.binary(b),
  close: onControlClose,
});
const feeds = new Feeds(app.api, control, {
  scope: (f) => {
    const now = performance.now();
    if (now - app.lastScopeAt > 1000) schedule();
    app.lastScopeAt = now;
    scope.push(f);
    overlays.update();
  },
  meters: (m) => {
    Object.assign(app.meters, m);
    app.metersAt = performance.now();
    renderMeters();
  },
  changed: () => schedule(),
});
const scope = new ScopeView({
  tune: (hz) => {
    const e = scopeEntry();
    if (e) tune(e.key, clickTuneHz(hz, e.rx.mode, currentStep()));
  },
  pan: (delta, done) => {
    const e = scopeEntry();
    if (!e) return;
    const cur = shownFreq(e);
    tune(e.key, done ? clickTuneHz(cur, e.rx.mode, Math.min(currentStep(), 100)) : Math.round((cur + delta) / 10) * 10);
  },
  wheel: (steps) => {
    const e = scopeEntry();
    if (e) tune(e.key, tuneBy(shownFreq(e), steps, currentStep()));
  },
  receiverChange: (r) => feeds.setScopeReceiver(r),
  overlayHit: (x, y) => overlays.hit(x, y),
});
const overlays = new Overlays(app.api, scope, {
  tune: (hz, mode) => {
    const e = scopeEntry();
    if (!e) return;
    tune(e.key, hz);
    if (mode && mode !== e.rx.mode && app.caps.modes.includes(mode)) send('set_mode', { mode, ...e.params }).catch(() => {});
  },
  post: (path, body) => app.api.post(path, body),
});
const vfo = new VfoPanel(byId('vfos'), {
  tune: (key, hz) => tune(key, hz),
  select: (key) => {
    app.targetKey = key;
    schedule();
  },
  toast: (m) => toast(m, 'bad'),
});
const controls = new ControlsView({
  rx: byId('ctl-rx'), vfo: byId('ctl-vfo'), tx: byId('ctl-tx'), cw: byId('ctl-cw'), memory: byId('ctl-memory'), scope: scope.radioGroup, other: byId('ctl-other'),
}, {
  // the scope's settings belong to the receiver it shows; others to the tuned one
  send: (desc, params) => send(desc.cmd, { ...params, ...commandTarget(desc, (targetEntry() || {}).params, scope.receiver) }),
  context: () => {
    const e = targetEntry();
    return { state: app.state, rxKey: e ? e.stateKey : 'main', mode: e ? e.rx.mode : null };
  },
});
const txMeters = new TxMeters(byId('tx-meters'));
const status = new StatusBar(() => control.channel.kick());
const tuner = new Tuner({
  entries: () => entries(),
  caps: () => app.caps,
  send: (name, params) => send(name, params),
  changed: () => schedule(),
  refused: (text) => toast(text, 'bad'),
});
viewsReady = true;
const audio = new AudioEngine(app.api, {
  status: (text, kind) => {
    const el = byId('audio-status');
    el.textContent = text;
    el.className = `note ${kind === 'warn' ? 'warn' : ''}`;
  },
  session: () => app.session,
  netMs: () => (control.rttMs === null ? 0 : control.rttMs / 2),
  caps: () => app.caps,
  changed: () => schedule(),
  txLost: (why) => ptt.audioLost(why),
});
const ptt = new Ptt(byId('ptt'), byId('ptt-sub'), {
  cmd: (name, params) => control.cmd(name, params),
  audio,
  txTimeoutS: () => (app.info && app.info.txTimeoutS) || 180,
  changed: () => schedule(),
  canKey: () => control.online && !!app.state && !!(app.state.connection || {}).radioReady,
});

// ---- loading and connection ----

async function boot() {
  setLink('connecting');
  let info;
  try {
    info = await app.api.get('/api/v1/info');
  } catch {
    retryBoot();
    return;
  }
  if (info.status === 401) {
    askToken(app.api.token ? 'That token was refused.' : '');
    return;
  }
  if (info.status !== 200) {
    retryBoot();
    return;
  }
  try {
    await loadServer(info.body);
  } catch {
    retryBoot();
    return;
  }
  app.bootAttempt = 0;
  control.start();
}

function retryBoot() {
  const delay = Math.min(10000, 500 * 1.7 ** app.bootAttempt++);
  setLink('offline', delay);
  setTimeout(boot, delay);
}

/** Reads what the server offers and (re)builds the views that depend on it. */
async function loadServer(info) {
  const [caps, cat, state] = await Promise.all([
    app.api.get('/api/v1/capabilities'),
    app.api.get('/api/v1/commands'),
    app.api.get('/api/v1/state'),
  ]);
  if (caps.status !== 200 || cat.status !== 200 || state.status !== 200) throw new Error('the server is not ready');
  const catalogue = cat.body;
  const sig = JSON.stringify([caps.body, catalogue]);
  app.info = info;
  // the socket's snapshot may be newer than this answer
  if (!app.state || !(app.revision >= state.body.revision)) {
    app.state = state.body;
    app.revision = state.body.revision;
  }
  if (sig !== app.serverSig) {
    app.serverSig = sig;
    app.caps = caps.body;
    buildViews(catalogue);
  }
  // the optional services (overlays) of this server: read at boot and after every reconnect
  overlays.setServices(info.services || null);
  schedule();
}

function buildViews(catalogue) {
  const caps = app.caps;
  byId('model').textContent = caps.model || '';
  document.title = `rigweb · ${caps.model || 'radio'}`;
  app.bands = allBands(caps);
  vfo.setDigitCount(digitCount(Math.max(...(caps.freqRanges || []).map((r) => r.end), 1)));
  // mode, filter, step, band buttons
  byId('modes').replaceChildren(...(caps.modes || []).map((m) => h('button', { type: 'button', text: m, dataset: { mode: m }, on: { click: () => setMode(m) } })));
  byId('filters').replaceChildren(...(caps.filters || []).map((f, i) => h('button', { type: 'button', dataset: { filter: f }, on: { click: () => send('set_filter', { filter: f, ...targetParams() }) } }, f, h('span', { class: 'w', dataset: { i: String(i) } }))));
  byId('bands').replaceChildren(...app.bands.map((b) => h('button', { type: 'button', text: b.name, dataset: { band: b.name }, title: `${formatShort(b.start)} – ${formatShort(b.end)}`, on: { click: () => goBand(b) } })));
  byId('card-band').hidden = !app.bands.length;
  const stepSel = byId('step');
  stepSel.replaceChildren(h('option', { value: 'auto', text: 'Auto' }), ...STEPS.map((s) => h('option', { value: String(s), text: stepLabel(s) })));
  stepSel.value = tuner.step ? String(tuner.step) : 'auto';
  stepSel.onchange = () => setStep(stepSel.value === 'auto' ? null : +stepSel.value);
  // operating controls
  app.descs = controlsFromCatalogue(catalogue);
  const used = controls.build(app.descs, caps);
  for (const g of ['rx', 'vfo', 'cw', 'memory', 'other']) byId(`card-${g}`).hidden = !used.has(g);
  scope.radioGroup.hidden = !used.has('scope');
  txMeters.build(caps);
  feeds.setMeterNames(caps.meterIds);
  byId('card-tx').hidden = !caps.hasTx && !used.has('tx');
  byId('ptt').disabled = !caps.hasTx;
  byId('card-audio').hidden = !caps.hasAudio;
  byId('listen').hidden = !caps.hasAudio;
  const names = caps.receivers > 1 ? ['MAIN', 'SUB'] : [];
  scope.setReceivers(names, 0);
  if (!caps.hasScope) scope.setNote('This radio has no spectrum scope.');
  byId('audio-secure').hidden = !(caps.hasAudio && !audio.support.secure);
  byId('audio-secure').textContent = 'This page came over plain HTTP from another machine, so audio plays as PCM16: browsers keep WebCodecs and AudioWorklet for secure pages.';
}

function onHello(m) {
  if (m.proto !== PROTO) {
    status.banner(`This page speaks protocol ${PROTO} but the server speaks ${m.proto}: reload the page to get the matching one.`, 'Reload', () => location.reload(), true);
  } else {
    status.hideBanner();
  }
  app.session = m.session || null;
  setLink('online');
  // the server may have restarted with another radio or version
  app.api.get('/api/v1/info').then((r) => (r.status === 200 ? loadServer(r.body) : null)).catch(() => {});
  feeds.controlReady();
}

function onControlClose(info) {
  ptt.connectionLost();
  if (!info.opened) {
    // refused before the upgrade: a token problem shows as 401 on the HTTP routes
    app.api.get('/api/v1/info').then((r) => {
      if (r.status === 401) {
        control.channel.stop();
        askToken('The token was refused.');
      }
    }).catch(() => {});
  }
  setLink('offline', Math.max(0, control.channel.retryAt - performance.now()));
}

function onMessage(m) {
  if (m.type === 'state_update' && m.data) {
    const d = m.data;
    if (d.type === 'full') {
      app.state = d.data;
      app.revision = d.revision;
    } else if (d.type === 'delta' && app.state) {
      if (!revisionFollows(app.revision, d.revision)) {
        feeds.subscribe();
        return;
      }
      applyDelta(app.state, d.changed, d.removed);
      app.revision = d.revision;
    }
    if (app.state && app.state.ptt === false && ptt.phase === 'live') ptt.serverReleased(null);
    schedule();
  } else if (m.type === 'event') {
    onEvent(m.name, m.data || {});
  } else if (m.type === 'error') {
    toast(`Server: ${m.message || m.error}`, 'bad');
  }
}

function onEvent(name, d) {
  if (name === 'tx_timeout') {
    ptt.serverReleased(`The server's transmit timeout released PTT after ${d.after_s || '?'} s.`);
  } else if (name === 'ptt' && d.state === false) {
    ptt.serverReleased(null);
  } else if (name === 'dx_spot') {
    overlays.onSpot(d);
  } else if (name === 'command_failed') {
    toast(`${d.name}: ${d.message || d.error}`, 'bad');
  } else if (name === 'smeter' && performance.now() - app.metersAt > 1500) {
    app.meters[d.receiver === 1 ? 'smeter_sub' : 'smeter'] = d.value;
    renderMeters();
  }
}

function askToken(why) {
  setLink('auth');
  // Escape closes the dialog: the banner offers it again
  status.banner('This server needs an access token.', 'Enter token', () => askToken(''), true);
  const dlg = byId('token-dlg');
  const err = byId('token-error');
  err.hidden = !why;
  err.textContent = why || '';
  if (!dlg.open) dlg.showModal();
  byId('token-input').focus();
}

byId('token-form').addEventListener('submit', () => {
  app.api.setToken(byId('token-input').value.trim());
  byId('token-input').value = '';
  status.hideBanner();
  boot();
});

// ---- status, banner ----

function setLink(state, retryMs) {
  status.setLink(state, retryMs);
  schedule();
}

// ---- tuning and commands ----

function send(name, params) {
  return control.cmd(name, params).catch((e) => {
    toast(`${name}: ${errorText(e)}`, 'bad');
    throw e;
  });
}

function entries() {
  return app.state && app.caps ? vfoEntries(app.state, app.caps) : [];
}

function targetEntry() {
  const list = entries();
  return list.find((e) => e.key === app.targetKey) || list[0] || null;
}

function targetParams() {
  const e = targetEntry();
  return e ? e.params : {};
}

/** The VFO whose signals the scope shows (clicks on the scope tune it). */
function scopeEntry() {
  const list = entries();
  const rx = scope.receiver;
  return list.find((e) => e.receiver === rx && e.isActive) || list.find((e) => e.receiver === rx) || list[0] || null;
}

function shownFreq(e) {
  return tuner.shown(e);
}

function currentStep() {
  const e = targetEntry();
  return tuner.stepFor(e ? e.rx.mode : null);
}

function setStep(s) {
  tuner.setStep(s);
  byId('step').value = s ? String(s) : 'auto';
}

function tune(key, hz) {
  tuner.tune(key, hz);
}

function setMode(mode) {
  const e = targetEntry();
  if (e) send('set_mode', { mode, ...e.params }).catch(() => {});
}

function goBand(b) {
  if (Number.isInteger(b.bsrCode)) send('set_band', { band: b.bsrCode }).catch(() => {});
  else {
    const e = targetEntry();
    if (e) tune(e.key, b.default || b.start);
  }
}

// ---- rendering ----

let renderPending = false;
function schedule() {
  if (renderPending) return;
  renderPending = true;
  requestAnimationFrame(render);
}

function render() {
  renderPending = false;
  const st = app.state;
  const caps = app.caps;
  status.render(app.state, audio);
  if (!st || !caps) return;
  const list = entries();
  if (!list.some((e) => e.key === app.targetKey)) app.targetKey = list.length ? list[0].key : null;
  tuner.expire(list);
  vfo.update(list.map((e) => ({
    key: e.key, name: e.name, cls: e.cls, freqHz: shownFreq(e), badges: badgesOf(e, st, caps), meter: e.meter,
  })), app.targetKey);
  const t = targetEntry();
  for (const b of byId('modes').children) b.setAttribute('aria-pressed', String(!!t && b.dataset.mode === t.rx.mode));
  for (const b of byId('filters').children) {
    const i = +b.lastElementChild.dataset.i;
    b.setAttribute('aria-pressed', String(!!t && t.rx.filter === i + 1));
    const w = t && caps.filterWidths && caps.filterWidths[t.rx.mode] ? caps.filterWidths[t.rx.mode][i] : null;
    b.lastElementChild.textContent = w ? (w >= 1000 ? `${w / 1000}k` : `${w}`) : '';
  }
  const band = t ? bandOf(app.bands, shownFreq(t)) : null;
  for (const b of byId('bands').children) b.setAttribute('aria-pressed', String(!!band && b.dataset.band === band.name));
  if (!tuner.step) byId('step').options[0].textContent = `Auto (${stepLabel(currentStep())})`;
  controls.update();
  scope.setPassbands(list.filter((e) => e.rx && Number.isFinite(e.rx.freqHz)).map((e) => {
    const pb = entryPassband(e, shownFreq(e), st, caps);
    return { ...pb, dial: shownFreq(e), color: e.cls === 'sub' ? scope.colors.sub : scope.colors.accent, label: e.short };
  }));
  const se = scopeEntry();
  overlays.tuned(se ? shownFreq(se) : null);
  renderScopeNote(st);
  renderTx(st);
  renderMeters();
}

function renderScopeNote(st) {
  if (!app.caps.hasScope) return;
  const conn = st.connection || {};
  let note = null;
  if (status.link !== 'online' && !scope.range) note = 'Connecting to the server…';
  else if (st.powerOn === false) note = 'The radio is switched off.';
  else if (!conn.radioReady) note = `Radio: ${(st.radioDetail && st.radioDetail.message) || (st.radioDetail && st.radioDetail.status) || 'not ready'}`;
  else if (performance.now() - app.lastScopeAt > 3000) note = 'Waiting for the scope…';
  scope.setNote(note);
}

function renderTx(st) {
  // without the server the last known PTT state is stale (the server unkeys a lost client)
  const on = st.ptt === true && status.link === 'online';
  document.body.classList.toggle('tx', on);
  byId('onair').hidden = !on;
  byId('onair-time').textContent = on && ptt.active ? ptt.airTime() : '';
  const note = byId('tx-note');
  const why = app.caps.hasTx ? audio.txAudioBlocker() : null;
  note.hidden = !why;
  if (why) note.textContent = why;
}

let metersRaf = false;
function renderMeters() {
  if (metersRaf) return;
  metersRaf = true;
  requestAnimationFrame(() => {
    metersRaf = false;
    const m = app.meters;
    for (const e of entries()) {
      if (e.meter) vfo.smeter(e.key, m[e.meter] === undefined ? null : m[e.meter]);
    }
    txMeters.update(m, !!(app.state && app.state.ptt));
  });
}

// ---- buttons, keyboard ----

byId('theme-btn').addEventListener('click', () => toast(`Theme: ${theme.cycle()}`, 'info', 1500));
byId('help-btn').addEventListener('click', toggleHelp);
byId('listen').addEventListener('click', () => toggleListen());
byId('volume').addEventListener('input', (ev) => {
  audio.setVolume(+ev.target.value / 100);
  saveSetting('volume', +ev.target.value);
});
byId('mute').addEventListener('click', () => toggleMute());
byId('volume').value = loadSetting('volume', 80);
audio.setVolume(byId('volume').value / 100);

function toggleListen() {
  if (audio.listening) audio.stopListening();
  else audio.listen().catch((e) => toast(`Audio: ${e.message}`, 'bad'));
  schedule();
}

function toggleMute() {
  audio.setMuted(!audio.muted);
  byId('mute').setAttribute('aria-pressed', String(audio.muted));
}

function bandStep(dir) {
  const t = targetEntry();
  if (!t) return;
  const b = nextBand(app.bands, shownFreq(t), dir);
  if (b) goBand(b);
}

function modeStep(dir) {
  const t = targetEntry();
  const modes = (app.caps && app.caps.modes) || [];
  if (!t || !modes.length) return;
  const i = modes.indexOf(t.rx.mode);
  setMode(modes[(i + dir + modes.length) % modes.length]);
}

function tuneSteps(n) {
  const t = targetEntry();
  if (t) tune(t.key, tuneBy(shownFreq(t), n, currentStep()));
}

installKeyboard({
  tune_up: () => tuneSteps(1),
  tune_down: () => tuneSteps(-1),
  tune_up_10: () => tuneSteps(10),
  tune_down_10: () => tuneSteps(-10),
  step_up: () => setStep(STEPS[Math.min(STEPS.length - 1, STEPS.indexOf(currentStep()) + 1)] || currentStep()),
  step_down: () => setStep(STEPS[Math.max(0, STEPS.indexOf(currentStep()) - 1)] || currentStep()),
  band_up: () => bandStep(1),
  band_down: () => bandStep(-1),
  mode_next: () => modeStep(1),
  mode_prev: () => modeStep(-1),
  freq_entry: () => {
    const t = targetEntry();
    if (t) vfo.enterFrequency(t.key);
  },
  rx_toggle: () => {
    const list = entries();
    if (list.length < 2) return;
    const i = list.findIndex((e) => e.key === app.targetKey);
    app.targetKey = list[(i + 1) % list.length].key;
    schedule();
  },
  ptt: (down) => {
    if (!app.caps || !app.caps.hasTx) return;
    if (down) ptt.press('key');
    else if (ptt.source === 'key') ptt.release('key up');
  },
  audio: () => toggleListen(),
  mute: () => toggleMute(),
  colormap: () => toast(`Colour map: ${scope.nextColormap()}`, 'info', 1500),
  theme: () => toast(`Theme: ${theme.cycle()}`, 'info', 1500),
  help: () => toggleHelp(),
}, (ev) => vfo.handleKey(ev));


setInterval(() => {
  // pending tunes expire, the audio readout moves, a silent scope is noticed
  if (tuner.busy || audio.listening || status.link === 'offline' || (app.state && performance.now() - app.lastScopeAt > 3000)) schedule();
}, 500);

/** Figures for diagnostics and the browser tests. */
window.rigweb = {
  get state() { return app.state; },
  get link() { return status.link; },
  get feeds() { return { ...feeds.via }; },
  get catalogue() { return app.descs.map((d) => d.cmd); },
  get scope() { return { ...scope.stats, range: scope.range, receiver: scope.receiver }; },
  waterfall: () => scope.waterfall.sample(),
  peakHz: () => scope.peakHz(),
  get meters() { return { ...app.meters }; },
  get audio() { return { ...audio.stats, listening: audio.listening, support: audio.support }; },
  get ptt() { return { phase: ptt.phase, latched: ptt.latched, txTimeoutS: ptt.hooks.txTimeoutS() }; },
  get overlays() { return overlays.snapshot(); },
  /** The parts themselves, for diagnostics from the console. */
  parts: { audio, feeds, control, scope, overlays, ptt },
};

boot();
