// The page: loads what the server offers (info, capabilities, command catalogue, state),
// keeps the control socket and the stream feeds up, and ties the views together.
import { byId, setText, toast } from './dom.js';
import { initTheme } from './theme.js';
import { Api, Control } from './conn.js';
import { Feeds } from './feeds.js';
import { applyDelta, revisionFollows, errorText, PROTO } from './protocol.js';
import { controlsFromCatalogue, commandTarget, memoryCommands } from './catalogue.js';
import { ScopeView } from './scope.js';
import { Overlays } from './overlays.js';
import { VfoPanel } from './vfo.js';
import { ControlsView } from './controls.js';
import { TxMeters } from './meters.js';
import { AudioEngine } from './audio.js';
import { Ptt } from './ptt.js';
import { installKeyboard, toggleHelp } from './keyboard.js';
import { STEPS, allBands, nextBand, tuneBy, digitCount } from './freq.js';
import { entryPassband, clickTuneHz } from './passband.js';
import { vfoEntries, badgesOf, isVoiceMode } from './model.js';
import { StatusBar } from './status.js';
import { Tuner } from './tuning.js';
import { MemoryPanel } from './memory.js';
import { TuningPanels } from './panels.js';
import { Sidetone } from './sidetone.js';
import { AudioButtons } from './audio_buttons.js';

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
  /** The receiver of the newest scope frame. */
  scopeRx: 0,
  /** When the last S-meter event arrived (servers without a meter stream). */
  smeterEventAt: 0,
  /** Whether the meters showed live readings at the last look. */
  metersLive: false,
  bootAttempt: 0,
  /** The server was just read by `boot()`: the first hello need not read it again. */
  freshlyLoaded: false,
};

/** Meter readings older than this are not live (the server or the radio went quiet). */
const METER_STALE_MS = 2500;

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
    // a silent scope resumed, or frames of the other receiver: redraw what depends on it
    if (now - app.lastScopeAt > 1000 || f.receiver !== app.scopeRx) schedule();
    app.lastScopeAt = now;
    app.scopeRx = f.receiver;
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
  receiverChange: (r) => {
    feeds.setScopeReceiver(r);
    // the toolbar shows the newly chosen receiver's scope settings at once
    controls.releaseHolds('scope');
    schedule();
  },
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
  rx: byId('ctl-rx'), vfo: byId('ctl-vfo'), tx: byId('ctl-tx'), cw: byId('ctl-cw'), scope: scope.radioGroup, other: byId('ctl-other'),
}, {
  // the scope's settings belong to the receiver it shows; others to the tuned one
  send: (desc, params) => send(desc.cmd, { ...params, ...commandTarget(desc, (targetEntry() || {}).params, scope.receiver) }),
  context: () => {
    const e = targetEntry();
    return { state: app.state, rxKey: e ? e.stateKey : 'main', mode: e ? e.rx.mode : null, scopeReceiver: app.scopeRx };
  },
  changed: () => schedule(),
  cwSent: (text) => sidetone.sent(text, app.state ? app.state.cwSpeed : null),
  cwStopped: () => sidetone.stop(),
});
const sidetone = new Sidetone(byId('sidetone'));
const memory = new MemoryPanel(byId('card-mem'), { send: (name, params) => send(name, params) });
const panels = new TuningPanels({
  mode: (m) => setMode(m),
  filter: (f) => send('set_filter', { filter: f, ...targetParams() }).catch(() => {}),
  band: (b) => goBand(b),
  step: (s) => setStep(s),
});
const txMeters = new TxMeters(byId('tx-meters'));
const status = new StatusBar({
  retry: () => control.channel.kick(),
  changed: () => schedule(),
  token: (t) => {
    app.api.setToken(t);
    boot();
  },
});
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
  // a voice mode without a microphone would put a silent carrier on the air
  silentVoice: () => {
    const e = targetEntry();
    const why = app.caps && app.caps.hasTx ? audio.txAudioBlocker() : null;
    return why && e && e.rx && isVoiceMode(e.rx.mode, e.rx.dataMode) ? { mode: e.rx.mode, why } : null;
  },
});

// ---- loading and connection ----

