// response.js — the response view: status line, timing, headers, the
// server's warnings (as kubectl prints them), body (pretty and highlighted,
// or raw; its objects and lists foldable, block by block or to a level, a
// long body opening folded: fold.js), Status errors and Tables rendered
// visibly, an object's managedFields folded out of its body and shown by
// manager. Bodies
// are shown while they stream (watches). Binary bodies (Kubernetes protobuf,
// CBOR, their watch streams) are shown as a hex dump and, decoded by the
// target's POST /debug/kubeplay/decode, as JSON.

import { apiFetch } from './api.js';
import { h, mount } from './dom.js';
import { renderFoldable } from './fold.js';
import { highlightJson, highlightYaml, hexDump } from './highlight.js';
import { managedFieldsOf, groupByManager, describeEntry, foldManagedFields } from './managedfields.js';
import { parseWarnings } from './warnings.js';

export const STATUS_TEXT = {
  100: 'Continue', 101: 'Switching Protocols', 200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No Content',
  206: 'Partial Content', 301: 'Moved Permanently', 302: 'Found', 304: 'Not Modified', 307: 'Temporary Redirect',
  308: 'Permanent Redirect', 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found',
  405: 'Method Not Allowed', 406: 'Not Acceptable', 409: 'Conflict', 410: 'Gone', 411: 'Length Required',
  412: 'Precondition Failed', 413: 'Request Entity Too Large', 414: 'URI Too Long', 415: 'Unsupported Media Type',
  422: 'Unprocessable Entity', 429: 'Too Many Requests', 500: 'Internal Server Error', 501: 'Not Implemented',
  502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout',
};

export function statusLine(status, statusText) {
  return `${status} ${statusText || STATUS_TEXT[status] || ''}`.trim();
}

// A body longer than FOLD_LONG_LINES opens folded at FOLD_LONG_LEVEL (a
// list's items show their names and top fields); one longer than
// FOLD_MAX_LINES is not made foldable (a line each in the DOM).
const FOLD_LONG_LINES = 1000;
const FOLD_LONG_LEVEL = 4;
const FOLD_MAX_LINES = 50000;

function isTexty(ct) {
  return !ct || /json|yaml|text\/|xml|javascript/i.test(ct);
}

/** Pretty JSON text for a body that is one JSON value or a stream of them. */
export function prettyJson(text) {
  const t = text.trim();
  if (!t) return { ok: true, text: '' };
  try {
    return { ok: true, text: JSON.stringify(JSON.parse(t), null, 2), value: JSON.parse(t) };
  } catch {
    // a watch stream: one JSON value per line
    const lines = t.split('\n').filter((l) => l.trim());
    try {
      return { ok: true, text: lines.map((l) => JSON.stringify(JSON.parse(l), null, 2)).join('\n'), stream: true };
    } catch {
      return { ok: false, text };
    }
  }
}

