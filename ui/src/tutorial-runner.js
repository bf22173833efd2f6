// Tutorial step runner: replays one step of a tutorial (see tutorials/README.md)
// against an API reached through a caller-supplied fetch function, and checks the
// step's expectations. Pure ES module: no DOM, no dependencies. The tutorials'
// Go test (tutorials/tutorials_test.go) replays them with it too, in Node.

import { parseWarnings } from './warnings.js';

const VAR_RE = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

// Watch steps stop after this long even if the stream neither delivers enough
// events nor ends (tutorial paths set timeoutSeconds, so this is a safety net).
const DEFAULT_WATCH_TIMEOUT_MS = 60000;

function varText(v) {
  if (typeof v === 'string') return v;
  if (v === null || typeof v !== 'object') return String(v);
  return JSON.stringify(v);
}

/**
 * Replaces every `{{name}}` in value with vars[name]. Strings are substituted;
 * arrays and plain objects are copied with their string values (not keys)
 * substituted; other values are returned unchanged. Unknown names are left as is.
 */
export function substitute(value, vars) {
  if (typeof value === 'string') {
    return value.replace(VAR_RE, (whole, name) =>
      Object.prototype.hasOwnProperty.call(vars || {}, name) ? varText(vars[name]) : whole);
  }
  if (Array.isArray(value)) return value.map((v) => substitute(v, vars));
  if (value !== null && typeof value === 'object') {
    const out = {};
    for (const [k, v] of Object.entries(value)) out[k] = substitute(v, vars);
    return out;
  }
  return value;
}

/** The `{{name}}` placeholders in value whose name is not in vars. */
function unknownVars(value, vars, out = new Set()) {
  if (typeof value === 'string') {
    for (const m of value.matchAll(VAR_RE)) {
      if (!Object.prototype.hasOwnProperty.call(vars || {}, m[1])) out.add(m[1]);
    }
  } else if (Array.isArray(value)) {
    for (const v of value) unknownVars(v, vars, out);
  } else if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) unknownVars(v, vars, out);
  }
  return out;
}

/**
 * Looks up a dotted path in parsed JSON: object keys by name, array elements by
 * index, and `length` on an array for its length. Returns undefined when the path
 * does not exist (a JSON null is returned as null).
 */
export function getPath(obj, dotted) {
  if (dotted === '' || dotted === undefined || dotted === null) return obj;
  let cur = obj;
  for (const seg of String(dotted).split('.')) {
    if (Array.isArray(cur)) {
      if (seg === 'length') {
        cur = cur.length;
      } else if (/^(0|[1-9]\d*)$/.test(seg) && Number(seg) < cur.length) {
        cur = cur[Number(seg)];
      } else {
        return undefined;
      }
    } else if (cur !== null && typeof cur === 'object') {
      if (!Object.prototype.hasOwnProperty.call(cur, seg)) return undefined;
      cur = cur[seg];
    } else {
      return undefined;
    }
  }
  return cur;
}

function deepEqual(a, b) {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    return a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  }
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual(a[k], b[k]));
}

function show(v) {
  return v === undefined ? 'nothing' : JSON.stringify(v);
}

/**
 * Checks the object expectations of `expect` against root: `json` (equal),
 * `jsonPresent`, `jsonAbsent` and `atLeast` (a number at least; an absent
 * number counts as 0, as the API omits zero counts such as readyReplicas).
 * Returns the unmet ones as [{path, got, text}], in that order; `text` is the
 * failure as runStep reports it. `{{var}}` is substituted in expected values.
 * The exercise checker (exercise.js) judges objects with it too.
 */
export function checkObject(root, expect, vars, prefix = '') {
  const out = [];
  for (const [path, want0] of Object.entries(expect.json || {})) {
    const want = substitute(want0, vars);
    const got = getPath(root, path);
    if (!deepEqual(got, want)) out.push({ path, got, text: `${prefix}${path}: got ${show(got)}, want ${show(want)}` });
  }
  for (const path of expect.jsonPresent || []) {
    if (getPath(root, path) === undefined) out.push({ path, got: undefined, text: `${prefix}${path}: missing, want present` });
  }
  for (const path of expect.jsonAbsent || []) {
    const got = getPath(root, path);
    if (got !== undefined) out.push({ path, got, text: `${prefix}${path}: got ${show(got)}, want absent` });
  }
  for (const [path, want] of Object.entries(expect.atLeast || {})) {
    const v = getPath(root, path);
    const got = v === undefined ? 0 : v;
    if (typeof got !== 'number' || got < want) out.push({ path, got, text: `${prefix}${path}: got ${show(got)}, want at least ${want}` });
  }
  return out;
}

