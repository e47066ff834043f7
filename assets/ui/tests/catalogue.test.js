import { test } from 'node:test';
import assert from 'node:assert/strict';
import { controlsFromCatalogue, paramsFor, rangeFor, sliderText, widgetOf, commandTarget, offsetText, offsetBy, memoryCommands } from '../catalogue.js';

// what GET /api/v1/commands serves (an extract of the IC-7610's)
const CATALOGUE = { model: 'IC-7610', commands: [
  { name: 'set_freq', label: 'Frequency', group: 'tuning', target: 'receiver', params: [{ name: 'freq', type: 'integer', required: true }] },
  { name: 'set_af_gain', label: 'AF gain', group: 'rx', description: 'AF gain', target: 'receiver', rateLimited: true,
    params: [{ name: 'level', type: 'integer', required: true, min: 0, max: 255 },
      { name: 'vfo', type: 'string', required: false, values: ['MAIN', 'SUB'] },
      { name: 'receiver', type: 'integer', required: false, min: 0, max: 1 }],
    state: { level: 'afGain' } },
  { name: 'set_agc', label: 'AGC', group: 'rx', target: 'receiver', params: [{ name: 'mode', type: 'string', required: true, values: ['fast', 'mid', 'slow'] }], state: { mode: 'agc' } },
  { name: 'set_nb', label: 'NB', group: 'rx', target: 'receiver', params: [{ name: 'on', type: 'boolean', required: true }, { name: 'level', type: 'integer', required: false, min: 0, max: 255 }], state: { on: 'nb', level: 'nbLevel' } },
  { name: 'set_filter_width', label: 'Width', group: 'rx', target: 'receiver', params: [{ name: 'hz', title: 'Width', type: 'integer', required: true, min: 50, max: 10000, unit: 'Hz' }],
    byMode: { CW: { min: 50, max: 3600, step: 50 } }, state: { hz: 'filterWidth' } },
  { name: 'send_cw', label: 'Send CW', group: 'cw', target: 'none', params: [{ name: 'text', type: 'string', required: true, maxLength: 30 }] },
  { name: 'stop_cw', label: 'Stop CW', group: 'cw', target: 'none', params: [] },
  { name: 'set_foo_bar', target: 'none', params: [{ name: 'x', type: 'object', required: true }] },
  { name: 'set_monitor_gain', label: 'Monitor', group: 'tx', target: 'none', params: [{ name: 'level', type: 'integer', required: true, min: 0, max: 255 }], state: { level: 'monitorGain' } },
  { name: 'set_scope', label: 'Scope', group: 'scope', target: 'scope_receiver', params: [
    { name: 'mode', type: 'integer', required: false, min: 0, max: 3, labels: ['Center', 'Fixed', 'Scroll-C', 'Scroll-F'] },
    { name: 'hold', type: 'boolean', required: false }], state: { mode: 'scope.mode', hold: 'scope.hold' } },
  { name: 'set_later', target: 'none', params: [{ name: 'on', type: 'boolean', required: true }] },
] };

test('catalogue commands become controls with the label and group the server gives', () => {
  const c = controlsFromCatalogue(CATALOGUE);
  const names = c.map((x) => x.cmd);
  // core commands (own panels) and commands without a usable widget are left out
  assert.deepEqual(names, ['set_af_gain', 'set_agc', 'set_nb', 'set_filter_width', 'send_cw', 'stop_cw', 'set_monitor_gain', 'set_scope', 'set_later']);
  const af = c[0];
  assert.equal(af.label, 'AF gain');
  assert.equal(af.group, 'rx');
  assert.equal(af.target, 'receiver');
  assert.deepEqual(af.params.map((p) => [p.name, p.widget, p.statePath]), [['level', 'slider', 'afGain']]);
  assert.deepEqual(c[1].params[0].labels, ['Fast', 'Mid', 'Slow']);
  assert.equal(c[1].params[0].widget, 'choice');
  assert.deepEqual(c[2].params.map((p) => p.widget), ['toggle', 'slider']);
  assert.equal(c[3].params[0].title, 'Width');
  assert.equal(c[4].params[0].widget, 'text');
  assert.equal(c[5].kind, 'action');
  assert.deepEqual([c[6].label, c[6].group], ['Monitor', 'tx'], 'a level the page has no table of lands in its panel');
  assert.deepEqual(c[7].params[0].labels, ['Center', 'Fixed', 'Scroll-C', 'Scroll-F']);
  assert.equal(c[7].group, 'scope');
  // a command a newer server adds without a label still gets a control, in "other"
  assert.deepEqual([c[8].label, c[8].group], ['Later', 'other']);
});

