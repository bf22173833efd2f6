// PLAY-9, PLAY-10 (edge half): the edge in a local workerd, as a user meets it —
// sandboxes created over HTTP, real kubectl with the returned kubeconfig, workerd
// killed between writes, two sandboxes side by side, bad input of every kind.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  API_ONLY, CMS, call, configMap, createSandbox, edgeIn, eventually, getHTTPS, haveKubectl, kubectl, kubectlRun, kubectlStream, scratchDir, writeKubeconfig,
} from './helpers.mjs';
import { SITE } from '../workerd.mjs';

let dir, edge;

before(async () => {
  dir = scratchDir('main');
  edge = await edgeIn(dir, { https: true, vars: { INSTRUCTOR_TOKEN: 'instructor-secret', CREATE_LIMIT_PER_HOUR: '50' } });
});

after(async () => {
  await edge?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('PLAY-9: kubectl drives a sandbox: create -f, get -o yaml, get -w sees a later change, delete', { skip: !haveKubectl && 'kubectl not installed' }, async () => {
  const sb = await createSandbox(edge, { overHTTPS: true });
  assert.match(sb.id, /^[0-9a-f]{32}$/);
  assert.equal(sb.server, `${edge.httpsUrl}/s/${sb.id}`);
  const kc = writeKubeconfig(dir, sb, edge);
  // The test's own calls go over plain HTTP to the same sandbox.
  sb.server = `${edge.url}/s/${sb.id}`;
  const manifest = path.join(dir, 'cm.yaml');
  fs.writeFileSync(manifest, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-kubectl\ndata:\n  greeting: hello\n');
  assert.match(await kubectl(kc, ['create', '-f', manifest]), /configmap\/from-kubectl created/);
  const yaml = await kubectl(kc, ['get', 'configmap', 'from-kubectl', '-o', 'yaml']);
  assert.match(yaml, /greeting: hello/);
  assert.match(yaml, /resourceVersion: "\d+"/);

  const watch = kubectlStream(kc, ['get', 'configmaps', '-w', '--no-headers', '-o', 'custom-columns=NAME:.metadata.name,GREETING:.data.greeting']);
  try {
    await eventually(() => watch.lines().some((l) => /from-kubectl\s+hello/.test(l)), 'the watch to list from-kubectl');
    await eventually(async () => (await call(sb, 'GET', '/kubeplay/status')).json.openWatches === 1, 'the sandbox to count the watch');
    await kubectl(kc, ['patch', 'configmap', 'from-kubectl', '--type', 'merge', '-p', '{"data":{"greeting":"changed"}}']);
    await eventually(() => watch.lines().some((l) => /from-kubectl\s+changed/.test(l)), `the watch to see the change (got ${watch.lines()})`);
  } finally {
    watch.child.kill('SIGTERM');
  }
  // The client went away: the watch ends in the Durable Object too, at the
  // latest when the next event finds nobody to write to (workerd notices a
  // closed connection when it writes).
  assert.equal((await call(sb, 'POST', CMS, { body: configMap('after-the-watch') })).status, 201);
  await eventually(async () => (await call(sb, 'GET', '/kubeplay/status')).json.openWatches === 0, 'the watch to end after kubectl left');

  assert.match(await kubectl(kc, ['delete', 'configmap', 'from-kubectl']), /deleted/);
  const gone = await call(sb, 'GET', `${CMS}/from-kubectl`);
  assert.equal(gone.status, 404);
  assert.equal(gone.json.reason, 'NotFound');
});

test('K8S-WRITE-4 K8S-URI-2: a sandbox validates fields as kube does and its warnings reach kubectl; explain reads its OpenAPI', { skip: !haveKubectl && 'kubectl not installed' }, async () => {
  const sb = await createSandbox(edge, { overHTTPS: true });
  const kc = writeKubeconfig(dir, sb, edge);
  const manifest = path.join(dir, 'unknown.yaml');
  fs.writeFileSync(manifest, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: typo\n  foo: bar\ndata:\n  a: b\nbogus: 1\n');
  // kubectl's default is Strict: kube's 400 naming both fields.
  await assert.rejects(kubectlRun(kc, ['create', '-f', manifest]),
    /Error from server \(BadRequest\): error when creating ".*": ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "bogus", unknown field "metadata.foo"/);
  // Warn: created, and the two Warning headers printed as kubectl prints them.
  const { stdout, stderr } = await kubectlRun(kc, ['apply', '--validate=warn', '-f', manifest]);
  assert.equal(stdout, 'configmap/typo created\n');
  assert.equal(stderr, 'Warning: unknown field "bogus"\nWarning: unknown field "metadata.foo"\n');
  // Over HTTP too: the headers as the Durable Object sends them.
  sb.server = `${edge.url}/s/${sb.id}`;
  const res = await call(sb, 'POST', `${CMS}?dryRun=All`, { body: { ...configMap('warned'), zzz: 1, spec: {} } });
  assert.equal(res.status, 201);
  assert.equal(res.headers.get('warning'), '299 - "unknown field \\"zzz\\"", 299 - "unknown field \\"spec\\""');
  // OpenAPI: a document by its hash, then 304 for its ETag (kubectl's cache asks so).
  const index = await call(sb, 'GET', '/openapi/v3');
  const doc = await call(sb, 'GET', index.json.paths['apis/apps/v1'].serverRelativeURL);
  assert.equal(doc.status, 200);
  assert.equal(doc.headers.get('cache-control'), 'public, immutable');
  const again = await call(sb, 'GET', '/openapi/v3/apis/apps/v1', { headers: { 'If-None-Match': doc.headers.get('etag') } });
  assert.equal(again.status, 304);
  assert.match(await kubectl(kc, ['explain', 'deployment.spec.strategy.type']), /ENUM:\n +Recreate\n +RollingUpdate\n/);
});

test('PLAY-10: two sandboxes are isolated; tokens, unknown ids and oversize bodies get Status errors', async () => {
  const a = await createSandbox(edge, { cluster: API_ONLY });
  const b = await createSandbox(edge, { cluster: API_ONLY });
  assert.notEqual(a.token, b.token);
  assert.equal((await call(a, 'POST', CMS, { body: configMap('only-in-a') })).status, 201);

  // A's token opens neither B's reads nor B's writes.
  for (const [method, body] of [['GET', undefined], ['POST', configMap('from-a-token')]]) {
    const r = await call(b, method, CMS, { body, token: a.token });
    assert.equal(r.status, 401, `${method} with A's token on B`);
    assert.deepEqual(r.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
  }
  for (const token of [null, '', 'not-the-token', b.token + 'x']) {
    const r = await call(b, 'GET', CMS, { token });
    assert.equal(r.status, 401, `token ${JSON.stringify(token)}`);
    assert.equal(r.json.reason, 'Unauthorized');
  }
  const bList = await call(b, 'GET', CMS);
  assert.equal(bList.status, 200);
  assert.deepEqual(bList.json.items, [], 'B never sees A\'s objects');
  assert.equal((await call(a, 'GET', `${CMS}/only-in-a`)).status, 200);

  // Unknown and malformed ids, and sandbox paths without one: 404 Status.
  const notFound = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the server could not find the requested resource', reason: 'NotFound', code: 404 };
  for (const id of ['0123456789abcdef0123456789abcdef', 'not-an-id', a.id.toUpperCase()]) {
    const r = await call(a, 'GET', CMS, { server: `${edge.url}/s/${id}` });
    assert.equal(r.status, 404, id);
    assert.deepEqual(r.json, notFound);
  }
  for (const p of ['/s', '/s/', '/s//api']) {
    const r = await call(a, 'GET', '', { server: edge.url + p });
    assert.equal(r.status, 404, p);
    assert.deepEqual(r.json, notFound, p);
  }
  // Below /s/{id} the core answers as the native server does: a path that does
  // not parse is net/http's 400, an unknown one kube's 404 Status.
  const unparsable = await call(a, 'GET', '/api/%zz');
  assert.deepEqual([unparsable.status, unparsable.text], [400, '400 Bad Request']);
  const unknown = await call(a, 'GET', '//api');
  assert.equal(unknown.status, 404);
  assert.equal(unknown.json.reason, 'NotFound');

  // Over 3 MiB: 413 before the core, with or without a declared length; nothing stored.
  const before = await call(a, 'GET', CMS);
  const big = configMap('too-big', { blob: 'x'.repeat(3 << 20) });
  const declared = await call(a, 'POST', CMS, { body: big });
  assert.equal(declared.status, 413);
  assert.deepEqual(declared.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Request entity too large: limit is 3145728', reason: 'RequestEntityTooLarge', code: 413 });
  const bytes = new TextEncoder().encode(JSON.stringify(big));
  const chunked = await fetch(a.server + CMS, {
    method: 'POST',
    headers: { ...a.auth, 'Content-Type': 'application/json' },
    duplex: 'half',
    body: new ReadableStream({
      start(controller) {
        for (let at = 0; at < bytes.length; at += 64 << 10) controller.enqueue(bytes.subarray(at, at + (64 << 10)));
        controller.close();
      },
    }),
  });
  assert.equal(chunked.status, 413, 'a streamed body without Content-Length');
  assert.equal((await chunked.json()).reason, 'RequestEntityTooLarge');
  const afterList = await call(a, 'GET', CMS);
  assert.deepEqual(afterList.json.items.map((i) => i.metadata.name), before.json.items.map((i) => i.metadata.name));
  assert.equal(afterList.json.metadata.resourceVersion, before.json.metadata.resourceVersion, 'nothing was written');
  assert.equal((await call(a, 'GET', `${CMS}/too-big`)).status, 404);

  // B's trouble (a bad body) does not touch A.
  const bad = await call(b, 'POST', CMS, { body: 'not json at all' });
  assert.equal(bad.status, 400);
  assert.equal(bad.json.kind, 'Status');
  assert.equal((await call(a, 'GET', `${CMS}/only-in-a`)).status, 200);
});

test('SIM-5 SIM-1: a sandbox runs the simulated cluster it was created with: its nodes, a Deployment\'s Pods Running; an API-only one has neither', async () => {
  const sim = await createSandbox(edge, { cluster: { nodes: 2, speed: 10 } });
  const nodes = await call(sim, 'GET', '/api/v1/nodes');
  assert.deepEqual(nodes.json.items.map((n) => n.metadata.name), ['kubeplay-control-plane', 'kubeplay-worker']);
  const deployment = {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' },
    spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx' }] } } },
  };
  assert.equal((await call(sim, 'POST', '/apis/apps/v1/namespaces/default/deployments', { body: deployment })).status, 201);
  await eventually(async () => {
    const pods = (await call(sim, 'GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Dweb')).json.items;
    return pods.length === 2 && pods.every((p) => p.status.phase === 'Running' && p.spec.nodeName === 'kubeplay-worker' && p.status.podIP.startsWith('10.244.1.'));
  }, 'two Pods Running on the worker');
  const svc = await call(sim, 'GET', '/api/v1/namespaces/default/services/kubernetes');
  assert.equal(svc.json.spec.clusterIP, '10.96.0.1');

  const apiOnly = await createSandbox(edge, { cluster: API_ONLY });
  assert.deepEqual((await call(apiOnly, 'GET', '/api/v1/nodes')).json.items, []);
  assert.deepEqual((await call(apiOnly, 'GET', CMS)).json.items, []);
});

test('XDS-7 XDS-1 XDS-2: a sandbox serves the xDS group and its discovery service: a spec Envoy cannot read is a 422, REST polling and a page\'s stream get the Cluster, an edit is pushed', async () => {
  const sb = await createSandbox(edge, { cluster: API_ONLY });
  const CLUSTERS = '/apis/xds.kubeplay.dev/v1/clusters';
  const cluster = (timeout, rv) => ({ apiVersion: 'xds.kubeplay.dev/v1', kind: 'Cluster', metadata: { name: 'web', ...(rv ? { resourceVersion: rv } : {}) }, spec: { connectTimeout: timeout } });
  // The group is in discovery, as in the browser and natively.
  const group = await call(sb, 'GET', '/apis/xds.kubeplay.dev/v1');
  assert.equal(group.status, 200);
  assert.ok(group.json.resources.some((r) => r.name === 'clusters' && r.kind === 'Cluster'));
  // The xDS module checks the spec as Envoy's type: a 422 naming the field.
  const bad = await call(sb, 'POST', CLUSTERS, { body: cluster('soon') });
  assert.equal(bad.status, 422, bad.text);
  assert.equal(bad.json.reason, 'Invalid');
  assert.match(bad.json.details.causes[0].field, /spec\.connectTimeout/);
  const created = await call(sb, 'POST', CLUSTERS, { body: cluster('1s') });
  assert.equal(created.status, 201, created.text);

  // REST polling: the Cluster, then 304 at its version.
  let polled;
  await eventually(async () => {
    polled = await call(sb, 'POST', '/v3/discovery:clusters', { body: { node: { id: 'edge' } } });
    return polled.status === 200 && polled.json.resources?.length === 1;
  }, 'REST polling to serve the Cluster');
  assert.equal(polled.json.typeUrl, 'type.googleapis.com/envoy.config.cluster.v3.Cluster');
  assert.equal(polled.json.resources[0].name, 'web');
  assert.equal(polled.json.resources[0].connectTimeout, '1s');
  const current = await call(sb, 'POST', '/v3/discovery:clusters', { body: { versionInfo: polled.json.versionInfo } });
  assert.equal(current.status, 304);
  assert.equal((await call(sb, 'POST', '/v3/discovery:clusters', { body: { resourceNames: 'web' } })).status, 400);

  // A page's delta stream: open, read lines, subscribe; an edit is pushed.
  const TYPE = 'type.googleapis.com/envoy.config.cluster.v3.Cluster';
  const opened = await call(sb, 'POST', '/xds/v3/streams?protocol=delta');
  assert.equal(opened.status, 201, opened.text);
  const stream = `${sb.server}/xds/v3/streams/${opened.json.id}`;
  // Every request to the stream carries the token its opening answered: not
  // even another client of the sandbox reads, posts to or ends it without.
  const auth = { 'X-Kubeplay-Stream-Token': opened.json.token };
  assert.equal((await call(sb, 'GET', `/xds/v3/streams/${opened.json.id}?timeoutSeconds=1`)).status, 403);
  const reading = await fetch(stream, { headers: { Authorization: `Bearer ${sb.token}`, ...auth } });
  assert.equal(reading.status, 200);
  const lines = [];
  const reader = reading.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  const pump = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffered += value;
      for (let i; (i = buffered.indexOf('\n')) >= 0; buffered = buffered.slice(i + 1)) lines.push(JSON.parse(buffered.slice(0, i)));
    }
  })().catch(() => {});
  try {
    // A page reading a stream keeps the core loaded, as a watch does.
    await eventually(async () => (await call(sb, 'GET', '/kubeplay/status')).json.openWatches === 1, 'the sandbox to count the stream');
    const subscribe = await call(sb, 'POST', `/xds/v3/streams/${opened.json.id}`, { body: { typeUrl: TYPE, resourceNamesSubscribe: ['web'] }, headers: auth });
    assert.equal(subscribe.status, 202, subscribe.text);
    await eventually(() => lines.length >= 1, 'the first delta response');
    assert.equal(lines[0].resources[0].name, 'web');
    assert.equal(lines[0].resources[0].resource.connectTimeout, '1s');
    assert.equal((await call(sb, 'POST', `/xds/v3/streams/${opened.json.id}`, { body: { typeUrl: TYPE, responseNonce: lines[0].nonce }, headers: auth })).status, 202);
    const rv = (await call(sb, 'GET', `${CLUSTERS}/web`)).json.metadata.resourceVersion;
    assert.equal((await call(sb, 'PUT', `${CLUSTERS}/web`, { body: cluster('2s', rv) })).status, 200);
    await eventually(() => lines.length >= 2, 'the edit to be pushed');
    assert.equal(lines[1].resources[0].resource.connectTimeout, '2s');
    // A NACK keeps the last good version, and the status shows it.
    const nacked = await call(sb, 'POST', `/xds/v3/streams/${opened.json.id}`, { body: { typeUrl: TYPE, responseNonce: lines[1].nonce, errorDetail: { message: 'rejected at the edge' } }, headers: auth });
    assert.equal(nacked.status, 202);
    await eventually(async () => (await call(sb, 'GET', '/xds/v3/status')).json.flatMap((st) => st.types).some((t) => t.nack?.message === 'rejected at the edge'), 'the NACK in the status');
  } finally {
    await reader.cancel().catch(() => {});
    await pump;
  }
  assert.equal((await call(sb, 'DELETE', `/xds/v3/streams/${opened.json.id}`, { headers: auth })).status, 204);
  await eventually(async () => (await call(sb, 'GET', '/kubeplay/status')).json.openWatches === 0, 'the stream to end');
});

test('PLAY-9: malformed creation requests and workshop mode', async () => {
  for (const body of ['{', '[]', '{"unknown":1}', '{} {}', '{"cluster":{"mode":"kind"}}', '{"cluster":{"nodes":51}}', '{"cluster":{"speed":-1}}', '{"cluster":{"size":1}}']) {
    const r = await fetch(edge.url + '/sandboxes', { method: 'POST', body });
    assert.equal(r.status, 400, body);
    const s = await r.json();
    assert.equal(s.kind, 'Status');
    assert.equal(s.reason, 'BadRequest');
  }
  // Listing is the instructor's.
  assert.equal((await fetch(edge.url + '/sandboxes')).status, 401);

  const workshop = (auth, body) => fetch(edge.url + '/workshops', { method: 'POST', headers: auth ? { Authorization: auth } : {}, body });
  for (const auth of [undefined, 'Bearer wrong', 'instructor-secret', 'Bearer instructor-secret2']) {
    const r = await workshop(auth, '{"attendees":2}');
    assert.equal(r.status, 401, String(auth));
    assert.equal((await r.json()).reason, 'Unauthorized');
  }
  for (const body of ['{"attendees":0}', '{"attendees":101}', '{"attendees":"3"}', 'nope']) {
    const r = await workshop('Bearer instructor-secret', body);
    assert.equal(r.status, 400, body);
  }
  const r = await fetch(edge.url + '/workshops', { method: 'POST', headers: { Authorization: 'Bearer instructor-secret' }, body: JSON.stringify({ attendees: 3, cluster: API_ONLY }) });
  assert.equal(r.status, 201);
  const { sandboxes } = await r.json();
  assert.equal(sandboxes.length, 3);
  assert.equal(new Set(sandboxes.map((s) => s.id)).size, 3);
  for (const [i, s] of sandboxes.entries()) {
    assert.match(s.kubeconfig, new RegExp(`server: ${s.server.replace(/[.]/g, '\\.')}\\n`));
    assert.match(s.kubeconfig, new RegExp(`token: ${s.token}\\n`));
    const link = new URL(s.playground);
    assert.equal(link.origin, edge.url);
    const preset = new URLSearchParams(link.hash.slice(1));
    assert.deepEqual([preset.get('target'), preset.get('url'), preset.get('token')], ['remote', s.server, s.token]);
    assert.equal((await call(s, 'POST', CMS, { body: configMap(`attendee-${i}`) })).status, 201);
  }
  // Each attendee sees only their own object.
  for (const [i, s] of sandboxes.entries()) {
    const names = (await call(s, 'GET', CMS)).json.items.map((o) => o.metadata.name);
    assert.deepEqual(names, [`attendee-${i}`]);
  }
  if (haveKubectl) {
    // The kubeconfig as handed out, pointed at the HTTPS socket kubectl needs.
    const s = sandboxes[1];
    const kc = writeKubeconfig(dir, { ...s, kubeconfig: s.kubeconfig.replace(edge.url, edge.httpsUrl) }, edge);
    const out = await kubectl(kc, ['get', 'configmaps', '-o', 'name']);
    assert.equal(out.trim(), 'configmap/attendee-1');
  }
});

test('PLAY-9: creation is limited per caller; idle sandboxes expire and their storage is deleted', async () => {
  const own = scratchDir('limits');
  const small = await edgeIn(own, { vars: { CREATE_LIMIT_PER_HOUR: '2', SANDBOX_IDLE_SECONDS: '2' } });
  try {
    // Written to at once: it expires 2 s after its last request.
    const first = await createSandbox(small);
    assert.equal((await call(first, 'POST', CMS, { body: configMap('short-lived') })).status, 201);
    await createSandbox(small);
    const refused = await fetch(small.url + '/sandboxes', { method: 'POST' });
    assert.equal(refused.status, 429);
    const s = await refused.json();
    assert.equal(s.reason, 'TooManyRequests');
    assert.ok(s.details.retryAfterSeconds > 0);
    assert.equal(refused.headers.get('Retry-After'), String(s.details.retryAfterSeconds));
    // Another caller (address) has its own allowance.
    const other = await fetch(small.url + '/sandboxes', { method: 'POST', headers: { 'CF-Connecting-IP': '192.0.2.7' } });
    assert.equal(other.status, 201);
    // ROB-3: an IPv6 caller is its /64: rotating addresses within it does not
    // renew the allowance; another /64 has its own.
    const from = (ip) => fetch(small.url + '/sandboxes', { method: 'POST', headers: { 'CF-Connecting-IP': ip } }).then((r) => r.status);
    assert.deepEqual([await from('2001:db8:1:2::1'), await from('2001:db8:1:2:aaaa::7'), await from('2001:db8:1:2:ffff::9'), await from('2001:db8:1:3::1')], [201, 201, 429, 201]);

    // Left alone past its idle limit, the sandbox is deleted by its alarm: its
    // id becomes unknown. (Any request would count as activity, so wait first.)
    await new Promise((r) => setTimeout(r, 4000));
    const r = await call(first, 'GET', `${CMS}/short-lived`);
    assert.equal(r.status, 404);
    assert.equal(r.json.message, 'the server could not find the requested resource');
    assert.match(small.output(), /kubeplay sandbox expired and deleted/);
  } finally {
    await small.stop();
    fs.rmSync(own, { recursive: true, force: true });
  }
});

test('PLAY-9: the bearer scheme is case-insensitive, as kube-apiserver reads it', async () => {
  const sb = await createSandbox(edge);
  for (const scheme of ['bearer', 'BEARER', 'Bearer']) {
    const r = await call(sb, 'GET', CMS, { token: null, headers: { Authorization: `${scheme} ${sb.token}` } });
    assert.equal(r.status, 200, `${scheme}: ${r.text}`);
  }
  const workshop = await fetch(edge.url + '/workshops', { method: 'POST', headers: { Authorization: 'bearer instructor-secret' }, body: '{"attendees":1}' });
  assert.equal(workshop.status, 201, await workshop.text());
  // The token ends at the next space; one space only after the scheme.
  const extra = await call(sb, 'GET', CMS, { token: null, headers: { Authorization: `Bearer ${sb.token} trailing` } });
  assert.equal(extra.status, 200, extra.text);
  for (const auth of [`Basic ${sb.token}`, 'bearer', 'bearer ', sb.token, `bearer${sb.token}`, `Bearer  ${sb.token}`, `Bearer\t${sb.token}`]) {
    const r = await call(sb, 'GET', CMS, { token: null, headers: { Authorization: auth } });
    assert.equal(r.status, 401, auth);
  }
});

test('PLAY-9: discovery names the host the client reached, as kube-apiserver does', async () => {
  const sb = await createSandbox(edge);
  for (const base of [edge.url, edge.httpsUrl]) {
    const server = `${base}/s/${sb.id}`;
    const r = base.startsWith('https:') ? await getHTTPS(server + '/api', sb.token, edge.ca) : await call(sb, 'GET', '/api', { server });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.serverAddressByClientCIDRs, [{ clientCIDR: '0.0.0.0/0', serverAddress: new URL(base).host }], base);
  }
});

test('PLAY-9: a sandbox whose object or core fails to start answers 503 ServiceUnavailable; the next request starts it', async () => {
  const own = scratchDir('failing');
  // Each created sandbox's object throws the first time it is constructed after a
  // restart, and each object's first core start fails.
  const e = await edgeIn(own, { sandboxEntry: path.resolve(import.meta.dirname, 'failing-sandbox.mjs'), sandboxVars: { FAIL_TO_START: 'object core' } });
  const unavailable = (r, message) => {
    assert.equal(r.status, 503, r.text);
    assert.deepEqual(Object.keys(r.json), ['kind', 'apiVersion', 'metadata', 'status', 'message', 'reason', 'code']);
    assert.deepEqual({ ...r.json, message: undefined }, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: undefined, reason: 'ServiceUnavailable', code: 503 });
    assert.match(r.json.message, message);
  };
  try {
    const sb = await createSandbox(e, { cluster: API_ONLY });
    unavailable(await call(sb, 'GET', CMS), /^the sandbox could not start: injected: the core failed to start$/);
    assert.equal((await call(sb, 'POST', CMS, { body: configMap('after-a-failed-start') })).status, 201);

    await e.restart('SIGKILL');
    unavailable(await call(sb, 'GET', CMS), /^the sandbox did not answer: .*injected: the object failed to start/);
    unavailable(await call(sb, 'GET', CMS), /^the sandbox could not start: injected: the core failed to start$/);
    const list = await call(sb, 'GET', CMS);
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(list.json.items.map((i) => i.metadata.name), ['after-a-failed-start']);
  } finally {
    await e.stop();
    fs.rmSync(own, { recursive: true, force: true });
  }
});

test('PLAY-9: the front Worker serves only the built files: no directory listing, no symlink out of the site; each with the page\'s security headers', async () => {
  const own = scratchDir('site');
  const site = path.join(own, 'site');
  const outside = path.join(own, 'outside');
  fs.cpSync(SITE, site, { recursive: true });
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'SECRET');
  fs.symlinkSync(outside, path.join(site, 'escape'));
  fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(site, 'secret.txt'));
  const e = await edgeIn(own, { siteDir: site });
  try {
    for (const p of ['/ui/', '/ui', '/tutorials/', '/tutorials', '/escape/', '/escape/secret.txt', '/secret.txt']) {
      const r = await fetch(e.url + p);
      const text = await r.text();
      assert.equal(r.status, 404, `${p}: ${text}`);
      assert.doesNotMatch(text, /SECRET|app\.js|index\.json/, p);
      assert.equal(JSON.parse(text).reason, 'NotFound', p);
    }
    for (const p of ['/', '/index.html', '/ui/app.js', '/sw.js', '/tutorials/index.json', '/kubeplay.wasm']) {
      const r = await fetch(e.url + p);
      await r.arrayBuffer();
      assert.equal(r.status, 200, p);
      assert.match(r.headers.get('content-security-policy') || '', /script-src 'self' 'wasm-unsafe-eval';.*frame-ancestors 'none'/, p);
      assert.equal(r.headers.get('x-content-type-options'), 'nosniff', p);
      assert.equal(r.headers.get('x-frame-options'), 'DENY', p);
    }
    // The embed page (LEARN-4) alone may be framed, by any site.
    const r = await fetch(e.url + '/embed/');
    assert.equal(r.status, 200, await r.text());
    assert.match(r.headers.get('content-security-policy') || '', /script-src 'self' 'wasm-unsafe-eval';.*frame-ancestors \*$/);
    assert.equal(r.headers.get('x-frame-options'), null);
    assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
  } finally {
    await e.stop();
    fs.rmSync(own, { recursive: true, force: true });
  }
});

