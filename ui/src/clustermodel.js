// clustermodel.js — the cluster view's model, without the DOM: the Nodes of
// the cluster and the Deployments, ReplicaSets, Pods and Events of one
// namespace, kept from lists and watches (a WatchSession per collection, whose
// records applyRecord takes: ADDED, MODIFIED and DELETED change the store, a
// list or a relist after 410 Gone replaces the collection, BOOKMARKs change
// nothing). From them it derives what the view draws: each Pod's state as
// kubectl's STATUS column shows it, the Pods on their Nodes (or unscheduled),
// the owner tree (Deployment → ReplicaSet → Pod by controller references;
// owners of kinds not watched, such as StatefulSets and Jobs, are known from
// the references alone), and the namespace's last events, newest first.

/** The collections the view follows (one watch each: few, so a native target's six HTTP/1.1 connections suffice). */
export const WATCHED = [
  { kind: 'Node', plural: 'nodes', prefix: '/api/v1', clusterScoped: true },
  { kind: 'Deployment', plural: 'deployments', prefix: '/apis/apps/v1' },
  { kind: 'ReplicaSet', plural: 'replicasets', prefix: '/apis/apps/v1' },
  { kind: 'Pod', plural: 'pods', prefix: '/api/v1' },
  { kind: 'Event', plural: 'events', prefix: '/api/v1' },
];

const REVISION = 'deployment.kubernetes.io/revision';

/** The API path of kind's collection in namespace (Nodes: cluster-wide). */
export function collectionPath(kind, namespace) {
  const w = WATCHED.find((x) => x.kind === kind);
  if (!w) throw new Error(`not watched: ${kind}`);
  return w.clusterScoped ? `${w.prefix}/${w.plural}` : `${w.prefix}/namespaces/${encodeURIComponent(namespace)}/${w.plural}`;
}

/** The API path of one object of a watched kind. */
export function objectPath(kind, namespace, name) {
  return `${collectionPath(kind, namespace)}/${encodeURIComponent(name)}`;
}

/** The controller's owner reference of obj ({kind, name, uid}), or null. */
export function controllerRef(obj) {
  return (obj.metadata?.ownerReferences || []).find((r) => r.controller) || null;
}

function isRestartableInit(c) {
  return c?.restartPolicy === 'Always';
}

function exitReason(prefix, t) {
  return t.signal ? `${prefix}Signal:${t.signal}` : `${prefix}ExitCode:${t.exitCode}`;
}

/**
 * A Pod as kubectl get pods shows it: {status (the STATUS column: Pending,
 * ContainerCreating, Running, Completed, CrashLoopBackOff, ErrImagePull,
 * Init:0/1, Terminating…), ready ("1/2"), readyCount, total, restarts, tone}.
 * tone is the colour it is drawn in: ok, progress, done, error or terminating.
 */
export function podStatus(pod) {
  const spec = pod.spec || {};
  const st = pod.status || {};
  const conditions = st.conditions || [];
  const phase = st.phase || 'Pending';
  let status = st.reason || phase;
  if (conditions.some((c) => c.type === 'PodScheduled' && c.reason === 'SchedulingGated')) status = 'SchedulingGated';
  const inits = new Map((spec.initContainers || []).map((c) => [c.name, c]));
  const total = (spec.containers || []).length + [...inits.values()].filter(isRestartableInit).length;
  let readyCount = 0;
  let restarts = 0;
  let sidecarRestarts = 0;

  let initializing = false;
  const initStatuses = st.initContainerStatuses || [];
  for (let i = 0; i < initStatuses.length; i++) {
    const c = initStatuses[i];
    const state = c.state || {};
    restarts += c.restartCount || 0;
    if (isRestartableInit(inits.get(c.name))) sidecarRestarts += c.restartCount || 0;
    if (state.terminated && state.terminated.exitCode === 0) continue;
    if (isRestartableInit(inits.get(c.name)) && c.started) {
      if (c.ready) readyCount++;
      continue;
    }
    if (state.terminated) status = state.terminated.reason ? `Init:${state.terminated.reason}` : exitReason('Init:', state.terminated);
    else if (state.waiting?.reason && state.waiting.reason !== 'PodInitializing') status = `Init:${state.waiting.reason}`;
    else status = `Init:${i}/${inits.size}`;
    initializing = true;
    break;
  }

  if (!initializing || conditions.some((c) => c.type === 'Initialized' && c.status === 'True')) {
    restarts = sidecarRestarts;
    let hasRunning = false;
    const statuses = st.containerStatuses || [];
    for (let i = statuses.length - 1; i >= 0; i--) {
      const c = statuses[i];
      const state = c.state || {};
      restarts += c.restartCount || 0;
      if (state.waiting?.reason) status = state.waiting.reason;
      else if (state.terminated?.reason) status = state.terminated.reason;
      else if (state.terminated) status = exitReason('', state.terminated);
      else if (c.ready && state.running) {
        hasRunning = true;
        readyCount++;
      }
    }
    if (status === 'Completed' && hasRunning) {
      status = conditions.some((c) => c.type === 'Ready' && c.status === 'True') ? 'Running' : 'NotReady';
    }
  }

  const terminal = phase === 'Succeeded' || phase === 'Failed';
  if (pod.metadata?.deletionTimestamp && st.reason === 'NodeLost') status = 'Unknown';
  else if (pod.metadata?.deletionTimestamp && !terminal) status = 'Terminating';

  return { status, ready: `${readyCount}/${total}`, readyCount, total, restarts, tone: toneOf(status, readyCount, total) };
}

