// ROB-3 (edge half): one sandbox's load never stalls another sandbox or the
// front's static files, in one local workerd, as on one Cloudflare host.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { API_ONLY, CMS, call, configMap, createSandbox, edgeIn, eventually, scratchDir } from './helpers.mjs';

let dir, edge;

before(async () => {
  dir = scratchDir('rob');
  edge = await edgeIn(dir);
});

after(async () => {
  await edge?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Probes another sandbox and the front every 250 ms while busy() holds; returns the probes' times (ms). */
async function probeWhile(other, busy) {
  const times = [];
  for (let i = 0; i < 200 && (i < 8 || await busy()); i++) {
    const start = performance.now();
    const [api, page] = await Promise.all([call(other, 'GET', CMS), fetch(edge.url + '/').then(async (r) => { await r.arrayBuffer(); return r.status; })]);
    times.push(performance.now() - start);
    assert.equal(api.status, 200, 'the other sandbox');
    assert.equal(page, 200, "the front's page");
    await new Promise((r) => setTimeout(r, 250));
  }
  return times;
}

function report(what, times) {
  const sorted = [...times].sort((a, b) => a - b);
  const figures = { probes: times.length, medianMs: Math.round(sorted[sorted.length >> 1]), maxMs: Math.round(sorted[sorted.length - 1]) };
  console.log(`ROB-3 ${what}: ${JSON.stringify(figures)}`);
  // Before, such a sandbox froze the host: probes waited 90 s. A probe is a
  // liveness check, given room for a busy machine; the figures are printed.
  assert.ok(figures.maxMs < 5000, `${what}: a probe took ${figures.maxMs} ms`);
}

test('ROB-3 ROB-2: a Deployment of 100,000 replicas at speed 100 gets the edge budget\'s Pods while another sandbox and the front keep answering', async () => {
  const flooded = await createSandbox(edge, { cluster: { nodes: 3, speed: 100 } });
  const other = await createSandbox(edge, { cluster: API_ONLY });
  assert.equal((await call(other, 'POST', CMS, { body: configMap('probe') })).status, 201);
  const deployment = {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'flood' },
    spec: { replicas: 100000, selector: { matchLabels: { app: 'flood' } }, template: { metadata: { labels: { app: 'flood' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  };
  assert.equal((await call(flooded, 'POST', '/apis/apps/v1/namespaces/default/deployments', { body: deployment })).status, 201);
  const count = async () => (await call(flooded, 'GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Dflood')).json.items.length;
  report('100,000 replicas', await probeWhile(other, async () => (await count()) < 300));
  await eventually(async () => {
    const d = (await call(flooded, 'GET', '/apis/apps/v1/namespaces/default/deployments/flood')).json;
    const failure = (d.status.conditions ?? []).find((c) => c.type === 'ReplicaFailure');
    return failure && /exceeded quota: kubeplay-sandbox, requested: pods=1, used: pods=300, limited: pods=300/.test(failure.message);
  }, 'the Deployment saying why Pods are missing');
  assert.equal(await count(), 300);
});

test('ROB-3 ROB-1: the APF load generator at its bounds in one sandbox leaves another sandbox and the front answering', async () => {
  const loaded = await createSandbox(edge, { cluster: API_ONLY });
  const other = await createSandbox(edge, { cluster: API_ONLY });
  let done = false;
  const load = call(loaded, 'POST', '/debug/kubeplay/apf/load', {
    body: { path: '/api/v1/namespaces/default/configmaps', rounds: 20, flows: [{ user: 'elephant', concurrency: 100 }] },
  }).finally(() => { done = true; });
  const times = await probeWhile(other, async () => !done);
  assert.equal((await load).status, 200);
  report('a load of 2,000 requests', times);
  // A count past a bound is refused before anything runs.
  const bad = await call(loaded, 'POST', '/debug/kubeplay/apf/load', { body: { path: '/api', rounds: 92233720368547759, flows: [{ user: 'a', concurrency: 100 }] } });
  assert.equal(bad.status, 422);
  assert.equal(bad.json.details.causes[0].field, 'rounds');
});

test('ROB-3 ROB-2: 10,000 xDS streams asked of one sandbox get the edge budget\'s 64 while another sandbox and the front keep answering', async () => {
  const flooded = await createSandbox(edge, { cluster: API_ONLY });
  const other = await createSandbox(edge, { cluster: API_ONLY });
  const counts = { opened: 0, refused: 0, other: 0 };
  let done = false;
  const worker = async () => {
    for (let i = 0; i < 1000; i++) {
      const r = await call(flooded, 'POST', '/xds/v3/streams?protocol=delta');
      if (r.status === 201) counts.opened++;
      else if (r.status === 403 && r.json?.message?.includes('exceeded quota: kubeplay-sandbox, requested: kubeplay.dev/xds-streams=1, used: kubeplay.dev/xds-streams=64, limited: kubeplay.dev/xds-streams=64')) counts.refused++;
      else counts.other++;
    }
  };
  const flood = Promise.all(Array.from({ length: 10 }, worker)).finally(() => { done = true; });
  const times = await probeWhile(other, async () => !done);
  await flood;
  report('10,000 xDS streams asked', times);
  assert.deepEqual(counts, { opened: 64, refused: 10000 - 64, other: 0 });
});
