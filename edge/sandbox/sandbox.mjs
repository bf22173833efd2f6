// kubeplay sandbox Worker: one Durable Object per sandbox hosts the Go core
// (kubeplay.wasm, the service worker's build but with CEL linked in: it
// evaluates CustomResourceDefinitions' rules itself) through the long-lived
// bridge of wasm/main.go (its JavaScript side, wasm/bridge/bridge.mjs, is the
// service worker's too), and persists it to the object's SQLite storage:
//
//   journal(seq, entry)   one CRC-framed record per acknowledged write
//   snapshot(part, data)  the latest snapshot, in parts under the 2 MB value limit
//   meta(key, value)      token hash, expiry, idle limit, last activity, and
//                         the last usage seen (stats) for when the core is unloaded
//
// Durable Objects hold every outgoing message until the storage writes made
// before it are durable, so a write's response is released only once its journal
// entry is stored. The front Worker (edge/front: front.mjs and its Go control
// plane) reaches these objects with:
//
//   /s/{id}/<path>          a client's request as it came: the object checks the
//                           token, strips /s/{id} and hands the core <path> at
//                           the client's own host (discovery reports it);
//                           /v3/discovery:* and /xds/v3/* go to the xDS module
//                           (kubeplay-xds.wasm, started on first use as in the
//                           browser: REST polling and the page's streams);
//                           /kubeplay/status and /kubeplay/progress (WORK-2:
//                           what the attendee's page reports) it answers itself
//   https://control/create  POST {tokenHash, expiresAt, idleSeconds} → 201 | 409
//   https://control/info    GET → {createdAt, lastActiveAt, expiresAt, cluster,
//                           objects, bytes, maxObjects, maxBytes, recentErrors,
//                           progress}
//                           (WORK-2; the core's usage while it runs, else the
//                           last seen: asking never starts the core)
//   https://control/reset   POST → the info: a fresh core, same token and cluster,
//                           no progress
//   https://control/token   POST {tokenHash} → 204: the old token is refused from now on
//   https://control/        DELETE → 204: the sandbox and its storage are gone
//   (each 404 once the sandbox is gone)
//
// A request with the front's instructor header (kube.mjs) reads the sandbox
// as the instructor: GET and HEAD only (403 otherwise), not counted as the
// attendee's activity.
//
// A core that fails to start answers 503 ServiceUnavailable; the next request
// starts it anew.
//
// CreationLimiter is a per-caller fixed-window counter for sandbox creation:
//   https://control/take?limit=N&window=SECONDS → 200 | 429 {retryAfterSeconds}
//
// Registry (one object, "instructor") lists the instructor's sandboxes
// (WORK-2): id, label, workshop, token (the instructor downloads them again),
// created; the front's control plane keeps it:
//   https://control/add     POST {sandboxes: [{id, label, workshop, token, createdAt}]} → 204
//   https://control/list    GET → {sandboxes: [...]}, oldest first
//   https://control/token   POST {id, token} → 204 | 404
//   https://control/remove  POST {id} → 204 | 404

import { DurableObject } from 'cloudflare:workers';
import './wasm_exec.js';
import coreModule from './kubeplay.wasm';
import xdsModule from './kubeplay-xds.wasm';
// The OpenAPI documents, kept out of the core's module and given to it when a
// client first asks (an ArrayBuffer: a Data module).
import openapiDocuments from './openapi-documents.bin';
import { XDS_PATH, checkImport, errorText, headerLines, jsonResponse, relay, runGo, statusResponse, unavailable } from './bridge.mjs';
import { INSTRUCTOR_HEADER, MAX_BODY_BYTES, bearerToken, instructorWrites, methodNotAllowed, notFound, sha256, tooLarge, unauthorized } from './kube.mjs';