export function createResponseView() {
  const statusEl = h('span', { class: 'status', testid: 'response-status', dataset: { status: '' } }, 'No request sent yet');
  const timeEl = h('span', { class: 'timing', testid: 'response-time' });
  const sizeEl = h('span', { class: 'size' });
  const rawBox = h('input', { type: 'checkbox', testid: 'response-raw', on: { change: () => render() } });
  // Fold a pretty body to a level (0: all open); a long one opens folded.
  const foldSelect = h(
    'select',
    { testid: 'response-fold', title: 'Fold the body\'s objects and lists from this depth on', on: { change: () => { foldLevel = Number(foldSelect.value); foldable?.foldTo(foldLevel); } } },
    h('option', { value: '0' }, 'unfolded'),
    [1, 2, 3, 4, 5].map((n) => h('option', { value: String(n) }, `folded at level ${n}`)),
  );
  const foldLabel = h('label', { class: 'fold-choice', hidden: true }, foldSelect);
  const headersEl = h('table', { class: 'headers-table', testid: 'response-headers' });
  const headersDetails = h('details', { class: 'resp-headers' }, h('summary', {}, 'Headers'), headersEl);
  const warningsEl = h('ul', { class: 'warnings', testid: 'response-warnings', hidden: true });
  const errorEl = h('div', { class: 'status-error', testid: 'response-status-error', hidden: true });
  const tableEl = h('div', { class: 'table-view', hidden: true });
  const managedEl = h('details', { class: 'managed-fields', testid: 'response-managed-fields', hidden: true });
  const decodedEl = h('pre', { class: 'code-view', testid: 'response-decoded', hidden: true });
  const bodyEl = h('pre', { class: 'code-view', testid: 'response-body' });
  const root = h(
    'section',
    { class: 'panel response', testid: 'response' },
    h('div', { class: 'resp-line' }, statusEl, timeEl, sizeEl, foldLabel, h('label', { class: 'raw-toggle' }, rawBox, ' Raw')),
    headersDetails,
    warningsEl,
    errorEl,
    tableEl,
    managedEl,
    decodedEl,
    bodyEl,
  );

  let chunks = [];
  let size = 0;
  let contentType = '';
  let streaming = false;
  let decoder = null;
  let renderQueued = false;
  let generation = 0; // drops decodings of an earlier response
  let foldable = null; // the body's blocks, when it is pretty JSON or YAML
  let foldLevel = null; // the level chosen (null: the body's own default)

  function reset() {
    chunks = [];
    size = 0;
    contentType = '';
    generation++;
    warningsEl.hidden = true;
    errorEl.hidden = true;
    tableEl.hidden = true;
    managedEl.hidden = true;
    decodedEl.hidden = true;
    mount(bodyEl);
    bodyEl.classList.remove('foldable');
    foldable = null;
    foldLabel.hidden = true;
    sizeEl.textContent = '';
  }

  function setStatus(text, cls, code) {
    statusEl.textContent = text;
    statusEl.className = `status ${cls}`;
    statusEl.dataset.status = String(code);
  }

  function pending(label) {
    reset();
    setStatus(label || 'Sending…', 'pending', '');
    timeEl.textContent = '';
    mount(headersEl);
  }

  function error(err, ms) {
    reset();
    setStatus(`Request failed: ${err && err.message ? err.message : err}`, 'err', 0);
    timeEl.textContent = ms !== undefined ? `${Math.round(ms)} ms` : '';
    mount(headersEl);
    bodyEl.textContent =
      'The request did not reach a server, or its response could not be read.\n' +
      'A remote kubeplay server must allow this page\'s origin (CORS: --cors-allowed-origins).';
  }

  function begin(res, ms) {
    reset();
    const cls = res.status >= 500 ? 'err' : res.status >= 400 ? 'warn' : 'ok';
    setStatus(statusLine(res.status, res.statusText), cls, res.status);
    timeEl.textContent = `${Math.round(ms)} ms to headers`;
    contentType = res.headers.get('Content-Type') || '';
    const rows = [];
    res.headers.forEach((v, k) => rows.push(h('tr', {}, h('th', {}, k), h('td', {}, v))));
    mount(headersEl, rows.length ? rows : h('tr', {}, h('td', {}, '(none visible)')));
    headersDetails.querySelector('summary').textContent = `Headers (${rows.length})`;
    const warnings = parseWarnings(res.headers.get('Warning'));
    mount(warningsEl, warnings.map((w) => h('li', {}, `Warning: ${w.text}`)));
    warningsEl.hidden = warnings.length === 0;
    streaming = true;
    decoder = new TextDecoder();
  }

  function append(bytes) {
    chunks.push(bytes);
    size += bytes.length;
    sizeEl.textContent = formatSize(size);
    if (!isTexty(contentType)) return;
    // While streaming, show the raw text as it comes.
    bodyEl.appendChild(document.createTextNode(decoder.decode(bytes, { stream: true })));
    if (!renderQueued) {
      renderQueued = true;
      requestAnimationFrame(() => {
        renderQueued = false;
        // A stream follows its end while it lasts; a finished answer reads
        // from its start (render).
        if (streaming) bodyEl.scrollTop = bodyEl.scrollHeight;
      });
    }
  }

  function end(totalMs, note) {
    streaming = false;
    timeEl.textContent = `${timeEl.textContent.replace(/ to headers$/, '')} to headers, ${Math.round(totalMs)} ms total${note ? ` (${note})` : ''}`;
    render();
  }

  function bytes() {
    const all = new Uint8Array(size);
    let off = 0;
    for (const c of chunks) {
      all.set(c, off);
      off += c.length;
    }
    return all;
  }

  function render() {
    if (streaming) return;
    bodyEl.scrollTop = 0;
    const all = bytes();
    errorEl.hidden = true;
    tableEl.hidden = true;
    managedEl.hidden = true;
    bodyEl.classList.toggle('hex', !isTexty(contentType));
    if (!isTexty(contentType)) {
      bodyEl.textContent = size ? `${contentType} — ${formatSize(size)} binary\n\n${hexDump(all)}` : '';
      if (size && /vnd\.kubernetes\.protobuf|cbor/i.test(contentType)) showDecoded(all, contentType);
      return;
    }
    const text = new TextDecoder().decode(all);
    let value;
    foldable = null;
    foldLabel.hidden = true;
    bodyEl.classList.remove('foldable');
    if (/json/i.test(contentType)) {
      const p = prettyJson(text);
      value = p.value;
      if (rawBox.checked || !p.ok) bodyEl.textContent = text;
      else if (managedFieldsOf(value).length) {
        showManagedFields(managedFieldsOf(value));
        showFoldable(JSON.stringify(foldManagedFields(value), null, 2), 'json');
      } else showFoldable(p.text, 'json');
    } else if (/yaml/i.test(contentType)) {
      if (rawBox.checked) bodyEl.textContent = text;
      else showFoldable(text, 'yaml');
    } else {
      bodyEl.textContent = text;
    }
    if (value && typeof value === 'object') {
      if (value.kind === 'Status' && value.status === 'Failure') showStatusError(value);
      if (value.kind === 'Table' && Array.isArray(value.columnDefinitions) && !rawBox.checked) showTable(value);
    }
  }

  // showFoldable shows pretty text highlighted, with its blocks foldable: at
  // the level last chosen, else folded at level FOLD_LONG_LEVEL when longer
  // than FOLD_LONG_LINES lines. A huge body is shown as it is.
  function showFoldable(text, kind) {
    const html = kind === 'json' ? highlightJson(text) : highlightYaml(text);
    const lines = text.split('\n');
    if (lines.length > FOLD_MAX_LINES) {
      bodyEl.innerHTML = html;
      return;
    }
    foldable = renderFoldable(bodyEl, html.split('\n'), lines, kind);
    const level = foldLevel ?? (lines.length > FOLD_LONG_LINES ? FOLD_LONG_LEVEL : 0);
    foldSelect.value = String(level);
    foldable.foldTo(level);
    foldLabel.hidden = false;
  }

  // showDecoded asks the target to decode a binary body and shows it as JSON
  // above the hex dump (the Status or Table it holds, too).
  async function showDecoded(body, ct) {
    const mine = generation;
    decodedEl.hidden = false;
    decodedEl.textContent = `Decoding ${ct} …`;
    let text;
    let value;
    try {
      const res = await apiFetch('/debug/kubeplay/decode', { method: 'POST', body, headers: { 'Content-Type': ct } });
      text = await res.text();
      value = JSON.parse(text);
      if (!res.ok) throw new Error(value.message || text);
    } catch (err) {
      if (mine === generation) decodedEl.textContent = `Could not decode this ${ct} body: ${err && err.message ? err.message : err}`;
      return;
    }
    if (mine !== generation) return;
    const json = h('span');
    json.innerHTML = highlightJson(JSON.stringify(value, null, 2));
    mount(decodedEl, h('span', { class: 'decoded-note' }, `decoded from ${ct}:`), '\n', json);
    if (value && value.kind === 'Status' && value.status === 'Failure') showStatusError(value);
  }

  // showManagedFields lists who owns which fields: one entry per manager,
  // folded, with each of its operations and the field paths it owns.
  function showManagedFields(entries) {
    const groups = groupByManager(entries);
    mount(
      managedEl,
      h('summary', {}, `managedFields: ${groups.length} ${groups.length === 1 ? 'manager' : 'managers'} (${groups.map((g) => g.manager).join(', ')})`),
      groups.map((g) => h(
        'details',
        { class: 'mf-manager', testid: 'managed-by', dataset: { manager: g.manager } },
        h('summary', {}, h('strong', {}, g.manager), ' — ', g.entries.map(describeEntry).join('; ')),
        g.entries.map((e) => h('ul', { class: 'mf-paths' }, e.paths.map((p) => h('li', {}, p)))),
      )),
    );
    managedEl.hidden = false;
  }

  function showStatusError(s) {
    const causes = (s.details && s.details.causes) || [];
    mount(
      errorEl,
      h('div', { class: 'se-head' }, h('strong', {}, `${s.code || ''} ${s.reason || 'Failure'}`)),
      h('div', { class: 'se-msg' }, s.message || ''),
      causes.length
        ? h('ul', {}, causes.map((c) => h('li', {}, `${c.field ? c.field + ': ' : ''}${c.message || c.reason || ''}`)))
        : null,
    );
    errorEl.hidden = false;
  }

  function showTable(t) {
    const cols = t.columnDefinitions.filter((c) => !c.priority);
    const idx = cols.map((c) => t.columnDefinitions.indexOf(c));
    mount(
      tableEl,
      h(
        'table',
        { class: 'k8s-table' },
        h('thead', {}, h('tr', {}, cols.map((c) => h('th', { title: c.description || '' }, c.name)))),
        h('tbody', {}, (t.rows || []).map((r) => h('tr', {}, idx.map((i) => h('td', {}, fmtCell(r.cells[i])))))),
      ),
    );
    tableEl.hidden = false;
  }

  return { el: root, pending, error, begin, append, end, reset };
}

function fmtCell(v) {
  if (v === null || v === undefined) return '<none>';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

function formatSize(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(2)} MiB`;
}
