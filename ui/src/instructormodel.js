// instructormodel.js — the instructor page's logic without the DOM (WORK-2):
// where the instructor token is kept, the sandboxes' table rows from
// GET /sandboxes (relative times, budget use, progress, recent errors), the
// link that opens one read-only, the attendee sheet's kubectl lines and the
// zip of every kubeconfig. Tested in test/instructor.test.mjs.

import { base64, concatBytes } from './bytes.js';

// The instructor token lives in the instructor tab's sessionStorage only:
// never in a URL, never in localStorage (which every tab of the origin, the
// attendees' page included, reads).
export const TOKEN_KEY = 'kubeplay.instructor.token';
export const POLL_MS = 2000;
// How the playground page is opened read-only on one sandbox: its id in the
// query (never the token), the Cluster view with the Requests panel docked.
export const READONLY_PARAM = 'readonly';

/** The control API's paths (docs: notes/workshop-api.md). */
export const paths = {
  list: '/sandboxes',
  credentials: '/sandboxes/credentials',
  workshops: '/workshops',
  reset: (id) => `/sandboxes/${encodeURIComponent(id)}/reset`,
  token: (id) => `/sandboxes/${encodeURIComponent(id)}/token`,
  sandbox: (id) => `/sandboxes/${encodeURIComponent(id)}`,
};

/** "just now", "42 s ago", "5 min ago", "3 h ago", "2 d ago"; "—" for no time. */
export function relativeTime(time, now) {
  const t = typeof time === 'number' ? time : Date.parse(time || '');
  if (!Number.isFinite(t) || t <= 0) return '—';
  const s = Math.round((now - t) / 1000);
  if (s < 5) return 'just now';
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86400)} d ago`;
}

/** Bytes as people read them: 512 B, 1.5 KiB, 32 MiB. */
export function bytes(n) {
  if (!(n >= 0)) return '—';
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB'];
  let v = n / 1024;
  let i = 0;
  for (; v >= 1024 && i < units.length - 1; i++) v /= 1024;
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}

/**
 * A sandbox's budget use: {text, fraction, level}; fraction is the fuller
 * of objects and bytes against their limits (0 when unbounded or unknown),
 * level "ok" below 70 %, "warn" below 90 %, else "err".
 */
export function budgetUse(budget) {
  if (!budget || typeof budget !== 'object') return { text: '—', fraction: 0, level: 'ok' };
  const parts = [];
  let fraction = 0;
  if (budget.maxObjects > 0) {
    parts.push(`${budget.objects ?? 0} / ${budget.maxObjects} objects`);
    fraction = Math.max(fraction, (budget.objects ?? 0) / budget.maxObjects);
  }
  if (budget.maxBytes > 0) {
    parts.push(`${bytes(budget.bytes ?? 0)} / ${bytes(budget.maxBytes)}`);
    fraction = Math.max(fraction, (budget.bytes ?? 0) / budget.maxBytes);
  }
  if (!parts.length) return { text: '—', fraction: 0, level: 'ok' };
  return { text: parts.join(' · '), fraction, level: fraction >= 0.9 ? 'err' : fraction >= 0.7 ? 'warn' : 'ok' };
}

/**
 * The progress record (empty until the learning issue lands) as a line:
 * "pods · step 3/7 · 2/3 exercises", or "—" when there is none.
 */
export function progressText(p) {
  if (!p || typeof p !== 'object') return '—';
  const parts = [];
  if (p.tutorial) parts.push(p.steps > 0 ? `${p.tutorial} · step ${p.step || 0}/${p.steps}` : p.tutorial);
  const ex = p.exercises && typeof p.exercises === 'object' ? Object.values(p.exercises) : [];
  if (ex.length) parts.push(`${ex.filter(Boolean).length}/${ex.length} exercises`);
  return parts.length ? parts.join(' · ') : '—';
}

/** One recent error as a line: "403 create /api/v1/… (alice): message". */
export function errorLine(e) {
  const who = e.user ? ` (${e.user})` : '';
  const msg = e.message ? `: ${e.message}` : '';
  return `${e.code} ${e.verb || ''} ${e.uri || ''}${who}${msg}`.replace(/\s+/g, ' ').trim();
}

/**
 * The table's rows from GET /sandboxes' answer at now (ms): in label order
 * (then creation), each with what the view shows.
 */
export function tableRows(list, now) {
  const sandboxes = Array.isArray(list && list.sandboxes) ? list.sandboxes : [];
  return sandboxes
    .filter((s) => s && typeof s.id === 'string')
    .map((s) => {
      const errors = Array.isArray(s.recentErrors) ? s.recentErrors : [];
      return {
        id: s.id,
        label: s.label || s.id.slice(0, 8),
        workshop: s.workshop || '',
        created: relativeTime(s.createdAt, now),
        createdAt: s.createdAt || '',
        lastActive: relativeTime(s.lastActiveAt, now),
        lastActiveAt: s.lastActiveAt || '',
        mode: s.mode === 'api-only' ? 'API only' : s.nodes ? `simulated, ${s.nodes} nodes` : 'simulated',
        objects: typeof s.objects === 'number' ? s.objects : null,
        budget: budgetUse(s.budget),
        progress: progressText(s.progress),
        errors: errors.slice(-5).map(errorLine),
      };
    })
    .sort((a, b) => compareLabels(a.label, b.label) || String(a.createdAt).localeCompare(String(b.createdAt)));
}

// compareLabels orders "attendee-2" before "attendee-10".
function compareLabels(a, b) {
  return a.localeCompare(b, undefined, { numeric: true, sensitivity: 'base' });
}

/** The playground page's address that opens sandbox id read-only (no token). */
export function readOnlyLink(origin, id) {
  return `${origin}/?${READONLY_PARAM}=${encodeURIComponent(id)}#cluster`;
}