const SNAPSHOT_PART_BYTES = 1 << 20;
// Last activity is stored at most this often (or a quarter of the idle limit).
const ACTIVITY_WRITE_MS = 60_000;
// A core idle this long (no requests, no open watch) is stopped and the object
// reset, so its memory goes back to the isolate; the next request restores it
// from storage. UNLOAD_IDLE_SECONDS (a binding of this Worker) overrides it.
const DEFAULT_UNLOAD_IDLE_SECONDS = 120;
// A client's request: /s/{id} and the path for the core.
const CLIENT_PATH = /^\/s\/[^/]+(\/.*)?$/;
// Paths the object answers itself, not the core.
const STATUS_PATH = '/kubeplay/status';
// The attendee's page puts its progress here (internal/control's ProgressPath).
const PROGRESS_PATH = '/kubeplay/progress';
// An export (core/export's file) posted here starts the sandbox again from it.
const IMPORT_PATH = '/debug/kubeplay/import';
// How many of its clients' last failed requests a sandbox's info shows
// (internal/control's RecentErrors).
const RECENT_ERRORS = 5;

export class Sandbox extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.api = null; // Promise of the Go instance's kubeplay API, once instantiating
    this.core = null; // Promise<{api, info}> once started
    this.instanceStartedAt = Date.now();
    this.openWatches = 0;
    this.lastRequestAt = 0;
    this.lastAttendeeAt = 0; // the attendee's last request (meta's lastActive is stored at most each minute)
    this.unloadIdleMs = (Number(env.UNLOAD_IDLE_SECONDS) || DEFAULT_UNLOAD_IDLE_SECONDS) * 1000;
    this.sql.exec(`CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS journal (seq INTEGER PRIMARY KEY AUTOINCREMENT, entry BLOB NOT NULL);
      CREATE TABLE IF NOT EXISTS snapshot (part INTEGER PRIMARY KEY, data BLOB NOT NULL);`);
    this.meta = readMeta(this.sql);
  }

  async fetch(request) {
    const url = new URL(request.url);
    try {
      const client = CLIENT_PATH.exec(url.pathname);
      if (client) return await this.serve(request, url, client[1] || '/');
      return await this.control(request, url);
    } catch (err) {
      console.error('kubeplay sandbox:', err && err.stack || err);
      return statusResponse(500, 'InternalError', 'kubeplay sandbox: ' + errorText(err));
    }
  }

  async control(request, url) {
    const route = `${request.method} ${url.pathname}`;
    if (route !== 'POST /create') {
      if (!this.meta) return notFound();
      switch (route) {
        case 'GET /info': return jsonResponse(200, await this.info());
        case 'POST /reset': return jsonResponse(200, await this.reset());
        case 'POST /token': return this.newToken(await request.json());
        case 'DELETE /': return this.remove();
        default: return notFound();
      }
    }
    if (this.meta) return statusResponse(409, 'AlreadyExists', 'sandbox already exists');
    const { tokenHash, expiresAt, idleSeconds, cluster } = await request.json();
    if (!/^[0-9a-f]{64}$/.test(tokenHash) || !(expiresAt > Date.now()) || !(idleSeconds > 0)) {
      return statusResponse(400, 'BadRequest', 'invalid sandbox record');
    }
    const now = Date.now();
    // cluster: what the core runs besides the API (checked by the front).
    const meta = { tokenHash, expiresAt, idleSeconds, createdAt: now, lastActive: now, cluster: JSON.stringify(cluster ?? {}), fresh: 'true' };
    this.ctx.storage.transactionSync(() => {
      for (const [key, value] of Object.entries(meta)) this.sql.exec('INSERT INTO meta (key, value) VALUES (?, ?)', key, String(value));
    });
    this.meta = readMeta(this.sql);
    await this.ctx.storage.setAlarm(this.deadline());
    return new Response(null, { status: 201 });
  }

  // info is what the instructor sees of the sandbox: the core's usage while it
  // runs (kept for when it is unloaded), else the last seen.
  async info() {
    const { api } = this.core ? await this.core.catch(() => ({})) : {};
    const usage = api && api.usage(RECENT_ERRORS);
    if (usage) this.stats = JSON.parse(usage);
    const stats = this.stats ?? this.meta.stats ?? {};
    return {
      createdAt: this.meta.createdAt,
      lastActiveAt: Math.max(this.meta.lastActive, this.lastAttendeeAt),
      expiresAt: this.meta.expiresAt,
      cluster: this.meta.cluster,
      objects: stats.objects ?? 0,
      bytes: stats.bytes ?? 0,
      maxObjects: stats.maxObjects ?? 0,
      maxBytes: stats.maxBytes ?? 0,
      recentErrors: stats.recentErrors ?? [],
      progress: this.meta.progress ?? EMPTY_PROGRESS,
    };
  }

  // progress answers PROGRESS_PATH without starting the core: GET (the
  // attendee, or the instructor reading) and PUT (the attendee's page), whose
  // body the core's module reads as internal/control's handler does natively.
  async progress(request) {
    if (request.method === 'GET') return jsonResponse(200, this.meta.progress ?? EMPTY_PROGRESS);
    if (request.method !== 'PUT') return methodNotAllowed();
    // One byte over the bound is enough for the core's module to refuse it.
    const body = await readLimited(request.body ?? new Blob([]).stream(), MAX_PROGRESS_BYTES + 1) ?? new Uint8Array(MAX_PROGRESS_BYTES + 1);
    this.api ??= this.instantiate();
    const parsed = (await this.api).parseProgress(body);
    if (parsed.status) return statusResponse(parsed.status.code, parsed.status.reason, parsed.status.message);
    this.sql.exec("INSERT OR REPLACE INTO meta (key, value) VALUES ('progress', ?)", parsed.progress);
    this.meta.progress = JSON.parse(parsed.progress);
    return jsonResponse(200, this.meta.progress);
  }

  // import answers POST IMPORT_PATH (LEARN-6), as the browser's worker
  // does: the export is checked whole by the core's module (without starting
  // a core), then becomes the sandbox's snapshot, its cluster mode the
  // sandbox's; into a fresh sandbox (no client has written to it since it was
  // made or reset), else only with ?replace=true (409). The next request
  // starts the core from it.
  async import(request, body) {
    if (request.method !== 'POST') return methodNotAllowed();
    this.api ??= this.instantiate();
    const api = await this.api;
    const imported = checkImport(api, body, request.url, this.meta.fresh, this.meta.cluster);
    if (imported.refusal) return imported.refusal;
    await this.stopCore();
    this.ctx.storage.transactionSync(() => {
      this.replaceSnapshot(imported.snapshot);
      this.sql.exec("DELETE FROM meta WHERE key IN ('stats', 'progress')");
      this.sql.exec("INSERT OR REPLACE INTO meta (key, value) VALUES ('cluster', ?)", JSON.stringify(imported.cluster));
      this.sql.exec("INSERT OR REPLACE INTO meta (key, value) VALUES ('fresh', 'false')");
    });
    this.stats = null;
    this.meta = readMeta(this.sql);
    return imported.answer;
  }

  // noteClientWrite records that a client wrote (or tried to): the sandbox
  // is no longer fresh.
  noteClientWrite() {
    if (this.meta.fresh !== true) return;
    this.meta.fresh = false;
    this.sql.exec("INSERT OR REPLACE INTO meta (key, value) VALUES ('fresh', 'false')");
  }

  // keepStats stores the core's last usage, for the info while it is unloaded.
  async keepStats() {
    const { api } = this.core ? await this.core.catch(() => ({})) : {};
    const usage = api && api.usage(RECENT_ERRORS);
    if (!usage) return;
    this.sql.exec("INSERT OR REPLACE INTO meta (key, value) VALUES ('stats', ?)", usage);
  }

  // reset replaces the sandbox's state with a fresh core's: the core stops,
  // its snapshot, journal and last usage go; the token, cluster and times
  // stay. The next request starts the core empty.
  async reset() {
    await this.stopCore();
    this.ctx.storage.transactionSync(() => {
      this.sql.exec('DELETE FROM snapshot');
      this.sql.exec('DELETE FROM journal');
      this.sql.exec("DELETE FROM meta WHERE key IN ('stats', 'progress')");
      this.sql.exec("INSERT OR REPLACE INTO meta (key, value) VALUES ('fresh', 'true')");
    });
    this.stats = null;
    this.meta.stats = null;
    this.meta.progress = null;
    this.meta.fresh = true;
    return this.info();
  }

  // newToken makes tokenHash the sandbox's token's.
  newToken({ tokenHash }) {
    if (!/^[0-9a-f]{64}$/.test(tokenHash || '')) return statusResponse(400, 'BadRequest', 'invalid token hash');
    this.sql.exec("UPDATE meta SET value = ? WHERE key = 'tokenHash'", tokenHash);
    this.meta = readMeta(this.sql);
    return new Response(null, { status: 204 });
  }

  // remove deletes the sandbox with its storage now.
  async remove() {
    await this.stopCore();
    this.meta = null;
    this.stats = null;
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    return new Response(null, { status: 204 });
  }

  // serve answers a client's request for path (below /s/{id}).
  async serve(request, url, path) {
    if (!this.meta) return notFound();
    // The sandbox's token, or the instructor reading.
    const attendee = await tokenMatches(request.headers.get('Authorization'), this.meta.tokenHash);
    if (!attendee) {
      if (request.headers.get(INSTRUCTOR_HEADER) !== 'read') return unauthorized();
      if (request.method !== 'GET' && request.method !== 'HEAD') return instructorWrites();
    }
    if (path === PROGRESS_PATH) return this.progress(request);
    const declared = Number(request.headers.get('Content-Length') || 0);
    if (declared > MAX_BODY_BYTES) return tooLarge();
    let body = null;
    if (request.body) {
      body = await readLimited(request.body, MAX_BODY_BYTES);
      if (!body) return tooLarge();
    }
    if (attendee) {
      this.touch();
      this.lastAttendeeAt = Date.now();
    }
    if (path === IMPORT_PATH) return this.import(request, body);
    if (request.method !== 'GET' && request.method !== 'HEAD') this.noteClientWrite();
    let core;
    try {
      core = await this.startCore();
    } catch (err) {
      console.error('kubeplay sandbox: the core did not start:', err && err.stack || err);
      return unavailable('the sandbox could not start: ' + errorText(err));
    }
    const { api, info } = core;
    this.lastRequestAt = Date.now();
    let handle = api.handle;
    if (XDS_PATH.test(path)) {
      try {
        handle = (await this.startXDS(api)).handle;
      } catch (err) {
        console.error('kubeplay sandbox: the xDS module did not start:', err && err.stack || err);
        return unavailable('the xDS module could not start: ' + errorText(err));
      }
    }
    if (path === STATUS_PATH) {
      return jsonResponse(200, {
        restoredRevision: info.revision,
        restoreErrors: info.restoreErrors,
        instanceStartedAt: this.instanceStartedAt,
        expiresAt: this.meta.expiresAt,
        wasmMemoryBytes: this.memory.buffer.byteLength,
        openWatches: this.openWatches,
      });
    }
    // The sandbox's token was checked above; the core knows its holder as the
    // sandbox's admin (the core's default token table: `kubeplay` is
    // kubernetes-admin), and impersonation headers pick anyone else.
    const headers = 'authorization: Bearer kubeplay\r\n' + headerLines(request.headers, ['authorization', INSTRUCTOR_HEADER]);
    // A watch, or a page reading an xDS stream, keeps the core loaded.
    const open = handle !== api.handle || /^(1|true)$/.test(url.searchParams.get('watch') || '');
    return relay(handle, { method: request.method, url: url.origin + path + url.search, headers, body }, {
      // encodeBody 'manual': a body the core gzipped (a large list, the OpenAPI
      // v2 document) is sent as it is; by default the runtime would gzip it again.
      init: { encodeBody: 'manual' },
      stream: open ? (stream) => this.countedWatch(stream) : undefined,
    });
  }

  // startXDS starts the xDS module once per core, as a client of it; after a
  // failure the next call tries again.
  startXDS(api) {
    if (!this.xds) {
      this.xds = (async () => {
        this.xdsAPI ??= this.instantiateModule(xdsModule, 'kubeplayXDS', () => { this.xdsAPI = null; this.xds = null; });
        const xds = await this.xdsAPI;
        await xds.start(api.handleModule);
        return xds;
      })().catch((err) => {
        this.xds = null;
        throw err;
      });
    }
    return this.xds;
  }

  // countedWatch passes a watch stream through and counts it while it is open,
  // so the status shows that a client going away ends its watch.
  countedWatch(stream) {
    const reader = stream.getReader();
    let open = true;
    const close = () => {
      if (open) {
        open = false;
        this.openWatches--;
      }
    };
    this.openWatches++;
    return new ReadableStream({
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            close();
            controller.close();
          } else {
            controller.enqueue(value);
          }
        } catch (err) {
          close();
          controller.error(err);
        }
      },
      cancel(reason) {
        close();
        return reader.cancel(reason);
      },
    });
  }

  // startCore starts the core from storage in this object's own Go instance,
  // once; after a failure the next call tries again, in the same instance when
  // it was the start that failed. Objects of one class may share an isolate, so
  // the API object the Go program publishes on globalThis is taken at once,
  // before another object's instance can replace it.
  startCore() {
    if (!this.core) {
      this.core = this.start().catch((err) => {
        this.core = null;
        throw err;
      });
    }
    return this.core;
  }

  async start() {
    this.api ??= this.instantiate();
    const api = await this.api;
    const info = await api.start({
      snapshot: this.readSnapshot(),
      journal: this.sql.exec('SELECT entry FROM journal ORDER BY seq').toArray().map((row) => new Uint8Array(row.entry)),
      append: (entry) => this.append(entry),
      writeSnapshot: (snapshot) => this.writeSnapshot(snapshot),
      openapiDocuments: async () => new Uint8Array(openapiDocuments),
      cluster: this.meta.cluster,
      budget: 'edge', // what one Durable Object may hold (core/budget)
      // The xDS group is served, its objects checked by the xDS module.
      validateXDS: async (kind, json) => (await this.startXDS(api)).validate(kind, json),
    });
    for (const e of info.restoreErrors) console.error('kubeplay sandbox restore:', e);
    // The simulated cluster (the default, this.meta.cluster's mode) runs in
    // the core's own Go instance: the edge's core links it (-tags sim).
    await this.ctx.storage.setAlarm(Math.min(this.deadline(), Date.now() + this.unloadIdleMs));
    return { api, info };
  }

  // instantiate runs a new Go instance of the core's module and resolves to
  // its API.
  instantiate() {
    return this.instantiateModule(coreModule, 'kubeplay', () => {
      this.api = null;
      this.core = null;
      // The xDS module was a client of this core: the next core starts it anew.
      this.xds?.then((xds) => xds.stop()).catch(() => {});
      this.xds = null;
    });
  }

  // instantiateModule runs a new Go instance of module and resolves to the API
  // it publishes as globalThis[name] (bridge.mjs's runGo); onExit runs if its
  // Go program ends or does not start, and drops what holds the promise, so
  // the next call instantiates anew.
  instantiateModule(module, name, onExit) {
    return runGo(module, name, {
      instantiated: (instance) => {
        if (module === coreModule) this.memory = instance.exports.mem;
      },
      onExit: () => {
        console.error(`kubeplay sandbox: ${name} exited`);
        onExit();
      },
    }).then(({ api }) => api, (err) => {
      onExit();
      throw err;
    });
  }

  readSnapshot() {
    const parts = this.sql.exec('SELECT data FROM snapshot ORDER BY part').toArray();
    if (parts.length === 0) return null;
    const size = parts.reduce((n, p) => n + p.data.byteLength, 0);
    const out = new Uint8Array(size);
    let at = 0;
    for (const p of parts) {
      out.set(new Uint8Array(p.data), at);
      at += p.data.byteLength;
    }
    return out;
  }

  // append stores a batch of journal entries (the core's group commit). The
  // writes are committed with the current output gate: nothing this object sends
  // afterwards leaves before they are durable.
  async append(entries) {
    for (const entry of entries) this.sql.exec('INSERT INTO journal (entry) VALUES (?)', copyBuffer(entry));
  }

  // writeSnapshot replaces the snapshot and empties the journal in one transaction.
  async writeSnapshot(snapshot) {
    this.ctx.storage.transactionSync(() => this.replaceSnapshot(snapshot));
  }

  // replaceSnapshot stores snapshot in parts in place of the snapshot and the
  // journal; within the caller's transaction.
  replaceSnapshot(snapshot) {
    this.sql.exec('DELETE FROM snapshot');
    for (let at = 0, part = 0; at < snapshot.byteLength; at += SNAPSHOT_PART_BYTES, part++) {
      this.sql.exec('INSERT INTO snapshot (part, data) VALUES (?, ?)', part, copyBuffer(snapshot.subarray(at, at + SNAPSHOT_PART_BYTES)));
    }
    this.sql.exec('DELETE FROM journal');
  }

  // unload stops the core and resets the object: the Go instance and everything
  // it holds are dropped; storage already has every acknowledged write.
  async unload() {
    await this.keepStats();
    await this.stopCore();
    console.log('kubeplay sandbox idle: core unloaded');
    this.ctx.abort('idle: kubeplay core unloaded');
  }

  // stopCore stops the core (the simulated cluster with it) and its client
  // the xDS module, if it runs.
  async stopCore() {
    if (!this.core) return;
    const { api } = await this.core.catch(() => ({}));
    const xds = this.xds && await this.xds.catch(() => null);
    if (xds) await xds.stop().catch(() => {});
    this.xds = null;
    if (api) await api.stop().catch(() => {});
    this.core = null;
  }

  touch() {
    const now = Date.now();
    if (now - this.meta.lastActive < Math.min(ACTIVITY_WRITE_MS, this.meta.idleSeconds * 250)) return;
    this.meta.lastActive = now;
    this.sql.exec("UPDATE meta SET value = ? WHERE key = 'lastActive'", String(now));
    this.ctx.storage.setAlarm(this.deadline());
  }

  deadline() {
    return Math.min(this.meta.expiresAt, this.meta.lastActive + this.meta.idleSeconds * 1000);
  }

  // alarm deletes an expired or idle sandbox with all its storage, and unloads
  // a core nobody has used for a while.
  async alarm() {
    if (!this.meta) return;
    const deadline = this.deadline();
    const now = Date.now();
    if (now < deadline) {
      if (this.core && this.openWatches === 0 && now - this.lastRequestAt >= this.unloadIdleMs) {
        await this.ctx.storage.setAlarm(deadline);
        await this.ctx.storage.sync();
        await this.unload();
        return;
      }
      const unloadAt = this.core ? Math.max(now, this.lastRequestAt) + this.unloadIdleMs : Infinity;
      await this.ctx.storage.setAlarm(Math.min(deadline, unloadAt));
      return;
    }
    await this.stopCore();
    this.meta = null;
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    console.log('kubeplay sandbox expired and deleted');
  }
}

