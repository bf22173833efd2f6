// LEARN-2 LEARN-3 in headless Chromium: a fresh profile lands on the start
// page (interactive before the sandbox is ready), opens the first basics
// exercise, completes it with the request builder, sees its parts ticked,
// reloads and keeps the progress; a wrong attempt shows the expected hint.
// Screenshots go to $LEARN_SHOTS (default build/artifacts).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as harness from './harness.mjs';

const shots = process.env.LEARN_SHOTS || harness.artifacts;
let scratch;
let server;
let base;
let context;

before(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'kubeplay-learn-'));
  mkdirSync(shots, { recursive: true });
  ({ proc: server, url: base } = await harness.startServer(scratch));
  context = await harness.launchContext(scratch);
});

after(async () => {
  await context?.close();
  server?.kill('SIGTERM');
  rmSync(scratch, { recursive: true, force: true });
});

// send fills the builder with method, path and a JSON body and sends it.
async function send(page, method, path, body) {
  await page.selectOption('[data-testid="method"]', method);
  await page.fill('[data-testid="path"]', path);
  await page.evaluate((text) => window.kubeplayUI.builder.setSpec({ ...window.kubeplayUI.builder.getSpec(), body: text, bodyMode: 'json', headers: [['Content-Type', 'application/json']] }), JSON.stringify(body));
  await page.$eval('[data-testid="response-status"]', (e) => { e.dataset.status = ''; });
  await page.click('[data-testid="send"]');
  await page.waitForSelector('[data-testid="response-status"][data-status="201"]', { timeout: 15000 });
}

const deployment = (image, replicas) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web' },
  spec: { replicas, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image }] } } },
});

test('LEARN-3 LEARN-2: the start page, then the first basics exercise done with the builder, ticked, kept across a reload; a wrong attempt shows its hint', async (t) => {
  const page = await context.newPage();
  await page.goto(base + '/');
  // The start page renders from static files, without waiting for the sandbox.
  await page.waitForSelector('[data-testid="track"][data-id="basics"] [data-testid="start-exercise"]');
  const interactive = await page.evaluate(() => [performance.now(), document.querySelector('[data-testid="sandbox-status"]').dataset.state]);
  assert.match(await page.innerText('[data-testid="welcome"]'), /kubeplay is a Kubernetes API server/);
  const tracks = await page.$$eval('[data-testid="track"] h2', (els) => els.map((e) => e.textContent));
  assert.deepEqual(tracks, ['Kubernetes basics', 'The Kubernetes API in depth', 'API Priority and Fairness', 'xDS', 'Controllers at work']);
  await page.waitForSelector('[data-testid="sandbox-status"][data-state="ready"]', { timeout: 30000 });
  const ready = await page.evaluate(() => performance.now());
  t.diagnostic(`start page interactive at ${Math.round(interactive[0])} ms (sandbox ${interactive[1]}), sandbox ready at ${Math.round(ready)} ms`);
  await page.screenshot({ path: join(shots, 'learn-start.png'), fullPage: true });

  const first = await page.getAttribute('[data-testid="track"][data-id="basics"] [data-testid="start-exercise"]', 'data-id');
  assert.equal(first, 'deployment-replicas');
  await page.click('[data-testid="start-exercise"][data-id="deployment-replicas"]');
  await page.waitForSelector('[data-testid="exercise-part"][data-id="namespace"][data-ok="false"]');
  assert.equal(await page.innerText('[data-testid="exercise-part"][data-id="namespace"] [data-testid="exercise-missing"]'), 'there is no namespace shop yet');

  // A wrong attempt with the builder: the wrong image.
  await page.click('[data-testid="tab-request"]');
  await send(page, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } });
  await send(page, 'POST', '/apis/apps/v1/namespaces/shop/deployments', deployment('nginx:1.26', 3));
  await page.goto(base + '/#exercise/deployment-replicas');
  await page.waitForSelector('[data-testid="exercise-part"][data-id="namespace"][data-ok="true"]', { timeout: 20000 });
  await page.waitForFunction(() => (document.querySelector('[data-testid="exercise-part"][data-id="image"] [data-testid="exercise-missing"]') || {}).textContent === 'the Deployment web runs nginx:1.26, not nginx:1.27', null, { timeout: 20000 });
  assert.match(await page.innerText('[data-testid="exercise-suggested-hint"]'), /Its Pod template's only container has image nginx:1\.27/);
  // Hints one at a time, in their order; the solution on demand.
  assert.equal(await page.$$eval('[data-testid="exercise-hints"] li', (els) => els.length), 0);
  await page.click('[data-testid="exercise-more-hint"]');
  await page.click('[data-testid="exercise-more-hint"]');
  assert.deepEqual(await page.$$eval('[data-testid="exercise-hints"] li', (els) => els.map((e) => e.textContent.slice(0, 22))), ['Objects live in namesp', 'A Deployment is in the']);
  assert.equal(await page.isVisible('[data-testid="exercise-solution-kubectl"]'), false);
  await page.click('[data-testid="exercise-solution"] summary');
  assert.match(await page.innerText('[data-testid="exercise-solution-kubectl"]'), /kubectl create deployment web -n shop --image=nginx:1\.27 --replicas=3/);
  await page.screenshot({ path: join(shots, 'learn-exercise-in-progress.png'), fullPage: true });

  // Mend it with the builder: replace the Deployment with the right image.
  await page.click('[data-testid="tab-request"]');
  const fixed = deployment('nginx:1.27', 3);
  await page.selectOption('[data-testid="method"]', 'PUT');
  await page.fill('[data-testid="path"]', '/apis/apps/v1/namespaces/shop/deployments/web');
  const current = await page.evaluate(async () => (await (await fetch('/apis/apps/v1/namespaces/shop/deployments/web')).json()).metadata.resourceVersion);
  fixed.metadata.resourceVersion = current;
  await page.evaluate((text) => window.kubeplayUI.builder.setSpec({ ...window.kubeplayUI.builder.getSpec(), body: text, bodyMode: 'json', headers: [['Content-Type', 'application/json']] }), JSON.stringify(fixed));
  await page.$eval('[data-testid="response-status"]', (e) => { e.dataset.status = ''; });
  await page.click('[data-testid="send"]');
  await page.waitForSelector('[data-testid="response-status"][data-status="200"]', { timeout: 15000 });

  await page.goto(base + '/#exercise/deployment-replicas');
  await page.waitForSelector('[data-testid="exercise-complete"]', { timeout: 60000 });
  const ticks = await page.$$eval('[data-testid="exercise-part"]', (els) => els.map((e) => e.dataset.ok));
  assert.deepEqual(ticks, ['true', 'true', 'true']);

  // A reload opens on the last view, and the start page keeps the progress.
  await page.reload();
  await page.waitForSelector('[data-testid="exercise-view"]:visible');
  await page.click('[data-testid="home"]');
  await page.waitForSelector('[data-testid="start-exercise-progress"][data-id="deployment-replicas"]');
  assert.equal((await page.innerText('[data-testid="start-exercise-progress"][data-id="deployment-replicas"]')).trim(), '3/3 ✔');
  await page.close();
});

