// share.js — a sandbox's state kept, handed over and started from (LEARN-6):
// the export (GET /debug/kubeplay/export of the target: core/export's file,
// its objects with their uids, resourceVersions and managedFields, its
// revision and history, its cluster mode), saved as a file; an import
// (POST /debug/kubeplay/import, which the in-browser sandbox's worker
// serves) of such a file; and a share link that carries in its URL fragment,
// gzip-compressed and base64url-encoded, the objects the sandbox's clients
// made (GET /debug/kubeplay/share: core/share's document, a few KB for a
// workshop's state), which the receiving sandbox takes in (POST of it), so
// that nothing is uploaded anywhere: the browser never sends a fragment.
// Links made before share documents, carrying a whole export, still open.

import { apiFetch } from './api.js';
import { base64 } from './bytes.js';

const EXPORT_PATH = '/debug/kubeplay/export';
const IMPORT_PATH = '/debug/kubeplay/import';
const SHARE_PATH = '/debug/kubeplay/share';
// A share link's fragment: #share=<base64url of the gzip of the share document>.
export const LINK_PREFIX = 'share=';
// An older link's: #import=<base64url of the gzip of an export>.
export const EXPORT_LINK_PREFIX = 'import=';
// Past this many characters of fragment a state goes as a file instead.
export const MAX_LINK_CHARS = 512 * 1024;

/** The target's share document (the objects its clients made), as bytes. */
export async function shareDocument(target) {
  const res = await apiFetch(SHARE_PATH, {}, target);
  if (!res.ok) throw new Error(statusMessage(await res.text(), res.status));
  return new Uint8Array(await res.arrayBuffer());
}

/** Takes a share document into the target: {objects, revision}, or throws its Status message. */
export async function takeShare(bytes, target) {
  const res = await apiFetch(SHARE_PATH, { method: 'POST', body: bytes, headers: { 'Content-Type': 'application/json' } }, target);
  const text = await res.text();
  if (!res.ok) throw new Error(statusMessage(text, res.status));
  return JSON.parse(text);
}

/** A share document's objects in words, by resource: "50 objects: 47 configmaps, 1 namespaces, …". */
export function shareSummary(doc) {
  const kinds = new Map();
  for (const o of doc.objects || []) {
    const plural = String(o.key).split('/')[1]; // GROUP/PLURAL/...
    kinds.set(plural, (kinds.get(plural) || 0) + 1);
  }
  const parts = [...kinds].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${n} ${k}`);
  const n = (doc.objects || []).length;
  return `${n} object${n === 1 ? '' : 's'}${parts.length ? `: ${parts.join(', ')}` : ''}`;
}

/** The target's export: {bytes, filename}. */
export async function exportState(target) {
  const res = await apiFetch(EXPORT_PATH, {}, target);
  if (!res.ok) throw new Error(statusMessage(await res.text(), res.status));
  const m = /filename="([^"]+)"/.exec(res.headers.get('Content-Disposition') || '');
  return { bytes: new Uint8Array(await res.arrayBuffer()), filename: m ? m[1] : 'kubeplay.kubeplay' };
}

/** The export's header line, parsed (null when it has none). */
export function readHeader(bytes) {
  const nl = bytes.indexOf(10);
  if (nl < 0) return null;
  try {
    return JSON.parse(new TextDecoder().decode(bytes.subarray(0, nl)));
  } catch {
    return null;
  }
}

/**
 * Starts the in-browser sandbox again from an export; replace: even if
 * clients wrote to it. Resolves with what was imported ({revision, objects,
 * cluster, ...}), or throws the worker's Status message (409: not fresh).
 */
export async function importState(bytes, { replace = false } = {}) {
  const res = await fetch(IMPORT_PATH + (replace ? '?replace=true' : ''), { method: 'POST', body: bytes, headers: { 'Content-Type': 'application/vnd.kubeplay.export' } });
  const text = await res.text();
  if (!res.ok) throw new Error(statusMessage(text, res.status));
  return JSON.parse(text);
}

// statusMessage is a refusal's Status message, else its HTTP status.
function statusMessage(text, status) {
  try {
    const s = JSON.parse(text);
    if (s && s.message) return s.message;
  } catch {
    // not a Status
  }
  return `HTTP ${status}`;
}

/** A link to base (the playground) carrying bytes (a share document; with prefix EXPORT_LINK_PREFIX, an export), or null when too large for one. */
export async function shareLink(bytes, base, prefix = LINK_PREFIX) {
  const packed = await gzip(bytes);
  const fragment = prefix + toBase64Url(packed);
  if (fragment.length > MAX_LINK_CHARS) return null;
  return `${base}#${fragment}`;
}

/** What a share link's fragment carries (hash with or without '#'): {kind: 'share' | 'export', bytes}, or null for another fragment. */
export async function readShareLink(hash) {
  const h = hash.replace(/^#/, '');
  for (const [prefix, kind] of [[LINK_PREFIX, 'share'], [EXPORT_LINK_PREFIX, 'export']]) {
    if (h.startsWith(prefix)) return { kind, bytes: await gunzip(fromBase64Url(h.slice(prefix.length))) };
  }
  return null;
}

/** Whether a fragment is a share link's. */
export const isShareLink = (hash) => [LINK_PREFIX, EXPORT_LINK_PREFIX].some((p) => hash.replace(/^#/, '').startsWith(p));

async function gzip(bytes) {
  return new Uint8Array(await new Response(new Blob([bytes]).stream().pipeThrough(new CompressionStream('gzip'))).arrayBuffer());
}

async function gunzip(bytes) {
  return new Uint8Array(await new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'))).arrayBuffer());
}

export function toBase64Url(bytes) {
  return base64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function fromBase64Url(text) {
  const s = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}
