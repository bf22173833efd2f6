// watchstream.js — reading watch streams and following a collection like
// client-go's reflector. No DOM: the watch panel (watch.js) renders what a
// WatchSession reports.

/**
 * Splits a stream of JSON values (kube-apiserver writes one per line; values
 * that are merely concatenated are split too). push(text) returns the complete
 * values' texts; rest() the unfinished tail.
 */
export class JSONStreamSplitter {
  constructor() {
    this.buf = '';
    this.pos = 0;
    this.depth = 0;
    this.inString = false;
    this.escape = false;
    this.start = -1;
  }

  push(text) {
    this.buf += text;
    const out = [];
    const b = this.buf;
    for (let i = this.pos; i < b.length; i++) {
      const c = b[i];
      if (this.inString) {
        if (this.escape) this.escape = false;
        else if (c === '\\') this.escape = true;
        else if (c === '"') this.inString = false;
        continue;
      }
      if (c === '"') {
        this.inString = true;
      } else if (c === '{' || c === '[') {
        if (this.depth === 0) this.start = i;
        this.depth++;
      } else if (c === '}' || c === ']') {
        this.depth--;
        if (this.depth === 0 && this.start >= 0) {
          out.push(b.slice(this.start, i + 1));
          this.start = -1;
        }
      }
    }
    // Keep only the unfinished value.
    if (this.start >= 0) {
      this.buf = b.slice(this.start);
      this.start = 0;
    } else {
      this.buf = '';
    }
    this.pos = this.buf.length;
    return out;
  }

  rest() {
    return this.buf.trim();
  }
}

/** Async generator of parsed watch events from a fetch Response body. */
export async function* readWatchEvents(body) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const split = new JSONStreamSplitter();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      const parts = done ? split.push(decoder.decode()) : split.push(decoder.decode(value, { stream: true }));
      for (const p of parts) {
        let ev;
        try {
          ev = JSON.parse(p);
        } catch (e) {
          ev = { type: 'ERROR', object: { kind: 'Status', status: 'Failure', message: `unparsable watch frame: ${e.message}`, code: 0 }, unparsable: p };
        }
        yield ev;
      }
      if (done) return;
    }
  } finally {
    try {
      await reader.cancel();
    } catch {
      // already closed
    }
  }
}

function rvOf(o) {
  return (o && o.metadata && o.metadata.resourceVersion) || '';
}

function keyOf(o) {
  const m = (o && o.metadata) || {};
  return `${m.namespace || ''}/${m.name || ''}`;
}

const RETRY_STATUS = new Set([0, 429, 500, 502, 503, 504]);

/**
 * Splits a watch path ("/api/v1/namespaces/x/configmaps?watch=1&labelSelector=a")
 * into the collection path and its query, dropping watch/resourceVersion/
 * timeoutSeconds: those the session sets itself.
 */
