// requestsmodel.js — the Requests panel's logic without the DOM: the
// sandbox's request log (GET /debug/kubeplay/requests?since=VERSION: the
// entries changed since, each kept by its sequence number, a long-running
// one replaced when it ends), its filters, and an entry as curl. Tested in test/requests.test.mjs.

import { toCurl } from './copyas.js';

export const LOG_PATH = '/debug/kubeplay/requests';
export const MAX_ENTRIES = 1000;

/** The entries heard so far, newest last, at most MAX_ENTRIES. */
export class RequestLog {
  constructor(max = MAX_ENTRIES) {
    this.max = max;
    this.bySeq = new Map();
  }

  /** Applies one event; returns the entry it added or changed. */
  apply(ev) {
    const e = ev && ev.object;
    if (!e || typeof e.seq !== 'number') return null;
    this.bySeq.set(e.seq, e);
    if (this.bySeq.size > this.max) {
      const oldest = Math.min(...this.bySeq.keys());
      this.bySeq.delete(oldest);
    }
    return e;
  }

  clear() {
    this.bySeq.clear();
  }

  /** The entries f accepts, oldest first. */
  entries(f = {}) {
    return [...this.bySeq.values()].sort((a, b) => a.seq - b.seq).filter((e) => matches(e, f));
  }

  /** The values seen of a field (client, user, verb), sorted. */
  values(field) {
    return [...new Set([...this.bySeq.values()].map((e) => e[field]).filter(Boolean))].sort();
  }
}

/**
 * Whether entry e passes filter f: {client, user, verb, code, internal},
 * each empty for any; code is a status code or a class ("4xx"); internal
 * false hides the sandbox's own components' requests.
 */
export function matches(e, f) {
  if (f.client && e.client !== f.client) return false;
  if (f.user && e.user !== f.user) return false;
  if (f.verb && e.verb !== f.verb) return false;
  if (f.internal === false && e.internal) return false;
  if (f.code) {
    const m = /^(\d)xx$/.exec(f.code);
    if (m ? String(Math.floor((e.code || 0) / 100)) !== m[1] : String(e.code) !== f.code) return false;
  }
  return true;
}

/**
 * The entry as curl against baseUrl, with the body the log kept (detail is
 * GET LOG_PATH/SEQ's answer): its method, path, Content-Type and Accept. A
 * body the log cut, or kept only as base64 (binary), is left out and said so.
 */
export function entryCurl(detail, baseUrl, extraHeaders = []) {
  const e = detail.entry;
  const headers = [];
  if (e.accept) headers.push(['Accept', e.accept]);
  if (e.contentType) headers.push(['Content-Type', e.contentType]);
  const req = { method: e.method, path: e.uri, headers };
  let note = '';
  if (detail.requestBody !== undefined && !detail.requestBodyTruncated) req.body = detail.requestBody;
  else if (e.requestBytes > 0) note = detail.requestBodyTruncated ? '# the body was longer than the log keeps: not shown\n' : '# a binary or no longer kept body: not shown\n';
  return note + toCurl(req, baseUrl, extraHeaders);
}

/** A latency in µs as people read it. */
export function latency(us) {
  if (us < 1000) return `${us}µs`;
  if (us < 1e6) return `${(us / 1000).toFixed(us < 1e4 ? 1 : 0)}ms`;
  return `${(us / 1e6).toFixed(1)}s`;
}