export class CreationLimiter extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.storage = ctx.storage;
  }

  async fetch(request) {
    const url = new URL(request.url);
    const limit = Number(url.searchParams.get('limit'));
    const windowMs = Number(url.searchParams.get('window')) * 1000;
    const now = Date.now();
    let w = (await this.storage.get('window')) || { start: now, used: 0 };
    if (now - w.start >= windowMs) w = { start: now, used: 0 };
    if (w.used >= limit) {
      return jsonResponse(429, { retryAfterSeconds: Math.max(1, Math.ceil((w.start + windowMs - now) / 1000)) });
    }
    w.used++;
    await this.storage.put('window', w);
    await this.storage.setAlarm(w.start + windowMs);
    return jsonResponse(200, { remaining: limit - w.used });
  }

  async alarm() {
    await this.storage.deleteAll();
  }
}

export class Registry extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec(`CREATE TABLE IF NOT EXISTS sandboxes (id TEXT PRIMARY KEY, label TEXT NOT NULL, workshop TEXT NOT NULL,
      token TEXT NOT NULL, created_at INTEGER NOT NULL)`);
  }

  async fetch(request) {
    const url = new URL(request.url);
    switch (`${request.method} ${url.pathname}`) {
      case 'POST /add': {
        const { sandboxes } = await request.json();
        this.ctx.storage.transactionSync(() => {
          for (const s of sandboxes) {
            this.sql.exec('INSERT OR REPLACE INTO sandboxes (id, label, workshop, token, created_at) VALUES (?, ?, ?, ?, ?)',
              s.id, s.label || '', s.workshop || '', s.token, s.createdAt);
          }
        });
        return new Response(null, { status: 204 });
      }
      case 'GET /list': {
        const rows = this.sql.exec('SELECT id, label, workshop, token, created_at FROM sandboxes ORDER BY created_at, rowid').toArray();
        return jsonResponse(200, { sandboxes: rows.map((r) => ({ id: r.id, label: r.label, workshop: r.workshop, token: r.token, createdAt: r.created_at })) });
      }
      case 'POST /token': {
        const { id, token } = await request.json();
        return this.changed(this.sql.exec('UPDATE sandboxes SET token = ? WHERE id = ?', token, id));
      }
      case 'POST /remove': {
        const { id } = await request.json();
        return this.changed(this.sql.exec('DELETE FROM sandboxes WHERE id = ?', id));
      }
      default:
        return notFound();
    }
  }

  changed(cursor) {
    return cursor.rowsWritten > 0 ? new Response(null, { status: 204 }) : notFound();
  }
}