/**
 * The read-only target of the playground page at href, or null: the sandbox
 * named in the query at this origin, with the instructor token from storage
 * (the instructor's tab, or the instructor page that opened it).
 */
export function readOnlyTarget(href, token) {
  const url = new URL(href);
  const id = url.searchParams.get(READONLY_PARAM);
  if (!id || !/^[A-Za-z0-9_-]{1,64}$/.test(id) || !token) return null;
  return { id, url: `${url.origin}/s/${id}`, token };
}

/** Labels from a text field: split on commas, spaces or lines; empty ones dropped. */
export function parseLabels(text) {
  return String(text || '').split(/[\s,;]+/).filter(Boolean);
}

/**
 * The body of POST /workshops adding count sandboxes (labels, when given,
 * say how many) of mode; with state (an export's bytes, LEARN-6) every one
 * starts from it, and mode "state" runs the cluster the export ran. Throws
 * on a count out of range.
 */
export function addRequest(count, mode, labelsText, state) {
  const labels = parseLabels(labelsText);
  const attendees = labels.length || Number(count);
  if (!Number.isInteger(attendees) || attendees < 1 || attendees > 100) throw new Error('add between 1 and 100 sandboxes');
  const body = { attendees };
  if (!(state && mode === 'state')) body.cluster = { mode: mode === 'api-only' ? 'api-only' : 'simulated' };
  if (labels.length) body.labels = labels;
  if (state) body.state = base64(state);
  return body;
}

/** The certificate-authority-data a kubeconfig embeds, or ''. */
export function kubeconfigCA(kubeconfig) {
  const m = /certificate-authority-data:\s*"?([A-Za-z0-9+/=]+)"?/.exec(kubeconfig || '');
  return m ? m[1] : '';
}

/**
 * The attendee sheet from GET /sandboxes/credentials: one block per sandbox
 * (label order) with its playground link and the kubectl lines that set up
 * its context by hand (the kubeconfig's CA included when it has one).
 */
export function sheetBlocks(creds) {
  const list = Array.isArray(creds && creds.sandboxes) ? creds.sandboxes : [];
  return list
    .filter((c) => c && c.id && c.server && c.token)
    .map((c) => {
      const label = c.label || c.id.slice(0, 8);
      const name = `kubeplay-${contextName(label)}`;
      const ca = kubeconfigCA(c.kubeconfig);
      const lines = [`kubectl config set-cluster ${name} --server=${c.server}`];
      if (ca) lines.push(`kubectl config set clusters.${name}.certificate-authority-data ${ca}`);
      lines.push(
        `kubectl config set-credentials ${name} --token=${c.token}`,
        `kubectl config set-context ${name} --cluster=${name} --user=${name} --namespace=default`,
        `kubectl config use-context ${name}`,
      );
      return { id: c.id, label, playground: c.playground || '', server: c.server, lines };
    })
    .sort((a, b) => compareLabels(a.label, b.label));
}

