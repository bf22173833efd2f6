// discovery.js — what the target serves, for path completion: /api/v1, /apis and
// every /apis/G/V, turned into collection paths; object names and namespaces are
// listed on demand.

import { apiFetch, currentTarget } from './api.js';

const NS = '{namespace}';

let cache = null; // {key, promise}

function targetKey(t) {
  return `${t.kind}|${t.url}`;
}

/** Forgets discovery (after a target change or a reset). */
export function invalidateDiscovery() {
  cache = null;
  nameCache.clear();
}

async function getJSON(path, target) {
  const res = await apiFetch(path, { headers: { Accept: 'application/json' } }, target);
  if (!res.ok) throw new Error(`${path}: ${res.status}`);
  return res.json();
}

/**
 * Discovery of the current target:
 * {resources: [{prefix, groupVersion, group, version, name, kind, namespaced, verbs, subresources}],
 *  groupVersions: [prefix], errors: [string]}
 */
export function loadDiscovery() {
  const target = currentTarget();
  const key = targetKey(target);
  if (cache && cache.key === key) return cache.promise;
  const promise = fetchDiscovery(target);
  cache = { key, promise };
  promise.catch(() => { if (cache && cache.promise === promise) cache = null; });
  return promise;
}

async function fetchDiscovery(target) {
  const errors = [];
  const lists = [];
  const groupVersions = [];
  try {
    lists.push({ prefix: '/api/v1', group: '', version: 'v1', list: await getJSON('/api/v1', target) });
    groupVersions.push('/api/v1');
  } catch (e) {
    errors.push(String(e.message || e));
  }
  try {
    const groups = await getJSON('/apis', target);
    const gvs = [];
    for (const g of groups.groups || []) {
      for (const v of g.versions || []) gvs.push({ group: g.name, version: v.version });
    }
    const results = await Promise.allSettled(gvs.map((gv) => getJSON(`/apis/${gv.group}/${gv.version}`, target)));
    results.forEach((r, i) => {
      const prefix = `/apis/${gvs[i].group}/${gvs[i].version}`;
      groupVersions.push(prefix);
      if (r.status === 'fulfilled') lists.push({ prefix, group: gvs[i].group, version: gvs[i].version, list: r.value });
      else errors.push(String(r.reason && r.reason.message ? r.reason.message : r.reason));
    });
  } catch (e) {
    errors.push(String(e.message || e));
  }
  const resources = [];
  for (const { prefix, group, version, list } of lists) {
    const subs = new Map();
    for (const r of list.resources || []) {
      const i = r.name.indexOf('/');
      if (i > 0) {
        const base = r.name.slice(0, i);
        if (!subs.has(base)) subs.set(base, []);
        subs.get(base).push(r.name.slice(i + 1));
      }
    }
    for (const r of list.resources || []) {
      if (r.name.includes('/')) continue;
      resources.push({
        prefix,
        groupVersion: group ? `${group}/${version}` : version,
        group,
        version,
        name: r.name,
        kind: r.kind,
        namespaced: !!r.namespaced,
        verbs: r.verbs || [],
        shortNames: r.shortNames || [],
        subresources: subs.get(r.name) || [],
      });
    }
  }
  return { resources, groupVersions, errors };
}

/** Collection and discovery paths to offer, with {namespace} filled by ns. */
export function pathCandidates(disc, ns) {
  const n = ns || 'default';
  const out = [
    { path: '/api', detail: 'core API versions' },
    { path: '/apis', detail: 'API groups' },
    { path: '/version', detail: 'server version' },
    { path: '/openapi/v3', detail: 'OpenAPI v3 index' },
    { path: '/healthz', detail: 'health' },
    { path: '/livez', detail: 'liveness' },
    { path: '/readyz', detail: 'readiness' },
  ];
  if (!disc) return out;
  for (const gv of disc.groupVersions) out.push({ path: gv, detail: 'resource list' });
  for (const r of disc.resources) {
    const detail = `${r.kind} (${r.groupVersion})`;
    if (r.namespaced) {
      out.push({ path: `${r.prefix}/namespaces/${NS}/${r.name}`.replace(NS, n), detail });
      out.push({ path: `${r.prefix}/${r.name}`, detail: `${detail}, all namespaces` });
    } else {
      out.push({ path: `${r.prefix}/${r.name}`, detail });
    }
  }
  return out;
}

const nameCache = new Map();

/** Names of the objects in a collection path (cached a few seconds). */
export async function listNames(collectionPath) {
  const key = `${targetKey(currentTarget())}|${collectionPath}`;
  const hit = nameCache.get(key);
  if (hit && Date.now() - hit.at < 5000) return hit.names;
  const list = await getJSON(`${collectionPath}?limit=200`, currentTarget());
  const names = (list.items || []).map((o) => (o.metadata && o.metadata.name) || '').filter(Boolean);
  nameCache.set(key, { at: Date.now(), names });
  return names;
}

/** Namespace names of the current target ([] when it cannot list them). */
export async function listNamespaces() {
  try {
    return await listNames('/api/v1/namespaces');
  } catch {
    return [];
  }
}

/**
 * Completion candidates for what the user typed in a path box:
 * discovery paths matching the prefix, and object names once the text ends in
 * a collection path followed by "/".
 */
export async function completePath(text, ns) {
  let disc = null;
  try {
    disc = await loadDiscovery();
  } catch {
    disc = null;
  }
  const all = pathCandidates(disc, ns);
  const typed = text.split('?')[0];
  const out = [];
  // Names inside a collection: ".../configmaps/" or ".../configmaps/de".
  const slash = typed.lastIndexOf('/');
  if (slash > 0) {
    const coll = typed.slice(0, slash);
    const partial = typed.slice(slash + 1);
    if (all.some((c) => c.path === coll) && !/^\/apis?$/.test(coll)) {
      try {
        const names = await listNames(coll);
        for (const n of names) if (n.startsWith(partial)) out.push({ path: `${coll}/${n}`, detail: 'object' });
      } catch {
        // listing not allowed or not a list: no names
      }
    }
  }
  const lower = typed.toLowerCase();
  const starts = all.filter((c) => c.path.toLowerCase().startsWith(lower));
  const contains = lower.length > 1 ? all.filter((c) => !c.path.toLowerCase().startsWith(lower) && c.path.toLowerCase().includes(lower)) : [];
  out.push(...starts, ...contains);
  const seen = new Set();
  return out.filter((c) => (seen.has(c.path) ? false : (seen.add(c.path), true))).slice(0, 60);
}
