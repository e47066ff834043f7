// The memory panel, where the catalogue has the memory commands (`list_memories`,
// `recall_memory`, `store_memory`): a page of channels read from the radio with
// `list_memories {first, last}`, each with its frequency, mode and name (an empty
// channel says so; an unknown field is a dash), Recall, and Store (the current VFO
// into that channel, after a confirmation since it overwrites).
import { byId, h, setText } from './dom.js';
import { freqText } from './freq.js';

/** Channels per page. */
const PAGE = 10;

export class MemoryPanel {
  /** `hooks.send(name, params)`: a promise of the command's result. */
  constructor(card, hooks) {
    this.card = card;
    this.hooks = hooks;
    this.cmds = null;
    this.first = 1;
    this.list = byId('mem-list');
    this.range = byId('mem-range');
    byId('mem-prev').addEventListener('click', () => this.page(-PAGE));
    byId('mem-next').addEventListener('click', () => this.page(PAGE));
    byId('mem-read').addEventListener('click', () => this.load());
  }

  /** Shows the panel for the catalogue's memory commands (null: hidden). */
  setCommands(cmds) {
    this.cmds = cmds;
    this.card.hidden = !cmds;
    if (!cmds) return;
    this.first = cmds.first;
    this.list.replaceChildren(h('li', { class: 'note', text: 'Press Read to list the channels.' }));
    this.showRange();
  }

  showRange() {
    setText(this.range, `${this.first}–${this.last()}`);
  }

  last() {
    return Math.min(this.cmds.last, this.first + PAGE - 1);
  }

  page(delta) {
    if (!this.cmds) return;
    this.first = Math.max(this.cmds.first, Math.min(this.cmds.last, this.first + delta));
    this.showRange();
    this.load();
  }

  /** Reads the shown page of channels from the radio. */
  async load() {
    if (!this.cmds) return;
    let r;
    try {
      r = await this.hooks.send('list_memories', { first: this.first, last: this.last() });
    } catch {
      return;
    }
    const rows = (r && Array.isArray(r.channels) ? r.channels : []).map((c) => this.row(c));
    this.list.replaceChildren(...(rows.length ? rows : [h('li', { class: 'note', text: 'No channels.' })]));
  }

  row(c) {
    const what = c.empty ? 'empty' : [freqText(c.freq), c.mode || '—', c.name || ''].filter(Boolean).join(' · ');
    const recall = h('button', { class: 'small', type: 'button', text: 'Recall', disabled: !!c.empty, attrs: { 'aria-label': `Recall channel ${c.channel}` } });
    recall.addEventListener('click', () => this.hooks.send('recall_memory', { channel: c.channel }).catch(() => {}));
    const items = [h('span', { class: 'mem-ch', text: String(c.channel) }), h('span', { class: `mem-what${c.empty ? ' unknown' : ''}`, text: what }), recall];
    if (this.cmds.store) {
      const store = h('button', { class: 'small', type: 'button', text: 'Store', attrs: { 'aria-label': `Store the VFO in channel ${c.channel}` } });
      store.addEventListener('click', () => {
        // overwriting a channel asks first
        if (!c.empty && !window.confirm(`Overwrite channel ${c.channel} (${what}) with the current VFO?`)) return;
        this.hooks.send('store_memory', { channel: c.channel }).then(() => this.load(), () => {});
      });
      items.push(store);
    }
    return h('li', { class: 'mem-row', dataset: { channel: String(c.channel) } }, ...items);
  }
}
