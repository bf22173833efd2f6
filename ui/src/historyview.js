// historyview.js — the history list: the last requests, newest first; a click
// restores one into the builder.

import { h, mount } from './dom.js';
import { loadHistory, clearHistory, onHistoryChange, historyLabel, HISTORY_MAX } from './history.js';

export function createHistoryView({ onRestore }) {
  const list = h('ol', { class: 'history-list', testid: 'history-list' });
  const clearBtn = h('button', { type: 'button', class: 'small', testid: 'history-clear', on: { click: () => { if (confirm('Clear the request history?')) clearHistory(); } } }, 'Clear');
  const el = h('aside', { class: 'panel history' }, h('div', { class: 'row' }, h('strong', {}, 'History'), h('span', { class: 'muted' }, ` last ${HISTORY_MAX}`), h('span', { class: 'grow' }), clearBtn), list);

  function render(entries = loadHistory()) {
    if (!entries.length) {
      mount(list, h('li', { class: 'muted empty' }, 'Requests you send appear here.'));
      return;
    }
    mount(
      list,
      entries.map((e) => {
        const cls = !e.status ? 'st-none' : e.status >= 500 ? 'st-err' : e.status >= 400 ? 'st-warn' : 'st-ok';
        return h(
          'li',
          { class: 'history-item', testid: 'history-item', title: `${e.method} ${e.path}\n${e.target || ''} · ${new Date(e.at).toLocaleString()}`, on: { click: () => onRestore(e.spec) } },
          h('span', { class: `method m-${(e.method || '').toLowerCase()}` }, e.method),
          h('span', { class: 'h-path' }, historyLabel(e.path)),
          h('span', { class: `h-status ${cls}` }, e.status ? String(e.status) : e.error ? 'ERR' : '…'),
          e.ms !== undefined ? h('span', { class: 'h-ms' }, `${e.ms} ms`) : null,
        );
      }),
    );
  }

  onHistoryChange(render);
  render();
  return { el, render };
}

/** The end of a long path (the interesting part), with an ellipsis in front. */
