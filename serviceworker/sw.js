// kubeplay service worker: hosts the Go core (kubeplay.wasm, one long-lived
// instance) and answers the page's API requests with it; everything else comes from
// the offline cache. Every acknowledged write is journaled to IndexedDB before its
// response is released, so a stopped worker restarts with nothing lost.
//
// Routing, for same-origin requests from controlled pages:
//   /api /apis /version /openapi /healthz /livez /readyz /metrics /debug
//       → the in-browser core, unless the request carries
//         `X-Kubeplay-Target: network`, which goes to the network (the native
//         server that served the page).
//   /xds/v3/ /v3/discovery:
//       → the xDS module (kubeplay-xds.wasm, a second Go instance, loaded on
//         first use and then cached), a client of the core through
//         kubeplay.handleModule: the discovery service's HTTP transports. The core
//         serves the xds.kubeplay.dev objects and has the module check them.
//   (CustomResourceDefinitions' x-kubernetes-validations rules,
//    ValidatingAdmissionPolicies' expressions)
//       → a CEL module (kubeplay-cel.wasm for rules, kubeplay-vap.wasm for
//         policies: each a Go instance with cel-go, which does not fit the
//         core's budget; loaded on the first definition or custom resource
//         that has rules, or the first policy written or matched, then
//         cached): the core's goroutine awaits its answer, one call a
//         request (or policy and binding matched), JSON both ways; a
//         policy's authorizer checks come back to the core.
//   /debug/kubeplay/cluster
//       → this worker: the sandbox's cluster mode. GET answers {mode, nodes,
//         speed}; PUT {mode: "simulated" | "api-only", nodes, speed} keeps it
//         with the sandbox's data (across restarts and builds; a reset
//         returns to the default) and applies it. "simulated" (the default,
//         as at the edge and natively) runs the simulated cluster
//         (kubeplay-sim.wasm: nodes, scheduler, kubelets, controllers; a third
//         Go instance, loaded once the core answers, and cached) as a client
//         of the core; "api-only" serves the API alone. Lowering the node count
//         deletes the nodes beyond it and their Pods, as kube's pod garbage
//         collector does.
//   /debug/kubeplay/import
//       → this worker: POST an export (GET /debug/kubeplay/export's file,
//         from any host) to start the sandbox again from it (see serveImport).
//   other GET → cache first (the build's assets), then network (the page's
//               terminal, fetched on first use, cached then).
// Messages: the page may post {type: 'kubeplay-status'} to ask for the state,
// {type: 'kubeplay-reset'} to wipe the sandbox, and {type: 'kubeplay-keepalive'}
// (every 20 s while it is open) to keep the worker from being stopped for
// idleness, which starts the core too if the worker had stopped. The worker
// answers every client with {type: 'kubeplay-status', state, revision,
// restoreErrors, error, build, startup}; startup says when this worker and its
// core came up (epoch ms): worker (its time origin), script (this script ran),
// begin (the core was first needed), fetched (the .wasm response was found),
// compiled (reading streams into compiling), instantiated, initialized (the Go
// runtime and package inits ran), loaded (IndexedDB's state was read), started
// (kubeplay.start resolved), and for a new worker installed, activated (it
// claimed the pages) and, a first one, cached (the assets it caches behind).
// A page sees from it whether its worker restarted, and the benchmarks where
// a cold start's time goes.
//
// A first visit's worker starts the core as it installs, compiling the module
// as it downloads, and takes the page while it caches the assets behind it,
// so the page's first request does not wait for the install and then for the
// start in turn.
//
// Updates: a new build has a new BUILD id (a hash of every asset), so the browser
// installs it as a new worker; it caches its assets, skips waiting, deletes the
// old build's cache and claims the open pages. The sandbox's data lives in
// IndexedDB, shared by every build, so the new worker's core restores it. Chrome
// activates the new worker only once the old one has no fetch in flight, and an
// open watch is one; so the installed worker announces itself on a
// BroadcastChannel, and an older worker still running stops its core. That ends
// its watches (clients resume them from their last resourceVersion on the new
// core) and lets the new worker take over at once.
//
// serviceworker/build.mjs bundles this script with what it imports (the
// bridge's JavaScript side, shared with the edge; the cluster mode's default
// and bounds, generated from core/sim) and defines the build's id and assets.