const PROGRESS = new Set(['Pending', 'ContainerCreating', 'PodInitializing', 'NotReady', 'SchedulingGated']);

function toneOf(status, readyCount, total) {
  if (status === 'Terminating') return 'terminating';
  if (status === 'Completed' || status === 'Succeeded') return 'done';
  if (status === 'Running') return readyCount === total ? 'ok' : 'progress';
  if (PROGRESS.has(status) || /^Init:\d+\/\d+$/.test(status)) return 'progress';
  return 'error';
}

/** A Node's STATUS as kubectl shows it: Ready, NotReady or Unknown, with ",SchedulingDisabled". */
export function nodeStatus(node) {
  const ready = (node.status?.conditions || []).find((c) => c.type === 'Ready');
  const s = !ready || ready.status === 'Unknown' ? 'Unknown' : ready.status === 'True' ? 'Ready' : 'NotReady';
  return node.spec?.unschedulable ? `${s},SchedulingDisabled` : s;
}

/** When an event last happened (ms since the epoch; 0 when it says nothing). */
export function eventTime(ev) {
  const t = ev.lastTimestamp || ev.series?.lastObservedTime || ev.eventTime || ev.firstTimestamp || ev.metadata?.creationTimestamp;
  return t ? Date.parse(t) || 0 : 0;
}

function compareRV(a, b) {
  const x = a.metadata?.resourceVersion || '';
  const y = b.metadata?.resourceVersion || '';
  return x.length - y.length || (x < y ? -1 : x > y ? 1 : 0);
}

// Newest first; for events of the same second, the later write first (a
// core/v1 event's lastTimestamp has seconds only, an eventTime microseconds:
// they are compared to the second).
function newestFirst(a, b) {
  return Math.floor(eventTime(b) / 1000) - Math.floor(eventTime(a) / 1000) || compareRV(b, a);
}

