// builder.js — the request builder: method, path (completed from discovery),
// namespace, query parameter rows, header rows, body editor (JSON or YAML),
// Send, copy as curl / kubectl. Sends through apiFetch and streams the answer
// into the response view; every request goes to the history.
//
// A request spec (what history stores and restores):
//   {method, path, namespace, params: [[k, v]], headers: [[k, v]], body, bodyMode}
// A prepared request (what is sent): {method, path (with query), headers: [[k, v]], body?}

import { h, mount, copyText } from './dom.js';
import { apiFetch, currentTarget } from './api.js';
import { attachCompletion } from './completion.js';
import { completePath, listNamespaces } from './discovery.js';
import { createBodyEditor } from './editor.js';
import { yamlToJson } from './yamljson.js';
import { openAPIDocument } from './openapi.js';
import { toCurl, toKubectl } from './copyas.js';
import { addHistory, updateHistory } from './history.js';
import { TEMPLATES, instantiate } from './templates.js';
import { resourceKey, commitPath } from './query.js';

export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
const READ_METHODS = new Set(['GET', 'HEAD']);

export const QUERY_KEYS = [
  'watch', 'labelSelector', 'fieldSelector', 'limit', 'continue', 'resourceVersion', 'resourceVersionMatch',
  'allowWatchBookmarks', 'sendInitialEvents', 'timeoutSeconds', 'fieldManager', 'force', 'dryRun',
  'fieldValidation', 'pretty', 'propagationPolicy', 'gracePeriodSeconds', 'orphanDependents',
];

export const HEADER_KEYS = ['Accept', 'Content-Type', 'Accept-Encoding', 'Impersonate-User', 'Impersonate-Group', 'Authorization', 'If-Match'];

export const MEDIA_TYPES = [
  'application/json',
  'application/yaml',
  'application/merge-patch+json',
  'application/json-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
  'application/apply-patch+cbor',
  'application/vnd.kubernetes.protobuf',
  'application/cbor',
  'application/json;as=Table;v=v1;g=meta.k8s.io',
  'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io',
  '*/*',
];

const DEFAULT_HEADERS = [['Accept', 'application/json'], ['Content-Type', 'application/json']];

let datalistSeq = 0;

function datalist(values) {
  const id = `dl-${++datalistSeq}`;
  return { id, el: h('datalist', { id }, values.map((v) => h('option', { value: v }))) };
}

/** Rows of key/value inputs with add/remove. */
function createRows({ testid, rowTestid, addTestid, keyList, valueListFor, addLabel, onChange }) {
  const body = h('div', { class: 'rows', testid });
  const keyDl = datalist(keyList);
  const valueDls = new Map();
  const root = h('div', { class: 'rows-box' }, keyDl.el, body, h('button', { type: 'button', class: 'small', testid: addTestid, on: { click: () => { add('', ''); body.lastChild.querySelector('input').focus(); } } }, addLabel));

  function valueDlFor(key) {
    const vals = valueListFor ? valueListFor(key) : null;
    if (!vals) return null;
    const k = key.toLowerCase();
    if (!valueDls.has(k)) {
      const dl = datalist(vals);
      root.appendChild(dl.el);
      valueDls.set(k, dl.id);
    }
    return valueDls.get(k);
  }

  function add(k, v) {
    const key = h('input', { type: 'text', class: 'row-key', placeholder: 'name', value: k, list: keyDl.id, spellcheck: 'false' });
    const val = h('input', { type: 'text', class: 'row-value', placeholder: 'value', value: v, spellcheck: 'false' });
    const sync = () => {
      const id = valueDlFor(key.value);
      if (id) val.setAttribute('list', id);
      else val.removeAttribute('list');
    };
    key.addEventListener('input', () => { sync(); if (onChange) onChange(); });
    val.addEventListener('input', () => { if (onChange) onChange(); });
    sync();
    const row = h('div', { class: 'kv-row', testid: rowTestid }, key, val, h('button', { type: 'button', class: 'icon', title: 'remove', on: { click: () => { row.remove(); if (onChange) onChange(); } } }, '×'));
    body.appendChild(row);
  }

  function get() {
    return [...body.children].map((r) => [r.querySelector('.row-key').value.trim(), r.querySelector('.row-value').value]).filter(([k]) => k);
  }

  function set(pairs) {
    body.replaceChildren();
    for (const [k, v] of pairs) add(k, v);
  }

  return { el: root, get, set, add };
}