import { XDS_PATH, checkImport, errorText, headerLines, jsonResponse, relay, runGo, statusResponse, unavailable } from '../wasm/bridge/bridge.mjs';
import clusterMode from '../wasm/clustermode/clustermode.json';

// The Go runtime's JavaScript support: workers may import scripts only while
// their script first runs.
importScripts('/wasm_exec.js');

// The build's id and assets, defined by serviceworker/build.mjs.
const BUILD = __KUBEPLAY_BUILD__;
const ASSETS = __KUBEPLAY_ASSETS__;
// What the page fetches on first use (the terminal's), cached then.
const LAZY = new Set(__KUBEPLAY_LAZY__);
// The sandbox this worker runs: the playground's (scope /), or another
// scope's of its own (the embed page's, /embed/: LEARN-4), with its own
// IndexedDB, cache and build channel, so that no site embedding kubeplay
// shares (or presets) the sandbox of the playground's own tab.
const SCOPE = new URL(self.registration.scope).pathname;
const SANDBOX = SCOPE === '/' ? '' : SCOPE.replace(/^\/|\/$/g, '').replace(/[^A-Za-z0-9-]/g, '-');
const CACHE_PREFIX = SANDBOX ? `kubeplay@${SANDBOX}-` : 'kubeplay-';
const CACHE = CACHE_PREFIX + BUILD;
const API = /^\/(api|apis|version|openapi|healthz|livez|readyz|metrics|debug)(\/|$)/;
const CORE_WASM = '/kubeplay.wasm';
const XDS_WASM = '/kubeplay-xds.wasm';
const SIM_WASM = '/kubeplay-sim.wasm';
const CLUSTER = '/debug/kubeplay/cluster';
const IMPORT = '/debug/kubeplay/import';
// The largest export an import takes (the browser's sandbox holds far less).
const MAX_IMPORT_BYTES = 256 << 20;
// Chrome stops a worker about 5 minutes into an event even while it streams, so
// watches end before that and clients resume from their last resourceVersion.
const MAX_WATCH_SECONDS = 240;

const now = () => performance.timeOrigin + performance.now();
const startup = { worker: performance.timeOrigin, script: now() };

const builds = new BroadcastChannel(SANDBOX ? `kubeplay-build@${SANDBOX}` : 'kubeplay-build');
let retired = false;
builds.onmessage = (e) => {
  if (e.data && e.data.build !== BUILD && !retired) retire();
};

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    if (!self.registration.active) {
      // A first visit (no worker runs this sandbox yet): the core starts at
      // once, compiling the module as it downloads while a copy of the
      // response goes to the cache, and the worker takes the page while the
      // other assets are cached behind it (the page already has them;
      // restCached keeps the worker alive until they are, and what is not
      // cached yet is fetched). An update must not start its core: the old
      // build's worker still runs the sandbox's core on the same IndexedDB.
      const response = await fetch(CORE_WASM);
      if (!response.ok) throw new Error('loading kubeplay.wasm: HTTP ' + response.status);
      const stored = cache.put(CORE_WASM, response.clone());
      coreResponse = response;
      core().catch(() => {}); // its failure is the state the page is told
      restCached = stored.then(() => cache.addAll(ASSETS.filter((a) => a !== CORE_WASM))).then(() => { startup.cached = now(); }, () => {});
    } else {
      await cache.addAll(ASSETS);
    }
    builds.postMessage({ build: BUILD });
    await self.skipWaiting();
    startup.installed = now();
  })());
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const key of await caches.keys()) {
      if (key.startsWith(CACHE_PREFIX) && key !== CACHE) await caches.delete(key);
    }
    await self.clients.claim();
    startup.activated = now();
  })());
});

