// watch.js — the watch panel: several watches at once, each a WatchSession
// (watchstream.js) rendered as a live table of events, bookmarks, errors,
// reconnects and relists.

import { h, clock } from './dom.js';
import { apiFetch, currentTarget } from './api.js';
import { attachCompletion } from './completion.js';
import { completePath } from './discovery.js';
import { WatchSession } from './watchstream.js';
import { highlightJson } from './highlight.js';

const MAX_ROWS = 2000;

export function createWatchPanel({ getNamespace }) {
  const pathIn = h('input', { type: 'text', class: 'path-input', testid: 'watch-path', placeholder: '/api/v1/namespaces/default/configmaps', spellcheck: 'false' });
  const labelIn = h('input', { type: 'text', testid: 'watch-label-selector', placeholder: 'app=demo' });
  const fieldIn = h('input', { type: 'text', testid: 'watch-field-selector', placeholder: 'metadata.name=demo' });
  const rvIn = h('input', { type: 'text', testid: 'watch-resource-version', placeholder: '(none: from now)', size: 10 });
  const timeoutIn = h('input', { type: 'text', testid: 'watch-timeout', placeholder: 'server default', size: 8, title: 'timeoutSeconds: the server ends each watch after this long; the session then resumes from the last resourceVersion' });
  const bookmarks = h('input', { type: 'checkbox', testid: 'watch-bookmarks', checked: true });
  const initial = h('input', { type: 'checkbox', testid: 'watch-initial-events' });
  const startBtn = h('button', { class: 'primary', testid: 'watch-start', type: 'submit' }, 'Start watch');
  const compactBtn = h('button', { type: 'button', testid: 'watch-compact', dataset: { write: '' }, title: 'POST /debug/kubeplay/compact: drops the change history, so resuming from an older resourceVersion answers 410 Gone (a kubeplay teaching aid, like etcd compaction)', on: { click: compact } }, 'Compact history');
  const note = h('span', { class: 'muted', testid: 'watch-note' });
  const list = h('div', { class: 'watch-list', testid: 'watch-list' });
  const sessions = new Set();

  const form = h(
    'form',
    { class: 'panel watch-form', on: { submit: (e) => { e.preventDefault(); start(); } } },
    h('div', { class: 'row' }, h('label', { class: 'grow' }, 'Collection path ', h('span', { class: 'completion-host' }, pathIn)), startBtn),
    h(
      'div',
      { class: 'row wrap' },
      h('label', {}, 'labelSelector ', labelIn),
      h('label', {}, 'fieldSelector ', fieldIn),
      h('label', {}, 'resourceVersion ', rvIn),
      h('label', {}, 'timeoutSeconds ', timeoutIn),
      h('label', { class: 'check' }, bookmarks, ' allowWatchBookmarks'),
      h('label', { class: 'check', title: 'watch-list: the current state as ADDED events, then a bookmark marking their end' }, initial, ' sendInitialEvents'),
    ),
    h('div', { class: 'row wrap' }, compactBtn, note),
  );
  attachCompletion(pathIn, (t) => completePath(t, getNamespace()));

  const root = h('section', { class: 'watch-panel' }, form, list);

  async function compact() {
    note.textContent = 'compacting…';
    try {
      const res = await apiFetch('/debug/kubeplay/compact', { method: 'POST', headers: { Accept: 'application/json' } });
      const body = await res.json().catch(() => ({}));
      note.textContent = res.ok
        ? `history compacted up to revision ${body.compactedRevision}; a watch resuming from an older resourceVersion now gets 410 (try "Drop connection").`
        : `compaction failed: HTTP ${res.status} ${body.message || ''}`;
    } catch (e) {
      note.textContent = `compaction failed: ${e.message}`;
    }
  }

  function start() {
    const path = pathIn.value.trim();
    if (!path) {
      note.textContent = 'Enter a collection path to watch.';
      pathIn.focus();
      return;
    }
    const opts = {
      path,
      labelSelector: labelIn.value.trim(),
      fieldSelector: fieldIn.value.trim(),
      resourceVersion: rvIn.value.trim(),
      timeoutSeconds: /^\d+$/.test(timeoutIn.value.trim()) ? Number(timeoutIn.value.trim()) : undefined,
      allowWatchBookmarks: bookmarks.checked,
      sendInitialEvents: initial.checked,
    };
    note.textContent = '';
    list.prepend(createWatchCard(opts, currentTarget(), sessions));
  }

  /** Restarts every running watch from scratch (after a sandbox reset). */
  function restartAll() {
    for (const s of sessions) if (!s.stopped) s.restartFromScratch();
  }

  return { el: root, start, restartAll, setPath: (p) => { pathIn.value = p; } };
}

