// apfmodel.js — the APF panel's logic, without the DOM: the identities the
// panel asks as, the small demo priority level its load generator can target,
// the load generator (elephants against a mouse), and the time series the
// charts draw from the server's /debug/kubeplay/apf snapshots.
//
// Exports:
//   PANEL_IDENTITY            headers the panel's own requests carry: system:masters,
//                             so watching APF never takes a seat from the load it watches
//   DEMO_LEVEL, DEMO_SCHEMA   the demo PriorityLevelConfiguration and FlowSchema
//   ensureDemoLevel(fetch)    creates them when missing (409 is fine)
//   runLoad(opts) → LoadRun   the load generator (see below)
//   ApfHistory                keeps per-level series from snapshots
//   percentile(sorted, p)

/** Headers of the panel's own requests (exempt from APF). */
export const PANEL_IDENTITY = { 'Impersonate-User': 'kubeplay-panel', 'Impersonate-Group': 'system:masters' };

/** The group the load generator's users are in when it targets the demo level. */
export const DEMO_GROUP = 'playground:load';

/** A level small enough to overflow from a browser: one nominal share (one seat
 * at the sandbox's 60), no lending or borrowing, 8 queues of 5, hands of 2. */
export const DEMO_LEVEL = {
  apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
  kind: 'PriorityLevelConfiguration',
  metadata: { name: 'playground-demo' },
  spec: {
    type: 'Limited',
    limited: {
      nominalConcurrencyShares: 1,
      lendablePercent: 0,
      borrowingLimitPercent: 0,
      limitResponse: { type: 'Queue', queuing: { queues: 8, handSize: 2, queueLengthLimit: 5 } },
    },
  },
};

/** Sends the demo group's requests to the demo level, one flow per user. */
export const DEMO_SCHEMA = {
  apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
  kind: 'FlowSchema',
  metadata: { name: 'playground-demo' },
  spec: {
    matchingPrecedence: 850,
    priorityLevelConfiguration: { name: 'playground-demo' },
    distinguisherMethod: { type: 'ByUser' },
    rules: [
      {
        subjects: [{ kind: 'Group', group: { name: DEMO_GROUP } }],
        resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'], clusterScope: true }],
        nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
      },
    ],
  },
};

const FC = '/apis/flowcontrol.apiserver.k8s.io/v1/';

/** Creates the demo level and schema unless they exist. */
export async function ensureDemoLevel(fetchFn) {
  for (const [plural, obj] of [['prioritylevelconfigurations', DEMO_LEVEL], ['flowschemas', DEMO_SCHEMA]]) {
    const res = await fetchFn(FC + plural, {
      method: 'POST',
      headers: { ...PANEL_IDENTITY, 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(obj),
    });
    if (!res.ok && res.status !== 409) throw new Error(`creating ${plural}/${obj.metadata.name}: HTTP ${res.status}`);
  }
}

/** The RoleBinding that lets the load generator's users do what they send:
 * the cluster authorizes every request (RBAC), and users bound to nothing
 * would meet 403s, not queues. It grants `edit` in the default namespace. */
export const LOAD_BINDING = 'playground-load';

/** Binds users (the load's flows) to `edit` in the default namespace,
 * replacing the subjects of an earlier load's binding. */
export async function ensureLoadAccess(fetchFn, users) {
  const path = `/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings/${LOAD_BINDING}`;
  const res = await fetchFn(path, {
    method: 'PUT',
    headers: { ...PANEL_IDENTITY, 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: LOAD_BINDING, namespace: 'default' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
      subjects: users.map((name) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name })),
    }),
  });
  if (!res.ok) throw new Error(`binding the load's users: HTTP ${res.status}`);
}

