// Unit tests of the cluster view's model (clustermodel.js): Pod states as
// kubectl's STATUS column, the owner tree, Pods on their Nodes, deletes, the
// relist after 410 Gone (through a WatchSession), and the last events.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { ClusterModel, collectionPath, controllerRef, eventTime, nodeStatus, objectPath, podStatus } from '../src/clustermodel.js';
import { WatchSession } from '../src/watchstream.js';

const ref = (kind, name, uid) => ({ apiVersion: 'apps/v1', kind, name, uid, controller: true, blockOwnerDeletion: true });

const deployment = (name, replicas, ready) => ({
  kind: 'Deployment', metadata: { name, uid: `uid-${name}`, namespace: 'default' },
  spec: { replicas }, status: { replicas: ready, readyReplicas: ready, updatedReplicas: ready, availableReplicas: ready },
});
const replicaSet = (name, owner, revision, replicas) => ({
  kind: 'ReplicaSet', metadata: { name, uid: `uid-${name}`, namespace: 'default', annotations: { 'deployment.kubernetes.io/revision': String(revision) }, ownerReferences: owner ? [ref('Deployment', owner, `uid-${owner}`)] : undefined },
  spec: { replicas }, status: { replicas, readyReplicas: replicas },
});
const running = { running: { startedAt: '2026-01-01T00:00:00Z' } };
const pod = (name, { owner, ownerKind = 'ReplicaSet', node, phase = 'Running', containers, deleting, conditions } = {}) => ({
  kind: 'Pod',
  metadata: { name, uid: `uid-${name}`, namespace: 'default', resourceVersion: '1', ownerReferences: owner ? [ref(ownerKind, owner, `uid-${owner}`)] : undefined, deletionTimestamp: deleting ? '2026-01-01T00:00:09Z' : undefined },
  spec: { nodeName: node, containers: (containers || [{}]).map((_, i) => ({ name: `c${i}`, image: 'nginx' })) },
  status: { phase, conditions, containerStatuses: containers?.map((c, i) => ({ name: `c${i}`, restartCount: 0, ready: false, ...c })) },
});
const node = (name, ready = 'True', unschedulable = false) => ({ kind: 'Node', metadata: { name }, spec: { unschedulable }, status: { conditions: [{ type: 'Ready', status: ready }] } });
const event = (name, reason, lastTimestamp, rv, extra = {}) => ({
  kind: 'Event', metadata: { name, namespace: 'default', resourceVersion: String(rv) }, type: 'Normal', reason, lastTimestamp,
  involvedObject: { kind: 'Pod', name: 'web-1' }, message: `${reason} happened`, count: 1, ...extra,
});

test('paths of the watched collections', () => {
  assert.equal(collectionPath('Node', 'x'), '/api/v1/nodes');
  assert.equal(collectionPath('Deployment', 'team a'), '/apis/apps/v1/namespaces/team%20a/deployments');
  assert.equal(objectPath('Pod', 'default', 'web-1'), '/api/v1/namespaces/default/pods/web-1');
  assert.throws(() => collectionPath('Secret', 'default'));
});