self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (url.origin !== self.location.origin) return;
  if (API.test(url.pathname) || XDS_PATH.test(url.pathname)) {
    if (event.request.headers.get('X-Kubeplay-Target') === 'network') return;
    if (url.pathname === CLUSTER) event.respondWith(serveCluster(event.request));
    else if (url.pathname === IMPORT) event.respondWith(serveImport(event.request));
    else event.respondWith(API.test(url.pathname) ? serveAPI(event.request) : serveXDS(event.request));
    return;
  }
  if (event.request.method === 'GET') event.respondWith(serveAsset(event.request));
});

// restCached settles once a first install's other assets are cached;
// coreResponse is the core module a first install is downloading.
let restCached = Promise.resolve();
let coreResponse = null;

self.addEventListener('message', (event) => {
  const msg = event.data || {};
  event.waitUntil(restCached);
  if (msg.type === 'kubeplay-reset') event.waitUntil(reset());
  else if (msg.type === 'kubeplay-status') event.waitUntil(core().then(() => {}, () => {}).then(broadcast));
  else if (msg.type === 'kubeplay-keepalive' && !retired) event.waitUntil(core().then(() => {}, () => {}));
});

// cachedHere is what this build's cache holds for request (another scope's or
// build's caches are not this worker's).
async function cachedHere(request, options) {
  return (await caches.open(CACHE)).match(request, options);
}

async function serveAsset(request) {
  const cached = await cachedHere(request, { ignoreSearch: true });
  if (cached) return cached;
  try {
    const response = await fetch(request);
    const path = new URL(request.url).pathname;
    if (response.ok && LAZY.has(path)) {
      // Not awaited: the page reads (and compiles) while the cache fills.
      const copy = response.clone();
      caches.open(CACHE).then((c) => c.put(path, copy)).catch(() => {});
    }
    return response;
  } catch (err) {
    if (request.mode === 'navigate') {
      const index = await cachedHere(SANDBOX ? SCOPE : '/index.html');
      if (index) return index;
    }
    return new Response('offline and not cached: ' + new URL(request.url).pathname, { status: 504 });
  }
}

// ---- the core ---------------------------------------------------------------

let corePromise = null;
let state = { state: 'starting' };

function core() {
  if (!corePromise) {
    corePromise = startCore();
    // The simulated cluster, when chosen, comes up with the core: not awaited
    // (requests need not wait for it), its failure reported in the state.
    corePromise.then(() => clusterSettings().then(applyCluster)).catch((err) => {
      state = { ...state, clusterError: errorText(err) };
      broadcast();
    });
    corePromise = corePromise.catch((err) => {
      corePromise = null;
      state = { state: 'error', error: errorText(err) };
      broadcast();
      throw err;
    });
  }
  return corePromise;
}

// startCore loads the Go instance once per worker, then starts (or, after a
// reset, restarts) the core in it from what IndexedDB holds.
async function startCore() {
  startup.begin ??= now();
  // IndexedDB reads while the wasm compiles and the Go runtime starts.
  const saved = loadState();
  saved.then(() => { startup.loaded = now(); }, () => {});
  if (!self.kubeplay) {
    const response = coreResponse || (await cachedHere(CORE_WASM)) || (await fetch(CORE_WASM));
    coreResponse = null;
    if (!response.ok) throw new Error('loading kubeplay.wasm: HTTP ' + response.status);
    startup.fetched = now();
    const module = await WebAssembly.compileStreaming(response);
    startup.compiled = now();
    await runGo(module, 'kubeplay', {
      instantiated: () => { startup.instantiated = now(); },
      onExit: () => {
        corePromise = null;
        self.kubeplay = undefined;
        state = { state: 'error', error: 'the kubeplay core exited' };
      },
    });
    startup.initialized = now();
  }
  return start(await saved);
}

