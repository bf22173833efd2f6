// WORK-2: the instructor page (/instructor) in headless Chromium against the
// native server with an instructor token (KUBEPLAY_INSTRUCTOR_TOKEN): it
// lists a workshop's sandboxes with their activity, resets one (the others
// keep their objects), and opens one read-only. Screenshots go to
// build/artifacts/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { artifacts, launchContext, startServer } from './harness.mjs';

const INSTRUCTOR = 'instructor-' + Math.random().toString(36).slice(2);
const CMS = '/api/v1/namespaces/default/configmaps';

let server, base, context, scratch;

before(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'kubeplay-instructor-'));
  mkdirSync(artifacts, { recursive: true });
  ({ proc: server, url: base } = await startServer(scratch, { env: { KUBEPLAY_INSTRUCTOR_TOKEN: INSTRUCTOR } }));
  context = await launchContext(scratch);
});

after(async () => {
  await context?.close();
  server?.kill('SIGTERM');
  rmSync(scratch, { recursive: true, force: true });
});

/** fetch against the server; {status, json}. */
async function call(method, path, { token = INSTRUCTOR, body } = {}) {
  const init = { method, headers: { Authorization: `Bearer ${token}` } };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers['Content-Type'] = 'application/json';
  }
  const r = await fetch(base + path, init);
  const text = await r.text();
  let json = null;
  try { json = JSON.parse(text); } catch { /* not JSON */ }
  return { status: r.status, json, text };
}