/** The p-th percentile (0..1) of an ascending list, 0 when empty. */
export function percentile(sorted, p) {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

/**
 * runLoad plays elephants against a mouse: each flow is a user (its name the
 * flow's distinguisher under a ByUser schema) with `concurrency` workers that
 * send the request again as soon as it is answered, holding their seat
 * `workMs` on the server (X-Kubeplay-Simulated-Work), until stop() or
 * durationMs. Results per flow: sent, ok, rejected (429), other, and latencies.
 *
 * opts: {fetch, flows: [{name, concurrency}], request: {method, path, body?},
 *        workMs, durationMs, demo (send as the demo group), now(), sleep(ms)}
 */
export function runLoad(opts) {
  const now = opts.now || (() => performance.now());
  const sleep = opts.sleep || ((ms) => new Promise((r) => setTimeout(r, ms)));
  const stats = new Map(opts.flows.map((f) => [f.name, { flow: f.name, sent: 0, ok: 0, rejected: 0, other: 0, latencies: [] }]));
  const started = now();
  let stopped = false;
  const headers = (user) => {
    const h = { Accept: 'application/json', 'Impersonate-User': user };
    if (opts.demo) h['Impersonate-Group'] = DEMO_GROUP;
    if (opts.workMs > 0) h['X-Kubeplay-Simulated-Work'] = `${opts.workMs}ms`;
    if (opts.request.body) h['Content-Type'] = 'application/json';
    return h;
  };
  const worker = async (flow, i) => {
    const s = stats.get(flow.name);
    let n = 0;
    while (!stopped && now() - started < opts.durationMs) {
      const body = opts.request.body ? opts.request.body(flow.name, i, n++) : undefined;
      const t0 = now();
      s.sent++;
      try {
        const res = await opts.fetch(opts.request.path, { method: opts.request.method, headers: headers(flow.name), body });
        await res.arrayBuffer().catch(() => {});
        if (res.status === 429) {
          s.rejected++;
          // as a client-go client would: wait Retry-After before trying again
          await sleep(Math.min(1000, 1000 * Number(res.headers.get('Retry-After') || 1)));
        } else if (res.ok) {
          s.ok++;
          s.latencies.push(now() - t0);
        } else {
          s.other++;
        }
      } catch {
        s.other++;
        await sleep(100);
      }
    }
  };
  const done = Promise.all(opts.flows.flatMap((f) => Array.from({ length: f.concurrency }, (_, i) => worker(f, i))));
  return {
    stats,
    done: done.then(() => summary()),
    stop() {
      stopped = true;
      return done.then(() => summary());
    },
    summary,
  };
  function summary() {
    return [...stats.values()].map((s) => {
      const sorted = [...s.latencies].sort((a, b) => a - b);
      return { ...s, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) };
    });
  }
}

/**
 * ApfHistory keeps, per priority level, the series the charts draw: seat
 * utilization (seats in use over current seats), requests waiting, the oldest
 * wait of its flows, and rejections per second (from the counter), over the
 * last `keep` snapshots.
 */
export class ApfHistory {
  constructor(keep = 120) {
    this.keep = keep;
    this.times = [];
    this.levels = new Map(); // name → {seats: [], waiting: [], wait: [], rejections: [], lastRejected}
  }

  /** Adds a snapshot (the JSON of /debug/kubeplay/apf). */
  add(state) {
    const t = Date.parse(state.time) / 1000;
    const prevT = this.times.length ? this.times[this.times.length - 1] : null;
    this.times.push(t);
    const seen = new Set();
    for (const l of state.levels || []) {
      seen.add(l.name);
      let s = this.levels.get(l.name);
      if (!s) {
        const pad = () => Array(this.times.length - 1).fill(null);
        s = { seats: pad(), waiting: pad(), wait: pad(), rejections: pad(), lastRejected: l.rejected };
        this.levels.set(l.name, s);
      }
      const limit = l.currentSeats > 0 ? l.currentSeats : 1;
      s.seats.push(Math.round((100 * l.seatsInUse) / limit));
      s.waiting.push(l.waiting);
      s.wait.push((l.flows || []).reduce((m, f) => Math.max(m, f.oldestWaitSeconds || 0), 0));
      const dt = prevT === null ? 0 : t - prevT;
      s.rejections.push(dt > 0 ? Math.max(0, l.rejected - s.lastRejected) / dt : 0);
      s.lastRejected = l.rejected;
    }
    for (const [name, s] of this.levels) if (!seen.has(name)) for (const k of ['seats', 'waiting', 'wait', 'rejections']) s[k].push(null);
    if (this.times.length > this.keep) {
      this.times.shift();
      for (const s of this.levels.values()) for (const k of ['seats', 'waiting', 'wait', 'rejections']) s[k].shift();
    }
  }

  /** uPlot data for one measure across the named levels: [times, ...series]. */
  data(measure, names) {
    return [this.times, ...names.map((n) => (this.levels.get(n) || {})[measure] || this.times.map(() => null))];
  }
}
