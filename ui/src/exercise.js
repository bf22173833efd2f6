// exercise.js — the exercise checker (LEARN-2): follows the API with one
// list+watch per resource an exercise's parts name (shared by the parts on the
// same resource), judges every part on each change with the tutorials'
// expectations (checkObject in tutorial-runner.js), and reports which parts
// hold and, for the others, what is missing. No DOM: the page's exercise view
// (exercises.js) and go test's replay (tutorials/replay.mjs) both use it.
// The format is tutorials/README.md's "Exercises".

import { WatchSession } from './watchstream.js';
import { checkObject } from './tutorial-runner.js';

/** The collection path of a part's resource: /apis/apps/v1/namespaces/shop/deployments. */
export function collectionPath({ group, version, resource, namespace }) {
  const base = group ? `/apis/${group}/${version}` : `/api/${version}`;
  return namespace ? `${base}/namespaces/${namespace}/${resource}` : `${base}/${resource}`;
}

/**
 * Whether labels match an equality-based label selector ("a=b,c!=d,e,!f"),
 * as a list with labelSelector filters.
 */
export function matchesSelector(labels, selector) {
  const l = labels || {};
  for (const req of String(selector || '').split(',').map((s) => s.trim()).filter(Boolean)) {
    let m;
    if ((m = req.match(/^([^!=\s]+)\s*!=\s*(.*)$/))) {
      if (l[m[1]] === m[2].trim()) return false;
    } else if ((m = req.match(/^([^!=\s]+)\s*==?\s*(.*)$/))) {
      if (l[m[1]] !== m[2].trim()) return false;
    } else if (req.startsWith('!')) {
      if (Object.prototype.hasOwnProperty.call(l, req.slice(1))) return false;
    } else if (!Object.prototype.hasOwnProperty.call(l, req)) {
      return false;
    }
  }
  return true;
}

function gotText(v) {
  if (v === undefined) return 'nothing';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/**
 * Judges one part against the objects of its resource (a Map or array of
 * objects): {ok, message}. The part holds when one object it names (by name,
 * or every object its selector matches) meets every expectation. Otherwise the
 * message is the part's `absent` when no object is named, else the message
 * for the first unmet expectation of the closest object: the part's
 * `messages[path]` with `{{got}}` (the value found) and `{{name}}` filled in,
 * or the expectation's own failure text.
 */
export function judgePart(part, objects) {
  const r = part.resource;
  const candidates = [...objects.values()].filter((o) => {
    const m = o.metadata || {};
    if (r.name !== undefined && m.name !== r.name) return false;
    if (r.selector !== undefined && !matchesSelector(m.labels, r.selector)) return false;
    return true;
  });
  if (!candidates.length) return { ok: false, message: part.absent };
  let best = null;
  for (const o of candidates) {
    const unmet = checkObject(o, part.expect || {}, {});
    if (!unmet.length) return { ok: true, message: '' };
    if (!best || unmet.length < best.unmet.length) best = { o, unmet };
  }
  const f = best.unmet[0];
  const tmpl = (part.messages || {})[f.path];
  const name = (best.o.metadata && best.o.metadata.name) || '';
  const message = tmpl ? tmpl.replace(/\{\{\s*got\s*\}\}/g, gotText(f.got)).replace(/\{\{\s*name\s*\}\}/g, name) : `${name}: ${f.text}`;
  return { ok: false, message };
}

function resourceKey(r) {
  return collectionPath(r);
}

function objectKey(o) {
  const m = (o && o.metadata) || {};
  return `${m.namespace || ''}/${m.name || ''}`;
}

/**
 * ExerciseChecker follows an exercise's resources and reports its parts.
 *
 * fetchFn(path, init) → Response (the page's apiFetch, or fetch to a base URL).
 * onChange(state) is called on every change; state() is
 * {parts: [{id, text, ok, message}], done, hint, synced}: `hint` is the first
 * hint for the first part that does not hold (or null), `synced` whether every
 * resource has been listed once.
 */
export class ExerciseChecker {
  constructor(exercise, fetchFn, { onChange, sleep } = {}) {
    this.exercise = exercise;
    this.onChange = onChange || (() => {});
    this.resources = new Map(); // collection path → {objects: Map, synced, session}
    for (const part of exercise.parts) {
      const key = resourceKey(part.resource);
      if (this.resources.has(key)) continue;
      const entry = { objects: new Map(), synced: false, session: null };
      entry.session = new WatchSession({ path: key, list: true, allowWatchBookmarks: true, timeoutSeconds: 300 }, fetchFn, {
        sleep,
        onRecord: (rec) => this.record(entry, rec),
      });
      this.resources.set(key, entry);
    }
    this.last = this.computeState();
  }

  start() {
    for (const r of this.resources.values()) r.session.start();
    return this;
  }

  stop() {
    for (const r of this.resources.values()) r.session.stop();
  }

  /** After a sandbox reset: forget what was seen and list again. */
  restart() {
    for (const r of this.resources.values()) {
      r.objects.clear();
      r.synced = false;
      r.session.restartFromScratch();
    }
    this.changed();
  }

  record(entry, rec) {
    if (rec.kind === 'relist') {
      entry.objects.clear();
      for (const o of rec.items) entry.objects.set(objectKey(o), o);
      entry.synced = true;
    } else if (rec.kind === 'event' && rec.event && rec.event.object) {
      const o = rec.event.object;
      if (rec.type === 'DELETED') entry.objects.delete(objectKey(o));
      else if (rec.type === 'ADDED' || rec.type === 'MODIFIED') entry.objects.set(objectKey(o), o);
      else return;
    } else {
      return;
    }
    this.changed();
  }

  changed() {
    this.last = this.computeState();
    this.onChange(this.last);
  }

  computeState() {
    const parts = this.exercise.parts.map((part) => {
      const res = this.resources.get(resourceKey(part.resource));
      const { ok, message } = judgePart(part, res.objects);
      return { id: part.id, text: part.text, ok, message };
    });
    const firstOpen = parts.find((p) => !p.ok);
    const hints = this.exercise.hints || [];
    const hint = firstOpen ? (hints.find((h) => h.part === firstOpen.id) || null) : null;
    return {
      parts,
      done: parts.every((p) => p.ok),
      hint: hint ? hint.text : null,
      synced: [...this.resources.values()].every((r) => r.synced),
    };
  }

  state() {
    return this.last;
  }

  /** Resolves with the first state for which pred(state) is true. */
  until(pred) {
    if (pred(this.last)) return Promise.resolve(this.last);
    return new Promise((resolve) => {
      const prev = this.onChange;
      this.onChange = (s) => {
        prev(s);
        if (pred(s)) {
          this.onChange = prev;
          resolve(s);
        }
      };
    });
  }
}