function parseJSON(text) {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** Builds the fetch init for a step's request after substitution. */
function buildInit(request, vars) {
  const headers = {};
  for (const [k, v] of Object.entries(request.headers || {})) headers[k] = substitute(String(v), vars);
  const init = { method: (request.method || 'GET').toUpperCase(), headers };
  if (request.body !== undefined && request.body !== null) {
    const body = substitute(request.body, vars);
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
    if (!Object.keys(headers).some((k) => k.toLowerCase() === 'content-type')) {
      headers['Content-Type'] = 'application/json';
    }
  }
  return init;
}

/**
 * Reads newline-delimited JSON watch events from a Response until n events have
 * arrived, until done(event) says an event is the last one wanted, or until the
 * stream ends. Returns the events and the text read.
 */
async function readEvents(res, n, failures, done = () => false) {
  const events = [];
  let text = '';
  if (!res.body) {
    text = await res.text();
    for (const line of text.split('\n')) {
      if (events.length >= n) break;
      if (line.trim() === '') continue;
      const e = parseJSON(line);
      if (e === null) failures.push(`watch: line is not JSON: ${line.slice(0, 200)}`);
      else events.push(e);
      if (e !== null && done(e)) break;
    }
    return { events, text };
  }
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let pending = '';
  try {
    while (events.length < n) {
      let chunk;
      try {
        chunk = await reader.read();
      } catch {
        break; // aborted or connection lost: stop at what we have
      }
      if (chunk.done) {
        pending += decoder.decode();
      } else {
        pending += decoder.decode(chunk.value, { stream: true });
      }
      let nl;
      while (events.length < n && (nl = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        text += line + '\n';
        if (line.trim() === '') continue;
        const e = parseJSON(line);
        if (e === null) failures.push(`watch: line is not JSON: ${line.slice(0, 200)}`);
        else events.push(e);
        if (e !== null && done(e)) n = events.length;
      }
      if (chunk.done) {
        if (events.length < n && pending.trim() !== '') {
          text += pending;
          const e = parseJSON(pending);
          if (e === null) failures.push(`watch: line is not JSON: ${pending.slice(0, 200)}`);
          else events.push(e);
        }
        break;
      }
    }
  } finally {
    try {
      await reader.cancel();
    } catch {
      // already closed or aborted
    }
  }
  return { events, text };
}

function headersObject(h) {
  const out = {};
  if (h && typeof h.forEach === 'function') h.forEach((v, k) => { out[k.toLowerCase()] = v; });
  return out;
}

/**
 * Runs one tutorial step.
 *
 * fetchFn(path, init) must return a fetch Response; init carries method, headers,
 * body and, for watch steps, an AbortSignal the runner aborts once it has read
 * `step.watch.events` events, or once an event matches `step.watch.until`
 * ({"dotted.path": value} on the event, as `json` checks it; no event matching
 * is a failure). options.watchTimeoutMs bounds a watch step (60s).
 *
 * A step with `kubectl` (a command line, as typed in the terminal) runs it
 * with options.kubectl instead: see runKubectlStep.
 *
 * Resolves to {ok, ran, status, headers, warnings, bodyText, json, events, failures, vars}:
 * `ran` is whether the request was answered (or the command ran);
 * `warnings` is the texts of the answer's Warning headers;
 * `json` is the parsed body (null if not JSON), or `{events}` for a watch step;
 * `events` is the watch events read (null for other steps); `vars` is a new object
 * with the given vars plus the values this step saved. It never rejects: network
 * errors are reported in `failures`.
 */
export async function runStep(step, vars, fetchFn, options = {}) {
  if (step.kubectl !== undefined) return runKubectlStep(step, vars, options.kubectl);
  const failures = [];
  const outVars = { ...(vars || {}) };
  const request = step.request || {};
  const result = { ok: false, ran: false, status: 0, headers: {}, warnings: [], bodyText: '', json: null, events: null, failures, vars: outVars };

  const missing = unknownVars([request.path, request.headers || {}, request.body ?? null], outVars);
  if (missing.size > 0) {
    failures.push(`unknown variable(s): ${[...missing].map((m) => `{{${m}}}`).join(', ')} (did an earlier step fail?)`);
    return result;
  }
  const path = substitute(String(request.path || ''), outVars);
  const init = buildInit(request, outVars);
  const watchN = step.watch ? Number(step.watch.events) || 0 : -1;

  let controller = null;
  let timer = null;
  if (watchN >= 0) {
    controller = new AbortController();
    init.signal = controller.signal;
    timer = setTimeout(() => controller.abort(), options.watchTimeoutMs ?? DEFAULT_WATCH_TIMEOUT_MS);
  }
  let root;
  try {
    let res;
    try {
      res = await fetchFn(path, init);
    } catch (err) {
      failures.push(`request failed: ${err && err.message ? err.message : err}`);
      return result;
    }
    result.status = res.status;
    result.headers = headersObject(res.headers);
    result.warnings = parseWarnings(res.headers && res.headers.get ? res.headers.get('Warning') : null).map((w) => w.text);
    if (watchN >= 0) {
      const until = step.watch.until ? { json: step.watch.until } : null;
      const matches = (e) => until !== null && checkObject(e, until, outVars).length === 0;
      const { events, text } = await readEvents(res, watchN, failures, matches);
      if (until !== null && !events.some(matches)) {
        failures.push(`watch.until: none of the ${events.length} event(s) read has ${Object.entries(substitute(step.watch.until, outVars)).map(([k, v]) => `${k}=${show(v)}`).join(', ')}`);
      }
      result.events = events;
      result.bodyText = text;
      result.json = { events };
    } else {
      result.bodyText = await res.text();
      result.json = parseJSON(result.bodyText);
    }
    root = result.json;
  } finally {
    if (controller) {
      clearTimeout(timer);
      controller.abort();
    }
  }

  result.ran = true;
  const expect = step.expect || {};
  if (expect.status !== undefined && result.status !== expect.status) {
    failures.push(`status: got ${result.status}, want ${expect.status}`);
  }
  if (expect.warnings !== undefined) {
    const want = substitute(expect.warnings, outVars);
    if (!deepEqual(result.warnings, want)) failures.push(`warnings: got ${show(result.warnings)}, want ${show(want)}`);
  }
  for (const f of checkObject(root, expect, outVars)) failures.push(f.text);
  for (const [name, want0] of Object.entries(expect.headers || {})) {
    const want = substitute(String(want0), outVars);
    const got = result.headers[name.toLowerCase()];
    if (got !== want) failures.push(`header ${name}: got ${show(got)}, want ${show(want)}`);
  }
  for (const s0 of expect.contains || []) {
    const s = substitute(s0, outVars);
    if (!result.bodyText.includes(s)) failures.push(`body does not contain ${JSON.stringify(s)}`);
  }
  if (expect.events !== undefined || expect.eventCount !== undefined) {
    const events = result.events || [];
    (expect.events || []).forEach((want, i) => {
      const e = events[i];
      if (e === undefined) {
        failures.push(`events.${i}: missing (got ${events.length} events), want ${want.type}`);
        return;
      }
      if (want.type !== undefined && e.type !== want.type) {
        failures.push(`events.${i}.type: got ${show(e.type)}, want ${show(want.type)}`);
      }
      if (want.name !== undefined) {
        const name = substitute(want.name, outVars);
        const got = getPath(e, 'object.metadata.name');
        if (got !== name) failures.push(`events.${i}.object.metadata.name: got ${show(got)}, want ${show(name)}`);
      }
      for (const f of checkObject(e, { json: want.json }, outVars, `events.${i}.`)) failures.push(f.text);
    });
    if (expect.eventCount !== undefined && events.length !== expect.eventCount) {
      failures.push(`eventCount: got ${events.length}, want ${expect.eventCount}`);
    }
  }
  return finish(result, step, root);
}

// finish saves what the step saves from root into the result's vars (a
// missing path is a failure) and settles whether the step passed.
function finish(result, step, root) {
  for (const [name, p] of Object.entries(step.save || {})) {
    const v = getPath(root, p);
    if (v === undefined) result.failures.push(`save ${name}: ${p} not found`);
    else result.vars[name] = v;
  }
  result.ok = result.failures.length === 0;
  return result;
}

/**
 * kubectlLine is a kubectl step's command line with its variables filled in:
 * what the learner types.
 */
export function kubectlLine(step, vars) {
  return substitute(String(step.kubectl || ''), vars);
}

/**
 * requestLine is an exchange as a kubectl step's `requests` names one:
 * "METHOD /path?query".
 */
export function requestLine(ex) {
  return `${ex.method} ${ex.path}`;
}

// requestMatches says whether an exchange is the request want names: the
// method and the path, and the query too when want has one.
function requestMatches(ex, want) {
  const [method, target = ''] = want.split(' ');
  if (ex.method !== method) return false;
  return target.includes('?') ? ex.path === target : ex.path.split('?')[0] === target;
}

/**
 * runKubectlStep runs a kubectl step (a "type this" step): its command line,
 * variables filled in, with kubectl(line), which resolves to {exit, output,
 * exchanges}: the exit code, what the command printed (stdout and stderr as
 * the terminal shows them) and its HTTP exchanges in order, each {method,
 * path (with its query), status}. The page runs it in its terminal; the
 * tests run the page's kubectl (core/kubectl) or the real one.
 *
 * Its expectations are judged on {exit, output, exchanges}: `exit` (the exit
 * code), `contains` (substrings of output), `requests` (["METHOD /path"],
 * found among the exchanges in that order, others between them allowed: the
 * discovery kubectl does first depends on its cache; a query in want must
 * match exactly, else any query does), and `json`, `jsonPresent`,
 * `jsonAbsent`, `atLeast` and `save` with dotted paths into that object
 * (`output` for what -o jsonpath printed).
 */
async function runKubectlStep(step, vars, kubectl) {
  const failures = [];
  const outVars = { ...(vars || {}) };
  const result = { ok: false, ran: false, status: 0, headers: {}, warnings: [], bodyText: '', json: null, events: null, exit: null, exchanges: [], failures, vars: outVars };
  const expect = step.expect || {};
  const missing = unknownVars([step.kubectl, expect.requests || []], outVars);
  if (missing.size > 0) {
    failures.push(`unknown variable(s): ${[...missing].map((m) => `{{${m}}}`).join(', ')} (did an earlier step fail?)`);
    return result;
  }
  if (typeof kubectl !== 'function') {
    failures.push('this step runs kubectl, and this runner has none');
    return result;
  }
  let out;
  try {
    out = await kubectl(kubectlLine(step, outVars));
  } catch (err) {
    failures.push(`kubectl failed: ${err && err.message ? err.message : err}`);
    return result;
  }
  result.ran = true;
  result.exit = out.exit;
  result.bodyText = String(out.output || '');
  result.exchanges = (out.exchanges || []).map(({ method, path, status }) => ({ method, path, status }));
  const root = { exit: out.exit, output: result.bodyText, exchanges: result.exchanges };
  result.json = root;

  if (expect.exit !== undefined && out.exit !== expect.exit) failures.push(`exit: got ${out.exit}, want ${expect.exit}`);
  for (const s0 of expect.contains || []) {
    const s = substitute(s0, outVars);
    if (!result.bodyText.includes(s)) failures.push(`output does not contain ${JSON.stringify(s)}`);
  }
  let from = 0;
  for (const want0 of expect.requests || []) {
    const want = substitute(want0, outVars);
    const i = result.exchanges.findIndex((ex, k) => k >= from && requestMatches(ex, want));
    if (i < 0) {
      failures.push(`requests: no ${want}${from ? ' after the requests before it' : ''} (sent: ${result.exchanges.map(requestLine).join(', ') || 'nothing'})`);
      continue;
    }
    from = i + 1;
  }
  for (const f of checkObject(root, expect, outVars)) failures.push(f.text);
  return finish(result, step, root);
}
