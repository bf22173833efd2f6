// The JavaScript side of the bridge, shared by the two hosts that run
// kubeplay's Go modules (the core, the simulated cluster, the xDS module):
// the browser's service worker (serviceworker/sw.js, bundled by its build) and
// the edge's sandbox Worker (edge/sandbox/sandbox.mjs, beside which edge/build.mjs
// copies it). It runs a module and takes the API its Go program publishes,
// relays a fetch Request to that API's handle and builds the Response, and
// answers as kube-apiserver does when the host itself must refuse a request.
// Go's wasm_exec.js must have run first (it defines globalThis.Go).

/**
 * The paths of the xDS module's HTTP transports (core/xds.IsHTTPPath): the
 * hosts send them to the xDS module's handle, everything else to the core's.
 */
export const XDS_PATH = /^\/(xds\/v3\/|v3\/discovery:)/;

/**
 * runGo runs a compiled Go module (a WebAssembly.Module of a command under
 * wasm/) in a new Go instance and resolves to {api, instance}: api is what its
 * program publishes as globalThis[name], taken when the program calls
 * globalThis[name + 'Ready'], which it does before its main blocks, so during
 * go.run itself. Taking it at once matters where instances share a global
 * scope (Durable Objects of one class may share an isolate): a later instance
 * replaces globalThis[name]. instantiated(instance), when given, runs once the
 * module is instantiated, before the program starts; onExit runs if the
 * program ends.
 */
export async function runGo(module, name, { instantiated, onExit } = {}) {
  const go = new globalThis.Go();
  const instance = await WebAssembly.instantiate(module, go.importObject);
  instantiated?.(instance);
  let api = null;
  globalThis[name + 'Ready'] = () => { api = globalThis[name]; };
  go.run(instance).then(() => onExit?.());
  delete globalThis[name + 'Ready'];
  if (!api) throw new Error(`${name} did not become ready`);
  return { api, instance };
}

/**
 * headerLines writes headers (a fetch Headers) as handle reads them: one
 * "name: value\r\n" line each, leaving out the names in omit (lower case).
 */
export function headerLines(headers, omit = []) {
  let lines = '';
  headers.forEach((value, name) => {
    if (!omit.includes(name)) lines += `${name}: ${value}\r\n`;
  });
  return lines;
}

/**
 * relay hands a request to handle (a Go module's handle function) and builds
 * the Response from its answer, whole (bytes) or streamed (a watch: a
 * ReadableStream). request is {method, url, headers: headerLines' text, body:
 * Uint8Array or null}. Options: joinRepeated joins the values of a header the
 * module sent more than once; init adds to the ResponseInit; stream(body)
 * wraps a streamed body.
 */
export async function relay(handle, { method, url, headers, body }, { joinRepeated = false, init = {}, stream } = {}) {
  const res = await handle(method, url, headers, body);
  const pairs = JSON.parse(res.headers);
  const responseInit = { ...init, status: res.status, headers: joinRepeated ? joinRepeatedHeaders(pairs) : pairs };
  const streamed = res.body instanceof ReadableStream;
  if (method === 'HEAD' || NULL_BODY_STATUS.has(res.status)) {
    // Nobody reads a HEAD body, and a 304 (to a conditional OpenAPI request)
    // may not have one: cancelling a stream ends the request in the module, as
    // a closed connection would (a HEAD watch would otherwise run to its
    // timeout).
    if (streamed) res.body.cancel();
    return new Response(null, responseInit);
  }
  return new Response(streamed && stream ? stream(res.body) : res.body, responseInit);
}

// NULL_BODY_STATUS are the statuses a Response must be built without a body for.
const NULL_BODY_STATUS = new Set([101, 204, 205, 304]);

// joinRepeatedHeaders joins the values of a header sent more than once
// (Warning) with ", ", as fetch's Headers.get() reads them: Chromium hands a
// service worker's response to the page with one value per header name, the
// first.
function joinRepeatedHeaders(pairs) {
  const joined = new Map();
  for (const [name, value] of pairs) {
    const key = name.toLowerCase();
    joined.set(key, joined.has(key) ? `${joined.get(key)}, ${value}` : value);
  }
  return [...joined];
}

/** A JSON answer: value's JSON text and a newline. */
export function jsonResponse(code, value) {
  return new Response(JSON.stringify(value) + '\n', { status: code, headers: { 'Content-Type': 'application/json' } });
}

/** A metav1.Status failure, field for field in kube-apiserver's order. */
export function statusResponse(code, reason, message) {
  return jsonResponse(code, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code });
}

/** 503 ServiceUnavailable: what a host answers when a module cannot serve. */
export const unavailable = (message) => statusResponse(503, 'ServiceUnavailable', message);

/** An error's message, for a Status: err.message, or err itself. */
export const errorText = (err) => String(err && err.message || err);

/**
 * checkImport is a host's answer to POST /debug/kubeplay/import (LEARN-6)
 * up to the point where it replaces its sandbox's state, the same at every
 * host: the export checked whole by the core's module (api.readExport; a
 * damaged or foreign file is 400), then refused unless the sandbox is fresh
 * (no client has written to it since it was made or reset) or the request
 * says ?replace=true (409). Else {snapshot, cluster: current settings with
 * the export's mode and nodes, answer: the 200 to send once replaced};
 * otherwise {refusal}.
 */
export function checkImport(api, body, url, fresh, current) {
  const checked = api.readExport(body ?? new Uint8Array(0));
  if (checked.error) return { refusal: statusResponse(400, 'BadRequest', checked.error) };
  if (!fresh && new URL(url).searchParams.get('replace') !== 'true') {
    return { refusal: statusResponse(409, 'Conflict', 'the sandbox holds what its clients wrote: import with ?replace=true to replace it') };
  }
  const h = JSON.parse(checked.header);
  return {
    snapshot: checked.snapshot,
    cluster: { ...current, ...checked.cluster },
    answer: jsonResponse(200, { kind: 'KubeplayImport', revision: h.revision, compacted: h.compacted, objects: h.objects, cluster: h.cluster, exportedAt: h.exportedAt, server: h.server }),
  };
}