async function start(saved) {
  if (!saved.snapshot && saved.journal.length === 0 && fresh === null) {
    // A new sandbox: fresh until a client writes.
    fresh = true;
    await txDone(await openDB(), ['snapshot'], 'readwrite', (tx) => tx.objectStore('snapshot').put(true, 'fresh'));
  }
  const info = await self.kubeplay.start({
    snapshot: saved.snapshot,
    journal: saved.journal,
    append: journalAppend,
    writeSnapshot,
    openapiDocuments,
    maxWatchSeconds: MAX_WATCH_SECONDS,
    // A new sandbox answers first, then writes its bootstrap RBAC policy and
    // starts its controllers (its /readyz says so meanwhile).
    deferStart: true,
    validateXDS: (kind, json) => xds().then(() => self.kubeplayXDS.validate(kind, json)),
    cel: celCall,
    exportCluster: () => ({ mode: clusterNow.mode, nodes: clusterNow.mode === 'simulated' ? clusterNow.nodes : 0 }),
  });
  startup.started = now();
  state = { state: 'ready', revision: info.revision, restoreErrors: info.restoreErrors, startup };
  broadcast();
  return info;
}

async function serveAPI(request) {
  if (retired) return retiredResponse();
  try {
    await core();
  } catch (err) {
    return unavailable('the in-browser kubeplay core failed to start: ' + errorText(err));
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') noteClientWrite();
  return relayRequest(self.kubeplay.handle, request);
}

async function serveXDS(request) {
  if (retired) return retiredResponse();
  try {
    await xds();
  } catch (err) {
    return unavailable('the in-browser xDS module failed to start: ' + errorText(err));
  }
  return relayRequest(self.kubeplayXDS.handle, request);
}

function retiredResponse() {
  return unavailable('this kubeplay worker was replaced by a newer build; reload the page');
}

// relayRequest hands a request to a Go instance's handle function and its
// answer (whole or streamed) to the page.
async function relayRequest(handle, request) {
  try {
    const body = request.method === 'GET' || request.method === 'HEAD' ? null : new Uint8Array(await request.arrayBuffer());
    let headers = headerLines(request.headers);
    // The browser adds User-Agent only on its way to the network; kube-apiserver
    // sees it (and pretty-prints JSON for browsers), so the core sees it too.
    if (!request.headers.has('user-agent')) headers += `user-agent: ${navigator.userAgent}\r\n`;
    // Repeated headers (Warning) joined: Chromium hands a page only the first.
    return await relay(handle, { method: request.method, url: request.url, headers, body }, { joinRepeated: true });
  } catch (err) {
    return statusResponse(500, 'InternalError', 'kubeplay service worker: ' + errorText(err));
  }
}

// ---- the xDS module -----------------------------------------------------------

let xdsPromise = null;

// xds loads the xDS module once per worker, on first use (it stays out of the
// install's downloads and the core's start), and starts its discovery
// service as a client of the core.
function xds() {
  if (!xdsPromise) {
    xdsPromise = startXDS().catch((err) => {
      xdsPromise = null;
      throw err;
    });
  }
  return xdsPromise;
}

async function startXDS() {
  await core();
  await loadModule(XDS_WASM, 'kubeplayXDS', () => { xdsPromise = null; });
  await self.kubeplayXDS.start(self.kubeplay.handleModule);
}

// ---- the CEL modules -------------------------------------------------------------

// The CEL modules by the functions the core calls (core/cel/celremote):
// CustomResourceDefinitions' rules and ValidatingAdmissionPolicies each have
// their own (cel-go is most of each; the two do not fit one module's
// budget). The rules' module has a function per call; the policies' one
// call(fn, json, authorize), authorize being the core's, for the authorizer
// library's checks.
const RULES = { path: '/kubeplay-cel.wasm', name: 'kubeplayCEL', call: (m, fn, json) => m[fn](json) };
const POLICIES = { path: '/kubeplay-vap.wasm', name: 'kubeplayVAP', call: (m, fn, json, authorize) => m.call(fn, json, authorize) };
const CEL_MODULES = { checkRules: RULES, validateCustom: RULES, evaluatePolicy: POLICIES, checkPolicy: POLICIES, typeCheckPolicy: POLICIES };
const celPromises = {};

// celCall answers the core's call of fn with the CEL module that has it,
// loaded once per worker when the core first asks it.
function celCall(fn, json, authorize) {
  const m = CEL_MODULES[fn];
  if (!m) return Promise.reject(new Error('no CEL module answers ' + fn));
  if (!celPromises[m.name]) {
    const forget = () => { delete celPromises[m.name]; };
    celPromises[m.name] = loadModule(m.path, m.name, forget).catch((err) => {
      forget();
      throw err;
    });
  }
  return celPromises[m.name].then(() => m.call(self[m.name], fn, json, authorize));
}

// loadModule runs a second Go module beside the core once per worker: from
// the cache, or fetched and cached on first use (it is no install asset);
// resolves once it has set self[name]. onExit runs if its Go program ends.
async function loadModule(path, name, onExit) {
  if (self[name]) return;
  const cache = await caches.open(CACHE);
  let response = await cache.match(path);
  if (!response) {
    response = await fetch(path);
    if (!response.ok) throw new Error('loading ' + path.slice(1) + ': HTTP ' + response.status);
    await cache.put(path, response.clone());
  }
  await runGo(await WebAssembly.compileStreaming(response), name, {
    onExit: () => {
      self[name] = undefined;
      onExit();
    },
  });
}

// ---- the simulated cluster -----------------------------------------------------

// The default (core/sim's; simulated, as at the edge and natively) and the
// bounds, from clustermode.json.
const DEFAULT_CLUSTER = clusterMode.default;
const { maxNodes: MAX_NODES, maxSpeed: MAX_SPEED } = clusterMode;

// The cluster mode is kept with the sandbox's data (IndexedDB's snapshot
// store, key "cluster"): every build and restart reads it, a reset wipes it.
async function clusterSettings() {
  const db = await openDB();
  let saved;
  await txDone(db, ['snapshot'], 'readonly', (tx) => {
    tx.objectStore('snapshot').get('cluster').onsuccess = (e) => { saved = e.target.result; };
  });
  return { ...DEFAULT_CLUSTER, ...(saved || {}) };
}

let clusterQueue = Promise.resolve();
// The mode last applied, which the sandbox's export names (GET
// /debug/kubeplay/export: the core asks through exportCluster).
let clusterNow = DEFAULT_CLUSTER;

// applyCluster starts, restarts or stops the simulated cluster as settings
// say, one change at a time.
function applyCluster(settings) {
  clusterNow = settings;
  const next = clusterQueue.then(async () => {
    if (settings.mode !== 'simulated') {
      if (self.kubeplaySim) await self.kubeplaySim.stop();
      return;
    }
    await core();
    await loadModule(SIM_WASM, 'kubeplaySim', () => {});
    await self.kubeplaySim.start(self.kubeplay.handleModule, { nodes: settings.nodes, speed: settings.speed });
  });
  clusterQueue = next.catch(() => {});
  return next;
}

async function serveCluster(request) {
  if (retired) return retiredResponse();
  if (request.method === 'GET') return jsonResponse(200, await clusterSettings());
  if (request.method !== 'PUT' && request.method !== 'POST') {
    return statusResponse(405, 'MethodNotAllowed', 'the cluster mode is read with GET and set with PUT');
  }
  let body;
  try {
    body = await request.json();
  } catch (err) {
    return statusResponse(400, 'BadRequest', 'the cluster mode is JSON: ' + errorText(err));
  }
  const settings = { ...(await clusterSettings()), ...body };
  const bad = [];
  if (settings.mode !== 'simulated' && settings.mode !== 'api-only') bad.push('mode must be "simulated" or "api-only"');
  if (!Number.isInteger(settings.nodes) || settings.nodes < 1 || settings.nodes > MAX_NODES) bad.push(`nodes must be an integer from 1 to ${MAX_NODES}`);
  if (typeof settings.speed !== 'number' || !(settings.speed > 0) || settings.speed > MAX_SPEED) bad.push(`speed must be a number above 0, at most ${MAX_SPEED}`);
  if (bad.length) return statusResponse(400, 'BadRequest', 'bad cluster mode: ' + bad.join('; '));
  const { mode, nodes, speed } = settings;
  await txDone(await openDB(), ['snapshot'], 'readwrite', (tx) => tx.objectStore('snapshot').put({ mode, nodes, speed }, 'cluster'));
  try {
    await applyCluster({ mode, nodes, speed });
  } catch (err) {
    return unavailable('the simulated cluster failed to start: ' + errorText(err));
  }
  return jsonResponse(200, { mode, nodes, speed });
}

// retire stops this worker's core for good: a newer build has taken over.
async function retire() {
  retired = true;
  const running = corePromise;
  if (!running) return;
  await running.catch(() => {});
  if (self.kubeplaySim) await self.kubeplaySim.stop();
  if (self.kubeplay) await self.kubeplay.stop();
}

async function reset() {
  await replaceState((snapshots) => {
    snapshots.clear();
    snapshots.put(true, 'fresh');
  });
}

// replaceState stops the simulation and the core, rewrites IndexedDB's
// state in one transaction (the journal emptied; edit changes the snapshot
// store: the snapshot, the cluster mode, whether it is fresh), and starts
// the core again from it.
async function replaceState(edit) {
  await core().catch(() => {});
  // A simulation still starting (a page just opened) comes up first: it
  // is a client of the core about to stop.
  await clusterQueue;
  // The simulation starts again on the new sandbox (its nodes first).
  if (self.kubeplaySim) await self.kubeplaySim.stop();
  if (self.kubeplay) await self.kubeplay.stop();
  const db = await openDB();
  await txDone(db, ['journal', 'snapshot'], 'readwrite', (tx) => {
    tx.objectStore('journal').clear();
    edit(tx.objectStore('snapshot'));
  });
  fresh = null;
  corePromise = null;
  await core();
}

// ---- import (LEARN-6) -----------------------------------------------------------
// POST /debug/kubeplay/import with an export (core/export's file: GET
// /debug/kubeplay/export of any host) starts the sandbox again from it: its
// objects, revision, history and cluster mode. Into a fresh sandbox (no
// client has written to it since it was made or reset); otherwise only with
// ?replace=true, else 409 Conflict. The file is checked whole by the core
// first: a damaged or foreign one is 400 and changes nothing.
async function serveImport(request) {
  if (retired) return retiredResponse();
  if (request.method !== 'POST') return statusResponse(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
  const declared = Number(request.headers.get('Content-Length') || 0);
  if (declared > MAX_IMPORT_BYTES) return statusResponse(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${MAX_IMPORT_BYTES}`);
  const body = new Uint8Array(await request.arrayBuffer());
  if (body.byteLength > MAX_IMPORT_BYTES) return statusResponse(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${MAX_IMPORT_BYTES}`);
  try {
    await core();
  } catch (err) {
    return unavailable('the in-browser kubeplay core failed to start: ' + errorText(err));
  }
  const imported = checkImport(self.kubeplay, body, request.url, await isFresh(), await clusterSettings());
  if (imported.refusal) return imported.refusal;
  await replaceState((snapshots) => {
    snapshots.clear();
    snapshots.put(imported.snapshot, 'latest');
    snapshots.put(imported.cluster, 'cluster');
    snapshots.put(false, 'fresh');
  });
  return imported.answer;
}

// Whether no client has written to the sandbox since it was made or reset
// (kept in IndexedDB beside the snapshot, key "fresh"): a new sandbox's
// state is empty when the core first starts.
let fresh = null;

async function isFresh() {
  if (fresh === null) {
    const db = await openDB();
    let saved;
    let journal = 0;
    let snapshot;
    await txDone(db, ['journal', 'snapshot'], 'readonly', (tx) => {
      tx.objectStore('snapshot').get('fresh').onsuccess = (e) => { saved = e.target.result; };
      tx.objectStore('snapshot').get('latest').onsuccess = (e) => { snapshot = e.target.result; };
      tx.objectStore('journal').count().onsuccess = (e) => { journal = e.target.result; };
    });
    // Kept by a build before this flag: fresh only if nothing is stored.
    fresh = saved ?? (snapshot === undefined && journal === 0);
  }
  return fresh;
}

// noteClientWrite records that a client wrote (or tried to): the sandbox is
// no longer fresh.
function noteClientWrite() {
  if (fresh === false) return;
  fresh = false;
  openDB().then((db) => txDone(db, ['snapshot'], 'readwrite', (tx) => tx.objectStore('snapshot').put(false, 'fresh'))).catch(() => {});
}

async function broadcast() {
  for (const client of await self.clients.matchAll({ includeUncontrolled: true })) {
    client.postMessage({ type: 'kubeplay-status', ...state, build: BUILD, scope: SCOPE });
  }
}

// ---- IndexedDB: a journal of records and one snapshot ------------------------

let dbPromise = null;

function openDB() {
  if (!dbPromise) {
    dbPromise = new Promise((resolve, reject) => {
      const req = indexedDB.open(SANDBOX ? `kubeplay@${SANDBOX}` : 'kubeplay', 1);
      req.onupgradeneeded = () => {
        req.result.createObjectStore('journal', { autoIncrement: true });
        req.result.createObjectStore('snapshot');
      };
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => { dbPromise = null; reject(req.error); };
    });
  }
  return dbPromise;
}

function txDone(db, stores, mode, fn) {
  return new Promise((resolve, reject) => {
    const tx = db.transaction(stores, mode, { durability: 'strict' });
    let result;
    tx.oncomplete = () => resolve(result);
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error || new Error('IndexedDB transaction aborted'));
    result = fn(tx);
  });
}

async function loadState() {
  const db = await openDB();
  let snapshot = null;
  const journal = [];
  await txDone(db, ['journal', 'snapshot'], 'readonly', (tx) => {
    tx.objectStore('snapshot').get('latest').onsuccess = (e) => { snapshot = asBytes(e.target.result); };
    tx.objectStore('journal').openCursor().onsuccess = (e) => {
      const cursor = e.target.result;
      if (!cursor) return;
      // A damaged entry still goes to the core, which checks and reports it.
      journal.push(asBytes(cursor.value) || new Uint8Array(0));
      cursor.continue();
    };
  });
  return { snapshot, journal };
}

function asBytes(v) {
  if (v instanceof Uint8Array) return v;
  if (v instanceof ArrayBuffer) return new Uint8Array(v);
  return v == null ? null : undefined;
}

// openapiDocuments gives the core the OpenAPI documents, which stay out of the
// module (every visitor would download them): from the offline cache, as the
// site built them.
async function openapiDocuments() {
  const response = (await cachedHere('/openapi-documents.bin')) || (await fetch('/openapi-documents.bin'));
  if (!response.ok) throw new Error('loading openapi-documents.bin: HTTP ' + response.status);
  return new Uint8Array(await response.arrayBuffer());
}

// journalAppend stores a batch of journal entries (the core's group commit) in
// one transaction.
async function journalAppend(entries) {
  const db = await openDB();
  await txDone(db, ['journal'], 'readwrite', (tx) => {
    const store = tx.objectStore('journal');
    for (const entry of entries) store.add(entry);
  });
}

async function writeSnapshot(snapshot) {
  const db = await openDB();
  await txDone(db, ['journal', 'snapshot'], 'readwrite', (tx) => {
    tx.objectStore('snapshot').put(snapshot, 'latest');
    tx.objectStore('journal').clear();
  });
}