function createWatchCard(opts, target, sessions) {
  const tbody = h('tbody');
  const stateEl = h('span', { class: 'badge', testid: 'watch-state' }, 'connecting');
  const rvEl = h('span', { class: 'mono', testid: 'watch-last-rv' }, '—');
  const objEl = h('span', { testid: 'watch-objects' }, '0');
  const countEl = h('span', { testid: 'watch-count' }, '0');
  const follow = h('input', { type: 'checkbox', checked: true });
  let count = 0;

  const session = new WatchSession(opts, (path, init) => apiFetch(path, init, target), {
    onRecord: addRow,
    onState: ({ state, lastRV, objects }) => {
      stateEl.textContent = state;
      stateEl.className = `badge state-${state}`;
      card.dataset.state = state;
      rvEl.textContent = lastRV || '—';
      objEl.textContent = String(objects);
      const live = state !== 'stopped' && state !== 'failed';
      stopBtn.hidden = !live;
      dropBtn.hidden = !live;
      removeBtn.hidden = live;
    },
  });
  sessions.add(session);

  const stopBtn = h('button', { type: 'button', class: 'danger', testid: 'watch-stop', on: { click: () => session.stop() } }, 'Stop');
  const dropBtn = h('button', { type: 'button', testid: 'watch-reconnect', title: 'Abort the current connection, as a network blip would; the watch resumes from the last resourceVersion', on: { click: () => session.reconnectNow() } }, 'Drop connection');
  const clearBtn = h('button', { type: 'button', on: { click: () => { tbody.replaceChildren(); count = 0; countEl.textContent = '0'; } } }, 'Clear');
  const removeBtn = h('button', { type: 'button', testid: 'watch-remove', hidden: true, on: { click: () => { sessions.delete(session); card.remove(); } } }, 'Remove');

  const summary = [
    opts.labelSelector && `labelSelector=${opts.labelSelector}`,
    opts.fieldSelector && `fieldSelector=${opts.fieldSelector}`,
    opts.resourceVersion && `from resourceVersion ${opts.resourceVersion}`,
    opts.timeoutSeconds && `timeoutSeconds=${opts.timeoutSeconds}`,
    opts.allowWatchBookmarks && 'bookmarks',
    opts.sendInitialEvents && 'sendInitialEvents',
  ].filter(Boolean);

  const scroller = h(
    'div',
    { class: 'events-scroll' },
    h(
      'table',
      { class: 'events' },
      h('thead', {}, h('tr', {}, h('th', {}, 'time'), h('th', {}, 'type'), h('th', {}, 'name'), h('th', {}, 'namespace'), h('th', {}, 'resourceVersion'), h('th', {}, 'note'))),
      tbody,
    ),
  );
  const card = h(
    'article',
    { class: 'panel watch-card', testid: 'watch-events', dataset: { path: opts.path, state: 'connecting' } },
    h(
      'header',
      { class: 'watch-head' },
      h('div', { class: 'watch-title' }, h('code', {}, opts.path), summary.length ? h('span', { class: 'muted' }, ' · ', summary.join(' · ')) : null, h('span', { class: 'muted' }, ` · ${target.label}`)),
      h(
        'div',
        { class: 'watch-stats' },
        stateEl,
        h('span', {}, 'last RV ', rvEl),
        h('span', {}, 'objects ', objEl),
        h('span', {}, 'rows ', countEl),
        h('label', { class: 'check' }, follow, ' follow'),
        dropBtn,
        clearBtn,
        stopBtn,
        removeBtn,
      ),
    ),
    scroller,
  );

  function addRow(r) {
    const type = r.kind === 'event' || r.kind === 'error' ? r.type || 'ERROR' : r.kind.toUpperCase();
    const cls = ['ev', `ev-${type.toLowerCase()}`];
    if (r.code === 410) cls.push('ev-gone');
    const row = h(
      'tr',
      { class: cls.join(' '), dataset: { type, kind: r.kind, code: r.code ? String(r.code) : '' }, title: r.event ? 'click for the event' : '' },
      h('td', { class: 'mono' }, clock(r.time)),
      h('td', {}, h('span', { class: 'ev-type' }, type)),
      h('td', {}, r.name || ''),
      h('td', {}, r.namespace || ''),
      h('td', { class: 'mono' }, r.resourceVersion || ''),
      h('td', { class: 'note' }, r.note || ''),
    );
    if (r.event) {
      row.classList.add('clickable');
      row.addEventListener('click', () => {
        const next = row.nextElementSibling;
        if (next && next.classList.contains('ev-detail')) {
          next.remove();
          return;
        }
        const pre = h('pre', { class: 'code-view small' });
        pre.innerHTML = highlightJson(JSON.stringify(r.event, null, 2));
        row.after(h('tr', { class: 'ev-detail' }, h('td', { colspan: 6 }, pre)));
      });
    }
    tbody.appendChild(row);
    count++;
    countEl.textContent = String(count);
    while (tbody.rows.length > MAX_ROWS) tbody.deleteRow(0);
    if (follow.checked) scroller.scrollTop = scroller.scrollHeight;
  }

  session.start();
  return card;
}

