// cluster.js — the cluster view: the Nodes with their Pods, the workloads of
// a namespace as an owner tree (Deployment → ReplicaSets → Pods), and the
// namespace's last events, live from one list-then-watch WatchSession per
// collection (watchstream.js: bookmarks, resume from the last
// resourceVersion when a stream ends, relist after 410). It runs while it is
// started and its tab is shown: leaving the tab or Stop ends the watches,
// coming back lists anew. A click on a Node, workload or Pod shows its JSON,
// which the request builder can open. The logic is clustermodel.js; this file
// is the DOM.

import { h, mount } from './dom.js';
import { apiFetch, currentTarget, onTargetChange } from './api.js';
import { WatchSession } from './watchstream.js';
import { highlightJson } from './highlight.js';
import { ClusterModel, WATCHED, collectionPath, objectPath } from './clustermodel.js';

const KIND_LABEL = { Deployment: 'deploy', ReplicaSet: 'rs', Pod: 'pod', StatefulSet: 'sts', DaemonSet: 'ds', Job: 'job', CronJob: 'cronjob' };

// The aggregate of the sessions' states: the least advanced one counts.
function overall(states) {
  if (!states.length) return 'stopped';
  if (states.includes('failed')) return 'failed';
  if (states.includes('backoff')) return 'backoff';
  return states.every((s) => s === 'streaming') ? 'watching' : 'connecting';
}

