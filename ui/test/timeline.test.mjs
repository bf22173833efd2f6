// LEARN-5's logic in Node: the timeline's paths, who made a change in
// words, and the line diff of an object's YAML between two revisions,
// checked against an independent rebuild of both sides.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { timelinePath, atRevisionPath, watchAtPath, madeBy, forDiff, toYaml, lineDiff, changedLines } from '../src/timelinemodel.js';

test('LEARN-5: the timeline and the API paths a scrub reads', () => {
  assert.equal(timelinePath(), '/debug/kubeplay/timeline');
  assert.equal(timelinePath({ kind: 'ConfigMap', namespace: 'shop', mine: true, before: 40, limit: 200 }),
    '/debug/kubeplay/timeline?kind=ConfigMap&namespace=shop&mine=true&before=40&limit=200');
  assert.equal(atRevisionPath('/api/v1/namespaces/shop/configmaps', 12, 'app'),
    '/api/v1/namespaces/shop/configmaps?fieldSelector=metadata.name%3Dapp&resourceVersion=12&resourceVersionMatch=Exact');
  assert.equal(atRevisionPath('/api/v1/nodes', 3), '/api/v1/nodes?resourceVersion=3&resourceVersionMatch=Exact');
  assert.equal(watchAtPath('/apis/apps/v1/namespaces/x/deployments', 'web', 10),
    '/apis/apps/v1/namespaces/x/deployments?watch=1&fieldSelector=metadata.name%3Dweb&resourceVersion=9&timeoutSeconds=5');
});

test('LEARN-5: who made a change', () => {
  assert.equal(madeBy({ user: 'alice', manager: 'tutor', operation: 'Apply', client: 'kubectl' }), 'alice · tutor (Apply) · via kubectl');
  assert.equal(madeBy({ user: 'system:serviceaccount:kube-system:replicaset-controller', manager: 'kube-controller-manager', operation: 'Update', subresource: 'status', client: 'replicaset-controller' }),
    'system:serviceaccount:kube-system:replicaset-controller · kube-controller-manager (Update status) · via replicaset-controller');
  assert.equal(madeBy({ manager: 'kubectl-client-side-apply', operation: 'Update' }), 'kubectl-client-side-apply (Update)');
  assert.match(madeBy({}), /no longer has the request/);
});

// apply rebuilds both sides from a diff: the kept and removed lines are a,
// the kept and added ones b.
const sides = (diff) => [
  diff.filter((d) => d.op !== '+').map((d) => d.text),
  diff.filter((d) => d.op !== '-').map((d) => d.text),
];
const lines = (s) => (s === '' ? [] : s.replace(/\n$/, '').split('\n'));

test('LEARN-5: the line diff rebuilds both sides and keeps the longest common part', () => {
  const a = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app', resourceVersion: '5', managedFields: [{ manager: 'a' }] }, data: { color: 'red', size: '1' }, status: { x: 1 } };
  const b = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app', resourceVersion: '9', managedFields: [{ manager: 'b' }] }, data: { color: 'blue', size: '1' }, status: { x: 2 } };
  const d = lineDiff(toYaml(forDiff(a)), toYaml(forDiff(b)));
  assert.deepEqual(changedLines(d), ['-  resourceVersion: "5"', '+  resourceVersion: "9"', '-  color: red', '+  color: blue']);
  assert.ok(!toYaml(forDiff(a)).includes('managedFields') && !toYaml(forDiff(a)).includes('status'), 'left out unless asked');
  assert.ok(toYaml(forDiff(a, { managedFields: true, status: true })).includes('managedFields'));
  assert.equal(a.metadata.managedFields.length, 1, 'forDiff copies, it does not change the object');
  // Created and deleted: everything added, everything removed.
  assert.ok(lineDiff('', toYaml(a)).every((l) => l.op === '+'));
  assert.ok(lineDiff(toYaml(a), '').every((l) => l.op === '-'));
  // Random texts: both sides rebuilt, and no diff longer than it must be.
  let seed = 7;
  const rand = (n) => ((seed = (seed * 1103515245 + 12345) % 2147483648) % n);
  for (let i = 0; i < 300; i++) {
    const x = Array.from({ length: rand(12) }, () => 'abcd'[rand(4)]).join('\n');
    const y = Array.from({ length: rand(12) }, () => 'abcd'[rand(4)]).join('\n');
    const diff = lineDiff(x, y);
    assert.deepEqual(sides(diff), [lines(x), lines(y)], `${JSON.stringify(x)} → ${JSON.stringify(y)}`);
    const kept = diff.filter((l) => l.op === ' ').length;
    assert.equal(kept, lcsLength(lines(x), lines(y)), 'the common part is the longest');
  }
});

// An independent longest common subsequence, by recursion with memo.
function lcsLength(x, y) {
  const memo = new Map();
  const f = (i, j) => {
    if (i === x.length || j === y.length) return 0;
    const k = i * 100 + j;
    if (!memo.has(k)) memo.set(k, x[i] === y[j] ? 1 + f(i + 1, j + 1) : Math.max(f(i + 1, j), f(i, j + 1)));
    return memo.get(k);
  };
  return f(0, 0);
}