async function eventually(fn, what, timeoutMs = 15000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('WORK-2: the instructor page lists a workshop of 30 sandboxes on the native server with their activity, resets one and opens one read-only', async () => {
  const created = await call('POST', '/workshops', { body: { attendees: 3, cluster: { mode: 'api-only' }, labels: ['ann', 'bob', 'cid'] } });
  assert.equal(created.status, 201, created.text);
  const [ann, bob, cid] = created.json.sandboxes;
  const s = (sb, path) => `/s/${sb.id}${path}`;
  for (const sb of [ann, bob, cid]) {
    const r = await call('POST', s(sb, CMS), { token: sb.token, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${sb.label}-1` } } });
    assert.equal(r.status, 201, r.text);
  }
  assert.equal((await call('GET', s(bob, `${CMS}/missing`), { token: bob.token })).status, 404);
  // 27 more attendees, each with something done in their sandbox: 30 in all.
  const more = await call('POST', '/workshops', { body: { attendees: 27, cluster: { mode: 'api-only' } } });
  assert.equal(more.status, 201, more.text);
  for (const sb of more.json.sandboxes) {
    const r = await call('POST', s(sb, CMS), { token: sb.token, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'work' } } });
    assert.equal(r.status, 201, r.text);
  }

  const page = await context.newPage();
  await page.goto(base + '/instructor');
  await page.fill('[data-testid="instructor-token"]', INSTRUCTOR);
  await page.click('[data-testid="instructor-login-submit"]');
  const row = (label) => `[data-testid="instructor-row"][data-label="${label}"]`;
  for (const sb of [ann, bob, cid]) await page.waitForSelector(row(sb.label));
  await page.waitForSelector('[data-testid="instructor-status"][data-state="live"]');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="instructor-row"]').length === 30);
  const lastActive = await page.$$eval('[data-testid="instructor-row"] [data-testid="instructor-last-active"]', (cells) => cells.map((c) => c.textContent));
  assert.equal(lastActive.filter((t) => t !== '—').length, 30, `every attendee's activity shows: ${lastActive}`);
  assert.ok(!page.url().includes(INSTRUCTOR), 'the token is in no URL');
  assert.equal(await page.evaluate(() => localStorage.length), 0, 'nor in localStorage');
  // Activity: objects, a last-active time, bob's 404 among his recent errors.
  const annObjects = Number(await page.getAttribute(row('ann'), 'data-objects'));
  assert.ok(annObjects > 1, String(annObjects));
  assert.notEqual(await page.textContent(`${row('ann')} [data-testid="instructor-last-active"]`), '—');
  await page.waitForFunction((sel) => /404 get .*missing/.test(document.querySelector(sel)?.textContent || ''), `${row('bob')} [data-testid="instructor-errors"]`);
  assert.equal(await page.textContent(`${row('ann')} [data-testid="instructor-progress"]`), '—');
  await page.screenshot({ path: join(artifacts, 'work-2-instructor.png'), fullPage: true });

  // Reset ann's sandbox, confirming: hers is empty, the others keep theirs.
  page.once('dialog', (d) => d.accept());
  await page.click(`${row('ann')} [data-testid="instructor-reset"]`);
  await eventually(async () => (await call('GET', s(ann, CMS), { token: ann.token })).json?.items?.length === 0, "ann's sandbox emptied");
  for (const sb of [bob, cid]) {
    assert.deepEqual((await call('GET', s(sb, CMS), { token: sb.token })).json.items.map((o) => o.metadata.name), [`${sb.label}-1`]);
  }
  await page.waitForFunction(({ sel, want }) => Number(document.querySelector(sel)?.dataset.objects) === want, { sel: row('ann'), want: annObjects - 1 });

  // The attendee sheet: one block per attendee, with that attendee's token only.
  await page.click('[data-testid="instructor-sheet-show"]');
  await page.waitForSelector('[data-testid="sheet-attendee"][data-label="cid"]');
  const cidBlock = await page.textContent('[data-testid="sheet-attendee"][data-label="cid"]');
  assert.ok(cidBlock.includes(cid.token) && !cidBlock.includes(ann.token), cidBlock);
  await page.emulateMedia({ media: 'print' });
  assert.equal(await page.isVisible('[data-testid="instructor-table"]'), false, 'the table is not printed');
  assert.equal(await page.isVisible('[data-testid="sheet-attendee"][data-label="cid"]'), true);
  await page.emulateMedia({ media: 'screen' });

  // Every kubeconfig in one zip, a file per attendee with their own token.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="instructor-download"]')]);
  assert.equal(download.suggestedFilename(), 'kubeplay-kubeconfigs.zip');
  const zipFile = join(scratch, 'kubeconfigs.zip');
  await download.saveAs(zipFile);
  const names = execFileSync('unzip', ['-Z1', zipFile], { encoding: 'utf8' }).trim().split('\n');
  assert.equal(names.length, 30, names.join(' '));
  for (const label of ['ann', 'bob', 'cid']) assert.ok(names.includes(`kubeconfig-${label}.yaml`), names.join(' '));
  const bobConfig = execFileSync('unzip', ['-p', zipFile, 'kubeconfig-bob.yaml'], { encoding: 'utf8' });
  assert.ok(bobConfig.includes(`token: ${bob.token}`) && bobConfig.includes(`/s/${bob.id}`) && !bobConfig.includes(ann.token), bobConfig);

  // Add two sandboxes, then remove one, confirming.
  await page.fill('[data-testid="instructor-add-count"]', '2');
  await page.selectOption('[data-testid="instructor-add-mode"]', 'api-only');
  await page.click('[data-testid="instructor-add"]');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="instructor-row"]').length === 32);
  const before = new Set(['ann', 'bob', 'cid', ...more.json.sandboxes.map((sb) => sb.label)]);
  const added = (await page.$$eval('[data-testid="instructor-row"]', (rows) => rows.map((r) => r.dataset.label))).filter((l) => !before.has(l));
  page.once('dialog', (d) => d.accept());
  await page.click(`${row(added[0])} [data-testid="instructor-remove"]`);
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="instructor-row"]').length === 31);
  assert.equal((await call('GET', '/sandboxes')).json.sandboxes.length, 31);

  // A starting state (LEARN-6): ann's sandbox exported, and a new sandbox
  // added from the file holds her objects, byte for byte.
  assert.equal((await call('POST', s(ann, CMS), { token: ann.token, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'given' }, data: { from: 'ann' } } })).status, 201);
  const exported = await fetch(base + s(ann, '/debug/kubeplay/export'), { headers: { Authorization: `Bearer ${ann.token}` } });
  assert.equal(exported.status, 200);
  const stateFile = join(scratch, 'ann.kubeplay');
  writeFileSync(stateFile, Buffer.from(await exported.arrayBuffer()));
  const annList = await call('GET', s(ann, CMS), { token: ann.token });
  await page.setInputFiles('[data-testid="instructor-add-state"]', stateFile);
  await page.waitForFunction(() => document.querySelector('[data-testid="instructor-add-state-name"]').textContent === 'from ann.kubeplay');
  assert.equal(await page.inputValue('[data-testid="instructor-add-mode"]'), 'state');
  await page.fill('[data-testid="instructor-add-labels"]', 'dee');
  await page.click('[data-testid="instructor-add"]');
  await page.waitForSelector(row('dee'));
  const dee = (await call('GET', '/sandboxes/credentials')).json.sandboxes.find((sb) => sb.label === 'dee');
  const deeList = await call('GET', s(dee, CMS), { token: dee.token });
  assert.deepEqual(deeList.json.items.map((o) => JSON.stringify(o)), annList.json.items.map((o) => JSON.stringify(o)));
  assert.ok(deeList.json.items.some((o) => o.metadata.name === 'given'));
  await page.click('[data-testid="instructor-add-state-clear"]');
  assert.equal(await page.textContent('[data-testid="instructor-add-state-name"]'), 'new, empty sandboxes');
  page.once('dialog', (d) => d.accept());
  await page.click(`${row('dee')} [data-testid="instructor-remove"]`);
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="instructor-row"]').length === 31);

  // Open bob's sandbox read-only.
  const [view] = await Promise.all([page.waitForEvent('popup'), page.click(`${row('bob')} [data-testid="instructor-open"]`)]);
  await view.waitForSelector('[data-testid="readonly-badge"]');
  await view.waitForSelector('[data-testid="requests-status"][data-state="live"]');
  await view.click('[data-testid="tab-request"]');
  await view.selectOption('[data-testid="method"]', 'DELETE');
  assert.equal(await view.isDisabled('[data-testid="send"]'), true, 'no writes from a read-only view');
  await view.selectOption('[data-testid="method"]', 'GET');
  await view.fill('[data-testid="path"]', CMS);
  await view.click('[data-testid="send"]');
  await view.waitForSelector('[data-testid="response-status"][data-status="200"]');
  assert.match(await view.textContent('[data-testid="response-body"]'), /bob-1/);
  // The server refuses the instructor's writes too.
  assert.equal((await call('POST', s(bob, CMS), { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } } })).status, 403);
  await view.close();
  await page.close();
});

