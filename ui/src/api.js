// api.js — the one place that knows where API requests go.
//
// Targets (persisted in localStorage under "kubeplay.target"):
//   sandbox — "In-browser sandbox" (default): same-origin paths, answered by the
//             service worker /sw.js from the in-browser core.
//   native  — "Native server (this host)": same-origin paths with the request
//             header X-Kubeplay-Target: network, which the service worker passes
//             to the network (the native kubeplay server that served this page).
//   remote  — "Remote kubeplay URL…": absolute URL of another kubeplay server
//             (cross-origin; that server must allow CORS), with an optional bearer
//             token sent as Authorization: Bearer <token>.
//
// Exports:
//   apiFetch(path, init[, target]) → Promise<Response>
//   currentTarget() → {kind, url, token, label, baseUrl}
//   setTarget({kind, url?, token?}), onTargetChange(fn) → unsubscribe
//   targetUrl(path[, target]) — the absolute URL a request goes to
//   setSandboxUnavailable(reason|null) — sandbox.js reports that the worker cannot
//     run, so sandbox requests fail at once instead of waiting for it
//   TARGET_KINDS — [{kind, label}]
//   linkOffer() → {url, token} | null, answerLinkOffer(accept)
//   readOnlySandbox() → the sandbox id when the page is a read-only view, else ''
//
// Read-only (WORK-2): the instructor page opens this page as
// /?readonly=<sandbox id>, in a tab that starts with a copy of the instructor
// tab's sessionStorage; the target is then that sandbox at this origin
// (/s/<id>) with the instructor token, which the hosts accept for reads only.
// It is fixed for the page's life and never stored: the token stays in
// sessionStorage, out of localStorage and of every URL.
//
// A link may offer a remote target in its fragment, which never reaches a
// server: #target=remote&url=<base URL>&token=<bearer token> (what the edge's
// sandbox creation returns as the playground link). The page asks before using
// it: that server would see every request sent from here and its answers would
// be shown here, so a link from anyone must not choose it silently. Accepted,
// it is stored like a choice made in the page; either way the fragment then
// leaves the address bar.

import { TOKEN_KEY, readOnlyTarget } from './instructormodel.js';

const STORAGE_KEY = 'kubeplay.target';
const EVENT = 'kubeplay-target-change';

export const TARGET_KINDS = [
  { kind: 'sandbox', label: 'In-browser sandbox' },
  { kind: 'native', label: 'Native server (this host)' },
  { kind: 'remote', label: 'Remote kubeplay URL…' },
];

const events = new EventTarget();

// The last choice made on this page (also the fallback when storage is unusable).
let memo = null;

// The read-only view's target, when this page is one.
const readOnly = typeof location === 'undefined' ? null : readOnlyTarget(location.href, instructorToken());

// instructorToken is the instructor page's token from this tab's storage, or
// from the instructor tab that opened this one (same origin).
function instructorToken() {
  try {
    return sessionStorage.getItem(TOKEN_KEY) || (window.opener && window.opener.sessionStorage.getItem(TOKEN_KEY)) || '';
  } catch {
    return '';
  }
}

/** The sandbox this page views read-only, or '' when it is not a read-only view. */
export function readOnlySandbox() {
  return readOnly ? readOnly.id : '';
}

/** The remote target the page's link offers, or null. */
export function linkOffer() {
  if (typeof location === 'undefined' || !location.hash.startsWith('#target=')) return null;
  const p = new URLSearchParams(location.hash.slice(1));
  if (p.get('target') !== 'remote' || !/^https?:\/\//i.test(p.get('url') || '')) return null;
  return { url: p.get('url'), token: p.get('token') || '' };
}

/** Uses the link's offered target when accept is true; drops the offer either way. */
export function answerLinkOffer(accept) {
  const offer = linkOffer();
  history.replaceState(null, '', location.pathname + location.search);
  if (offer && accept) setTarget({ kind: 'remote', ...offer });
}

function readStored() {
  try {
    const v = JSON.parse(localStorage.getItem(STORAGE_KEY) || 'null');
    if (v && TARGET_KINDS.some((t) => t.kind === v.kind)) {
      return { kind: v.kind, url: typeof v.url === 'string' ? v.url : '', token: typeof v.token === 'string' ? v.token : '' };
    }
  } catch {
    // unreadable: fall back to the default
  }
  return { kind: 'sandbox', url: '', token: '' };
}

function origin() {
  return typeof location !== 'undefined' ? location.origin : '';
}

function describe(t) {
  const kind = TARGET_KINDS.find((k) => k.kind === t.kind);
  const url = (t.url || '').trim().replace(/\/+$/, '');
  return {
    kind: t.kind,
    url,
    token: t.token || '',
    label: t.readOnly ? `Read-only ${url}` : t.kind === 'remote' ? `Remote ${url || '(no URL)'}` : kind.label,
    baseUrl: t.kind === 'remote' ? url : origin(),
    readOnly: !!t.readOnly,
  };
}

/** The target requests go to now. */
export function currentTarget() {
  if (readOnly) return describe({ kind: 'remote', url: readOnly.url, token: readOnly.token, readOnly: true });
  return describe(memo || readStored());
}

/** Chooses and persists the target; listeners of onTargetChange are told. */
export function setTarget({ kind, url = '', token = '' }) {
  if (!TARGET_KINDS.some((t) => t.kind === kind)) throw new Error(`unknown target ${kind}`);
  if (readOnly) throw new Error('a read-only view keeps its sandbox as the target');
  const v = { kind, url: String(url).trim(), token: String(token).trim() };
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(v));
  } catch {
    // private mode without storage: the choice lasts for this page only
  }
  memo = v;
  events.dispatchEvent(new CustomEvent(EVENT, { detail: describe(v) }));
}