function headerValue(pairs, name) {
  const p = pairs.find(([k]) => k.toLowerCase() === name.toLowerCase());
  return p ? p[1] : '';
}

/** Identities the builder's "as" choice sends, as impersonation headers (the
 * sandbox's user may impersonate anyone; RBAC then judges the impersonated
 * user's request). The first is no choice: the target's own identity
 * (kubernetes-admin in the sandbox, the token's holder elsewhere). */
export const IDENTITIES = [
  { id: '', label: 'as: the target’s default', headers: [] },
  { id: 'alice', label: 'as alice (group devs)', headers: [['Impersonate-User', 'alice'], ['Impersonate-Group', 'devs']] },
  { id: 'sa', label: 'as service account default/builder', headers: [['Impersonate-User', 'system:serviceaccount:default:builder']] },
  { id: 'node', label: 'as node node-1', headers: [['Impersonate-User', 'system:node:node-1'], ['Impersonate-Group', 'system:nodes']] },
  { id: 'kcm', label: 'as kube-controller-manager', headers: [['Impersonate-User', 'system:kube-controller-manager']] },
  { id: 'masters', label: 'as a system:masters member (APF-exempt)', headers: [['Impersonate-User', 'admin'], ['Impersonate-Group', 'system:masters']] },
  { id: 'anonymous', label: 'as system:anonymous', headers: [['Impersonate-User', 'system:anonymous']] },
];

/** headers with the impersonation headers replaced by identity's. */
export function withIdentity(pairs, identity) {
  return [...pairs.filter(([k]) => !/^impersonate-/i.test(k)), ...identity.headers];
}

/**
 * createBuilder({responseView, onOpenWatch}) → {el, getSpec, setSpec, send, prepare, getNamespace}
 */
