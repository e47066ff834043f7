// What the page shows, derived from the state and capabilities: the VFOs (MAIN/SUB on
// two-receiver radios, A/B otherwise) with the parameters that address them, their
// badges, and the radio's status for the top bar.

/** The VFOs to show, the first one largest: `{key, stateKey, name, short, cls, rx,
 * params, receiver, meter, isActive}`; `rx` holds `freqHz`, `mode`, `filter` (and the
 * receiver's settings for receivers). */
export function vfoEntries(state, caps) {
  if (!state || !state.main) return [];
  const main = state.main;
  // a receiver the profile has no S-meter for shows none (IC-9700 SUB)
  const meters = (caps && caps.meters) || ['smeter', 'smeter_sub'];
  const meterOf = (name) => (meters.includes(name) ? name : null);
  const ab = (caps && caps.vfoScheme === 'ab') || (main.vfoA && main.vfoB && !state.sub);
  if (ab && state.active !== 'A' && state.active !== 'B') {
    // the radio cannot say which VFO is selected: show the dial (the selected VFO), and
    // address it without naming a VFO until one is chosen
    return [{
      key: 'sel', stateKey: 'main', name: 'VFO', short: 'VFO', cls: 'main', rx: main,
      params: {}, receiver: 0, meter: meterOf('smeter'), isActive: true,
    }];
  }
  if (ab) {
    const active = state.active === 'B' ? 'B' : 'A';
    const other = active === 'A' ? 'B' : 'A';
    const list = [{
      key: active, stateKey: 'main', name: `VFO ${active}`, short: active, cls: 'main', rx: main,
      params: { vfo: active }, receiver: 0, meter: meterOf('smeter'), isActive: true,
    }];
    const o = main[`vfo${other}`];
    if (o) {
      list.push({
        key: other, stateKey: 'main', name: `VFO ${other}`, short: other, cls: 'sub', rx: o,
        params: { vfo: other }, receiver: 0, meter: null, isActive: false,
      });
    }
    return list;
  }
  const list = [{
    key: 'main', stateKey: 'main', name: 'MAIN', short: 'MAIN', cls: 'main', rx: main,
    params: { receiver: 0 }, receiver: 0, meter: meterOf('smeter'), isActive: state.active !== 'SUB',
  }];
  if (state.sub) {
    list.push({
      key: 'sub', stateKey: 'sub', name: 'SUB', short: 'SUB', cls: 'sub', rx: state.sub,
      params: { receiver: 1 }, receiver: 1, meter: meterOf('smeter_sub'), isActive: state.active === 'SUB',
    });
  }
  return list;
}

function widthText(hz) {
  return hz >= 1000 ? `${+(hz / 1000).toFixed(2)}k` : `${hz}`;
}

/** Badges of a VFO: mode (with DATA), filter and width, ATT, preamp, AGC, NB/NR, RIT,
 * split and TX where they apply. `{text, cls, title}`. */
export function badgesOf(entry, state, caps) {
  const rx = entry.rx || {};
  const b = [];
  if (rx.mode) b.push({ text: rx.dataMode ? `${rx.mode}-D${rx.dataMode}` : rx.mode, cls: 'hot', title: 'Mode' });
  if (Number.isFinite(rx.filter)) {
    const widths = caps && caps.filterWidths && caps.filterWidths[rx.mode];
    const w = Number.isFinite(rx.filterWidth) ? rx.filterWidth : widths ? widths[rx.filter - 1] : null;
    b.push({ text: `FIL${rx.filter}${w ? ` ${widthText(w)}` : ''}`, cls: '', title: 'Filter' });
  }
  if (rx.att > 0) b.push({ text: `ATT ${rx.att} dB`, cls: '', title: 'Attenuator' });
  if (rx.preamp > 0) b.push({ text: `P.AMP ${rx.preamp}`, cls: '', title: 'Preamplifier' });
  if (typeof rx.agc === 'string') b.push({ text: `AGC ${rx.agc.toUpperCase()}`, cls: '', title: 'AGC' });
  if (rx.nb === true) b.push({ text: 'NB', cls: '', title: 'Noise blanker' });
  if (rx.nr === true) b.push({ text: 'NR', cls: '', title: 'Noise reduction' });
  if (entry.isActive && state.rit === true) {
    const o = state.ritOffsetHz || 0;
    b.push({ text: `RIT ${o >= 0 ? '+' : ''}${o}`, cls: '', title: 'RIT offset, Hz' });
  }
  if (entry.receiver === 0 && entry.isActive && state.split === true) b.push({ text: 'SPLIT', cls: '', title: 'Split' });
  if (state.ptt === true && txVfo(entry, state)) b.push({ text: 'TX', cls: 'tx', title: 'Transmitting' });
  else if (state.split === true && txVfo(entry, state)) b.push({ text: 'TX VFO', cls: 'hot', title: 'Split: this VFO transmits' });
  return b;
}

/** Whether `entry` is the VFO that transmits: the selected one, the other one in split. */
export function txVfo(entry, state) {
  return state.split === true ? !entry.isActive : entry.isActive;
}

/** Whether a mode is a voice mode (PTT sends the microphone); CW and data modes (and a
 * voice mode with DATA on) key without one. */
export function isVoiceMode(mode, dataMode) {
  return ['USB', 'LSB', 'AM', 'FM', 'WFM', 'DV'].includes(String(mode || '').toUpperCase()) && !(dataMode > 0);
}

/** The top bar's radio status: `{text, level: ok|warn|bad, title}`. */
export function radioStatus(state, linkOnline = true) {
  if (!state) return { text: 'radio …', level: 'warn', title: 'Waiting for the server' };
  // without the server nothing is known about the radio: not green, not red
  if (!linkOnline) return { text: 'radio ?', level: 'stale', title: 'No connection to the server: the radio\'s state is unknown' };
  const d = state.radioDetail || {};
  const c = state.connection || {};
  const title = d.message || `status: ${d.status || 'unknown'}`;
  if (state.powerOn === false || d.status === 'powered_off') return { text: 'radio off', level: 'warn', title };
  if (c.radioReady) return { text: d.model || 'radio', level: 'ok', title };
  const words = {
    connecting: 'connecting', reconnecting: 'reconnecting', recovering: 'recovering', disconnected: 'disconnected',
    failed: 'login failed', not_responding: 'not responding',
  };
  const level = ['failed', 'disconnected', 'not_responding'].includes(d.status) ? 'bad' : 'warn';
  return { text: `radio ${words[d.status] || d.status || 'not ready'}`, level, title };
}