test('a change sends its value plus the current values of the other required params', () => {
  const nb = controlsFromCatalogue(CATALOGUE).find((x) => x.cmd === 'set_nb');
  assert.deepEqual(paramsFor(nb, 'level', 90, (p) => (p.name === 'on' ? true : null)), { level: 90, on: true });
  assert.deepEqual(paramsFor(nb, 'level', 90, () => null), { level: 90, on: false });
  assert.deepEqual(paramsFor(nb, 'on', true, () => 5), { on: true });
});

test('per-mode ranges of the filter width', () => {
  const w = controlsFromCatalogue(CATALOGUE).find((x) => x.cmd === 'set_filter_width').params[0];
  assert.deepEqual(rangeFor(w, 'CW'), { min: 50, max: 3600, step: 50 });
  assert.deepEqual(rangeFor(w, 'USB'), { min: 50, max: 10000, step: 1 });
});

test('value labels come from the catalogue (ATT, preamp); the power slider reads in watts', () => {
  const caps = { power: { minWatts: 2, maxWatts: 100, levelMax: 255 } };
  const c = controlsFromCatalogue({ commands: [
    { name: 'set_power', label: 'Power', group: 'tx', target: 'none', params: [{ name: 'level', type: 'integer', required: true, min: 0, max: 255 }], state: { level: 'power' } },
    { name: 'set_att', label: 'ATT', group: 'rx', target: 'receiver', params: [{ name: 'db', type: 'integer', required: true, values: [0, 3, 6], unit: 'dB', labels: ['Off', '3 dB', '6 dB'] }], state: { db: 'att' } },
    { name: 'set_preamp', label: 'Preamp', group: 'rx', target: 'receiver', params: [{ name: 'level', type: 'integer', required: true, values: [0, 1, 2], labels: ['Off', 'P1', 'P2'] }], state: { level: 'preamp' } },
    { name: 'set_cw_speed', label: 'CW speed', group: 'cw', target: 'none', params: [{ name: 'wpm', title: 'WPM', type: 'integer', required: true, min: 6, max: 48, unit: 'wpm' }] },
  ] });
  assert.deepEqual(c[1].params[0].labels, ['Off', '3 dB', '6 dB']);
  assert.deepEqual(c[2].params[0].labels, ['Off', 'P1', 'P2']);
  assert.equal(c[0].params[0].statePath, 'power');
  assert.equal(sliderText(c[0], c[0].params[0], 255, caps), '100 W');
  assert.equal(sliderText(c[0], c[0].params[0], 0, caps), '2.0 W');
  assert.equal(c[3].params[0].title, 'WPM');
});

test('slider text: percent for 0..255 levels, units, unknown values', () => {
  const p = { min: 0, max: 255, unit: '' };
  assert.equal(sliderText({ cmd: 'set_af_gain' }, p, 255), '100 %');
  assert.equal(sliderText({ cmd: 'set_cw_speed' }, { min: 6, max: 48, unit: 'wpm' }, 20), '20 wpm');
  assert.equal(sliderText({ cmd: 'x' }, p, null), '—');
  assert.equal(widgetOf({ type: 'integer', values: [0, 3, 6, 9, 12, 15] }), 'select');
  assert.equal(widgetOf({ type: 'integer' }), null);
});

test('multi-parameter commands name each parameter with the titles and labels of the catalogue', () => {
  const c = controlsFromCatalogue({ commands: [
    { name: 'set_scope', label: 'Scope', group: 'scope', target: 'scope_receiver', params: [
      { name: 'span_hz', title: 'Span', type: 'integer', required: false, values: [2500, 5000, 10000, 25000, 50000], unit: 'Hz',
        labels: ['±2.5k', '±5k', '±10k', '±25k', '±50k'] },
      { name: 'ref_db', title: 'Ref', type: 'number', required: false, min: -30, max: 10, step: 0.5, unit: 'dB' },
      { name: 'hold', type: 'boolean', required: false },
      { name: 'receiver', type: 'integer', required: false, min: 0, max: 1 }],
    state: { span_hz: 'scope.spanHz', ref_db: 'scope.refDb', hold: 'scope.hold' } },
  ] });
  const [span, ref, hold] = c[0].params;
  assert.deepEqual([span.title, span.widget, span.labels[0], span.labels[4]], ['Span', 'choice', '±2.5k', '±50k']);
  assert.deepEqual([ref.title, ref.widget, ref.step], ['Ref', 'slider', 0.5]);
  assert.deepEqual([hold.title, hold.widget, hold.statePath], ['Hold', 'toggle', 'scope.hold']);
});