// The sandbox Worker has no public routes: only the front Worker reaches its
// objects, through Durable Object bindings.
export default {
  fetch() {
    return notFound();
  },
};

function readMeta(sql) {
  const rows = sql.exec('SELECT key, value FROM meta').toArray();
  if (rows.length === 0) return null;
  const m = Object.fromEntries(rows.map((r) => [r.key, r.value]));
  return {
    tokenHash: new Uint8Array(m.tokenHash.match(/../g).map((h) => parseInt(h, 16))),
    expiresAt: Number(m.expiresAt),
    idleSeconds: Number(m.idleSeconds),
    createdAt: Number(m.createdAt),
    lastActive: Number(m.lastActive),
    cluster: JSON.parse(m.cluster ?? '{}'),
    stats: m.stats ? JSON.parse(m.stats) : null,
    progress: m.progress ? JSON.parse(m.progress) : null,
    // No client has written since it was made or reset (a sandbox made
    // before this was kept is not).
    fresh: m.fresh === 'true',
  };
}

// A progress record before the attendee's page reports one
// (internal/control/progress's Progress), and the bound of a PUT's body
// (its MaxRequestBytes).
const EMPTY_PROGRESS = Object.freeze({ tutorial: '', step: 0, steps: 0, exercises: {} });
const MAX_PROGRESS_BYTES = 16 << 10;

// tokenMatches compares the SHA-256 of the presented bearer token with the stored
// hash (bytes) in constant time.
async function tokenMatches(authorization, tokenHash) {
  const token = bearerToken(authorization);
  if (token === null) return false;
  return crypto.subtle.timingSafeEqual(await sha256(token), tokenHash);
}

// readLimited reads a body of at most limit bytes, or returns null past it.
async function readLimited(stream, limit) {
  const reader = stream.getReader();
  const chunks = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

function copyBuffer(bytes) {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
}
