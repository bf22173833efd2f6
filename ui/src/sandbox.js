// sandbox.js — the in-browser sandbox: registers the service worker /sw.js,
// follows its kubeplay-status messages, asks it to reset, and keeps it running.
//
// Contract with sw.js:
//   worker → page: {type: 'kubeplay-status', state: 'ready'|'error', revision,
//                   restoreErrors: [string], error, build, startup}
//   page → worker: {type: 'kubeplay-reset'} wipes IndexedDB and restarts the core;
//                  {type: 'kubeplay-status'} asks the worker to post its status;
//                  {type: 'kubeplay-keepalive'} keeps it from stopping.
//
// State: {state: 'starting'|'ready'|'error', revision, restoreErrors, error, hint,
//         build (the worker's build id), startup (when the worker and its core
//         came up, epoch ms: see sw.js)}
//
// Chrome stops a worker after 30 s without an event, and the next request pays
// the core's cold start (100–235 ms) again; so while the page is open, and not
// hidden for longer than KEEPALIVE_HIDDEN_MS, it posts a keepalive every
// KEEPALIVE_MS, and one at once when it is shown again (which restarts a
// stopped worker and its core before the next request needs them). Once every
// tab is closed or long hidden, the worker stops as usual.
// Once the worker controls the page, the page asks it for its status; should no
// answer come, a probe of /version through the worker settles "ready".

import { setSandboxUnavailable } from './api.js';

const KEEPALIVE_MS = 20_000;
const KEEPALIVE_HIDDEN_MS = 5 * 60_000;

const listeners = new Set();

const status = {
  state: 'starting',
  revision: null,
  restoreErrors: [],
  error: null,
  hint: null,
  build: null,
  startup: null,
};

let registration = null;
let sandboxScope = '/'; // the scope of the worker whose sandbox this page uses
let probing = false;
let waiters = [];

function emit() {
  const snapshot = sandboxStatus();
  for (const fn of listeners) {
    try { fn(snapshot); } catch (e) { console.error(e); }
  }
  if (status.state !== 'starting') {
    const w = waiters;
    waiters = [];
    for (const fn of w) fn(snapshot);
  }
}

function set(patch) {
  Object.assign(status, patch);
  // The first time the sandbox answers (make bench-browser reads the mark).
  if (status.state === 'ready' && !performance.getEntriesByName('kubeplay:sandbox-ready').length) performance.mark('kubeplay:sandbox-ready');
  // Requests to a sandbox that cannot run fail at once (unless a reload may fix it).
  setSandboxUnavailable(status.state === 'error' && !navigator.serviceWorker?.controller ? status.error : null);
  emit();
}

/** A copy of the current status. */
export function sandboxStatus() {
  return { ...status, restoreErrors: [...status.restoreErrors] };
}

/** Calls fn(status) on every change (and once now); returns unsubscribe. */
export function onSandboxStatus(fn) {
  listeners.add(fn);
  fn(sandboxStatus());
  return () => listeners.delete(fn);
}

/** Resolves with the status once it is no longer "starting". */
export function whenSettled() {
  if (status.state !== 'starting') return Promise.resolve(sandboxStatus());
  return new Promise((resolve) => waiters.push(resolve));
}

function onMessage(e) {
  const d = e.data;
  if (!d || d.type !== 'kubeplay-status') return;
  // Only this page's sandbox (a page under another scope, the embed page's,
  // hears the playground's worker too, which may control it until its own
  // takes over).
  if ((d.scope || '/') !== sandboxScope) return;
  // A first visit's worker starts the core as it installs: its state is
  // this page's once it controls the page (controllerchange asks again), as
  // only then do the page's requests reach it.
  if (!navigator.serviceWorker.controller) return;
  if (d.build) status.build = String(d.build);
  if (d.state === 'ready') {
    set({
      state: 'ready',
      revision: d.revision ?? status.revision,
      restoreErrors: Array.isArray(d.restoreErrors) ? d.restoreErrors.map(String) : [],
      error: null,
      hint: null,
      startup: d.startup ?? null,
    });
  } else if (d.state === 'error') {
    set({ state: 'error', error: String(d.error || 'the sandbox failed to start'), hint: null });
  }
}