test('small integer ranges become buttons named by the catalogue (DATA off, D1..D3)', () => {
  const c = controlsFromCatalogue({ commands: [
    { name: 'set_data_mode', label: 'Data', group: 'rx', target: 'receiver', params: [{ name: 'data', type: 'integer', required: true, min: 0, max: 3, labels: ['Off', 'D1', 'D2', 'D3'] }], state: { data: 'dataMode' } },
    { name: 'set_mic_gain', label: 'Mic gain', group: 'tx', target: 'none', params: [{ name: 'level', type: 'integer', required: true, min: 0, max: 255 }], state: { level: 'micGain' } },
  ] });
  assert.equal(c[0].params[0].widget, 'choice');
  assert.deepEqual(c[0].params[0].labels, ['Off', 'D1', 'D2', 'D3']);
  assert.equal(c[1].params[0].widget, 'slider');
  assert.equal(c[1].group, 'tx');
});

test('set_scope (target scope_receiver) goes to the receiver the scope shows; receiver commands to the tuned one', () => {
  // what GET /api/v1/commands says on the IC-7610
  const [scope, af, mic] = controlsFromCatalogue({ commands: [
    { name: 'set_scope', group: 'scope', target: 'scope_receiver', params: [
      { name: 'span_hz', type: 'integer', required: false, values: [2500, 5000, 10000] },
      { name: 'receiver', type: 'integer', required: false, min: 0, max: 1 }] },
    { name: 'set_af_gain', group: 'rx', target: 'receiver', params: [
      { name: 'level', type: 'integer', required: true, min: 0, max: 255 },
      { name: 'receiver', type: 'integer', required: false, min: 0, max: 1 }] },
    { name: 'set_mic_gain', target: 'none', params: [{ name: 'level', type: 'integer', required: true, min: 0, max: 255 }] },
  ] });
  assert.equal(scope.target, 'scope_receiver');
  assert.equal(scope.group, 'scope');
  assert.deepEqual(commandTarget(scope, { receiver: 0 }, 1), { receiver: 1 }, "SUB's scope: span goes to SUB");
  assert.deepEqual(commandTarget(scope, { receiver: 1 }, 0), { receiver: 0 });
  assert.deepEqual(commandTarget(af, { receiver: 1 }, 0), { receiver: 1 });
  assert.deepEqual(commandTarget(af, { vfo: 'B' }, 0), { vfo: 'B' });
  assert.deepEqual(commandTarget(mic, { receiver: 1 }, 1), {});
  // one receiver (IC-705): the catalogue has no receiver parameter, so none is sent
  const [single] = controlsFromCatalogue({ commands: [
    { name: 'set_scope', group: 'scope', target: 'scope_receiver', params: [{ name: 'span_hz', type: 'integer', required: false, values: [2500, 5000] }] },
  ] });
  assert.deepEqual(commandTarget(single, {}, 0), {});
});

test('a Hz offset either side of zero (RIT, XIT) gets the offset widget: 10 Hz steps, clamped', () => {
  const rit = { name: 'offset_hz', type: 'integer', min: -9999, max: 9999, unit: 'Hz' };
  assert.equal(widgetOf(rit), 'offset');
  assert.equal(widgetOf({ ...rit, min: 0 }), 'slider', 'a range that is not an offset');
  assert.equal(widgetOf({ name: 'level', type: 'integer', min: -10, max: 10 }), 'slider', 'no unit Hz');
  assert.equal(offsetBy(0, 1, -9999, 9999), 10);
  assert.equal(offsetBy(123, 1, -9999, 9999), 130, 'back on the step grid');
  assert.equal(offsetBy(null, -3, -9999, 9999), -30);
  assert.equal(offsetBy(9990, 10, -9999, 9999), 9999);
  assert.equal(offsetText(120), '+120 Hz');
  assert.equal(offsetText(0), '0 Hz');
  assert.equal(offsetText(-50), '-50 Hz');
  assert.equal(offsetText(null), '—');
});

test('the memory panel appears only with the memory commands, its range from the channel parameter', () => {
  assert.equal(memoryCommands({ commands: [{ name: 'set_rit', params: [] }] }), null);
  assert.equal(memoryCommands(null), null);
  const cat = {
    commands: [
      { name: 'list_memories', params: [{ name: 'first', type: 'integer', min: 1, max: 99 }, { name: 'last', type: 'integer', min: 1, max: 99 }] },
      { name: 'recall_memory', params: [{ name: 'channel', type: 'integer', min: 1, max: 99, required: true }] },
    ],
  };
  assert.deepEqual(memoryCommands(cat), { list: true, recall: true, store: false, first: 1, last: 99 });
  cat.commands.push({ name: 'store_memory', params: [{ name: 'channel', type: 'integer', min: 1, max: 99 }] });
  assert.equal(memoryCommands(cat).store, true);
  // the panel's commands are not also generic controls
  assert.deepEqual(controlsFromCatalogue(cat).map((d) => d.cmd), []);
});
