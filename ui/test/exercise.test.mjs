// The exercise checker (ui/src/exercise.js, LEARN-2) without a server: parts
// judged with the tutorials' expectations and messages, label selectors, and
// an ExerciseChecker following a fake API: one list and one watch per
// resource however many parts name it, and no request of its own per write.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ExerciseChecker, judgePart, matchesSelector, collectionPath } from '../src/exercise.js';
import { checkObject } from '../src/tutorial-runner.js';

const exercise = JSON.parse(readFileSync(new URL('../../tutorials/exercises/deployment-replicas.json', import.meta.url), 'utf8'));
const part = (id) => exercise.parts.find((p) => p.id === id);

const deploy = (image, replicas, ready) => ({
  metadata: { name: 'web', namespace: 'shop', resourceVersion: '5' },
  spec: { replicas, template: { spec: { containers: [{ name: 'nginx', image }] } } },
  status: ready === undefined ? {} : { readyReplicas: ready },
});

test('LEARN-2: collection paths for core and grouped, namespaced and cluster resources', () => {
  assert.equal(collectionPath({ group: '', version: 'v1', resource: 'namespaces' }), '/api/v1/namespaces');
  assert.equal(collectionPath({ group: 'apps', version: 'v1', resource: 'deployments', namespace: 'shop' }), '/apis/apps/v1/namespaces/shop/deployments');
});

test('LEARN-2: equality-based label selectors', () => {
  const l = { app: 'web', tier: 'front' };
  assert.ok(matchesSelector(l, 'app=web'));
  assert.ok(matchesSelector(l, 'app==web,tier'));
  assert.ok(matchesSelector(l, 'app!=db,!missing'));
  assert.ok(!matchesSelector(l, 'app=db'));
  assert.ok(!matchesSelector(l, 'tier!=front'));
  assert.ok(!matchesSelector(l, 'missing'));
  assert.ok(!matchesSelector(l, '!app'));
  assert.ok(matchesSelector(undefined, ''));
});

test('LEARN-2: atLeast counts an absent number as 0, as the API omits zero counts', () => {
  assert.deepEqual(checkObject({ status: {} }, { atLeast: { 'status.readyReplicas': 1 } }, {}).map((f) => f.text), ['status.readyReplicas: got 0, want at least 1']);
  assert.deepEqual(checkObject({ status: { readyReplicas: 3 } }, { atLeast: { 'status.readyReplicas': 3 } }, {}), []);
  assert.equal(checkObject({ n: 'x' }, { atLeast: { n: 1 } }, {}).length, 1);
});

test('LEARN-2: a part is judged with its messages: absent, the first unmet expectation, or held', () => {
  const objs = (...os) => new Map(os.map((o, i) => [String(i), o]));
  assert.deepEqual(judgePart(part('image'), objs()), { ok: false, message: 'there is no Deployment web in namespace shop yet' });
  assert.deepEqual(judgePart(part('image'), objs(deploy('nginx:1.26', 3, 3))), { ok: false, message: 'the Deployment web runs nginx:1.26, not nginx:1.27' });
  assert.deepEqual(judgePart(part('ready'), objs(deploy('nginx:1.27', 3))), { ok: false, message: 'the Deployment web has 0 of 3 ready replicas' });
  assert.deepEqual(judgePart(part('ready'), objs(deploy('nginx:1.27', 3, 1))), { ok: false, message: 'the Deployment web has 1 of 3 ready replicas' });
  assert.deepEqual(judgePart(part('ready'), objs(deploy('nginx:1.27', 1, 1))), { ok: false, message: 'the Deployment web asks for 1 replicas, want 3' });
  assert.deepEqual(judgePart(part('ready'), objs(deploy('nginx:1.27', 3, 3))), { ok: true, message: '' });
  // Another name is not the one the part names.
  const other = deploy('nginx:1.27', 3, 3);
  other.metadata.name = 'api';
  assert.equal(judgePart(part('ready'), objs(other)).message, 'there is no Deployment web in namespace shop yet');
  // Without a message for the path, the expectation's own text, named.
  const bare = { ...part('ready'), messages: {} };
  assert.equal(judgePart(bare, objs(deploy('nginx:1.27', 3, 2))).message, 'web: status.readyReplicas: got 2, want at least 3');
  // With a selector, any matching object may hold it.
  const sel = { id: 's', resource: { group: 'discovery.k8s.io', version: 'v1', resource: 'endpointslices', namespace: 'shop', selector: 'kubernetes.io/service-name=web' }, expect: { atLeast: { 'endpoints.length': 2 } }, absent: 'none' };
  const slice = (name, svc, n) => ({ metadata: { name, labels: { 'kubernetes.io/service-name': svc } }, endpoints: Array(n).fill({}) });
  assert.equal(judgePart(sel, objs(slice('a', 'db', 3))).message, 'none');
  assert.equal(judgePart(sel, objs(slice('a', 'web', 1), slice('b', 'web', 2))).ok, true);
});

