// Unit tests of the APF panel's logic (apfmodel.js): the load generator's
// identities, retries and counts, and the series the charts draw.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { runLoad, ApfHistory, ensureDemoLevel, ensureLoadAccess, percentile, DEMO_GROUP, PANEL_IDENTITY, LOAD_BINDING } from '../src/apfmodel.js';

const response = (status, headers = {}) => ({
  status,
  ok: status >= 200 && status < 300,
  headers: { get: (k) => headers[k] ?? null },
  arrayBuffer: async () => new ArrayBuffer(0),
});

test('runLoad sends each flow as its user, holds seats with simulated work, and counts 429s', async () => {
  let t = 0;
  const seen = [];
  const fetch = async (path, init) => {
    seen.push(init.headers);
    t += 10;
    // the elephant is turned away every other time; the mouse always gets through
    const reject = init.headers['Impersonate-User'].startsWith('elephant') && seen.length % 2 === 0;
    return reject ? response(429, { 'Retry-After': '1' }) : response(200);
  };
  const run = runLoad({
    fetch,
    flows: [{ name: 'elephant-1', concurrency: 3 }, { name: 'mouse-1', concurrency: 1 }],
    request: { method: 'GET', path: '/api/v1/namespaces/default/configmaps' },
    workMs: 250,
    durationMs: 400,
    demo: true,
    now: () => t,
    sleep: async () => { t += 5; },
  });
  const summary = await run.done;
  const byFlow = Object.fromEntries(summary.map((s) => [s.flow, s]));
  assert.ok(byFlow['elephant-1'].rejected > 0, 'the elephant met 429s');
  assert.equal(byFlow['mouse-1'].rejected, 0);
  assert.equal(byFlow['mouse-1'].ok, byFlow['mouse-1'].sent);
  assert.equal(byFlow['elephant-1'].sent, byFlow['elephant-1'].ok + byFlow['elephant-1'].rejected);
  for (const h of seen) {
    assert.equal(h['Impersonate-Group'], DEMO_GROUP);
    assert.equal(h['X-Kubeplay-Simulated-Work'], '250ms');
  }
  assert.ok(byFlow['mouse-1'].p99 >= byFlow['mouse-1'].p50);
});

test('ensureLoadAccess binds the load\'s users to edit in default, as system:masters', async () => {
  const calls = [];
  await ensureLoadAccess(async (path, init) => {
    calls.push([init.method, path, init.headers['Impersonate-Group'], JSON.parse(init.body)]);
    return response(200);
  }, ['elephant-1', 'mouse-1']);
  assert.equal(calls.length, 1);
  const [method, path, group, body] = calls[0];
  assert.equal(method, 'PUT');
  assert.equal(path, `/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings/${LOAD_BINDING}`);
  assert.equal(group, PANEL_IDENTITY['Impersonate-Group']);
  assert.deepEqual(body.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' });
  assert.deepEqual(body.subjects.map((s) => [s.kind, s.name]), [['User', 'elephant-1'], ['User', 'mouse-1']]);
  await assert.rejects(ensureLoadAccess(async () => response(403), ['x']), /HTTP 403/);
});

test('ensureDemoLevel creates the level and schema as system:masters, and 409 means already there', async () => {
  const calls = [];
  await ensureDemoLevel(async (path, init) => {
    calls.push([path, init.headers['Impersonate-Group'], JSON.parse(init.body).kind]);
    return response(calls.length === 1 ? 201 : 409);
  });
  assert.deepEqual(calls, [
    ['/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations', PANEL_IDENTITY['Impersonate-Group'], 'PriorityLevelConfiguration'],
    ['/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas', PANEL_IDENTITY['Impersonate-Group'], 'FlowSchema'],
  ]);
  await assert.rejects(ensureDemoLevel(async () => response(422)), /HTTP 422/);
});

test('ApfHistory turns snapshots into utilization, queue and rejection-rate series', () => {
  const hist = new ApfHistory(3);
  const snap = (sec, inUse, waiting, rejected) => ({
    time: new Date(1_700_000_000_000 + sec * 1000).toISOString(),
    levels: [{ name: 'demo', currentSeats: 2, seatsInUse: inUse, waiting, rejected, flows: [{ oldestWaitSeconds: waiting / 10 }] }],
  });
  hist.add(snap(0, 0, 0, 0));
  hist.add(snap(1, 1, 4, 2));
  hist.add(snap(3, 2, 8, 10));
  const [times, seats] = hist.data('seats', ['demo']);
  assert.deepEqual(seats, [0, 50, 100]);
  assert.deepEqual(hist.data('waiting', ['demo'])[1], [0, 4, 8]);
  assert.deepEqual(hist.data('rejections', ['demo'])[1], [0, 2, 4]);
  assert.deepEqual(hist.data('wait', ['demo'])[1], [0, 0.4, 0.8]);
  hist.add(snap(4, 0, 0, 10));
  assert.equal(times.length, 3, 'keeps the last 3');
  assert.deepEqual(hist.data('seats', ['demo', 'gone'])[2], [null, null, null]);
});

test('percentile', () => {
  assert.equal(percentile([], 0.5), 0);
  assert.equal(percentile([1, 2, 3, 4], 0.5), 3);
  assert.equal(percentile([1, 2, 3, 4], 0.99), 4);
});

test('the builder\'s identities replace the impersonation headers and keep the rest', async () => {
  const { withIdentity, IDENTITIES } = await import('../src/builder.js');
  const alice = IDENTITIES.find((x) => x.id === 'alice');
  assert.deepEqual(withIdentity([['Accept', 'application/json'], ['Impersonate-User', 'bob']], alice), [['Accept', 'application/json'], ['Impersonate-User', 'alice'], ['Impersonate-Group', 'devs']]);
  assert.deepEqual(withIdentity([['Impersonate-Group', 'x']], IDENTITIES[0]), []);
});
