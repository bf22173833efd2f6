// LEARN-6 in headless Chromium: the in-browser sandbox exported to a file,
// reset, and imported from it (the same objects, uids, resourceVersions and
// managedFields; a watch from the export's revision goes on); an import
// refused while the sandbox is not fresh, or of a damaged file; a share link
// carrying the state to a second browser profile.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as harness from './harness.mjs';

const { artifacts } = harness;
let server, base, scratch, ann, bob;

before(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'kubeplay-share-'));
  mkdirSync(artifacts, { recursive: true });
  ({ proc: server, url: base } = await harness.startServer(scratch));
  ann = await harness.launchContext(scratch, 'ann');
  bob = await harness.launchContext(scratch, 'bob');
});

after(async () => {
  await ann?.close();
  await bob?.close();
  server?.kill('SIGTERM');
  rmSync(scratch, { recursive: true, force: true });
});

async function open(context, hash = '#request') {
  const page = await context.newPage();
  await page.goto(base + '/' + hash);
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 30000 });
  await page.waitForSelector('[data-testid="sandbox-status"][data-state="ready"]', { timeout: 30000 });
  return page;
}

// api sends raw bytes as the fifth argument.
const api = (page, method, path, body, raw) => harness.api(page, method, path, body, {}, raw);

// The objects the test made in namespace keep, whole, as the API answers
// them (the simulated cluster's root CA publisher adds its ConfigMap there
// when it gets to it, before or after an export).
const kept = async (page) => {
  const r = await api(page, 'GET', '/api/v1/namespaces/keep/configmaps');
  return r.json.items.filter((o) => o.metadata.name !== 'kube-root-ca.crt');
};