/** Registers /sw.js and starts following the sandbox. Safe to call once. */
export function initSandbox({ scope = '/' } = {}) {
  const sw = navigator.serviceWorker;
  if (!sw) {
    set({
      state: 'error',
      error: 'Service workers are not available here, so the in-browser sandbox cannot run.',
      hint: 'They need a secure context (https, or http://localhost) and may be disabled in private windows. Choose "Native server" or a remote kubeplay URL as the target instead.',
    });
    return;
  }
  sw.addEventListener('message', onMessage);
  sw.startMessages();
  sw.addEventListener('controllerchange', () => askStatus());
  keepWorkerAlive(sw);

  sandboxScope = scope;
  sw.register('/sw.js', { scope }).then(
    (reg) => {
      registration = reg;
      if (sw.controller) askStatus();
      // An active worker that does not control the page: a hard reload bypassed it.
      setTimeout(() => {
        if (!sw.controller && status.state === 'starting' && registration && registration.active) {
          set({
            state: 'error',
            error: 'The sandbox worker is installed but does not control this page.',
            hint: 'This happens after a hard reload (Shift+Reload). Reload the page normally.',
            reloadable: true,
          });
        }
      }, 8000);
    },
    (err) => {
      set({
        state: 'error',
        error: `Could not register the sandbox service worker /sw.js: ${err && err.message ? err.message : err}`,
        hint: 'The sandbox files (sw.js, the .wasm) may be missing from this site. You can still use "Native server" or a remote kubeplay URL as the target.',
      });
    },
  );
}

// keepWorkerAlive posts a keepalive to the controlling worker every KEEPALIVE_MS
// while the page is visible or hidden for less than KEEPALIVE_HIDDEN_MS, and at
// once when it is shown again.
function keepWorkerAlive(sw) {
  let hiddenSince = document.hidden ? Date.now() : null;
  const ping = () => {
    if (hiddenSince !== null && Date.now() - hiddenSince > KEEPALIVE_HIDDEN_MS) return;
    try {
      sw.controller?.postMessage({ type: 'kubeplay-keepalive' });
    } catch {
      // a worker being replaced: the next one controls the page soon
    }
  };
  setInterval(ping, KEEPALIVE_MS);
  document.addEventListener('visibilitychange', () => {
    hiddenSince = document.hidden ? Date.now() : null;
    if (!document.hidden) ping();
  });
}

function askStatus() {
  const c = navigator.serviceWorker.controller;
  if (!c) return;
  try {
    c.postMessage({ type: 'kubeplay-status' });
  } catch {
    // a worker being replaced: the probe below settles it
  }
  setTimeout(() => { if (status.state === 'starting') probe(); }, 3000);
}

// Asks the sandbox for /version until it answers, to learn it is up when no
// status message reached this page.
async function probe() {
  if (probing) return;
  probing = true;
  try {
    for (let i = 0; i < 60 && status.state === 'starting'; i++) {
      if (!navigator.serviceWorker.controller) return;
      try {
        const res = await fetch('/version', { cache: 'no-store' });
        if (res.ok) {
          const body = await res.json().catch(() => null);
          if (status.state === 'starting' && body && typeof body === 'object') {
            set({ state: 'ready', error: null, hint: null });
          }
          return;
        }
      } catch {
        // the worker is still starting the core
      }
      await new Promise((r) => setTimeout(r, 500));
    }
    if (status.state === 'starting') {
      set({ state: 'error', error: 'The sandbox did not answer /version within 30 seconds.', hint: 'Reload the page, or reset the sandbox.' });
    }
  } finally {
    probing = false;
  }
}

/** Asks the worker to wipe and restart the sandbox; resolves when it is back. */
export async function resetSandbox() {
  const sw = navigator.serviceWorker;
  const worker = (sw && sw.controller) || (registration && registration.active);
  if (!worker) throw new Error('The sandbox service worker is not running, so it cannot be reset.');
  set({ state: 'starting', restoreErrors: [], error: null, hint: null, revision: null });
  worker.postMessage({ type: 'kubeplay-reset' });
  // The worker answers with a kubeplay-status message; probe too, in case the
  // message is lost (a worker restarted in between posts to fresh clients only).
  setTimeout(() => { if (status.state === 'starting') probe(); }, 5000);
  return whenSettled();
}

/** Hides the restore errors from view (they stay in the console). */
export function dismissRestoreErrors() {
  set({ restoreErrors: [] });
}