/** Calls fn(target) after each change of target; returns an unsubscribe function. */
export function onTargetChange(fn) {
  const l = (e) => fn(e.detail);
  events.addEventListener(EVENT, l);
  return () => events.removeEventListener(EVENT, l);
}

/** The absolute URL for path (which may carry a query) at target. */
export function targetUrl(path, target = currentTarget()) {
  if (/^https?:\/\//i.test(path)) return path;
  const p = path.startsWith('/') ? path : '/' + path;
  if (target.kind === 'remote') {
    if (!target.url) throw new Error('Remote target: set the kubeplay server URL first');
    return target.url + p;
  }
  return origin() + p;
}

/**
 * fetch() against the chosen target. path is an API path such as
 * "/api/v1/namespaces/default/configmaps?limit=5"; init is fetch's init.
 * The optional third argument pins a target (a watch keeps the target it
 * started with); by default it is currentTarget().
 */
export async function apiFetch(path, init = {}, target = currentTarget()) {
  const headers = new Headers(init.headers || {});
  const opts = { ...init, headers, cache: 'no-store' };
  if (target.kind === 'native') {
    headers.set('X-Kubeplay-Target', 'network');
  } else if (target.kind === 'remote') {
    if (target.token && !headers.has('Authorization')) headers.set('Authorization', `Bearer ${target.token}`);
    opts.mode = 'cors';
    opts.credentials = 'omit';
  } else {
    await waitForController(opts.signal);
  }
  return fetch(targetUrl(path, target), opts);
}

// The sandbox answers only once the service worker controls this page; before
// that a same-origin fetch would go to the network and reach the wrong server.
const CONTROLLER_WAIT_MS = 30000;
let sandboxUnavailable = null;

/** Makes sandbox requests fail at once with reason (null: wait for the worker again). */
export function setSandboxUnavailable(reason) {
  sandboxUnavailable = reason || null;
  if (sandboxUnavailable) events.dispatchEvent(new Event('sandbox-unavailable'));
}

function waitForController(signal) {
  const sw = typeof navigator !== 'undefined' ? navigator.serviceWorker : undefined;
  if (!sw) {
    return Promise.reject(new Error('The in-browser sandbox needs service workers, which this page cannot use (a secure context — https or localhost — is required). Choose the native or a remote target.'));
  }
  if (sw.controller) return Promise.resolve();
  const unavailable = () => new Error(`The in-browser sandbox is not available: ${sandboxUnavailable}`);
  if (sandboxUnavailable) return Promise.reject(unavailable());
  return new Promise((resolve, reject) => {
    const done = (err) => {
      clearTimeout(timer);
      sw.removeEventListener('controllerchange', onChange);
      events.removeEventListener('sandbox-unavailable', onUnavailable);
      if (signal) signal.removeEventListener('abort', onAbort);
      if (err) reject(err);
      else resolve();
    };
    const onChange = () => { if (sw.controller) done(); };
    const onAbort = () => done(new DOMException('The request was aborted', 'AbortError'));
    const onUnavailable = () => done(unavailable());
    events.addEventListener('sandbox-unavailable', onUnavailable);
    const timer = setTimeout(() => done(new Error('The in-browser sandbox is not running: the service worker does not control this page (after a hard reload, reload normally).')), CONTROLLER_WAIT_MS);
    sw.addEventListener('controllerchange', onChange);
    if (signal) {
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort);
    }
  });
}