export function createBuilder({ responseView, onOpenWatch }) {
  const method = h('select', { testid: 'method', on: { change: onMethodChange } }, METHODS.map((m) => h('option', { value: m }, m)));
  const path = h('input', { type: 'text', class: 'path-input', testid: 'path', placeholder: '/api/v1/namespaces/default/configmaps', value: '/api/v1/namespaces', spellcheck: 'false' });
  const nsDl = datalist([]);
  const namespace = h('input', { type: 'text', class: 'ns-input', testid: 'namespace', value: 'default', list: nsDl.id, spellcheck: 'false', on: { change: onNamespaceChange, focus: refreshNamespaces } });
  const template = h(
    'select',
    { testid: 'template-select', on: { change: () => { const t = TEMPLATES.find((x) => x.id === template.value); if (t) setSpec(instantiate(t, namespace.value.trim())); template.value = ''; } } },
    h('option', { value: '' }, 'Examples…'),
    TEMPLATES.map((t) => h('option', { value: t.id }, t.title)),
  );
  const identity = h(
    'select',
    { testid: 'identity-select', title: 'Who the request is from: impersonation headers (kubectl --as, --as-group)',
      on: { change: () => { const id = IDENTITIES.find((x) => x.id === identity.value); headers.set(withIdentity(headers.get(), id)); updateHints(); } } },
    IDENTITIES.map((x) => h('option', { value: x.id }, x.label)),
  );
  const params = createRows({ testid: 'params', rowTestid: 'param-row', addTestid: 'add-param', keyList: QUERY_KEYS, addLabel: '+ query parameter', valueListFor: (k) => paramValues(k), onChange: () => { rowsKey = resourceKey(path.value); updateHints(); } });
  // The resource the query rows were made for (commitPath).
  let rowsKey = resourceKey(path.value);
  const headers = createRows({ testid: 'headers', rowTestid: 'header-row', addTestid: 'add-header', keyList: HEADER_KEYS, addLabel: '+ header', valueListFor: (k) => (/^(accept|content-type)$/i.test(k) ? MEDIA_TYPES : null), onChange: updateHints });
  headers.set(DEFAULT_HEADERS);

  const modeJson = h('button', { type: 'button', class: 'seg', testid: 'body-mode-json', on: { click: () => setMode('json') } }, 'JSON');
  const modeYaml = h('button', { type: 'button', class: 'seg', testid: 'body-mode-yaml', on: { click: () => setMode('yaml') } }, 'YAML');
  const bodyHint = h('span', { class: 'muted body-hint', testid: 'body-hint' });
  const editorHost = h('div', { class: 'editor', testid: 'body-editor' });
  const editor = createBodyEditor(editorHost, { onChange: updateHints, onSubmit: () => send(), schema: openAPIDocument });

  const sendBtn = h('button', { type: 'submit', class: 'primary', testid: 'send' }, 'Send');
  const stopBtn = h('button', { type: 'button', class: 'danger', testid: 'stop', hidden: true, on: { click: () => inflight && inflight.abort() } }, 'Stop');
  const curlBtn = h('button', { type: 'button', testid: 'copy-curl', on: { click: () => copyAs('curl') } }, 'Copy as curl');
  const kubectlBtn = h('button', { type: 'button', testid: 'copy-kubectl', on: { click: () => copyAs('kubectl') } }, 'Copy as kubectl');
  const watchBtn = h('button', { type: 'button', testid: 'open-watch', title: 'Follow this collection in the watch panel (reconnects like a reflector)', on: { click: () => onOpenWatch && onOpenWatch(pathWithQuery()) } }, 'Watch in panel');
  const copyMsg = h('span', { class: 'muted' });
  const copyOut = h('pre', { class: 'copy-output', testid: 'copy-output' });
  const copyBox = h('div', { class: 'copy-box', hidden: true }, h('div', { class: 'row' }, copyMsg, h('button', { type: 'button', class: 'icon', title: 'close', on: { click: () => { copyBox.hidden = true; } } }, '×')), copyOut);
  const prepError = h('div', { class: 'prep-error', testid: 'prepare-error', hidden: true });

  const el = h(
    'form',
    { class: 'panel builder', testid: 'builder', on: { submit: (e) => { e.preventDefault(); send(); } } },
    nsDl.el,
    h('div', { class: 'row wrap' }, template, h('label', { class: 'ns-label' }, 'namespace ', namespace), identity),
    h('div', { class: 'row request-line' }, method, h('span', { class: 'completion-host grow' }, path), sendBtn, stopBtn),
    prepError,
    h('details', { class: 'section', open: true }, h('summary', {}, 'Query parameters'), params.el),
    h('details', { class: 'section', open: true }, h('summary', {}, 'Headers'), headers.el),
    h('div', { class: 'section body-section' }, h('div', { class: 'row' }, h('strong', {}, 'Body'), h('span', { class: 'segmented' }, modeJson, modeYaml), bodyHint), editorHost),
    h('div', { class: 'row actions' }, curlBtn, kubectlBtn, watchBtn),
    copyBox,
  );

  attachCompletion(path, (t) => completePath(t, namespace.value.trim()));
  path.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.defaultPrevented) {
      e.preventDefault();
      send();
    }
  });
  path.addEventListener('change', moveQueryToRows);
  path.addEventListener('input', updateHints);
  setMode('json', false);

  let inflight = null;

  function paramValues(k) {
    switch (k) {
      case 'watch': case 'allowWatchBookmarks': case 'sendInitialEvents': case 'force': return ['true', 'false'];
      case 'resourceVersionMatch': return ['NotOlderThan', 'Exact'];
      case 'dryRun': return ['All'];
      case 'fieldValidation': return ['Strict', 'Warn', 'Ignore'];
      case 'propagationPolicy': return ['Background', 'Foreground', 'Orphan'];
      case 'resourceVersion': return ['0'];
      default: return null;
    }
  }

  function onMethodChange() {
    updateHints();
    updateSendable();
  }

  // A read-only view (WORK-2) sends reads only: Send is disabled for the rest.
  function updateSendable() {
    const refused = currentTarget().readOnly && !READ_METHODS.has(method.value);
    sendBtn.disabled = refused;
    sendBtn.title = refused ? 'A read-only view sends GET and HEAD only' : '';
  }

  function setMode(mode, convert = true) {
    const r = editor.setMode(mode, { convert });
    modeJson.classList.toggle('on', mode === 'json');
    modeYaml.classList.toggle('on', mode === 'yaml');
    if (!r.ok) showPrepError(`Kept the text as it is: it does not parse (${r.error}).`);
    else hidePrepError();
    updateHints();
  }

  function updateHints() {
    const ct = headerValue(headers.get(), 'Content-Type');
    const text = editor.getText().trim();
    let hint = '';
    if (text && editor.getMode() === 'yaml' && /json/i.test(ct)) hint = 'YAML is converted to JSON before sending (Content-Type is JSON).';
    else if (text && (method.value === 'GET' || method.value === 'HEAD')) hint = `${method.value} requests are sent without a body.`;
    else if (!text && /^(POST|PUT|PATCH)$/.test(method.value)) hint = 'No body.';
    bodyHint.textContent = hint;
    const q = new URLSearchParams(path.value.split('?')[1] || '');
    const isWatch = /^(true|1)$/.test(q.get('watch') || '') || params.get().some(([k, v]) => k === 'watch' && /^(true|1)$/.test(v));
    watchBtn.hidden = !isWatch;
  }

  function showPrepError(msg) {
    prepError.textContent = msg;
    prepError.hidden = false;
  }

  function hidePrepError() {
    prepError.hidden = true;
  }

  function moveQueryToRows() {
    const before = params.get();
    const r = commitPath(path.value, before, rowsKey);
    rowsKey = r.key;
    if (r.path === path.value && r.rows === before) return;
    params.set(r.rows);
    path.value = r.path;
    updateHints();
  }

  async function refreshNamespaces() {
    const names = await listNamespaces();
    mount(nsDl.el, names.map((n) => h('option', { value: n })));
  }

  function onNamespaceChange() {
    const ns = namespace.value.trim();
    if (!ns) return;
    const m = path.value.match(/^(\/api\/v1|\/apis\/[^/]+\/[^/]+)\/namespaces\/[^/]+\/(.+)$/);
    if (m) path.value = `${m[1]}/namespaces/${ns}/${m[2]}`;
  }

  function pathWithQuery() {
    let p = path.value.trim();
    if (!p) p = '/';
    if (!p.startsWith('/') && !/^https?:\/\//i.test(p)) p = '/' + p;
    const [base, q0 = ''] = p.split(/\?(.*)/s);
    const q = new URLSearchParams(q0);
    for (const [k, v] of params.get()) q.append(k, v);
    const qs = q.toString();
    return qs ? `${base}?${qs}` : base;
  }

  /** The request as it will be sent: {method, path, headers, body} or {error}. */
  function prepare() {
    const m = method.value;
    let hdrs = headers.get();
    const text = editor.getText();
    let body;
    if (text.trim() && m !== 'GET' && m !== 'HEAD') {
      let ct = headerValue(hdrs, 'Content-Type');
      if (!ct) {
        ct = 'application/json';
        hdrs = [...hdrs, ['Content-Type', ct]];
      }
      if (editor.getMode() === 'yaml' && /json/i.test(ct.split(';')[0])) {
        try {
          body = yamlToJson(text, 2);
        } catch (e) {
          return { error: `The YAML body does not parse: ${e.message}` };
        }
      } else {
        body = text;
      }
    } else {
      hdrs = hdrs.filter(([k]) => k.toLowerCase() !== 'content-type');
    }
    return { method: m, path: pathWithQuery(), headers: hdrs, body };
  }

  function getSpec() {
    return {
      method: method.value,
      path: path.value.trim(),
      namespace: namespace.value.trim(),
      params: params.get(),
      headers: headers.get(),
      body: editor.getText(),
      bodyMode: editor.getMode(),
    };
  }

  function setSpec(spec) {
    method.value = METHODS.includes(spec.method) ? spec.method : 'GET';
    path.value = spec.path || '/';
    if (spec.namespace) namespace.value = spec.namespace;
    params.set(spec.params || []);
    rowsKey = resourceKey(path.value);
    headers.set(spec.headers && spec.headers.length ? spec.headers : DEFAULT_HEADERS);
    editor.setMode(spec.bodyMode === 'yaml' ? 'yaml' : 'json');
    editor.setText(spec.body || '');
    modeJson.classList.toggle('on', editor.getMode() === 'json');
    modeYaml.classList.toggle('on', editor.getMode() === 'yaml');
    hidePrepError();
    moveQueryToRows();
    updateHints();
    updateSendable();
  }

  async function send() {
    if (sendBtn.disabled) return;
    moveQueryToRows();
    const req = prepare();
    if (req.error) {
      showPrepError(req.error);
      return;
    }
    hidePrepError();
    if (inflight) inflight.abort();
    const ctl = new AbortController();
    inflight = ctl;
    stopBtn.hidden = false;
    const target = currentTarget();
    responseView.pending(`Sending ${req.method} ${req.path} …`);
    const spec = getSpec();
    const hid = addHistory({ target: target.label, targetKind: target.kind, spec, method: req.method, path: req.path });
    const t0 = performance.now();
    let res;
    try {
      const init = { method: req.method, headers: req.headers, signal: ctl.signal };
      if (req.body !== undefined) init.body = req.body;
      res = await apiFetch(req.path, init, target);
    } catch (err) {
      if (inflight === ctl) {
        responseView.error(err.name === 'AbortError' ? new Error('stopped before the answer came') : err, performance.now() - t0);
        updateHistory(hid, { status: 0, ms: Math.round(performance.now() - t0), error: String(err.message || err) });
      }
      finish(ctl);
      return;
    }
    const ttfb = performance.now() - t0;
    if (inflight !== ctl) return;
    responseView.begin(res, ttfb);
    updateHistory(hid, { status: res.status, ms: Math.round(ttfb) });
    let note = '';
    if (res.body) {
      const reader = res.body.getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          if (inflight !== ctl) return;
          responseView.append(value);
        }
      } catch (err) {
        note = err.name === 'AbortError' ? 'stopped' : `read failed: ${err.message}`;
      }
    }
    if (inflight !== ctl) return;
    const total = performance.now() - t0;
    responseView.end(total, note);
    updateHistory(hid, { ms: Math.round(total) });
    finish(ctl);
  }

  function finish(ctl) {
    if (inflight === ctl) {
      inflight = null;
      stopBtn.hidden = true;
    }
  }

  async function copyAs(kind) {
    const req = prepare();
    if (req.error) {
      showPrepError(req.error);
      return;
    }
    const t = currentTarget();
    let text;
    if (kind === 'curl') {
      let base = t.baseUrl;
      const extra = t.kind === 'remote' && t.token ? [['Authorization', `Bearer ${t.token}`]] : [];
      text = toCurl(req, base || location.origin, extra);
      if (t.kind === 'sandbox') text = `# The in-browser sandbox is not reachable from a shell; this reaches the server that served the page.\n${text}`;
    } else {
      text = toKubectl(req, t.kind === 'remote' ? { server: t.url, token: t.token } : { sandbox: t.kind === 'sandbox' });
    }
    copyOut.textContent = text;
    copyBox.hidden = false;
    copyBox.dataset.kind = kind;
    const ok = await copyText(text);
    copyMsg.textContent = ok ? `Copied as ${kind}:` : `Select and copy (${kind}):`;
  }

  return { el, getSpec, setSpec, send, prepare, getNamespace: () => namespace.value.trim() || 'default', refreshNamespaces, editor };
}
