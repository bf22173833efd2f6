// share.js — a sandbox's state kept, handed over and started from (LEARN-6):
// the export (GET /debug/kubeplay/export of the target: core/export's file,
// its objects with their uids, resourceVersions and managedFields, its
// revision and history, its cluster mode), saved as a file; an import
// (POST /debug/kubeplay/import, which the in-browser sandbox's worker
// serves) of such a file; and a share link that carries a small state in its
// URL fragment, gzip-compressed and base64url-encoded, so that nothing is
// uploaded anywhere: the browser never sends a fragment.

import { apiFetch } from './api.js';

const EXPORT_PATH = '/debug/kubeplay/export';
const IMPORT_PATH = '/debug/kubeplay/import';
// A share link's fragment: #import=<base64url of the gzip of the export>.
export const LINK_PREFIX = 'import=';
// Past this many characters of fragment a state goes as a file instead.
export const MAX_LINK_CHARS = 512 * 1024;

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

/** A link to base (the playground) carrying bytes, or null when too large for one. */
export async function shareLink(bytes, base) {
  const packed = await gzip(bytes);
  const fragment = LINK_PREFIX + toBase64Url(packed);
  if (fragment.length > MAX_LINK_CHARS) return null;
  return `${base}#${fragment}`;
}

/** The export a share link's fragment carries (hash with or without '#'), or null. */
export async function readShareLink(hash) {
  const h = hash.replace(/^#/, '');
  if (!h.startsWith(LINK_PREFIX)) return null;
  return gunzip(fromBase64Url(h.slice(LINK_PREFIX.length)));
}

async function gzip(bytes) {
  return new Uint8Array(await new Response(new Blob([bytes]).stream().pipeThrough(new CompressionStream('gzip'))).arrayBuffer());
}

async function gunzip(bytes) {
  return new Uint8Array(await new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'))).arrayBuffer());
}

export function toBase64Url(bytes) {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function fromBase64Url(text) {
  const s = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}