test('podStatus follows kubectl\'s STATUS column', () => {
  const s = (p) => podStatus(p).status;
  assert.equal(s(pod('p', { phase: 'Pending' })), 'Pending');
  assert.equal(s(pod('p', { phase: 'Pending', containers: [{ state: { waiting: { reason: 'ContainerCreating' } } }] })), 'ContainerCreating');
  const ready = podStatus(pod('p', { containers: [{ ready: true, state: running }, { ready: false, state: running }] }));
  assert.deepEqual([ready.status, ready.ready, ready.tone], ['Running', '1/2', 'progress']);
  const ok = podStatus(pod('p', { containers: [{ ready: true, state: running }] }));
  assert.deepEqual([ok.status, ok.ready, ok.tone], ['Running', '1/1', 'ok']);
  const crash = podStatus(pod('p', { containers: [{ restartCount: 4, state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off' } } }] }));
  assert.deepEqual([crash.status, crash.restarts, crash.tone], ['CrashLoopBackOff', 4, 'error']);
  assert.equal(s(pod('p', { phase: 'Pending', containers: [{ state: { waiting: { reason: 'ErrImagePull' } } }] })), 'ErrImagePull');
  const done = podStatus(pod('p', { phase: 'Succeeded', containers: [{ state: { terminated: { exitCode: 0, reason: 'Completed' } } }] }));
  assert.deepEqual([done.status, done.tone], ['Completed', 'done']);
  assert.equal(s(pod('p', { phase: 'Failed', containers: [{ state: { terminated: { exitCode: 137 } } }] })), 'ExitCode:137');
  assert.equal(s(pod('p', { phase: 'Failed', containers: [{ state: { terminated: { exitCode: 0, signal: 9 } } }] })), 'Signal:9');
  // Completed with a container still running: Running when the Pod is Ready.
  assert.equal(s(pod('p', { containers: [{ state: { terminated: { exitCode: 0, reason: 'Completed' } } }, { ready: true, state: running }], conditions: [{ type: 'Ready', status: 'True' }] })), 'Running');
  assert.equal(s(pod('p', { containers: [{ state: { terminated: { exitCode: 0, reason: 'Completed' } } }, { ready: true, state: running }] })), 'NotReady');
  // Terminating while it has a deletionTimestamp, unless it already finished.
  const term = podStatus(pod('p', { deleting: true, containers: [{ ready: true, state: running }] }));
  assert.deepEqual([term.status, term.tone], ['Terminating', 'terminating']);
  assert.equal(s(pod('p', { deleting: true, phase: 'Succeeded', containers: [{ state: { terminated: { exitCode: 0, reason: 'Completed' } } }] })), 'Completed');
  // Init containers.
  const init = pod('p', { phase: 'Pending' });
  init.spec.initContainers = [{ name: 'i0' }, { name: 'i1' }];
  init.status.initContainerStatuses = [{ name: 'i0', state: { terminated: { exitCode: 0 } } }, { name: 'i1', state: { running: {} } }];
  assert.equal(s(init), 'Init:1/2');
  init.status.initContainerStatuses[1] = { name: 'i1', restartCount: 2, state: { waiting: { reason: 'CrashLoopBackOff' } } };
  assert.deepEqual([podStatus(init).status, podStatus(init).restarts], ['Init:CrashLoopBackOff', 2]);
  // A sidecar (restartable init container) counts among the containers.
  const side = pod('p', { containers: [{ ready: true, state: running }] });
  side.spec.initContainers = [{ name: 'log', restartPolicy: 'Always' }];
  side.status.initContainerStatuses = [{ name: 'log', started: true, ready: true, state: running }];
  assert.deepEqual([podStatus(side).status, podStatus(side).ready], ['Running', '2/2']);
  // A Pod the API just took: no status at all.
  assert.equal(podStatus({ metadata: { name: 'bare' }, spec: { containers: [{ name: 'c' }] } }).status, 'Pending');
});

test('nodeStatus', () => {
  assert.equal(nodeStatus(node('a')), 'Ready');
  assert.equal(nodeStatus(node('a', 'False')), 'NotReady');
  assert.equal(nodeStatus(node('a', 'Unknown', true)), 'Unknown,SchedulingDisabled');
  assert.equal(nodeStatus({ metadata: { name: 'x' } }), 'Unknown');
});

test('the owner tree: Deployment → ReplicaSets (newest revision first) → Pods; owners known from references; standalone Pods', () => {
  const m = new ClusterModel({ namespace: 'default' });
  m.replace('Deployment', [deployment('web', 2, 1)]);
  m.replace('ReplicaSet', [replicaSet('web-old', 'web', 1, 0), replicaSet('web-new', 'web', 2, 2), replicaSet('lonely', null, '', 1)]);
  m.replace('Pod', [
    pod('web-new-b', { owner: 'web-new', node: 'n1', containers: [{ ready: true, state: running }] }),
    pod('web-new-a', { owner: 'web-new', phase: 'Pending' }),
    pod('db-0', { owner: 'db', ownerKind: 'StatefulSet', node: 'n2', containers: [{ ready: true, state: running }] }),
    pod('solo', { node: 'n1', containers: [{ ready: true, state: running }] }),
  ]);
  const tree = m.workloads();
  assert.deepEqual(tree.map((n) => `${n.kind}/${n.name}`), ['Deployment/web', 'ReplicaSet/lonely', 'StatefulSet/db', 'Pod/solo']);
  const [web, lonely, db, solo] = tree;
  assert.deepEqual([web.replicas, web.ready], [2, 1]);
  assert.deepEqual(web.children.map((r) => [r.name, r.revision, r.owner]), [['web-new', '2', 'web'], ['web-old', '1', 'web']]);
  assert.deepEqual(web.children[0].children.map((p) => [p.name, p.status, p.owner.name]), [['web-new-a', 'Pending', 'web-new'], ['web-new-b', 'Running', 'web-new']]);
  assert.equal(lonely.children.length, 0);
  assert.equal(db.ref, true, 'a StatefulSet is known from the Pod\'s reference alone');
  assert.deepEqual(db.children.map((p) => p.name), ['db-0']);
  assert.equal(solo.owner, null);
  assert.equal(controllerRef(m.get('Pod', 'db-0')).kind, 'StatefulSet');

  // A Deployment recreated under the same name is another owner (by uid).
  const again = deployment('web', 1, 0);
  again.metadata.uid = 'uid-web-2';
  m.apply('Deployment', { type: 'MODIFIED', object: again });
  const after = m.workloads();
  assert.deepEqual(after.map((n) => `${n.kind}/${n.name}${n.ref ? ' (ref)' : ''}`), ['Deployment/web', 'ReplicaSet/lonely', 'StatefulSet/db (ref)', 'Deployment/web (ref)', 'Pod/solo']);
});

test('Pods on their Nodes; unscheduled Pods; a node that is gone; deletes', () => {
  const m = new ClusterModel({ namespace: 'default' });
  assert.equal(m.apiOnly, false, 'not known before the Nodes are listed');
  m.replace('Node', []);
  assert.equal(m.apiOnly, true);
  m.replace('Node', [node('n2'), node('n1', 'False')]);
  assert.equal(m.apiOnly, false);
  m.apply('Pod', { type: 'ADDED', object: pod('a', { node: 'n1', containers: [{ ready: true, state: running }] }) });
  m.apply('Pod', { type: 'ADDED', object: pod('b', { phase: 'Pending' }) });
  m.apply('Pod', { type: 'ADDED', object: pod('c', { node: 'n9' }) });
  let { nodes, unscheduled } = m.placement();
  assert.deepEqual(nodes.map((n) => [n.name, n.status, n.pods.map((p) => p.name)]), [['n1', 'NotReady', ['a']], ['n2', 'Ready', []], ['n9', 'missing', ['c']]]);
  assert.deepEqual(unscheduled.map((p) => p.name), ['b']);
  // Bound by the scheduler: the Pod moves to its node.
  const bound = pod('b', { node: 'n2', phase: 'Pending', containers: [{ state: { waiting: { reason: 'ContainerCreating' } } }] });
  assert.equal(m.apply('Pod', { type: 'MODIFIED', object: bound }), true);
  ({ nodes, unscheduled } = m.placement());
  assert.deepEqual(nodes[1].pods.map((p) => [p.name, p.status, p.tone]), [['b', 'ContainerCreating', 'progress']]);
  assert.equal(unscheduled.length, 0);
  assert.equal(m.apply('Pod', { type: 'DELETED', object: pod('a') }), true);
  assert.equal(m.apply('Pod', { type: 'DELETED', object: pod('a') }), false, 'already gone');
  assert.equal(m.apply('Pod', { type: 'BOOKMARK', object: { kind: 'Pod', metadata: { resourceVersion: '99' } } }), false);
  assert.deepEqual(m.placement().nodes[0].pods, []);
});

test('the last events, newest first, trimmed to the newest N', () => {
  const m = new ClusterModel({ namespace: 'default', maxEvents: 3 });
  m.replace('Event', [
    event('e1', 'Scheduled', '2026-01-01T00:00:01Z', 10),
    event('e2', 'Pulled', '2026-01-01T00:00:03Z', 12),
    event('e3', 'Created', '2026-01-01T00:00:03Z', 13), // same second, later write
  ]);
  assert.deepEqual(m.events().map((e) => e.name), ['e3', 'e2', 'e1']);
  // An eventTime's microseconds do not put it after a later write of the same second.
  m.apply('Event', { type: 'MODIFIED', object: event('e2', 'Scheduled', null, 12, { eventTime: '2026-01-01T00:00:03.900000Z' }) });
  assert.deepEqual(m.events().map((e) => e.name), ['e3', 'e2', 'e1']);
  m.apply('Event', { type: 'ADDED', object: event('e4', 'BackOff', '2026-01-01T00:00:05Z', 20, { type: 'Warning', count: 3 }) });
  const evs = m.events();
  assert.deepEqual(evs.map((e) => e.name), ['e4', 'e3', 'e2'], 'the oldest went');
  assert.deepEqual([evs[0].type, evs[0].reason, evs[0].kind, evs[0].object, evs[0].count, evs[0].message], ['Warning', 'BackOff', 'Pod', 'web-1', 3, 'BackOff happened']);
  // A repeat counts an old event up: it is recent again.
  m.apply('Event', { type: 'MODIFIED', object: event('e2', 'Pulled', '2026-01-01T00:00:09Z', 30, { count: 2 }) });
  assert.deepEqual(m.events().map((e) => [e.name, e.count]), [['e2', 2], ['e4', 3], ['e3', 1]]);
  // events.k8s.io-style fields: eventTime and series.
  assert.equal(eventTime({ eventTime: '2026-01-01T00:00:02.500000Z' }), Date.parse('2026-01-01T00:00:02.5Z'));
  assert.equal(eventTime({ series: { lastObservedTime: '2026-01-01T00:00:04Z' }, eventTime: '2026-01-01T00:00:01Z' }), Date.parse('2026-01-01T00:00:04Z'));
  assert.equal(eventTime({}), 0);
});

function stream(lines) {
  return new Response(lines.map((l) => JSON.stringify(l) + '\n').join(''), { status: 200 });
}

test('through a WatchSession: list, watch events, 410 Gone, relist replaces what was known', async () => {
  const m = new ClusterModel({ namespace: 'default' });
  const calls = [];
  let session;
  const fetchFn = async (path) => {
    calls.push(path);
    const q = new URLSearchParams(path.split('?')[1]);
    switch (calls.length) {
      case 1: // the first list
        assert.equal(q.get('watch'), null);
        return new Response(JSON.stringify({ kind: 'PodList', metadata: { resourceVersion: '10' }, items: [pod('a'), pod('b')] }));
      case 2:
        assert.equal(q.get('resourceVersion'), '10');
        assert.equal(q.get('allowWatchBookmarks'), 'true');
        return stream([
          { type: 'ADDED', object: pod('c') },
          { type: 'DELETED', object: pod('a') },
          { type: 'BOOKMARK', object: { kind: 'Pod', metadata: { resourceVersion: '15' } } },
          { type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version' } },
        ]);
      case 3: // the relist: b went and d came while the watch was away
        assert.equal(q.get('watch'), null);
        return new Response(JSON.stringify({ kind: 'PodList', metadata: { resourceVersion: '30' }, items: [pod('c'), pod('d')] }));
      default:
        assert.equal(q.get('resourceVersion'), '30');
        session.stop();
        throw new DOMException('aborted', 'AbortError');
    }
  };
  const seen = [];
  session = new WatchSession({ path: collectionPath('Pod', 'default'), list: true, allowWatchBookmarks: true }, fetchFn, {
    onRecord: (r) => {
      m.applyRecord('Pod', r);
      seen.push([...m.stores.get('Pod').keys()].sort().join(','));
    },
    sleep: async () => {},
  });
  await session.start();
  assert.ok(seen.includes('b,c'), `after the watch's events: ${seen}`);
  assert.deepEqual([...m.stores.get('Pod').keys()].sort(), ['c', 'd']);
});
