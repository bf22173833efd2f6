// Unit tests of the xDS panel's simulated Envoy node (xdsmodel.js): the
// requests it sends in state of the world and delta, each with the stream's
// token, ACK applies and NACK keeps, heartbeats refresh TTLs, expiry drops
// what was not refreshed.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { STREAM_TOKEN_HEADER, XdsNode, entries, parseNames, parseParams, seconds } from '../src/xdsmodel.js';

const CDS = 'type.googleapis.com/envoy.config.cluster.v3.Cluster';
const TOKEN = 'RANDOMTOKENOFTHESTREAM0000';

// fakeServer answers the stream's requests and records them; as the server
// does, it refuses a request to the stream without the stream's token.
function fakeServer() {
  const sent = [];
  const calls = [];
  const fetch = async (path, init = {}) => {
    calls.push({ method: init.method || 'GET', path });
    if (init.method === 'POST' && path.startsWith('/xds/v3/streams?')) return { status: 201, json: async () => ({ id: 'RANDOMIDOFTHESTREAM0000000', token: TOKEN }) };
    assert.equal(path, '/xds/v3/streams/RANDOMIDOFTHESTREAM0000000');
    if (init.headers?.[STREAM_TOKEN_HEADER] !== TOKEN) return { status: 403, json: async () => ({ message: 'forbidden: the token' }) };
    if (init.method === 'POST') {
      sent.push(JSON.parse(init.body));
      return { status: 202, json: async () => ({}) };
    }
    if (init.method === 'DELETE') return { status: 204 };
    return { status: 200, body: { getReader: () => ({ read: () => new Promise(() => {}) }) } }; // the stream's GET: nothing comes
  };
  return { fetch, sent, calls };
}

test('every request to the stream carries its token', async () => {
  const srv = fakeServer();
  const node = new XdsNode({ fetch: srv.fetch, protocol: 'delta', node: { id: 'n0' } });
  await node.open();
  await node.subscribe(CDS, ['a'], {});
  await node.close();
  assert.deepEqual(srv.calls.map((c) => c.method), ['POST', 'GET', 'POST', 'DELETE']);
  assert.equal(node.timeline.find((e) => e.dir === 'out').error, undefined);
  assert.equal(node.error, '');
});

test('parsers', () => {
  assert.deepEqual(parseParams('env=prod, zone = a=b'), { env: 'prod', zone: 'a=b' });
  assert.deepEqual(parseNames(' a, ,b '), ['a', 'b']);
  assert.equal(seconds('1.5s'), 1.5);
  assert.equal(seconds(undefined), 0);
});

test('delta: subscribe, ACK applies, NACK keeps, removal', async () => {
  let now = 1000;
  const srv = fakeServer();
  const node = new XdsNode({ fetch: srv.fetch, protocol: 'delta', node: { id: 'n1' }, now: () => now });
  await node.open();
  await node.subscribe(CDS, ['a'], {});
  assert.deepEqual(srv.sent[0], { node: { id: 'n1' }, typeUrl: CDS, resourceNamesSubscribe: ['a'] });
  node.received({ typeUrl: CDS, nonce: '1', resources: [{ name: 'a', version: '5', ttl: '10s', resource: { name: 'a' } }] });
  const first = node.timeline.at(-1);
  assert.equal(first.state, 'pending');
  assert.equal(node.type(CDS).resources.size, 0, 'nothing applied before the ACK');
  await node.ack(first);
  assert.deepEqual(srv.sent.at(-1), { typeUrl: CDS, responseNonce: '1' });
  assert.equal(node.type(CDS).resources.get('a').version, '5');

  node.received({ typeUrl: CDS, nonce: '2', resources: [{ name: 'a', version: '6', resource: { name: 'a' } }] });
  await node.nack(node.timeline.at(-1), 'no');
  assert.deepEqual(srv.sent.at(-1), { typeUrl: CDS, responseNonce: '2', errorDetail: { code: 3, message: 'no' } });
  assert.equal(node.type(CDS).resources.get('a').version, '5', 'the NACKed version is not applied');

  // A heartbeat is ACKed at once and refreshes the TTL; without one it expires.
  now += 6000;
  node.received({ typeUrl: CDS, nonce: '3', resources: [{ name: 'a', version: '5', ttl: '10s' }] });
  assert.equal(node.timeline.find((e) => e.nonce === '3').state, 'acked');
  assert.equal(node.type(CDS).resources.get('a').expiresAt, now + 10000);
  now += 10001;
  assert.equal(node.expire(), true);
  assert.equal(node.type(CDS).resources.size, 0);

  node.received({ typeUrl: CDS, nonce: '4', resources: [], removedResources: ['a'] });
  await node.ack(node.timeline.at(-1));
  assert.equal(node.type(CDS).resources.size, 0);
});

test('state of the world: every request carries the subscription and the accepted version', async () => {
  const srv = fakeServer();
  const node = new XdsNode({ fetch: srv.fetch, protocol: 'sotw', node: { id: 'n2' } });
  await node.open();
  await node.subscribe(CDS, ['a', 'b'], { env: 'prod' });
  assert.deepEqual(srv.sent[0], { node: { id: 'n2' }, typeUrl: CDS, versionInfo: '', responseNonce: '',
    resourceLocators: [{ name: 'a', dynamicParameters: { env: 'prod' } }, { name: 'b', dynamicParameters: { env: 'prod' } }] });
  node.autoAck = true;
  node.received({ typeUrl: CDS, versionInfo: '9', nonce: '1', resources: [{ '@type': CDS, name: 'a' }, { '@type': 'type.googleapis.com/envoy.service.discovery.v3.Resource', resourceName: { name: 'b', dynamicParameterConstraints: { constraint: { key: 'env', value: 'prod' } } }, version: '3', resource: { name: 'b' } }] });
  assert.equal(srv.sent.at(-1).versionInfo, '9');
  assert.equal(srv.sent.at(-1).responseNonce, '1');
  const held = node.type(CDS).resources;
  assert.deepEqual([...held.keys()].sort(), ['a', 'b']);
  assert.equal(held.get('b').constraints.constraint.value, 'prod');
  // The next state of the world replaces the last.
  node.received({ typeUrl: CDS, versionInfo: '10', nonce: '2', resources: [{ '@type': CDS, name: 'b' }] });
  assert.deepEqual([...held.keys()], ['b']);
});

test('entries reads every form a resource comes in', () => {
  assert.deepEqual(entries({ versionInfo: '1', resources: [{ '@type': CDS, name: 'x' }] }, 'sotw')[0].name, 'x');
  assert.deepEqual(entries({ resources: [{ '@type': 'type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment', clusterName: 'e' }] }, 'sotw')[0].name, 'e');
  assert.equal(entries({ resources: [{ name: 'h', version: '2', ttl: '4s' }] }, 'delta')[0].resource, null);
});