export function createClusterView({ onOpenInBuilder }) {
  let model = null;
  let sessions = []; // [{kind, session}]
  let wanted = true; // watching whenever the tab is shown, until the user stops it
  let visible = false;
  let frame = 0;
  let selected = null; // {kind, name}
  let lastError = '';
  let atRev = 0; // showing the cluster as it was at this revision, not live

  const nsIn = h('input', { type: 'text', value: 'default', size: 16, spellcheck: 'false', testid: 'cluster-namespace' });
  const startBtn = h('button', { type: 'submit', class: 'primary', testid: 'cluster-start' }, 'Start');
  const stopBtn = h('button', { type: 'button', testid: 'cluster-stop', disabled: true, on: { click: stop } }, 'Stop');
  const stateEl = h('span', { class: 'badge state-stopped', testid: 'cluster-state', dataset: { state: 'stopped' } }, 'stopped');
  const errorEl = h('span', { class: 'muted' });
  const note = h('div', { class: 'banner info cl-note', testid: 'cluster-api-only', hidden: true });
  const atBanner = h('div', { class: 'banner info', testid: 'cluster-at-revision', hidden: true });
  const nodesBox = h('div', { class: 'cl-nodes', testid: 'cluster-nodes' });
  const tree = h('div', { class: 'cl-tree', testid: 'cluster-workloads' });
  const eventsBody = h('tbody');
  const detailTitle = h('strong', { class: 'mono' });
  const detailPre = h('pre', { class: 'code-view small' });
  const detail = h(
    'section',
    { class: 'panel cl-detail', testid: 'cluster-detail', hidden: true },
    h('div', { class: 'row' }, h('span', { class: 'grow' }, detailTitle),
      h('button', { type: 'button', class: 'small', testid: 'cluster-open-builder', on: { click: openSelected } }, 'Open in the request builder'),
      h('button', { type: 'button', class: 'icon', title: 'Close', on: { click: () => select(null) } }, '×')),
    detailPre,
  );

  const el = h(
    'div',
    { class: 'cluster-view' },
    h(
      'form',
      { class: 'panel', on: { submit: (e) => { e.preventDefault(); start(); } } },
      h('div', { class: 'row wrap' }, h('h3', { class: 'cl-title' }, 'Cluster'), h('label', {}, 'Namespace ', nsIn), startBtn, stopBtn, stateEl, errorEl),
      h('p', { class: 'muted cl-help' }, 'Nodes with their Pods, the namespace\u2019s Deployments, ReplicaSets and Pods linked by their owner references, and its last events, live from watches. Create or scale a Deployment in the Request tab and watch the controllers, the scheduler and the kubelets at work.'),
    ),
    note,
    atBanner,
    h(
      'div',
      { class: 'cl-grid' },
      h('section', { class: 'panel' }, h('h3', {}, 'Nodes'), nodesBox),
      h('section', { class: 'panel' }, h('h3', {}, 'Workloads'), tree),
    ),
    detail,
    h(
      'section',
      { class: 'panel' },
      h('h3', {}, 'Last events'),
      h('table', { class: 'events cl-events', testid: 'cluster-events' },
        h('thead', {}, h('tr', {}, ['Last seen', 'Type', 'Reason', 'Object', 'Message', 'Count'].map((c) => h('th', {}, c)))),
        eventsBody),
    ),
  );

  // ---- lifecycle -------------------------------------------------------------------
  function start() {
    wanted = true;
    atRev = 0;
    atBanner.hidden = true;
    disconnect();
    if (visible) connect();
    renderState();
  }

  function stop() {
    wanted = false;
    disconnect();
    renderState();
  }

  function connect() {
    const namespace = nsIn.value.trim() || 'default';
    const m = new ClusterModel({ namespace });
    const target = currentTarget();
    model = m;
    lastError = '';
    sessions = WATCHED.map(({ kind }) => {
      const session = new WatchSession(
        { path: collectionPath(kind, namespace), list: true, allowWatchBookmarks: true },
        (path, init) => apiFetch(path, init, target),
        {
          onRecord: (r) => {
            if (r.kind === 'error') lastError = `${kind}s: ${r.note}`;
            if (m.applyRecord(kind, r)) schedule();
          },
          onState: renderState,
        },
      );
      session.start();
      return { kind, session };
    });
    renderState();
    schedule();
  }

  function disconnect() {
    for (const { session } of sessions) session.stop();
    sessions = [];
  }

  /** The tab is shown: resume what was started. */
  function show() {
    visible = true;
    if (wanted && !sessions.length) connect();
    renderState();
  }

  /** The tab is left: no watches meanwhile. */
  function hide() {
    visible = false;
    disconnect();
    renderState();
  }

  /** Lists everything anew (after a sandbox reset). */
  function restart() {
    if (sessions.length) {
      disconnect();
      connect();
    }
  }

  /**
   * Shows the cluster as it was at revision rev in namespace (time travel,
   * LEARN-5): every collection listed at it with resourceVersionMatch=Exact,
   * no watches, until Start. Before the history, the API's 410 is explained.
   */
  async function showAt(rev, namespace) {
    wanted = false;
    disconnect();
    atRev = rev;
    if (namespace) nsIn.value = namespace;
    const ns = nsIn.value.trim() || 'default';
    const m = new ClusterModel({ namespace: ns });
    model = m;
    const target = currentTarget();
    const answers = await Promise.all(WATCHED.map(async ({ kind }) => {
      const q = new URLSearchParams({ resourceVersion: String(rev), resourceVersionMatch: 'Exact' });
      const res = await apiFetch(`${collectionPath(kind, ns)}?${q}`, {}, target);
      const json = await res.json().catch(() => ({}));
      if (res.ok) m.replace(kind, json.items || []);
      return { kind, status: res.status, json };
    }));
    if (model !== m) return;
    const failed = answers.find((a) => a.status !== 200);
    atBanner.hidden = false;
    atBanner.dataset.revision = String(rev);
    atBanner.dataset.state = failed ? (failed.status === 410 ? 'gone' : 'error') : 'ok';
    atBanner.textContent = !failed
      ? `The cluster as it was at revision ${rev}: every collection read with resourceVersion=${rev}&resourceVersionMatch=Exact. Start watches it live again.`
      : failed.status === 410
        ? `Revision ${rev} is no longer in the history: the API answers 410 Gone (${failed.json.message || 'Expired'}), as kube-apiserver does once etcd has compacted it.`
        : `${failed.kind}s at revision ${rev}: ${failed.status} ${failed.json.message || ''}`;
    renderState();
    render();
  }

  onTargetChange(restart);

  // ---- rendering ---------------------------------------------------------------------
  function schedule() {
    if (!frame) frame = requestAnimationFrame(() => { frame = 0; render(); });
  }

  function renderState() {
    const state = overall(sessions.map((s) => s.session.state));
    stateEl.dataset.state = state;
    stateEl.className = `badge state-${state === 'watching' ? 'streaming' : state}`;
    stateEl.textContent = state === 'watching' ? `watching ${sessions.length} collections` : atRev ? `at revision ${atRev}` : state;
    stateEl.title = sessions.map((s) => `${s.kind}s: ${s.session.state}${s.session.lastRV ? ` at ${s.session.lastRV}` : ''}`).join('\n');
    errorEl.textContent = state === 'failed' || state === 'backoff' ? lastError : '';
    startBtn.textContent = sessions.length ? 'Restart' : 'Start';
    stopBtn.disabled = !wanted;
  }

  function render() {
    if (!model) return;
    const onSandbox = currentTarget().kind === 'sandbox';
    note.hidden = !model.apiOnly;
    note.textContent = onSandbox
      ? 'This sandbox runs API only: no Nodes, controllers, scheduler or kubelets. Switch the cluster select (top right) to Simulated cluster to see controllers at work.'
      : 'This server has no Nodes: it runs the API only, without controllers, a scheduler or kubelets, so a Deployment gets no ReplicaSets or Pods.';
    renderNodes();
    renderTree();
    renderEvents();
    renderDetail();
  }

  const isSelected = (kind, name) => selected?.kind === kind && selected?.name === name;
  const pick = (kind, name) => (e) => {
    e.stopPropagation();
    select(isSelected(kind, name) ? null : { kind, name });
  };

  function podChip(p) {
    return h(
      'div',
      {
        class: `cl-pod tone-${p.tone}${isSelected('Pod', p.name) ? ' selected' : ''}`,
        testid: 'cluster-pod',
        dataset: { name: p.name, node: p.node, phase: p.phase, state: p.status, ready: p.ready, owner: p.owner ? p.owner.name : '' },
        title: `${p.name}\n${p.status} · ready ${p.ready} · restarts ${p.restarts}${p.owner ? `\nowned by ${p.owner.kind} ${p.owner.name}` : ''}`,
        on: { click: pick('Pod', p.name) },
      },
      h('span', { class: 'cl-pod-name mono' }, p.name),
      h('span', { class: 'cl-pod-state' }, `${p.status} ${p.ready}${p.restarts ? ` · ${p.restarts}↻` : ''}`),
    );
  }

  function renderNodes() {
    const { nodes, unscheduled } = model.placement();
    const boxes = nodes.map((n) => h(
      'div',
      { class: `cl-node${n.ready ? '' : ' not-ready'}${n.missing ? ' missing' : ''}${isSelected('Node', n.name) ? ' selected' : ''}`, testid: 'cluster-node', dataset: { name: n.name, status: n.status } },
      h('div', { class: 'cl-node-head', title: n.missing ? 'this node is not (or no longer) in the cluster' : 'click for the Node', on: n.missing ? {} : { click: pick('Node', n.name) } },
        h('span', { class: 'mono' }, n.name), h('span', { class: 'cl-node-status' }, n.status), h('span', { class: 'muted' }, `${n.pods.length} pod${n.pods.length === 1 ? '' : 's'}`)),
      h('div', { class: 'cl-node-pods' }, n.pods.map(podChip)),
    ));
    if (unscheduled.length) {
      boxes.unshift(h('div', { class: 'cl-node unscheduled', testid: 'cluster-unscheduled' },
        h('div', { class: 'cl-node-head' }, h('span', {}, 'Pending: not scheduled'), h('span', { class: 'muted' }, `${unscheduled.length}`)),
        h('div', { class: 'cl-node-pods' }, unscheduled.map(podChip))));
    }
    mount(nodesBox, boxes.length ? boxes : h('p', { class: 'muted' }, model.listed.has('Node') ? 'No nodes.' : 'listing…'));
  }

  function treeItem(n) {
    const label = h('span', { class: 'cl-kind' }, KIND_LABEL[n.kind] || n.kind);
    let row;
    if (n.ref) {
      row = h('div', { class: 'cl-row ref', testid: 'cluster-owner', dataset: { kind: n.kind, name: n.name } },
        label, h('span', { class: 'mono' }, n.name), h('span', { class: 'muted' }, WATCHED.some((w) => w.kind === n.kind) ? '(gone: known from owner references)' : '(known from owner references)'));
    } else if (n.kind === 'Deployment') {
      row = h('div', { class: 'cl-row', testid: 'cluster-deployment', dataset: { name: n.name, ready: n.ready, replicas: n.replicas } },
        label, h('span', { class: 'mono' }, n.name),
        h('span', { class: `cl-count${n.ready === n.replicas ? ' full' : ''}` }, `${n.ready}/${n.replicas} ready`),
        h('span', { class: 'muted' }, `${n.updated} up-to-date · ${n.available} available`));
    } else if (n.kind === 'ReplicaSet') {
      row = h('div', { class: 'cl-row', testid: 'cluster-replicaset', dataset: { name: n.name, owner: n.owner, replicas: n.replicas, ready: n.ready, revision: n.revision } },
        label, h('span', { class: 'mono' }, n.name),
        n.revision ? h('span', { class: 'cl-rev', title: 'deployment.kubernetes.io/revision' }, `rev ${n.revision}`) : null,
        h('span', { class: `cl-count${n.ready === n.replicas ? ' full' : ''}` }, `${n.ready}/${n.replicas} ready`),
        n.current !== n.replicas ? h('span', { class: 'muted' }, `${n.current} current`) : null);
    } else {
      row = h('div', { class: 'cl-row', testid: 'cluster-workload-pod', dataset: { name: n.name, owner: n.owner ? n.owner.name : '', node: n.node, state: n.status } },
        label, h('span', { class: 'mono' }, n.name), h('span', { class: `cl-state tone-${n.tone}` }, `${n.status} ${n.ready}`),
        h('span', { class: 'muted' }, n.node ? `on ${n.node}` : 'not scheduled'));
    }
    if (!n.ref) {
      row.classList.add('clickable');
      if (isSelected(n.kind, n.name)) row.classList.add('selected');
      row.addEventListener('click', pick(n.kind, n.name));
    }
    return h('li', {}, row, n.children?.length ? h('ul', {}, n.children.map(treeItem)) : null);
  }

  function renderTree() {
    const roots = model.workloads();
    mount(tree, roots.length ? h('ul', {}, roots.map(treeItem)) : h('p', { class: 'muted' }, `No workloads in namespace ${model.namespace}.`));
  }

  function renderEvents() {
    mount(eventsBody, model.events().map((e) => h(
      'tr',
      { class: `cl-event ${e.type === 'Warning' ? 'warning' : ''}`, testid: 'cluster-event-row', dataset: { reason: e.reason, type: e.type } },
      h('td', { class: 'mono' }, e.time ? new Date(e.time).toLocaleTimeString() : ''),
      h('td', {}, e.type),
      h('td', {}, e.reason),
      h('td', { class: 'mono' }, `${e.kind.toLowerCase()}/${e.object}`),
      h('td', {}, e.message),
      h('td', { class: 'num' }, e.count),
    )));
  }

  // ---- detail ---------------------------------------------------------------------------
  function select(s) {
    selected = s;
    if (model) render();
    else detail.hidden = true;
  }

  function renderDetail() {
    detail.hidden = !selected;
    if (!selected) return;
    const obj = model.get(selected.kind, selected.name);
    detailTitle.textContent = `${selected.kind} ${selected.name}${obj ? '' : ' (deleted)'}`;
    detailPre.innerHTML = obj ? highlightJson(JSON.stringify(obj, null, 2)) : '';
  }

  function openSelected() {
    if (selected) onOpenInBuilder({ method: 'GET', path: objectPath(selected.kind, model.namespace, selected.name) });
  }

  return { el, start, stop, show, hide, restart, showAt, get model() { return model; } };
}
