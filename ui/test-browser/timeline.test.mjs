// LEARN-5 in headless Chromium: the Timeline tab lists a sequence of writes
// with who made them; scrubbing back to an early revision shows the object,
// its collection and the Cluster tab as they were (read through the API at
// resourceVersionMatch=Exact); a diff shows the changed field and the user
// who changed it; replay steps through the changes with the watch event a
// client saw; "what caused this" opens the request; a compacted revision
// shows the 410 explained.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as harness from './harness.mjs';

const { artifacts } = harness;
let server, base, scratch, context;

before(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'kubeplay-timeline-'));
  mkdirSync(artifacts, { recursive: true });
  ({ proc: server, url: base } = await harness.startServer(scratch));
  context = await harness.launchContext(scratch, 'tl');
});

after(async () => {
  await context?.close();
  server?.kill('SIGTERM');
  rmSync(scratch, { recursive: true, force: true });
});

const rv = (r) => Number(r.json.metadata.resourceVersion);
const rowRevisions = (page) => page.$$eval('[data-testid="timeline-row"]', (rows) => rows.map((r) => Number(r.dataset.revision)));

test('LEARN-5: timeline, scrub, diff, replay, the cause, and the 410 of a compacted revision', async () => {
  const page = await context.newPage();
  await page.goto(base + '/#request');
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 30000 });
  await page.waitForSelector('[data-testid="sandbox-status"][data-state="ready"]', { timeout: 30000 });
  const api = (method, path, body, headers) => harness.api(page, method, path, body, headers);
  // A merge patch: its own content type, so its body goes raw.
  const patch = (path, body, headers = {}) =>
    harness.api(page, 'PATCH', path, undefined, { 'Content-Type': 'application/merge-patch+json', ...headers }, [...Buffer.from(JSON.stringify(body))]);

  // A sequence of writes, by two users.
  assert.equal((await api('POST', '/api/v1/namespaces', { metadata: { name: 'tl' } })).status, 201);
  const alice = { 'Impersonate-User': 'alice', 'Impersonate-Group': 'system:masters' };
  const created = await api('POST', '/api/v1/namespaces/tl/configmaps?fieldManager=alice-tool', { metadata: { name: 'app' }, data: { color: 'red' } }, alice);
  assert.equal(created.status, 201, created.text);
  const blue = await patch('/api/v1/namespaces/tl/configmaps/app?fieldManager=bob-tool', { data: { color: 'blue' } },
    { 'Impersonate-User': 'bob', 'Impersonate-Group': 'system:masters' });
  assert.equal(blue.status, 200, blue.text);
  const green = await patch('/api/v1/namespaces/tl/configmaps/app?fieldManager=alice-tool', { data: { color: 'green' } }, alice);
  assert.equal(green.status, 200, green.text);
  // A Deployment scaled after: the Cluster tab at an earlier revision shows its old size.
  const dep = await api('POST', '/apis/apps/v1/namespaces/tl/deployments', {
    metadata: { name: 'web' },
    spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  });
  assert.equal(dep.status, 201, dep.text);
  const scaled = await patch('/apis/apps/v1/namespaces/tl/deployments/web', { spec: { replicas: 3 } });
  assert.equal(scaled.status, 200, scaled.text);

  // The timeline of tl/app: three changes, newest first, each by whom.
  await page.evaluate(() => { location.hash = 'timeline'; });
  await page.fill('[data-testid="timeline-namespace"]', 'tl');
  await page.fill('[data-testid="timeline-name"]', 'app');
  await page.click('[data-testid="timeline-refresh"]');
  await page.waitForFunction(() => {
    const rows = [...document.querySelectorAll('[data-testid="timeline-row"]')];
    return rows.length === 3 && rows.every((r) => r.dataset.name === 'app');
  }, null, { timeout: 10000 });
  assert.deepEqual(await rowRevisions(page), [rv(green), rv(blue), rv(created)]);
  const rows = await page.$$eval('[data-testid="timeline-row"]', (rs) => rs.map((r) => ({ ...r.dataset })));
  assert.deepEqual(rows.map((r) => [r.type, r.user, r.manager]), [['MODIFIED', 'alice', 'alice-tool'], ['MODIFIED', 'bob', 'bob-tool'], ['ADDED', 'alice', 'alice-tool']]);

  // Pick bob's change: the diff shows the field he changed, and who he is.
  await page.click(`[data-testid="timeline-row"][data-revision="${rv(blue)}"]`);
  await page.waitForSelector('[data-testid="timeline-diff"][data-state="ok"]');
  assert.match(await page.textContent('[data-testid="timeline-who"]'), /bob · bob-tool \(Update\)/);
  const changed = await page.$$eval('[data-testid="timeline-diff"] span[data-op="-"], [data-testid="timeline-diff"] span[data-op="+"]', (s) => s.map((x) => x.textContent.trim()));
  assert.ok(changed.includes('-   color: red') && changed.includes('+   color: blue'), JSON.stringify(changed));
  assert.ok(!changed.some((l) => l.includes('managedFields')), 'managedFields left out');
  await page.check('[data-testid="timeline-show-managed"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="timeline-diff"]').textContent.includes('bob-tool'));
  // The watch event a client saw for it.
  await page.waitForSelector('[data-testid="timeline-event"][data-type="MODIFIED"]');
  const event = JSON.parse(await page.textContent('[data-testid="timeline-event"]'));
  assert.equal(event.object.metadata.resourceVersion, String(rv(blue)));
  assert.equal(event.object.data.color, 'blue');

  // Replay: older, then newer twice.
  await page.click('[data-testid="timeline-prev"]');
  await page.waitForFunction((r) => document.querySelector('[data-testid="timeline-detail-title"]').textContent.startsWith(`Revision ${r} · ADDED`), rv(created));
  await page.waitForSelector('[data-testid="timeline-event"][data-type="ADDED"]');
  await page.click('[data-testid="timeline-next"]');
  await page.click('[data-testid="timeline-next"]');
  await page.waitForFunction((r) => document.querySelector('[data-testid="timeline-detail-title"]').textContent.startsWith(`Revision ${r} · MODIFIED`), rv(green));

  // Scrub back to the first revision: the object and its collection as they were.
  await page.fill('[data-testid="timeline-rev"]', String(rv(created)));
  await page.click('[data-testid="timeline-go"]');
  await page.waitForFunction((r) => {
    const o = document.querySelector('[data-testid="timeline-object"]');
    return o.dataset.revision === String(r) && o.dataset.state === 'exists';
  }, rv(created));
  assert.match(await page.textContent('[data-testid="timeline-object"]'), /color: red/);
  assert.equal(await page.getAttribute('[data-testid="timeline-collection-item"][data-name="app"]', 'data-rv'), String(rv(created)));
  // And before it: not there yet.
  await page.fill('[data-testid="timeline-rev"]', String(rv(created) - 1));
  await page.click('[data-testid="timeline-go"]');
  await page.waitForSelector('[data-testid="timeline-object"][data-state="absent"]');
  await page.screenshot({ path: join(artifacts, 'learn-5-timeline.png'), fullPage: true });

  // The Cluster tab at the Deployment's creation: one replica, not three.
  await page.fill('[data-testid="timeline-rev"]', String(rv(dep)));
  await page.click('[data-testid="timeline-go"]');
  await page.click('[data-testid="timeline-cluster"]');
  await page.waitForSelector(`[data-testid="cluster-at-revision"][data-state="ok"][data-revision="${rv(dep)}"]`);
  await page.waitForSelector('[data-testid="cluster-deployment"][data-name="web"][data-replicas="1"]');
  await page.click('[data-testid="cluster-start"]'); // live again
  await page.waitForSelector('[data-testid="cluster-deployment"][data-name="web"][data-replicas="3"]', { timeout: 15000 });
  assert.equal(await page.isHidden('[data-testid="cluster-at-revision"]'), true);

  // What caused this: the request that made the change, in the Requests panel.
  await page.evaluate(() => { location.hash = 'timeline'; });
  await page.click(`[data-testid="timeline-row"][data-revision="${rv(blue)}"]`);
  const seq = await page.getAttribute('[data-testid="timeline-cause"]', 'data-seq');
  await page.click('[data-testid="timeline-cause"]');
  await page.waitForFunction((s) => (document.querySelector('[data-testid="requests-detail"]')?.textContent || '').includes(`#${s} PATCH /api/v1/namespaces/tl/configmaps/app`), seq);

  // Compacted: history now begins after bob's change; the creation's revision is 410, explained.
  const compact = await api('POST', `/debug/kubeplay/compact?resourceVersion=${rv(blue)}`);
  assert.equal(compact.status, 200, compact.text);
  await page.evaluate(() => { location.hash = 'timeline'; });
  await page.click('[data-testid="timeline-refresh"]');
  await page.waitForFunction((c) => document.querySelector('[data-testid="timeline-reach"]').dataset.compacted === String(c), rv(blue));
  assert.deepEqual(await rowRevisions(page), [rv(green)]);
  await page.click(`[data-testid="timeline-row"][data-revision="${rv(green)}"]`);
  await page.fill('[data-testid="timeline-rev"]', String(rv(created)));
  await page.click('[data-testid="timeline-go"]');
  await page.waitForSelector(`[data-testid="timeline-gone"][data-revision="${rv(created)}"]:not([hidden])`);
  const gone = await page.textContent('[data-testid="timeline-gone"]');
  assert.match(gone, /410 Gone/);
  assert.match(gone, /compacted/);
  assert.match(gone, /The API said: The resourceVersion for the provided list is too old/);
  await page.screenshot({ path: join(artifacts, 'learn-5-compacted.png'), fullPage: true });
  await page.close();
});