test('WORK-2 LEARN-3: an attendee\'s page tells the workshop host how far they got; the instructor page shows it', async () => {
  const created = await call('POST', '/workshops', { body: { attendees: 1, cluster: { mode: 'api-only' }, labels: ['eve'] } });
  assert.equal(created.status, 201, created.text);
  const [eve] = created.json.sandboxes;
  const progressOf = async () => (await call('GET', `/sandboxes/${eve.id}`)).json.progress;
  const attendee = await context.newPage();
  await attendee.goto(eve.playground);
  await attendee.click('[data-testid="target-offer-accept"]');
  await attendee.waitForFunction(() => window.kubeplayUI.currentTarget().kind === 'remote');

  // A tutorial opened, then its second step: the host hears the step.
  await attendee.evaluate(() => { location.hash = 'tutorials'; });
  await attendee.evaluate(() => window.kubeplayUI.tutorials.open('who-am-i'));
  await eventually(async () => (await progressOf()).tutorial === 'who-am-i', 'the tutorial reported');
  assert.deepEqual(await progressOf(), { tutorial: 'who-am-i', step: 1, steps: 11, exercises: {} });
  await attendee.click('[data-testid="tutorial-steps"] li:nth-child(2) button');
  await eventually(async () => (await progressOf()).step === 2, 'step 2 reported');

  // An exercise begun (one part of two done), then finished, whichever way.
  const as = (path, body) => call('POST', `/s/${eve.id}${path}`, { token: eve.token, body });
  assert.equal((await as('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } })).status, 201);
  assert.equal((await as('/api/v1/namespaces/shop/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web-config' }, data: { greeting: 'hello' } })).status, 201);
  await attendee.evaluate(() => { location.hash = 'exercise/configmap-env'; });
  await attendee.waitForSelector('[data-testid="exercise-part"][data-id="configmap"][data-ok="true"]', { timeout: 20000 });
  await eventually(async () => 'configmap-env' in (await progressOf()).exercises, 'the exercise reported');
  assert.deepEqual((await progressOf()).exercises, { 'configmap-env': false });
  const web = {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' },
    spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27', envFrom: [{ configMapRef: { name: 'web-config' } }] }] } } },
  };
  assert.equal((await as('/apis/apps/v1/namespaces/shop/deployments', web)).status, 201);
  await attendee.waitForSelector('[data-testid="exercise-complete"]', { timeout: 20000 });
  await eventually(async () => (await progressOf()).exercises['configmap-env'] === true, 'the exercise done reported');

  // The instructor's row says it.
  const page = await context.newPage();
  await page.goto(base + '/instructor');
  await page.fill('[data-testid="instructor-token"]', INSTRUCTOR);
  await page.click('[data-testid="instructor-login-submit"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="instructor-row"][data-label="eve"] [data-testid="instructor-progress"]')?.textContent === 'who-am-i · step 2/11 · 1/1 exercises', null, { timeout: 15000 });
  await page.close();
  await attendee.close();
});