// fakeAPI answers lists and watches from per-collection state; push(path, event)
// delivers a watch event to the open watch on path. It records every request.
function fakeAPI(items) {
  const requests = [];
  const streams = new Map();
  const fetchFn = async (path, init = {}) => {
    requests.push(path);
    const [collection, query] = path.split('?');
    if (!new URLSearchParams(query).has('watch')) {
      return new Response(JSON.stringify({ metadata: { resourceVersion: '10' }, items: items[collection] || [] }), { status: 200 });
    }
    let ctrl;
    const body = new ReadableStream({ start(c) { ctrl = c; } });
    streams.set(collection, ctrl);
    init.signal?.addEventListener('abort', () => { try { ctrl.close(); } catch {} });
    return new Response(body, { status: 200 });
  };
  const push = (collection, ev) => streams.get(collection).enqueue(new TextEncoder().encode(JSON.stringify(ev) + '\n'));
  return { fetchFn, requests, push, streams };
}

test('LEARN-2: the checker lists and watches each resource once, shared by its parts, and ticks parts as watch events arrive, with no request per write', async () => {
  const NS = '/api/v1/namespaces';
  const DEP = '/apis/apps/v1/namespaces/shop/deployments';
  const api = fakeAPI({ [NS]: [{ metadata: { name: 'default', resourceVersion: '1' } }] });
  const seen = [];
  const checker = new ExerciseChecker(exercise, api.fetchFn, { onChange: (s) => seen.push(s) }).start();
  let s = await checker.until((x) => x.synced);
  assert.deepEqual(s.parts.map((p) => [p.id, p.ok, p.message]), [
    ['namespace', false, 'there is no namespace shop yet'],
    ['image', false, 'there is no Deployment web in namespace shop yet'],
    ['ready', false, 'there is no Deployment web in namespace shop yet'],
  ]);
  assert.equal(s.hint, exercise.hints[0].text);
  while (api.streams.size < 2) await new Promise((r) => setTimeout(r, 5));
  api.push(NS, { type: 'ADDED', object: { metadata: { name: 'shop', resourceVersion: '11' } } });
  s = await checker.until((x) => x.parts[0].ok);
  api.push(DEP, { type: 'ADDED', object: deploy('nginx:1.27', 3) });
  s = await checker.until((x) => x.parts[1].ok);
  assert.equal(s.parts[2].message, 'the Deployment web has 0 of 3 ready replicas');
  assert.equal(s.hint, exercise.hints[2].text, 'the first hint of the first open part');
  api.push(DEP, { type: 'MODIFIED', object: deploy('nginx:1.27', 3, 3) });
  s = await checker.until((x) => x.done);
  assert.equal(s.hint, null);
  api.push(DEP, { type: 'DELETED', object: deploy('nginx:1.27', 3, 3) });
  s = await checker.until((x) => !x.parts[1].ok);
  assert.equal(s.parts[2].message, 'there is no Deployment web in namespace shop yet');
  checker.stop();
  // Two resources, three parts: one list and one watch each, whatever was written.
  assert.deepEqual(api.requests.map((p) => p.split('?')[0] + (p.includes('watch=1') ? ' watch' : ' list')).sort(), [
    `${NS} list`, `${NS} watch`, `${DEP} list`, `${DEP} watch`,
  ]);
});
