// history.js — the last requests sent, in localStorage ("kubeplay.history").
// An entry: {id, at, target, spec, status, ms} where spec is the builder's
// request spec (see builder.js) and can be restored into it.

const KEY = 'kubeplay.history';
export const HISTORY_MAX = 50;

const listeners = new Set();

export function loadHistory() {
  try {
    const v = JSON.parse(localStorage.getItem(KEY) || '[]');
    return Array.isArray(v) ? v : [];
  } catch {
    return [];
  }
}

function save(list) {
  try {
    localStorage.setItem(KEY, JSON.stringify(list));
  } catch {
    // quota or no storage: keep only the newest ones we can
    try {
      localStorage.setItem(KEY, JSON.stringify(list.slice(0, 10).map((e) => ({ ...e, spec: { ...e.spec, body: (e.spec.body || '').slice(0, 4096) } }))));
    } catch {
      // give up quietly: history is a convenience
    }
  }
  for (const fn of listeners) fn(list);
}

/** Adds an entry at the front; returns its id. */
export function addHistory(entry) {
  const list = loadHistory();
  const id = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 7)}`;
  list.unshift({ id, at: new Date().toISOString(), ...entry });
  save(list.slice(0, HISTORY_MAX));
  return id;
}

/** Updates the entry with id (status, timing known later). */
export function updateHistory(id, patch) {
  const list = loadHistory();
  const e = list.find((x) => x.id === id);
  if (!e) return;
  Object.assign(e, patch);
  save(list);
}

export function clearHistory() {
  save([]);
}

export function onHistoryChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** A history entry's path as its list shows it: without the API's prefix
 * (/api/v1, /apis/GROUP/VERSION, whose group stays as GROUP:) and with a
 * namespace as NS/, so what tells two entries apart (namespace, resource,
 * name, query) comes first and only the end can be cut. */
export function historyLabel(path) {
  const p = String(path || '');
  const m = p.match(/^\/(?:api\/v1|apis\/([^/?]+)\/[^/?]+)(.*)$/);
  if (!m) return p;
  const rest = m[2].replace(/^\/namespaces\/([^/?]+)\//, '$1/').replace(/^\//, '');
  return (m[1] ? `${m[1]}: ` : '') + (rest || '/');
}