export function splitWatchPath(path) {
  const [p, q = ''] = path.trim().split('?');
  const params = new URLSearchParams(q);
  for (const k of ['watch', 'resourceVersion', 'resourceVersionMatch', 'sendInitialEvents', 'allowWatchBookmarks']) params.delete(k);
  return { collection: p.replace(/\/watch\//, '/').replace(/\/+$/, '') || '/', params };
}

/**
 * A watch that keeps going like a client-go reflector:
 *  - first connection: from opts.resourceVersion if given; with opts.list a list
 *    (as after a 410, below), then a watch from its resourceVersion; with
 *    opts.sendInitialEvents a watch-list (sendInitialEvents=true,
 *    resourceVersionMatch=NotOlderThan); otherwise a watch without
 *    resourceVersion (current state as ADDED, then changes);
 *  - after a clean end of the stream: re-watch from the last resourceVersion seen
 *    (events and bookmarks);
 *  - after 410 Gone/Expired (HTTP 410 or an ERROR event with code 410): relist
 *    (GET the collection, paginated), note the list's resourceVersion, watch from it;
 *  - after other failures (network, 429, 5xx): back off (1 s doubling to 30 s) and
 *    re-watch from the last resourceVersion; other 4xx stop the watch.
 *
 * opts: {path, labelSelector, fieldSelector, allowWatchBookmarks, sendInitialEvents,
 *        list, resourceVersion, timeoutSeconds}
 * fetchFn(path, init) → Response (apiFetch bound to a target).
 * onRecord(record): record = {kind: 'event'|'info'|'reconnect'|'relist'|'error', time,
 *   type?, event?, name?, namespace?, resourceVersion?, code?, note, items? (a
 *   relist's objects: the whole collection, which replaces what was known)}
 * onState({state, lastRV, objects, connections}) on every change.
 */
export class WatchSession {
  constructor(opts, fetchFn, { onRecord, onState, sleep } = {}) {
    this.opts = { ...opts };
    this.fetchFn = fetchFn;
    this.onRecord = onRecord || (() => {});
    this.onState = onState || (() => {});
    this.sleep = sleep || ((ms, signal) => sleepAbortable(ms, signal));
    const { collection, params } = splitWatchPath(opts.path);
    this.collection = collection;
    this.baseParams = params;
    if (opts.labelSelector) this.baseParams.set('labelSelector', opts.labelSelector);
    if (opts.fieldSelector) this.baseParams.set('fieldSelector', opts.fieldSelector);
    this.lastRV = opts.resourceVersion || null;
    this.cache = new Map(); // namespace/name → resourceVersion: the reflector's store
    this.state = 'idle';
    this.connections = 0;
    this.stopped = false;
    this.abort = null;
    this.manual = false;
    this.needRelist = !!opts.list && !opts.resourceVersion;
    this.initialDone = !!opts.resourceVersion;
    this.backoff = 0;
  }

  record(r) {
    this.onRecord({ time: new Date(), ...r });
  }

  setState(state) {
    this.state = state;
    this.onState({ state, lastRV: this.lastRV, objects: this.cache.size, connections: this.connections });
  }

  /** The query for the next watch request. */
  watchQuery() {
    const q = new URLSearchParams(this.baseParams);
    q.set('watch', '1');
    if (this.opts.allowWatchBookmarks || (this.opts.sendInitialEvents && !this.initialDone)) q.set('allowWatchBookmarks', 'true');
    if (this.lastRV) {
      q.set('resourceVersion', this.lastRV);
    } else if (this.opts.sendInitialEvents && !this.initialDone) {
      q.set('sendInitialEvents', 'true');
      q.set('resourceVersionMatch', 'NotOlderThan');
    }
    if (this.opts.timeoutSeconds) q.set('timeoutSeconds', String(this.opts.timeoutSeconds));
    return q;
  }

  start() {
    if (this.running) return this.running;
    this.running = this.loop().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  stop() {
    this.stopped = true;
    if (this.abort) this.abort.abort();
    if (this.wake) this.wake.abort();
  }

  /** Drops the connection on purpose, as a network blip would: the session resumes. */
  reconnectNow() {
    if (this.wake) {
      this.wake.abort(); // cut a back-off short
    } else if (this.abort) {
      this.manual = true;
      this.abort.abort();
    }
  }

  /** Forgets the resourceVersion and the store (after a sandbox reset) and reconnects. */
  restartFromScratch() {
    this.lastRV = null;
    this.cache.clear();
    this.initialDone = false;
    this.needRelist = !!this.opts.list;
    this.reconnectNow();
  }

  async loop() {
    while (!this.stopped) {
      this.abort = new AbortController();
      const signal = this.abort.signal;
      let outcome;
      try {
        if (this.needRelist) {
          await this.relist(signal);
          this.needRelist = false;
        }
        outcome = await this.watchOnce(signal);
      } catch (err) {
        if (this.stopped) break;
        if (this.manual) {
          outcome = { kind: 'manual' };
        } else if (err && err.fatal) {
          this.record({ kind: 'error', code: err.code, note: err.message });
          this.setState('failed');
          return;
        } else {
          outcome = { kind: 'retry', note: err && err.message ? err.message : String(err) };
        }
      }
      if (this.stopped) break;
      if (this.manual) outcome = { kind: 'manual' };
      this.manual = false;
      switch (outcome.kind) {
        case 'end': {
          const quick = outcome.ms < 1000 && outcome.events === 0;
          this.backoff = quick ? nextBackoff(this.backoff) : 0;
          this.record({ kind: 'reconnect', note: `stream ended; re-watching from resourceVersion ${this.lastRV || '(none)'}${quick ? ` in ${this.backoff / 1000} s` : ''}` });
          break;
        }
        case 'manual':
          this.backoff = 0;
          this.record({ kind: 'reconnect', note: `connection dropped on purpose; re-watching from resourceVersion ${this.lastRV || '(none)'}` });
          break;
        case 'gone':
          this.backoff = 0;
          this.needRelist = true;
          this.lastRV = null;
          this.record({ kind: 'reconnect', note: 'resourceVersion too old (410): relisting, then watching from the list\u2019s resourceVersion' });
          break;
        default:
          this.backoff = nextBackoff(this.backoff);
          this.record({ kind: 'reconnect', note: `${outcome.note || 'watch failed'}; retrying in ${this.backoff / 1000} s from resourceVersion ${this.lastRV || '(none)'}` });
      }
      if (this.backoff) {
        this.setState('backoff');
        this.wake = new AbortController();
        try {
          await this.sleep(this.backoff, this.wake.signal);
        } catch {
          // stopped or woken while waiting
        }
        this.wake = null;
      }
    }
    this.setState('stopped');
  }

  async watchOnce(signal) {
    const q = this.watchQuery();
    const path = `${this.collection}?${q}`;
    this.connections++;
    this.setState('connecting');
    const t0 = Date.now();
    const res = await this.fetchFn(path, { headers: { Accept: 'application/json' }, signal });
    if (res.status === 410) {
      const s = await res.json().catch(() => ({}));
      this.record({ kind: 'error', type: 'ERROR', code: 410, note: `HTTP 410 ${s.reason || 'Gone'}: ${s.message || ''}`, event: s });
      return { kind: 'gone' };
    }
    if (!res.ok) {
      const s = await res.json().catch(() => ({}));
      const msg = `HTTP ${res.status} ${s.reason || ''}: ${s.message || ''}`.trim();
      if (RETRY_STATUS.has(res.status)) return { kind: 'retry', note: msg };
      const err = new Error(`watch refused: ${msg}`);
      err.fatal = true;
      err.code = res.status;
      throw err;
    }
    this.record({ kind: 'info', note: `watching ${path}` });
    this.setState('streaming');
    let events = 0;
    for await (const ev of readWatchEvents(res.body)) {
      events++;
      const obj = ev.object || {};
      if (ev.type === 'ERROR') {
        const code = obj.code || 0;
        this.record({ kind: 'error', type: 'ERROR', code, note: `${obj.reason || 'Error'}: ${obj.message || ''}`, event: ev });
        if (code === 410) return { kind: 'gone' };
        return { kind: 'retry', note: `watch ERROR ${code}` };
      }
      const rv = rvOf(obj);
      if (rv) this.lastRV = rv;
      let note = '';
      if (ev.type === 'BOOKMARK') {
        const ann = (obj.metadata && obj.metadata.annotations) || {};
        if (ann['k8s.io/initial-events-end'] === 'true') {
          this.initialDone = true;
          note = 'initial events end';
        }
      } else if (ev.type === 'DELETED') {
        this.cache.delete(keyOf(obj));
      } else if (ev.type === 'ADDED' || ev.type === 'MODIFIED') {
        this.cache.set(keyOf(obj), rv);
      }
      this.record({
        kind: 'event',
        type: ev.type,
        name: (obj.metadata && obj.metadata.name) || '',
        namespace: (obj.metadata && obj.metadata.namespace) || '',
        resourceVersion: rv,
        note,
        event: ev,
      });
      this.setState('streaming');
    }
    // Without sendInitialEvents, a watch from no resourceVersion has delivered the
    // current state once it is established; later connections resume.
    this.initialDone = this.initialDone || !this.opts.sendInitialEvents;
    return { kind: 'end', ms: Date.now() - t0, events };
  }

  async relist(signal) {
    this.setState('relisting');
    const items = [];
    let rv = '';
    let cont = '';
    let pages = 0;
    do {
      const q = new URLSearchParams(this.baseParams);
      q.set('limit', '500');
      if (cont) q.set('continue', cont);
      const res = await this.fetchFn(`${this.collection}?${q}`, { headers: { Accept: 'application/json' }, signal });
      const body = await res.json().catch(() => ({}));
      if (res.status === 410 && cont) {
        // the continue token expired mid-list: start the list again
        cont = '';
        items.length = 0;
        continue;
      }
      if (!res.ok) {
        const msg = `relist failed: HTTP ${res.status} ${body.reason || ''}: ${body.message || ''}`;
        if (RETRY_STATUS.has(res.status)) throw new Error(msg);
        const err = new Error(msg);
        err.fatal = true;
        err.code = res.status;
        throw err;
      }
      pages++;
      if (!rv) rv = rvOf(body);
      if (Array.isArray(body.items)) items.push(...body.items);
      else if (body.metadata && body.metadata.name) items.push(body); // a single object
      cont = (body.metadata && body.metadata.continue) || '';
    } while (cont);
    this.cache.clear();
    for (const o of items) this.cache.set(keyOf(o), rvOf(o));
    this.lastRV = rv || null;
    this.initialDone = true;
    this.record({ kind: 'relist', resourceVersion: rv, items, note: `listed ${items.length} object${items.length === 1 ? '' : 's'}${pages > 1 ? ` in ${pages} pages` : ''} at resourceVersion ${rv}` });
  }
}

function nextBackoff(b) {
  return b ? Math.min(b * 2, 30000) : 1000;
}

function sleepAbortable(ms, signal) {
  return new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    if (signal) {
      if (signal.aborted) {
        clearTimeout(t);
        reject(new Error('aborted'));
        return;
      }
      signal.addEventListener('abort', () => {
        clearTimeout(t);
        reject(new Error('aborted'));
      });
    }
  });
}
