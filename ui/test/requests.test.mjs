// Unit tests of the Requests panel's model (requestsmodel.js): the log kept
// by sequence number from ADDED and MODIFIED events, its bound, the filters,
// and an entry as curl.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { RequestLog, entryCurl, latency, matches } from '../src/requestsmodel.js';

const entry = (seq, more = {}) => ({ seq, client: 'kubectl', user: 'kubernetes-admin', verb: 'get', method: 'GET', uri: '/api/v1/pods', code: 200, latencyMicros: 120, ...more });

test('WORK-3: the log keeps entries by sequence, a long-running one changed in place, at most its bound', () => {
  const log = new RequestLog(3);
  log.apply({ type: 'ADDED', object: entry(2) });
  log.apply({ type: 'ADDED', object: entry(1) });
  log.apply({ type: 'ADDED', object: entry(3, { verb: 'watch', open: true }) });
  log.apply({ type: 'MODIFIED', object: entry(3, { verb: 'watch', latencyMicros: 5e6 }) });
  assert.deepEqual(log.entries().map((e) => e.seq), [1, 2, 3]);
  assert.equal(log.entries()[2].open, undefined);
  log.apply({ type: 'ADDED', object: entry(4, { client: 'replicaset-controller', internal: true, code: 201, verb: 'create' }) });
  assert.deepEqual(log.entries().map((e) => e.seq), [2, 3, 4], 'the oldest goes past the bound');
  assert.deepEqual(log.values('client'), ['kubectl', 'replicaset-controller']);
  assert.equal(log.apply({ type: 'ERROR' }), null);
});

test('WORK-3: filters by client, user, verb, code or class, and hides the sandbox\'s own', () => {
  const e = entry(1, { code: 403, user: 'alice' });
  assert.ok(matches(e, {}));
  assert.ok(matches(e, { client: 'kubectl', user: 'alice', verb: 'get', code: '4xx' }));
  assert.ok(matches(e, { code: '403' }));
  assert.ok(!matches(e, { code: '2xx' }));
  assert.ok(!matches(e, { user: 'bob' }));
  assert.ok(!matches(entry(2, { internal: true }), { internal: false }));
  assert.ok(matches(entry(2, { internal: true }), {}));
});

test('WORK-3: an entry as curl, with its kept body, Content-Type and Accept', () => {
  const detail = {
    entry: entry(7, { method: 'PATCH', verb: 'patch', uri: '/apis/apps/v1/namespaces/default/deployments/web/scale', contentType: 'application/merge-patch+json', accept: 'application/json', requestBytes: 23 }),
    requestBody: '{"spec":{"replicas":2}}',
  };
  assert.equal(entryCurl(detail, 'http://127.0.0.1:8080'),
    "curl -sS -X PATCH -H 'Accept: application/json' -H 'Content-Type: application/merge-patch+json' --data-binary '{\"spec\":{\"replicas\":2}}' http://127.0.0.1:8080/apis/apps/v1/namespaces/default/deployments/web/scale");
  const cut = entryCurl({ ...detail, requestBodyTruncated: true }, 'http://x');
  assert.match(cut, /^# the body was longer than the log keeps: not shown\ncurl -sS -X PATCH /);
  assert.equal(latency(120), '120µs');
  assert.equal(latency(2500), '2.5ms');
  assert.equal(latency(2.5e6), '2.5s');
});