test('LEARN-6: a sandbox starts from another host\'s export: the native server\'s, then its own; a damaged file is 400; a sandbox written to is 409 unless replaced; a workshop starts every sandbox from it', async () => {
  const { startServer } = await import('../../ui/test-browser/harness.mjs');
  const scratch = scratchDir('import');
  const native = await startServer(scratch);
  try {
    const h = { 'Content-Type': 'application/json' };
    const made = await fetch(native.url + '/api/v1/namespaces', { method: 'POST', headers: h, body: JSON.stringify({ metadata: { name: 'moved' } }) });
    assert.equal(made.status, 201);
    for (const name of ['a', 'b']) {
      const r = await fetch(native.url + '/api/v1/namespaces/moved/configmaps', { method: 'POST', headers: h, body: JSON.stringify(configMap(name)) });
      assert.equal(r.status, 201);
    }
    const cm = (name) => `/api/v1/namespaces/moved/configmaps/${name}`;
    const want = { a: await (await fetch(native.url + cm('a'))).text(), b: await (await fetch(native.url + cm('b'))).text() };
    const file = new Uint8Array(await (await fetch(native.url + '/debug/kubeplay/export')).arrayBuffer());

    const target = await createSandbox(edge, { cluster: API_ONLY });
    const damaged = Uint8Array.from(file);
    damaged[damaged.length - 60] ^= 0x40;
    const bad = await call(target, 'POST', '/debug/kubeplay/import', { body: damaged, headers: { 'Content-Type': 'application/vnd.kubeplay.export' } });
    assert.equal(bad.status, 400, bad.text);
    assert.match(bad.json.message, /the snapshot is damaged/);

    const imported = await call(target, 'POST', '/debug/kubeplay/import', { body: file, headers: { 'Content-Type': 'application/vnd.kubeplay.export' } });
    assert.equal(imported.status, 200, imported.text);
    assert.equal(imported.json.kind, 'KubeplayImport');
    for (const name of ['a', 'b']) {
      const got = await call(target, 'GET', cm(name));
      assert.equal(got.text, want[name], `${name}: the native server's object, byte for byte`);
    }
    // Its own export starts another edge sandbox, the same objects again.
    const again = await call(target, 'GET', '/debug/kubeplay/export');
    assert.equal(again.headers.get('Content-Type'), 'application/vnd.kubeplay.export');
    const second = await createSandbox(edge, { cluster: API_ONLY });
    assert.equal((await call(second, 'POST', CMS, { body: configMap('mine') })).status, 201);
    const exportBytes = new Uint8Array(await (await fetch(target.server + '/debug/kubeplay/export', { headers: { Authorization: `Bearer ${target.token}` } })).arrayBuffer());
    const refused = await call(second, 'POST', '/debug/kubeplay/import', { body: exportBytes });
    assert.equal(refused.status, 409, refused.text);
    assert.equal((await call(second, 'GET', `${CMS}/mine`)).status, 200, 'nothing replaced');
    const replaced = await call(second, 'POST', '/debug/kubeplay/import?replace=true', { body: exportBytes });
    assert.equal(replaced.status, 200, replaced.text);
    assert.equal((await call(second, 'GET', `${CMS}/mine`)).status, 404);
    assert.equal((await call(second, 'GET', cm('a'))).text, want.a);

    // A workshop whose every sandbox starts from the export (the state
    // base64 in the request), the export's cluster kind theirs; a damaged
    // state makes nothing.
    const state = Buffer.from(file).toString('base64');
    const ws = await fetch(edge.url + '/workshops', { method: 'POST', headers: { Authorization: 'Bearer instructor-secret' }, body: JSON.stringify({ labels: ['ann', 'bob'], state }) });
    const made2 = await ws.json();
    assert.equal(ws.status, 201, JSON.stringify(made2));
    for (const sb of made2.sandboxes) {
      for (const name of ['a', 'b']) {
        const got = await call(sb, 'GET', cm(name));
        assert.equal(got.text, want[name], `${sb.label}'s ${name}: the export's object, byte for byte`);
      }
      // The export came from a simulated cluster: so is the sandbox.
      assert.equal((await call(sb, 'GET', '/api/v1/nodes')).json.items.length > 0, true, `${sb.label} runs the export's simulated cluster`);
    }
    const before = (await (await fetch(edge.url + '/sandboxes', { headers: { Authorization: 'Bearer instructor-secret' } })).json()).sandboxes.length;
    const badState = await fetch(edge.url + '/workshops', { method: 'POST', headers: { Authorization: 'Bearer instructor-secret' }, body: JSON.stringify({ attendees: 2, state: Buffer.from(damaged).toString('base64') }) });
    const refusal = await badState.json();
    assert.equal(badState.status, 400, JSON.stringify(refusal));
    assert.match(refusal.message, /^state: the export cannot be used/);
    const after = (await (await fetch(edge.url + '/sandboxes', { headers: { Authorization: 'Bearer instructor-secret' } })).json()).sandboxes.length;
    assert.equal(after, before, 'a refused state makes no sandbox');
  } finally {
    native.proc.kill('SIGTERM');
    fs.rmSync(scratch, { recursive: true, force: true });
  }
});