async function boot() {
  status.setLink('connecting');
  let info;
  try {
    info = await app.api.get('/api/v1/info');
  } catch {
    retryBoot();
    return;
  }
  if (info.status === 401) {
    status.askToken(app.api.token ? 'That token was refused.' : '');
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
  app.freshlyLoaded = true;
  control.start();
}

function retryBoot() {
  const delay = Math.min(10000, 500 * 1.7 ** app.bootAttempt++);
  status.setLink('offline', delay);
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
  panels.build(caps, app.bands, tuner.step);
  // operating controls
  app.descs = controlsFromCatalogue(catalogue);
  const used = controls.build(app.descs, caps);
  for (const g of ['rx', 'vfo', 'cw', 'other']) byId(`card-${g}`).hidden = !used.has(g);
  scope.radioGroup.hidden = !used.has('scope');
  txMeters.build(caps);
  feeds.setMeterNames(caps.meterIds);
  byId('card-tx').hidden = !used.has('tx');
  byId('card-ptt').hidden = !caps.hasTx && !caps.hasAudio;
  byId('ptt').disabled = !caps.hasTx;
  byId('ptt').hidden = !caps.hasTx;
  byId('tx-state').hidden = !caps.hasTx;
  memory.setCommands(memoryCommands(catalogue));
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
  status.setLink('online');
  // after a reconnect the server may have restarted with another radio or version (the
  // first hello follows boot's reading: no need to read it all twice)
  if (!app.freshlyLoaded) app.api.get('/api/v1/info').then((r) => (r.status === 200 ? loadServer(r.body) : null)).catch(() => {});
  app.freshlyLoaded = false;
  feeds.controlReady();
}

function onControlClose(info) {
  ptt.connectionLost();
  app.freshlyLoaded = false;
  if (!info.opened) {
    // refused before the upgrade: a token problem shows as 401 on the HTTP routes, a
    // host name the server does not answer to as 403 on any request that names this
    // page's origin (a POST does; the browser hides the WebSocket's own answer)
    app.api.get('/api/v1/info').then(async (r) => {
      if (r.status === 401) {
        control.channel.stop();
        status.askToken('The token was refused.');
      } else if (r.status === 200) {
        const probe = await app.api.post('/api/v1/origin-check', {});
        if (probe.status === 403 && probe.body && probe.body.error === 'forbidden_origin') refused(probe.body.message);
      }
    }).catch(() => {});
  }
  status.setLink('offline', Math.max(0, control.channel.retryAt - performance.now()));
}

/** The server refuses this page's origin: say why (its message names the remedy) and
 * stop retrying until the operator asks. */
function refused(message) {
  control.channel.stop();
  feeds.stop();
  status.refused(message, () => control.start());
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
    app.smeterEventAt = performance.now();
    renderMeters();
  }
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
  panels.showStep(s);
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
  status.render(app.state, audio, metersLive());
  if (!st || !caps) return;
  const list = entries();
  if (!list.some((e) => e.key === app.targetKey)) app.targetKey = list.length ? list[0].key : null;
  tuner.expire(list);
  vfo.update(list.map((e) => ({
    key: e.key, name: e.name, cls: e.cls, freqHz: shownFreq(e), badges: badgesOf(e, st, caps), meter: e.meter,
  })), app.targetKey);
  const t = targetEntry();
  panels.update(t ? t.rx : null, t ? shownFreq(t) : null, caps, app.bands, tuner.step, currentStep());
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
  setText(byId('tx-state'), on ? 'Transmitting' : status.link === 'online' ? 'Receiving' : 'Transmit state unknown');
  const note = byId('tx-note');
  const why = app.caps.hasTx ? audio.txAudioBlocker() : null;
  note.hidden = !why;
  if (why) note.textContent = why;
  ptt.render();
}

/** Whether the meter readings are live: connected, the radio ready, readings recent. */
function metersLive() {
  const st = app.state;
  const at = Math.max(app.metersAt, app.smeterEventAt);
  return status.link === 'online' && !!st && !!(st.connection || {}).radioReady && performance.now() - at < METER_STALE_MS;
}

let metersRaf = false;
function renderMeters() {
  if (metersRaf) return;
  metersRaf = true;
  requestAnimationFrame(() => {
    metersRaf = false;
    // stale readings are not shown: an empty bar and "—" rather than a frozen value
    const live = metersLive();
    app.metersLive = live;
    const m = live ? app.meters : {};
    for (const e of entries()) {
      if (e.meter) vfo.smeter(e.key, m[e.meter] === undefined ? null : m[e.meter]);
    }
    document.body.classList.toggle('stale', !live);
    txMeters.update(m, live && !!(app.state && app.state.ptt));
  });
}

// ---- buttons, keyboard ----

byId('theme-btn').addEventListener('click', () => toast(`Theme: ${theme.cycle()}`, 'info', 1500));
byId('help-btn').addEventListener('click', toggleHelp);
const audioButtons = new AudioButtons(audio, () => schedule());

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
  announce: () => announce(),
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
  audio: () => audioButtons.toggleListen(),
  mute: () => audioButtons.toggleMute(),
  colormap: () => toast(`Colour map: ${scope.nextColormap()}`, 'info', 1500),
  theme: () => toast(`Theme: ${theme.cycle()}`, 'info', 1500),
  help: () => toggleHelp(),
}, (ev) => vfo.handleKey(ev, currentStep()));

/** Speaks each VFO's frequency, mode and S-meter through the live region. */
function announce() {
  const list = entries();
  const text = vfo.summary(list.map((e) => ({ key: e.key, name: e.name, freqHz: shownFreq(e), badges: badgesOf(e, app.state, app.caps), meter: e.meter })));
  const el = byId('announce');
  // a changed text is what a screen reader speaks: clear first so a repeat speaks too
  el.textContent = '';
  setTimeout(() => { el.textContent = text || 'No radio state yet.'; }, 50);
}

setInterval(() => {
  // pending tunes expire, the audio readout moves, a silent scope is noticed
  if (tuner.busy || audio.listening || status.link === 'offline' || (app.state && performance.now() - app.lastScopeAt > 3000)) schedule();
  // readings that stop arriving stop looking live
  if (metersLive() !== app.metersLive) renderMeters();
}, 500);

/** Figures for diagnostics and the browser tests. */
window.rigweb = {
  get state() { return app.state; },
  get link() { return status.link; },
  /** The VFO the page tunes (its key: main, sub, A, B or sel). */
  get target() { return app.targetKey; },
  get feeds() { return { ...feeds.via }; },
  get catalogue() { return app.descs.map((d) => d.cmd); },
  get scope() { return { ...scope.stats, range: scope.range, receiver: scope.receiver }; },
  waterfall: () => scope.waterfall.sample(),
  peakHz: () => scope.peakHz(),
  get meters() { return { ...app.meters }; },
  get audio() { return { ...audio.stats, listening: audio.listening, support: audio.support }; },
  get ptt() { return { phase: ptt.phase, latched: ptt.latched, txTimeoutS: ptt.hooks.txTimeoutS() }; },
  get overlays() { return overlays.snapshot(); },
  get sidetone() { return { playing: sidetone.playing, last: sidetone.lastTiming }; },
  /** The parts themselves, for diagnostics from the console. */
  parts: { audio, feeds, control, scope, overlays, ptt },
};

boot();
