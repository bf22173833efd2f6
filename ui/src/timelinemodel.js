// timelinemodel.js — the revision timeline's logic, without the DOM (LEARN-5):
// the paths it reads (the sandbox's timeline of the changes history keeps,
// and the API itself for the state at a revision: a list with
// resourceVersionMatch=Exact, which kube answers with 410 Gone before its
// history; the watch a client would have had, from the revision before a
// change), who made a change in words, what a 410 means, and a line diff of
// an object's YAML between two revisions, with managedFields and status
// left out unless asked for.

import { stringify } from 'yaml';

export const TIMELINE_PATH = '/debug/kubeplay/timeline';

/** The timeline's path for filters {kind, namespace, name, user, mine} and a page {before, limit}. */
export function timelinePath({ before, limit, kind, namespace, name, user, mine } = {}) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries({ kind, namespace, name, user })) if (v) q.set(k, v);
  if (mine) q.set('mine', 'true');
  if (before) q.set('before', String(before));
  if (limit) q.set('limit', String(limit));
  const s = q.toString();
  return s ? `${TIMELINE_PATH}?${s}` : TIMELINE_PATH;
}

const nameSelector = (name) => `metadata.name=${name}`;

/** The API path that reads the object {collection, name} (or the whole collection, without a name) as it was at rev. */
export function atRevisionPath(collection, rev, name) {
  const q = new URLSearchParams();
  if (name) q.set('fieldSelector', nameSelector(name));
  q.set('resourceVersion', String(rev));
  q.set('resourceVersionMatch', 'Exact');
  return `${collection}?${q}`;
}

/** The watch of one object from just before rev: its first event is the one a client saw for the change at rev. */
export function watchAtPath(collection, name, rev) {
  const q = new URLSearchParams({ watch: '1', fieldSelector: nameSelector(name), resourceVersion: String(rev - 1), timeoutSeconds: '5' });
  return `${collection}?${q}`;
}

/** Who made a change, in words: "alice · tutor (Apply) · kubectl", or the manager alone when the log no longer has the request. */
export function madeBy(e) {
  const parts = [];
  if (e.user) parts.push(e.user);
  if (e.manager) parts.push(`${e.manager}${e.operation ? ` (${e.operation}${e.subresource ? ` ${e.subresource}` : ''})` : ''}`);
  if (e.client && e.client !== e.manager) parts.push(`via ${e.client}`);
  return parts.join(' · ') || 'unknown (the request log no longer has the request)';
}

/** The object's "namespace/name", or its name. */
export const objectName = (e) => (e.namespace ? `${e.namespace}/${e.name}` : e.name);

/** What a read at a revision before the history means (kube's 410 Gone, reason Expired). */
export function compactedExplanation(rev, compacted) {
  return `Revision ${rev} is no longer in the history: it was compacted (history keeps every change after revision ${compacted}). ` +
    'The API answers a read or a watch at it with 410 Gone (reason Expired), as kube-apiserver does once etcd has compacted it: ' +
    'a client must list again at the current revision.';
}

/** obj without what a diff leaves out unless asked: metadata.managedFields and status. */
export function forDiff(obj, { managedFields = false, status = false } = {}) {
  if (!obj) return obj;
  const o = { ...obj };
  if (!managedFields && o.metadata?.managedFields) {
    o.metadata = { ...o.metadata };
    delete o.metadata.managedFields;
  }
  if (!status) delete o.status;
  return o;
}

/** An object as YAML for a diff ('' for none: it did not exist). */
export const toYaml = (obj) => (obj ? stringify(obj, { lineWidth: 0 }) : '');

/**
 * A line diff of a and b: [{op: ' ' | '-' | '+', text}], the longest common
 * subsequence of their lines kept, what a lacks added and what b lacks
 * removed (removals first where both change).
 */
export function lineDiff(a, b) {
  const x = a === '' ? [] : a.replace(/\n$/, '').split('\n');
  const y = b === '' ? [] : b.replace(/\n$/, '').split('\n');
  // Common head and tail first: an object's YAML changes in a few lines.
  let head = 0;
  while (head < x.length && head < y.length && x[head] === y[head]) head++;
  let tail = 0;
  while (tail < x.length - head && tail < y.length - head && x[x.length - 1 - tail] === y[y.length - 1 - tail]) tail++;
  const xs = x.slice(head, x.length - tail);
  const ys = y.slice(head, y.length - tail);
  const n = xs.length;
  const m = ys.length;
  // lcs[i][j]: the longest common subsequence of xs[i:] and ys[j:].
  const lcs = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i][j] = xs[i] === ys[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const out = x.slice(0, head).map((text) => ({ op: ' ', text }));
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && xs[i] === ys[j]) {
      out.push({ op: ' ', text: xs[i] });
      i++;
      j++;
    } else if (j >= m || (i < n && lcs[i + 1][j] >= lcs[i][j + 1])) {
      out.push({ op: '-', text: xs[i++] });
    } else {
      out.push({ op: '+', text: ys[j++] });
    }
  }
  for (const text of x.slice(x.length - tail)) out.push({ op: ' ', text });
  return out;
}

/** The changed lines of a diff, as "-text" and "+text". */
export const changedLines = (diff) => diff.filter((d) => d.op !== ' ').map((d) => d.op + d.text);