// contextName is label as a kubeconfig name and a file name: letters,
// digits, '-', '_' and '.'.
function contextName(label) {
  return String(label).replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[.-]+/, '') || 'sandbox';
}

/**
 * The kubeconfigs of GET /sandboxes/credentials as zip entries, one file per
 * attendee (each attendee gets only their own token): kubeconfig-LABEL.yaml,
 * numbered when two labels make the same name.
 */
export function kubeconfigFiles(creds) {
  const list = Array.isArray(creds && creds.sandboxes) ? creds.sandboxes : [];
  const used = new Set();
  const out = [];
  for (const c of [...list].sort((a, b) => compareLabels(a.label || a.id, b.label || b.id))) {
    if (!c || !c.kubeconfig) continue;
    const base = `kubeconfig-${contextName(c.label || c.id.slice(0, 8))}`;
    let name = `${base}.yaml`;
    for (let i = 2; used.has(name); i++) name = `${base}-${i}.yaml`;
    used.add(name);
    out.push({ name, data: c.kubeconfig });
  }
  return out;
}

// ---- zip (stored, no compression): a kubeconfig is 2 KB, a workshop's 100 of
// them fit in one small file; no dependency.

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** CRC-32 (IEEE) of bytes, as zip stores it. */
export function crc32(data) {
  let c = 0xffffffff;
  for (let i = 0; i < data.length; i++) c = CRC_TABLE[(c ^ data[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/**
 * A zip archive (Uint8Array) of files [{name, data: string|Uint8Array}],
 * stored uncompressed, dated date (a Date; its local time, as zip keeps it).
 */
export function zip(files, date = new Date()) {
  const enc = new TextEncoder();
  const dosTime = (date.getHours() << 11) | (date.getMinutes() << 5) | (date.getSeconds() >> 1);
  const dosDate = ((Math.max(date.getFullYear(), 1980) - 1980) << 9) | ((date.getMonth() + 1) << 5) | date.getDate();
  const locals = [];
  const centrals = [];
  let offset = 0;
  for (const f of files) {
    const name = enc.encode(f.name);
    const data = typeof f.data === 'string' ? enc.encode(f.data) : f.data;
    const crc = crc32(data);
    const local = new DataView(new ArrayBuffer(30));
    local.setUint32(0, 0x04034b50, true);
    local.setUint16(4, 20, true); // version needed: 2.0
    local.setUint16(6, 0x0800, true); // names are UTF-8
    local.setUint16(8, 0, true); // stored
    local.setUint16(10, dosTime, true);
    local.setUint16(12, dosDate, true);
    local.setUint32(14, crc, true);
    local.setUint32(18, data.length, true);
    local.setUint32(22, data.length, true);
    local.setUint16(26, name.length, true);
    local.setUint16(28, 0, true);
    const central = new DataView(new ArrayBuffer(46));
    central.setUint32(0, 0x02014b50, true);
    central.setUint16(4, 20, true); // made by: 2.0
    central.setUint16(6, 20, true);
    central.setUint16(8, 0x0800, true);
    central.setUint16(10, 0, true);
    central.setUint16(12, dosTime, true);
    central.setUint16(14, dosDate, true);
    central.setUint32(16, crc, true);
    central.setUint32(20, data.length, true);
    central.setUint32(24, data.length, true);
    central.setUint16(28, name.length, true);
    central.setUint32(42, offset, true);
    locals.push(new Uint8Array(local.buffer), name, data);
    centrals.push(new Uint8Array(central.buffer), name);
    offset += 30 + name.length + data.length;
  }
  const centralSize = centrals.reduce((n, p) => n + p.length, 0);
  const end = new DataView(new ArrayBuffer(22));
  end.setUint32(0, 0x06054b50, true);
  end.setUint16(8, files.length, true);
  end.setUint16(10, files.length, true);
  end.setUint32(12, centralSize, true);
  end.setUint32(16, offset, true);
  return concatBytes([...locals, ...centrals, new Uint8Array(end.buffer)]);
}

/**
 * What an answer that is not 2xx says: a kube Status's message, else the
 * HTTP status. unauthorized is true for 401 (the token is wrong: ask again).
 */
export function failure(status, body) {
  const message = body && typeof body === 'object' && body.message ? body.message : `HTTP ${status}`;
  return { message, unauthorized: status === 401 };
}