test('LEARN-6: export to a file, reset, import it: the same objects; the history goes on; bad imports change nothing; a share link carries the state to another profile', async () => {
  const page = await open(ann);
  assert.equal((await api(page, 'POST', '/api/v1/namespaces', { metadata: { name: 'keep' } })).status, 201);
  for (const name of ['one', 'two']) {
    assert.equal((await api(page, 'POST', '/api/v1/namespaces/keep/configmaps', { metadata: { name, labels: { app: 'web' } }, data: { name } })).status, 201);
  }
  const before = await kept(page);
  assert.deepEqual(before.map((o) => o.metadata.name), ['one', 'two']);

  // Export through the menu: a .kubeplay file.
  await page.click('[data-testid="state-menu"] summary');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="export-sandbox"]')]);
  assert.match(download.suggestedFilename(), /^kubeplay-\d+\.kubeplay$/);
  const file = join(scratch, download.suggestedFilename());
  await download.saveAs(file);
  const bytes = readFileSync(file);
  const header = JSON.parse(bytes.subarray(0, bytes.indexOf(10)).toString());
  assert.equal(header.kind, 'KubeplayExport');

  // Reset: gone.
  page.once('dialog', (d) => d.accept());
  await page.click('[data-testid="reset-sandbox"]');
  await page.waitForFunction(() => fetch('/api/v1/namespaces/keep').then((r) => r.status === 404), null, { timeout: 30000, polling: 300 });

  // A damaged file: 400, nothing changes.
  const damaged = Uint8Array.from(bytes);
  damaged[damaged.length - 50] ^= 0x40;
  const bad = await api(page, 'POST', '/debug/kubeplay/import', undefined, [...damaged]);
  assert.equal(bad.status, 400, bad.text);
  assert.match(bad.json.message, /the export cannot be used: the snapshot is damaged/);
  assert.equal((await api(page, 'GET', '/api/v1/namespaces/keep')).status, 404);

  // Import through the menu, confirming.
  page.once('dialog', (d) => d.accept());
  await page.setInputFiles('[data-testid="import-file"]', file);
  await page.waitForSelector('[data-testid="page-notice"]:not([hidden])', { timeout: 30000 });
  assert.match(await page.innerText('[data-testid="page-notice"]'), new RegExp(`Imported ${download.suggestedFilename()}: revision ${header.revision}`));
  assert.deepEqual(await kept(page), before, 'the same objects: uids, resourceVersions, managedFields');

  // The history went on from the export's revision: a watch from it sees the
  // next write.
  const watched = page.evaluate(async (rv) => {
    const r = await fetch(`/api/v1/namespaces/keep/configmaps?watch=1&timeoutSeconds=3&resourceVersion=${rv}`);
    return r.text();
  }, header.revision);
  await new Promise((r) => setTimeout(r, 300));
  const after = await api(page, 'POST', '/api/v1/namespaces/keep/configmaps', { metadata: { name: 'three' } });
  assert.equal(after.status, 201);
  assert.ok(Number(after.json.metadata.resourceVersion) > header.revision);
  const events = (await watched).trim().split('\n').map((l) => JSON.parse(l));
  // (The simulated cluster, started again, may publish its root CA there too.)
  assert.ok(events.some((e) => e.type === 'ADDED' && e.object.metadata.name === 'three'), JSON.stringify(events));
  assert.ok(events.every((e) => Number(e.object.metadata.resourceVersion) > header.revision), 'nothing from before the export\'s revision');

  // Written to since: an import without ?replace=true is refused.
  const conflict = await api(page, 'POST', '/debug/kubeplay/import', undefined, [...bytes]);
  assert.equal(conflict.status, 409, conflict.text);
  assert.equal(conflict.json.reason, 'Conflict');
  assert.equal((await api(page, 'GET', '/api/v1/namespaces/keep/configmaps/three')).status, 200, 'nothing replaced');

  // A share link, opened in another profile: asked, then taken in. A
  // workshop's state of 50 objects fits in 8 KB of link.
  for (let i = 0; i < 45; i++) {
    const r = await api(page, 'POST', '/api/v1/namespaces/keep/configmaps', { metadata: { name: `w-${String(i).padStart(2, '0')}`, labels: { app: 'shop' } }, data: { color: ['red', 'green', 'blue'][i % 3] } });
    assert.equal(r.status, 201, r.text);
  }
  await page.click('[data-testid="state-menu"] summary');
  await page.click('[data-testid="share-sandbox"]');
  const link = await page.inputValue('[data-testid="share-link"]');
  assert.ok(link.startsWith(base + '/#share='), link.slice(0, 80));
  const summary = await page.$eval('[data-testid="share-link-summary"]', (e) => ({ ...e.dataset, text: e.textContent }));
  console.log(`a share link of ${summary.objects} objects: ${summary.bytes} bytes of fragment (${summary.text.split(';')[0]})`);
  assert.ok(Number(summary.objects) >= 50, summary.text);
  assert.ok(Number(summary.bytes) <= 8192, `${summary.bytes} bytes of fragment for ${summary.objects} objects`);
  await page.screenshot({ path: join(artifacts, 'learn-6-share.png') });
  const shared = await kept(page);

  const other = await open(bob, '#request');
  assert.equal((await api(other, 'GET', '/api/v1/namespaces/keep')).status, 404);
  await other.goto(link);
  await other.waitForSelector('[data-testid="import-offer-accept"]:not([disabled])', { timeout: 30000 });
  assert.match(await other.innerText('[data-testid="import-offer-detail"]'), /\d+ objects: \d+ configmaps/);
  await other.click('[data-testid="import-offer-accept"]');
  await other.waitForSelector('[data-testid="page-notice"]:not([hidden]), [data-testid="page-error"]:not([hidden])', { timeout: 30000 });
  assert.equal(await other.isVisible('[data-testid="page-error"]'), false, await other.innerText('[data-testid="page-error"]'));
  assert.equal(await other.evaluate(() => location.hash), '', 'the fragment is dropped');
  // The same objects (uids, managedFields), each with the resourceVersion its write got there.
  const noRV = (objs) => objs.map((o) => ({ ...o, metadata: { ...o.metadata, resourceVersion: undefined } }));
  assert.deepEqual(noRV(await kept(other)), noRV(shared), 'the same objects in the other profile');

  // A link that does not decode: a message, not a blank sandbox.
  await other.goto(base + '/#share=bm90IGd6aXA');
  await other.waitForFunction(() => /cannot be read/.test(document.querySelector('[data-testid="import-offer-detail"]')?.textContent || ''));
  assert.equal(await other.isDisabled('[data-testid="import-offer-accept"]'), true);
  assert.equal((await api(other, 'GET', '/api/v1/namespaces/keep')).status, 200, 'the sandbox keeps what it holds');
  await other.close();
  await page.close();
});
