// requests.js — the Requests panel (WORK-3): the sandbox's request log, live,
// from whatever target is chosen: every request it answered, kubectl's,
// client-go programs', this page's and the sandbox's own controllers'
// (GET /debug/kubeplay/requests?since=VERSION, asked every half second: a
// stream would hold one of the six HTTP/1.1 connections a native target
// allows, which the Cluster view's five watches beside it leave). Filter by
// client, user, verb and
// code; a row opens the request as curl with the bodies the log kept and the
// answer; "Beside other tabs" docks the panel to the right of the Cluster or
// Watch view, so that a `kubectl scale` and the controllers' writes after it
// can be watched together. Its logic without the DOM is requestsmodel.js.

import { h, mount, clock, copyText } from './dom.js';
import { apiFetch, currentTarget, onTargetChange, targetUrl } from './api.js';
import { LOG_PATH, RequestLog, entryCurl, latency } from './requestsmodel.js';
import { highlightJson } from './highlight.js';

const POLL_MS = 500;

export function createRequestsPanel({ onDock } = {}) {
  const log = new RequestLog();
  let abort = null;
  let running = false;
  let paused = false;
  let selected = null;

  const status = h('span', { class: 'muted', testid: 'requests-status' }, 'not started');
  const select = (id, label) => h('select', { testid: `requests-filter-${id}`, title: label, on: { change: render } }, h('option', { value: '' }, `any ${label}`));
  const clientSel = select('client', 'client');
  const userSel = select('user', 'user');
  const verbSel = select('verb', 'verb');
  const codeSel = h(
    'select',
    { testid: 'requests-filter-code', on: { change: render } },
    ['', '2xx', '3xx', '4xx', '5xx'].map((c) => h('option', { value: c }, c || 'any code')),
  );
  const own = h('input', { type: 'checkbox', testid: 'requests-own', checked: true, on: { change: render } });
  const pauseBtn = h('button', { type: 'button', testid: 'requests-pause', on: { click: togglePause } }, 'Pause');
  const clearBtn = h('button', { type: 'button', testid: 'requests-clear', on: { click: () => { log.clear(); render(); } } }, 'Clear');
  const dock = h('input', { type: 'checkbox', testid: 'requests-dock', on: { change: () => onDock && onDock(dock.checked) } });
  const body = h('tbody');
  const table = h(
    'table',
    { class: 'requests-table', testid: 'requests-table' },
    h('thead', {}, h('tr', {}, ['Time', 'Client', 'User', 'Verb', 'Request', 'Code', 'Took', 'Bytes', 'APF level / schema'].map((c) => h('th', {}, c)))),
    body,
  );
  const detail = h('section', { class: 'panel requests-detail', testid: 'requests-detail', hidden: true });

  const el = h(
    'section',
    { class: 'requests-panel', testid: 'requests-panel' },
    h(
      'div',
      { class: 'panel requests-bar' },
      clientSel, userSel, verbSel, codeSel,
      h('label', { class: 'check', title: "The sandbox's own controllers, kubelets and scheduler" }, own, ' sandbox components'),
      pauseBtn, clearBtn,
      h('label', { class: 'check', title: 'Keep this panel open beside the Cluster and Watch views' }, dock, ' beside other tabs'),
      status,
    ),
    h('div', { class: 'requests-scroll' }, table),
    detail,
  );

  function filter() {
    return { client: clientSel.value, user: userSel.value, verb: verbSel.value, code: codeSel.value, internal: own.checked ? undefined : false };
  }

  function refreshOptions(sel, field) {
    const have = new Set([...sel.options].map((o) => o.value));
    for (const v of log.values(field)) if (!have.has(v)) sel.appendChild(h('option', { value: v }, v));
  }

  let scheduled = false;
  function render() {
    if (scheduled) return;
    scheduled = true;
    requestAnimationFrame(() => {
      scheduled = false;
      refreshOptions(clientSel, 'client');
      refreshOptions(userSel, 'user');
      refreshOptions(verbSel, 'verb');
      const rows = log.entries(filter()).slice(-300).reverse();
      mount(body, rows.map(row));
    });
  }

  function row(e) {
    const apf = e.priorityLevel ? `${e.priorityLevel} / ${e.flowSchema}` : '';
    const who = e.impersonatedBy ? `${e.user} (by ${e.impersonatedBy})` : e.user || '';
    const code = e.open ? `${e.code} open` : String(e.code);
    return h(
      'tr',
      {
        testid: 'requests-row',
        class: [e.code >= 400 ? 'error' : '', e.internal ? 'internal' : '', selected === e.seq ? 'selected' : ''].join(' ').trim(),
        dataset: { seq: String(e.seq), client: e.client, verb: e.verb || '', code: String(e.code), method: e.method },
        on: { click: () => open(e.seq) },
      },
      h('td', { class: 'mono' }, clock(new Date(e.time))),
      h('td', {}, e.client),
      h('td', {}, who),
      h('td', {}, e.verb || e.method),
      h('td', { class: 'mono uri', title: `${e.method} ${e.uri}` }, `${e.method} ${e.uri}`),
      h('td', { class: 'mono' }, code),
      h('td', { class: 'mono' }, latency(e.latencyMicros)),
      h('td', { class: 'mono' }, `${e.requestBytes}/${e.responseBytes}`),
      h('td', { class: 'muted' }, apf),
    );
  }

  async function open(seq) {
    selected = seq;
    render();
    detail.hidden = false;
    mount(detail, h('span', { class: 'muted' }, 'loading…'));
    try {
      const res = await apiFetch(`${LOG_PATH}/${seq}`);
      const d = await res.json();
      if (!res.ok) {
        mount(detail, h('span', { class: 'error' }, d.message || `${res.status}`));
        return;
      }
      const t = currentTarget();
      const extra = t.kind === 'remote' && t.token ? [['Authorization', `Bearer ${t.token}`]] : [];
      const curl = entryCurl(d, targetUrl('/').replace(/\/$/, ''), extra);
      const copyBtn = h('button', { type: 'button', testid: 'requests-copy-curl', on: { click: () => copyText(curl) } }, 'Copy');
      const bodyView = (text, b64, cut, testid) => {
        if (b64) return h('pre', { class: 'mono', testid }, `(binary, ${atob(b64).length} bytes kept)`);
        if (text === undefined) return h('pre', { class: 'muted', testid }, '(none)');
        let shown = text;
        try { shown = JSON.stringify(JSON.parse(text), null, 2); } catch { /* not JSON: as it came */ }
        const pre = h('pre', { class: 'mono code', testid });
        pre.innerHTML = highlightJson(shown);
        return h('div', {}, pre, cut ? h('p', { class: 'muted' }, `(cut: the log keeps the first 32 KiB)`) : null);
      };
      const e = d.entry;
      mount(
        detail,
        h('h3', {}, `#${e.seq} ${e.method} ${e.uri} → ${e.code}`),
        h('p', { class: 'muted' }, `${e.client} as ${e.user || 'nobody (unauthenticated)'}${e.impersonatedBy ? ` (impersonated by ${e.impersonatedBy})` : ''}, ${e.userAgent || 'no User-Agent'}; ${latency(e.latencyMicros)}`),
        h('div', { class: 'requests-curl' }, h('pre', { class: 'mono', testid: 'requests-curl' }, curl), copyBtn),
        h('h4', {}, 'Request body'),
        bodyView(d.requestBody, d.requestBodyBase64, d.requestBodyTruncated, 'requests-request-body'),
        h('h4', {}, 'Response body'),
        bodyView(d.responseBody, d.responseBodyBase64, d.responseBodyTruncated, 'requests-response-body'),
      );
    } catch (err) {
      mount(detail, h('span', { class: 'error' }, String(err.message || err)));
    }
  }

  function togglePause() {
    paused = !paused;
    pauseBtn.textContent = paused ? 'Resume' : 'Pause';
    if (!paused) render();
  }

  async function follow() {
    let version = 0;
    while (running) {
      abort = new AbortController();
      try {
        const res = await apiFetch(`${LOG_PATH}?since=${version}`, { signal: abort.signal });
        const d = await res.json().catch(() => ({}));
        if (!res.ok) {
          status.textContent = `${res.status}: ${d.message || res.statusText}`;
          status.dataset.state = '';
        } else {
          if (d.version < version) log.clear(); // a new sandbox, or the log began again
          for (const e of d.items || []) log.apply({ type: 'ADDED', object: e });
          version = d.version;
          status.textContent = 'live';
          status.dataset.state = 'live';
          if (!paused && (d.items || []).length) render();
        }
      } catch (err) {
        if (!running) return;
        status.textContent = String(err.message || err);
        status.dataset.state = '';
      }
      if (running) await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  function start() {
    if (running) return;
    running = true;
    follow();
  }

  function stop() {
    running = false;
    if (abort) abort.abort();
    status.textContent = 'stopped';
  }

  onTargetChange(() => {
    if (!running) return;
    stop();
    log.clear();
    render();
    start();
  });

  // setDocked keeps the panel beside the other tabs (on) or not.
  function setDocked(on) {
    dock.checked = on;
    if (onDock) onDock(on);
  }

  return { el, start, stop, log, open, isDocked: () => dock.checked, setDocked };
}