const byName = (a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

export class ClusterModel {
  /**
   * @param {object} o
   * @param {string} o.namespace
   * @param {number} [o.maxEvents] how many of the namespace's events are kept
   */
  constructor({ namespace, maxEvents = 20 }) {
    this.namespace = namespace;
    this.maxEvents = maxEvents;
    this.stores = new Map(WATCHED.map((w) => [w.kind, new Map()])); // kind → name → object
    this.listed = new Set(); // kinds listed at least once
  }

  /** Applies a WatchSession record for kind's collection; says whether anything changed. */
  applyRecord(kind, record) {
    if (record.kind === 'relist') {
      this.replace(kind, record.items || []);
      return true;
    }
    if (record.kind === 'event') return this.apply(kind, record.event);
    return false;
  }

  /** Replaces what is known of kind with a list's items. */
  replace(kind, items) {
    const store = this.stores.get(kind);
    store.clear();
    for (const o of items) store.set(o.metadata.name, o);
    this.listed.add(kind);
    if (kind === 'Event') this.trimEvents();
  }

  /** Applies one watch event ({type, object}); says whether anything changed. */
  apply(kind, ev) {
    const name = ev?.object?.metadata?.name;
    if (!name) return false;
    const store = this.stores.get(kind);
    if (ev.type === 'ADDED' || ev.type === 'MODIFIED') {
      store.set(name, ev.object);
      if (kind === 'Event') this.trimEvents();
      return true;
    }
    if (ev.type === 'DELETED') return store.delete(name);
    return false;
  }

  trimEvents() {
    const store = this.stores.get('Event');
    if (store.size <= this.maxEvents) return;
    for (const ev of [...store.values()].sort(newestFirst).slice(this.maxEvents)) store.delete(ev.metadata.name);
  }

  get(kind, name) {
    return this.stores.get(kind).get(name);
  }

  /** True once Nodes were listed and there are none: the server runs the API only. */
  get apiOnly() {
    return this.listed.has('Node') && this.stores.get('Node').size === 0;
  }

  /** A Pod as drawn: {name, node, phase, owner ({kind, name}|null), object, ...podStatus}. */
  pod(p) {
    const ref = controllerRef(p);
    return {
      name: p.metadata.name,
      node: p.spec?.nodeName || '',
      phase: p.status?.phase || 'Pending',
      owner: ref ? { kind: ref.kind, name: ref.name } : null,
      object: p,
      ...podStatus(p),
    };
  }

  /**
   * Pods by node: {nodes: [{name, status, ready, missing, object, pods}], unscheduled: [pod]}.
   * A Pod bound to a node that is not (or no longer) there gets a box
   * marked missing.
   */
  placement() {
    const nodes = new Map();
    for (const n of this.stores.get('Node').values()) {
      const status = nodeStatus(n);
      nodes.set(n.metadata.name, { name: n.metadata.name, status, ready: status.startsWith('Ready'), missing: false, object: n, pods: [] });
    }
    const unscheduled = [];
    for (const p of [...this.stores.get('Pod').values()].map((x) => this.pod(x)).sort(byName)) {
      if (!p.node) {
        unscheduled.push(p);
        continue;
      }
      if (!nodes.has(p.node)) nodes.set(p.node, { name: p.node, status: 'missing', ready: false, missing: true, object: null, pods: [] });
      nodes.get(p.node).pods.push(p);
    }
    return { nodes: [...nodes.values()].sort(byName), unscheduled };
  }

  /**
   * The owner tree: roots of {kind, name, object, children, ...}. Deployments
   * hold their ReplicaSets (newest revision first), ReplicaSets their Pods;
   * an owner known only from references ({kind, name, ref: true}: a kind not
   * watched, or an object already gone) groups its dependents; Pods without a
   * controller stand alone. Roots: Deployments, ReplicaSets, other owners,
   * then Pods, each by name.
   */
  workloads() {
    const roots = [];
    const byUid = new Map();
    const refGroups = new Map();
    const parentOf = (ref) => {
      if (!ref) return null;
      const known = byUid.get(ref.uid);
      if (known && known.kind === ref.kind) return known;
      const key = `${ref.kind}/${ref.name}/${ref.uid}`;
      if (!refGroups.has(key)) {
        const g = { kind: ref.kind, name: ref.name, ref: true, object: null, children: [] };
        refGroups.set(key, g);
        roots.push(g);
      }
      return refGroups.get(key);
    };
    const place = (node, ref) => {
      const parent = parentOf(ref);
      (parent ? parent.children : roots).push(node);
    };

    for (const d of this.stores.get('Deployment').values()) {
      const s = d.status || {};
      const node = {
        kind: 'Deployment', name: d.metadata.name, object: d, children: [],
        replicas: d.spec?.replicas ?? 1, ready: s.readyReplicas || 0, updated: s.updatedReplicas || 0, available: s.availableReplicas || 0,
      };
      byUid.set(d.metadata.uid, node);
      roots.push(node);
    }
    const sets = [...this.stores.get('ReplicaSet').values()].map((rs) => {
      const s = rs.status || {};
      const node = {
        kind: 'ReplicaSet', name: rs.metadata.name, object: rs, children: [],
        revision: rs.metadata.annotations?.[REVISION] || '', replicas: rs.spec?.replicas ?? 1, current: s.replicas || 0, ready: s.readyReplicas || 0,
        owner: controllerRef(rs)?.name || '',
      };
      byUid.set(rs.metadata.uid, node);
      return node;
    });
    for (const node of sets) place(node, controllerRef(node.object));
    for (const p of this.stores.get('Pod').values()) place({ kind: 'Pod', ...this.pod(p) }, controllerRef(p));

    const order = (n) => (n.ref ? 2 : n.kind === 'Deployment' ? 0 : n.kind === 'ReplicaSet' ? 1 : n.kind === 'Pod' ? 3 : 2);
    const sortTree = (list) => {
      list.sort((a, b) => order(a) - order(b) || (a.kind === 'ReplicaSet' && b.kind === 'ReplicaSet' ? Number(b.revision || 0) - Number(a.revision || 0) : 0) || byName(a, b));
      for (const n of list) if (n.children) sortTree(n.children);
      return list;
    };
    return sortTree(roots);
  }

  /** The kept events, newest first: {name, type, reason, kind, object, message, count, time}. */
  events() {
    return [...this.stores.get('Event').values()].sort(newestFirst).map((ev) => ({
      name: ev.metadata.name,
      type: ev.type || 'Normal',
      reason: ev.reason || '',
      kind: ev.involvedObject?.kind || '',
      object: ev.involvedObject?.name || '',
      message: ev.message || ev.note || '',
      count: ev.count ?? ev.series?.count ?? 1,
      time: eventTime(ev),
    }));
  }
}
