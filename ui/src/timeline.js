// timeline.js — the Timeline tab (LEARN-5): every change the sandbox's
// history keeps, newest first, with who made it (the user and client of the
// request, the field manager it recorded), filtered by kind, namespace, name,
// user or to the learner's own changes; a scrubber over the revisions that
// reads the chosen object, and its collection, as they were (through the API,
// a list at resourceVersionMatch=Exact; before the history, kube's 410 Gone,
// explained); a diff of the object between any two revisions, managedFields
// and status shown on request; replay, a change at a time, with the watch
// event a client saw for it; "what caused this" opens the request that made
// it in the Requests panel, and the Cluster tab can show the cluster as it
// was. The logic is timelinemodel.js; this file is the DOM.

import { h, mount } from './dom.js';
import { apiFetch, onTargetChange } from './api.js';
import { readWatchEvents } from './watchstream.js';
import { highlightJson, highlightYaml } from './highlight.js';
import {
  timelinePath, atRevisionPath, watchAtPath, madeBy, objectName, compactedExplanation, forDiff, toYaml, lineDiff,
} from './timelinemodel.js';

const PAGE = 200;

export function createTimelinePanel({ onOpenRequest, onShowCluster }) {
  let page = null; // the last answer: {revision, compactedRevision, items, continue}
  let items = [];
  let selected = null; // an entry
  let scrubRev = 0;
  let readSeq = 0; // drops answers that a later scrub overtook

  const input = (testid, placeholder, size = 12) => h('input', { type: 'text', size, placeholder, spellcheck: 'false', testid });
  const kindIn = input('timeline-kind', 'kind', 14);
  const nsIn = input('timeline-namespace', 'namespace');
  const nameIn = input('timeline-name', 'name');
  const userIn = input('timeline-user', 'user');
  const mineIn = h('input', { type: 'checkbox', testid: 'timeline-mine' });
  const reach = h('p', { class: 'muted', testid: 'timeline-reach' });
  const errorEl = h('div', { class: 'banner error', testid: 'timeline-error', hidden: true });
  const body = h('tbody');
  const moreBtn = h('button', { type: 'button', testid: 'timeline-more', hidden: true, on: { click: () => load(true) } }, 'Older changes…');

  const scrub = h('input', { type: 'range', min: 0, max: 0, value: 0, testid: 'timeline-scrub', class: 'grow', on: { input: () => setRevision(Number(scrub.value), 'slider') } });
  const revIn = h('input', { type: 'number', min: 1, size: 8, testid: 'timeline-rev' });
  const atForm = h(
    'form',
    { class: 'row wrap tl-scrub', on: { submit: (e) => { e.preventDefault(); setRevision(Number(revIn.value), 'input'); } } },
    h('span', {}, 'Revision'), scrub, revIn,
    h('button', { type: 'submit', testid: 'timeline-go' }, 'Show'),
    h('button', { type: 'button', testid: 'timeline-cluster', title: 'Show the Cluster tab as it was at this revision', on: { click: () => onShowCluster(scrubRev, selected?.namespace || nsIn.value.trim() || 'default') } }, 'Cluster at this revision'),
  );
  const gone = h('div', { class: 'banner warn', testid: 'timeline-gone', hidden: true });

  // The chosen change.
  const title = h('h3', { testid: 'timeline-detail-title' });
  const who = h('p', { testid: 'timeline-who' });
  const cause = h('p', { testid: 'timeline-cause-row' });
  const prevBtn = h('button', { type: 'button', testid: 'timeline-prev', title: 'The change before this one', on: { click: () => step(+1) } }, '◀ Older');
  const nextBtn = h('button', { type: 'button', testid: 'timeline-next', title: 'The change after this one', on: { click: () => step(-1) } }, 'Newer ▶');
  const eventPre = h('pre', { class: 'code-view small', testid: 'timeline-event' });
  const fromIn = h('input', { type: 'number', min: 0, size: 8, testid: 'timeline-diff-from' });
  const toIn = h('input', { type: 'number', min: 0, size: 8, testid: 'timeline-diff-to' });
  const managedIn = h('input', { type: 'checkbox', testid: 'timeline-show-managed', on: { change: () => diff() } });
  const statusIn = h('input', { type: 'checkbox', testid: 'timeline-show-status', on: { change: () => diff() } });
  const diffPre = h('pre', { class: 'code-view small tl-diff', testid: 'timeline-diff' });
  const objectHead = h('h4', {});
  const objectPre = h('pre', { class: 'code-view small', testid: 'timeline-object' });
  const collectionList = h('ul', { class: 'tl-collection mono', testid: 'timeline-collection' });
  const detail = h(
    'section',
    { class: 'panel tl-detail', testid: 'timeline-detail', hidden: true },
    h('div', { class: 'row' }, title, h('span', { class: 'grow' }), prevBtn, nextBtn),
    who,
    cause,
    h('h4', {}, 'The watch event a client saw'),
    eventPre,
    h('form', { class: 'row wrap', on: { submit: (e) => { e.preventDefault(); diff(); } } },
      h('h4', {}, 'Diff'), h('label', {}, 'from revision ', fromIn), h('label', {}, 'to ', toIn),
      h('button', { type: 'submit', testid: 'timeline-diff-go' }, 'Diff'),
      h('label', {}, managedIn, ' managedFields'), h('label', {}, statusIn, ' status')),
    diffPre,
    objectHead,
    objectPre,
    h('h4', {}, 'Its collection at that revision'),
    collectionList,
  );

  const el = h(
    'div',
    { class: 'timeline-view' },
    h(
      'form',
      { class: 'panel', on: { submit: (e) => { e.preventDefault(); load(false); } } },
      h('div', { class: 'row wrap' }, h('h3', {}, 'Timeline'), kindIn, nsIn, nameIn, userIn,
        h('label', { title: 'Leave out the changes the sandbox\u2019s own controllers, scheduler and kubelets made' }, mineIn, ' only my changes'),
        h('button', { type: 'submit', class: 'primary', testid: 'timeline-refresh' }, 'Refresh')),
      h('p', { class: 'muted' }, 'Every change the sandbox\u2019s history keeps: each one is a revision, the resourceVersion its write answered and the one a watch reports. Pick a change, or scrub to any revision: the object and its collection are read through the API as they were then (a list with resourceVersionMatch=Exact), as any client could.'),
      reach,
    ),
    errorEl,
    h('section', { class: 'panel' }, atForm, gone),
    h(
      'div',
      { class: 'tl-grid' },
      h('section', { class: 'panel tl-list' },
        h('table', { class: 'events', testid: 'timeline-table' },
          h('thead', {}, h('tr', {}, ['Revision', 'Time', 'Event', 'Kind', 'Object', 'By'].map((c) => h('th', {}, c)))),
          body),
        moreBtn),
      detail,
    ),
  );

  // ---- reading ---------------------------------------------------------------------
  async function getJSON(path, init) {
    const res = await apiFetch(path, init);
    const json = await res.json().catch(() => ({}));
    return { res, json };
  }

  /** Reads the timeline's first page (or, with more, the next older one). */
  let loadSeq = 0; // drops an answer a later load overtook
  async function load(more) {
    const seq = ++loadSeq;
    const filters = { kind: kindIn.value.trim(), namespace: nsIn.value.trim(), name: nameIn.value.trim(), user: userIn.value.trim(), mine: mineIn.checked };
    const { res, json } = await getJSON(timelinePath({ ...filters, limit: PAGE, before: more ? page?.continue : undefined }));
    if (seq !== loadSeq) return;
    errorEl.hidden = res.ok;
    if (!res.ok) {
      errorEl.textContent = `${res.status}: ${json.message || res.statusText}`;
      return;
    }
    page = json;
    items = more ? items.concat(json.items) : json.items;
    if (!more && selected && !items.some((e) => e.revision === selected.revision)) select(null);
    reach.textContent = `Now at revision ${json.revision}. History keeps every change after revision ${json.compactedRevision}` +
      (json.compactedRevision ? '; the revisions before were compacted: a read at them answers 410 Gone.' : ', since the sandbox began.');
    reach.dataset.compacted = String(json.compactedRevision);
    reach.dataset.revision = String(json.revision);
    scrub.min = String(Math.max(1, json.compactedRevision));
    scrub.max = String(json.revision);
    if (!scrubRev) setRevision(json.revision, 'load');
    else scrub.value = String(scrubRev);
    moreBtn.hidden = !json.continue;
    render();
  }

  // ---- the list ----------------------------------------------------------------------
  function render() {
    mount(body, items.map((e) => h(
      'tr',
      {
        class: `clickable tl-${e.type.toLowerCase()}${selected?.revision === e.revision ? ' selected' : ''}${e.revision > scrubRev ? ' tl-after' : ''}${e.internal ? ' internal' : ''}`,
        testid: 'timeline-row',
        dataset: { revision: String(e.revision), type: e.type, kind: e.kind, name: e.name, namespace: e.namespace || '', user: e.user || '', manager: e.manager || '' },
        on: { click: () => select(e) },
      },
      h('td', { class: 'num mono' }, String(e.revision)),
      h('td', { class: 'mono' }, new Date(e.time).toLocaleTimeString()),
      h('td', {}, e.type),
      h('td', {}, e.kind),
      h('td', { class: 'mono' }, objectName(e)),
      h('td', {}, madeBy(e)),
    )));
    if (!items.length) mount(body, h('tr', {}, h('td', { colspan: 6, class: 'muted' }, 'No change kept matches.')));
  }

  // ---- one change ------------------------------------------------------------------------
  function select(e) {
    selected = e;
    detail.hidden = !e;
    if (!e) {
      render();
      return;
    }
    title.textContent = `Revision ${e.revision} · ${e.type} ${e.kind} ${objectName(e)}`;
    who.textContent = `By ${madeBy(e)}, at ${new Date(e.time).toLocaleString()}${e.internal ? ' (the sandbox\u2019s own components)' : ''}.`;
    mount(cause, e.request
      ? h('button', { type: 'button', class: 'link', testid: 'timeline-cause', dataset: { seq: String(e.request) }, on: { click: () => onOpenRequest(e.request) } },
        `What caused this: request #${e.request} (${e.verb || 'write'}), in the Requests panel`)
      : h('span', { class: 'muted' }, 'The request log no longer holds the request that made this change.'));
    const i = items.indexOf(e);
    prevBtn.disabled = i === items.length - 1;
    nextBtn.disabled = i === 0;
    fromIn.value = String(e.revision - 1);
    toIn.value = String(e.revision);
    setRevision(e.revision, 'select');
    watchEvent(e);
    diff();
  }

  /** Replay: the older (+1) or newer (-1) change of the list. */
  function step(dir) {
    const i = items.indexOf(selected) + dir;
    if (i >= 0 && i < items.length) select(items[i]);
  }

  /** The first event of a watch of the object from the revision before the change: what a client saw. */
  async function watchEvent(e) {
    eventPre.textContent = 'watching…';
    eventPre.dataset.type = '';
    const ctl = new AbortController();
    try {
      const res = await apiFetch(watchAtPath(e.collection, e.name, e.revision), { signal: ctl.signal });
      if (!res.ok) {
        const st = await res.json().catch(() => ({}));
        eventPre.textContent = res.status === 410 ? compactedExplanation(e.revision - 1, page.compactedRevision) : `${res.status}: ${st.message || ''}`;
        return;
      }
      for await (const ev of readWatchEvents(res.body)) {
        if (selected !== e) break;
        eventPre.dataset.type = ev.type;
        eventPre.innerHTML = highlightJson(JSON.stringify(ev, null, 2));
        break;
      }
    } catch (err) {
      eventPre.textContent = String(err.message || err);
    } finally {
      ctl.abort();
    }
  }

  /** The object {collection, name} at rev: {obj} (null: it did not exist), or {gone}/{error}. */
  async function readAt(collection, name, rev) {
    const { res, json } = await getJSON(atRevisionPath(collection, rev, name));
    if (res.status === 410) return { gone: true, json };
    if (!res.ok) return { error: `${res.status}: ${json.message || res.statusText}` };
    return { obj: name ? json.items?.[0] || null : null, items: json.items || [] };
  }

  async function diff() {
    if (!selected) return;
    const e = selected;
    const a = Number(fromIn.value);
    const b = Number(toIn.value);
    const [x, y] = await Promise.all([readAt(e.collection, e.name, a), readAt(e.collection, e.name, b)]);
    if (selected !== e) return;
    const bad = [[x, a], [y, b]].find(([r]) => r.gone || r.error);
    if (bad) {
      diffPre.textContent = bad[0].gone ? compactedExplanation(bad[1], page.compactedRevision) : bad[0].error;
      diffPre.dataset.state = bad[0].gone ? 'gone' : 'error';
      return;
    }
    const opts = { managedFields: managedIn.checked, status: statusIn.checked };
    const lines = lineDiff(toYaml(forDiff(x.obj, opts)), toYaml(forDiff(y.obj, opts)));
    diffPre.dataset.state = 'ok';
    mount(diffPre, lines.map((l) => h('span', { class: l.op === '+' ? 'diff-add' : l.op === '-' ? 'diff-del' : 'diff-same', dataset: { op: l.op } }, `${l.op} ${l.text}\n`)));
    if (!x.obj && !y.obj) mount(diffPre, h('span', { class: 'muted' }, `${objectName(e)} existed at neither revision.`));
  }

  // ---- scrubbing ----------------------------------------------------------------------------
  let pending = 0;
  function setRevision(rev, from) {
    if (!Number.isFinite(rev) || rev < 1) return;
    scrubRev = rev;
    if (from !== 'input') revIn.value = String(rev);
    if (from !== 'slider') scrub.value = String(rev);
    render();
    // The slider moves many revisions a second: read the last one it rests on.
    clearTimeout(pending);
    pending = setTimeout(() => showAt(rev), from === 'slider' ? 60 : 0);
  }

  /** Reads the chosen object and its collection at rev, or explains the 410. */
  async function showAt(rev) {
    const seq = ++readSeq;
    const e = selected;
    const collection = e?.collection;
    gone.hidden = true;
    objectHead.textContent = e ? `${e.kind} ${objectName(e)} at revision ${rev}` : '';
    if (!collection) {
      // No change chosen: a read of the revision says whether it is kept.
      if (page && rev < page.compactedRevision) showGone(rev, {});
      return;
    }
    const r = await readAt(collection, '', rev);
    if (seq !== readSeq) return;
    objectPre.dataset.revision = String(rev);
    if (r.gone) {
      showGone(rev, r.json);
      objectPre.dataset.state = 'gone';
      objectPre.textContent = `Revision ${rev} is no longer in the history: the API answered 410 Gone (above).`;
      mount(collectionList, h('li', { class: 'muted' }, 'not readable at that revision'));
      return;
    }
    if (r.error) {
      objectPre.dataset.state = 'error';
      objectPre.textContent = r.error;
      return;
    }
    const obj = r.items.find((o) => o.metadata?.name === e.name) || null;
    objectPre.dataset.state = obj ? 'exists' : 'absent';
    if (obj) objectPre.innerHTML = highlightYaml(toYaml(obj));
    else objectPre.textContent = `${objectName(e)} did not exist at revision ${rev}.`;
    mount(collectionList, r.items.length
      ? r.items.map((o) => h('li', { testid: 'timeline-collection-item', dataset: { name: o.metadata.name, rv: o.metadata.resourceVersion } },
        `${o.metadata.name}  (resourceVersion ${o.metadata.resourceVersion})`))
      : h('li', { class: 'muted' }, 'empty'));
  }

  function showGone(rev, status) {
    gone.hidden = false;
    gone.dataset.revision = String(rev);
    mount(gone, h('strong', {}, '410 Gone. '), compactedExplanation(rev, page?.compactedRevision ?? 0),
      status.message ? h('div', { class: 'mono small' }, `The API said: ${status.message}`) : null);
  }

  onTargetChange(() => {
    items = [];
    page = null;
    scrubRev = 0;
    select(null);
  });

  return {
    el,
    /** The tab is shown: read the newest changes. */
    show: () => load(false),
  };
}