test('LEARN-6 LEARN-2: an exercise that starts from a shared state: the sandbox starts again from it, the parts follow, the fix ticks them', async () => {
  const page = await context.newPage();
  await page.goto(base + '/#request');
  await page.waitForSelector('[data-testid="sandbox-status"][data-state="ready"]', { timeout: 30000 });
  // Something of the learner's, which starting from the state replaces.
  assert.equal((await harness.api(page, 'POST', '/api/v1/namespaces', { metadata: { name: 'mine' } })).status, 201);
  await page.evaluate(() => { location.hash = 'exercise/fix-the-selector'; });
  await page.waitForSelector('[data-testid="exercise-state"][data-state="offered"]');
  assert.match(await page.innerText('[data-testid="exercise-state"]'), /3 objects: 1 namespaces, 1 deployments, 1 services/);
  page.once('dialog', (d) => d.accept());
  await page.click('[data-testid="exercise-state-start"]');
  await page.waitForSelector('[data-testid="exercise-state-done"]', { timeout: 30000 });
  assert.equal((await harness.api(page, 'GET', '/api/v1/namespaces/mine')).status, 404, 'the sandbox started again');
  // The state's Service selects app: wbe: the selector part is open, and says why.
  await page.waitForSelector('[data-testid="exercise-part"][data-id="selector"][data-ok="false"] [data-testid="exercise-missing"]', { timeout: 15000 });
  assert.match(await page.innerText('[data-testid="exercise-part"][data-id="selector"]'), /selects \{"app":"wbe"\}/);
  // The state's Deployment runs its Pods here; the fix gives the Service its endpoints.
  const fixed = await harness.api(page, 'PATCH', '/api/v1/namespaces/shop/services/web', undefined, { 'Content-Type': 'application/merge-patch+json' },
    [...Buffer.from(JSON.stringify({ spec: { selector: { app: 'web' } } }))]);
  assert.equal(fixed.status, 200, fixed.text);
  await page.waitForSelector('[data-testid="exercise-complete"]', { timeout: 30000 });
  await page.close();
});
