// WORK-2: the instructor's view at the edge: GET /sandboxes and its
// credentials, reset, new token and delete over the Registry and the sandbox
// objects, the instructor token reading (only) any sandbox, and the
// instructor page (/instructor) in headless Chromium against this edge.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { API_ONLY, CMS, call, configMap, edgeIn, eventually, scratchDir } from './helpers.mjs';

const INSTRUCTOR = 'instructor-secret';
const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';
let dir, edge;

before(async () => {
  dir = scratchDir('instructor');
  edge = await edgeIn(dir, { vars: { INSTRUCTOR_TOKEN: INSTRUCTOR } });
});

after(async () => {
  await edge?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A control request as the instructor (or with auth); {status, json}. */
async function control(method, p, { body, auth = `Bearer ${INSTRUCTOR}` } = {}) {
  const init = { method, headers: auth ? { Authorization: auth } : {} };
  if (body !== undefined) init.body = JSON.stringify(body);
  const r = await fetch(edge.url + p, init);
  const text = await r.text();
  let json = null;
  try { json = JSON.parse(text); } catch { /* not JSON */ }
  return { status: r.status, json, text };
}

async function workshop(labels, cluster = API_ONLY) {
  const r = await control('POST', '/workshops', { body: { attendees: labels.length, cluster, labels } });
  assert.equal(r.status, 201, r.text);
  return r.json.sandboxes.map((s) => ({ ...s, auth: { Authorization: `Bearer ${s.token}` } }));
}

const infoOf = async (id) => (await control('GET', '/sandboxes')).json.sandboxes.find((s) => s.id === id);

test('WORK-2: the edge lists the instructor\'s sandboxes with their activity, and resets, re-tokens and deletes one', async () => {
  for (const auth of [null, 'Bearer wrong']) {
    const r = await control('GET', '/sandboxes', { auth });
    assert.equal(r.status, 401, String(auth));
    assert.deepEqual(r.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
    assert.equal((await control('GET', '/sandboxes/credentials', { auth })).status, 401);
  }
  const [ann, bob] = await workshop(['ann', 'bob']);
  assert.equal((await call(ann, 'POST', CMS, { body: configMap('ann-1') })).status, 201);
  assert.equal((await call(ann, 'GET', `${CMS}/missing`)).status, 404);
  assert.equal((await call(bob, 'POST', CMS, { body: configMap('bob-1') })).status, 201);

  const list = await control('GET', '/sandboxes');
  assert.equal(list.status, 200);
  const a = list.json.sandboxes.find((s) => s.id === ann.id);
  assert.equal(a.label, 'ann');
  assert.equal(a.mode, 'api-only');
  assert.ok(a.workshop, 'a workshop id');
  assert.ok(a.objects > 1 && a.budget.objects === a.objects && a.budget.maxObjects > a.objects && a.budget.maxBytes > a.budget.bytes, JSON.stringify(a.budget));
  assert.ok(Date.parse(a.lastActiveAt) >= Date.parse(a.createdAt), `${a.lastActiveAt} after ${a.createdAt}`);
  assert.deepEqual(a.progress, { tutorial: '', step: 0, steps: 0, exercises: {} });
  assert.deepEqual(a.recentErrors.map((e) => [e.code, e.verb, e.uri, e.message]), [[404, 'get', `${CMS}/missing`, 'configmaps "missing" not found']]);
  assert.equal(a.recentErrors[0].user, 'kubernetes-admin');

  const creds = await control('GET', '/sandboxes/credentials');
  const c = creds.json.sandboxes.find((s) => s.id === ann.id);
  assert.deepEqual([c.label, c.token, c.server], ['ann', ann.token, ann.server]);
  assert.match(c.kubeconfig, new RegExp(`token: ${ann.token}\\n`));

  // The instructor token reads a sandbox, and writes nothing.
  const asInstructor = { token: INSTRUCTOR };
  const read = await call(ann, 'GET', CMS, asInstructor);
  assert.equal(read.status, 200);
  assert.deepEqual(read.json.items.map((o) => o.metadata.name), ['ann-1']);
  assert.equal((await call(ann, 'GET', '/debug/kubeplay/requests', asInstructor)).status, 200);
  const write = await call(ann, 'POST', CMS, { ...asInstructor, body: configMap('by-instructor') });
  assert.equal(write.status, 403);
  assert.equal(write.json.reason, 'Forbidden');
  // Nor does a client claiming the front's header.
  const forged = await call(ann, 'GET', CMS, { token: 'wrong', headers: { 'X-Kubeplay-Instructor': 'read' } });
  assert.equal(forged.status, 401);

  // The attendee's page puts its progress; the instructor sees it and may
  // read it, not write it; bad records are 400 and change nothing (the same
  // records internal/control's test sends natively).
  const progress = { tutorial: 'pods', step: 3, steps: 7, exercises: { 'first-pod': true, 'scale-up': false } };
  const put = await call(ann, 'PUT', '/kubeplay/progress', { body: progress });
  assert.equal(put.status, 200, put.text);
  assert.deepEqual(put.json, progress);
  assert.deepEqual((await infoOf(ann.id)).progress, progress);
  assert.deepEqual((await infoOf(bob.id)).progress, { tutorial: '', step: 0, steps: 0, exercises: {} });
  assert.deepEqual((await call(ann, 'GET', '/kubeplay/progress', asInstructor)).json, progress);
  assert.equal((await call(ann, 'PUT', '/kubeplay/progress', { ...asInstructor, body: {} })).status, 403);
  assert.equal((await call(ann, 'PUT', '/kubeplay/progress', { token: bob.token, body: {} })).status, 401);
  assert.equal((await call(ann, 'POST', '/kubeplay/progress', { body: {} })).status, 405);
  const { bad } = JSON.parse(fs.readFileSync(new URL('../../internal/control/testdata/bad-progress.json', import.meta.url), 'utf8'));
  for (const body of bad) {
    const r = await call(ann, 'PUT', '/kubeplay/progress', { body });
    assert.equal(r.status, 400, `${body.slice(0, 80)}: ${r.text}`);
    assert.equal(r.json.reason, 'BadRequest');
  }
  assert.equal((await call(ann, 'PUT', '/kubeplay/progress', { body: ' '.repeat((16 << 10) + 1) })).status, 413);
  assert.deepEqual((await call(ann, 'GET', '/kubeplay/progress')).json, progress);

  // Reset empties ann's sandbox and leaves bob's.
  const reset = await control('POST', `/sandboxes/${ann.id}/reset`);
  assert.equal(reset.status, 200, reset.text);
  assert.equal(reset.json.id, ann.id);
  assert.equal(reset.json.label, 'ann');
  assert.deepEqual((await call(ann, 'GET', CMS)).json.items, []);
  assert.deepEqual(reset.json.progress, { tutorial: '', step: 0, steps: 0, exercises: {} }, 'a fresh sandbox, nothing done in it');
  assert.deepEqual((await call(bob, 'GET', CMS)).json.items.map((o) => o.metadata.name), ['bob-1']);

  // A new token: the old one is refused from then on.
  const t = await control('POST', `/sandboxes/${bob.id}/token`);
  assert.equal(t.status, 200, t.text);
  assert.notEqual(t.json.token, bob.token);
  assert.equal((await call(bob, 'GET', CMS)).status, 401);
  assert.equal((await call(bob, 'GET', CMS, { token: t.json.token })).status, 200);
  assert.equal((await control('GET', '/sandboxes/credentials')).json.sandboxes.find((s) => s.id === bob.id).token, t.json.token);

  // Delete: bob's sandbox is gone, from the list too.
  const del = await control('DELETE', `/sandboxes/${bob.id}`);
  assert.equal(del.status, 200, del.text);
  assert.equal(del.json.status, 'Success');
  assert.equal((await call(bob, 'GET', CMS, { token: t.json.token })).status, 404);
  assert.equal(await infoOf(bob.id), undefined);
  for (const [method, p] of [['POST', `/sandboxes/${bob.id}/reset`], ['DELETE', `/sandboxes/${bob.id}`], ['POST', `/sandboxes/${'0'.repeat(32)}/token`]]) {
    const r = await control(method, p);
    assert.equal(r.status, 404, `${method} ${p}`);
    assert.equal(r.json.reason, 'NotFound');
  }
});

test('WORK-2: the instructor page at the edge lists sandboxes with activity and resets one', { skip: !fs.existsSync(chromiumPath) && 'no Chromium' }, async () => {
  const [cat, dan] = await workshop(['cat', 'dan']);
  assert.equal((await call(cat, 'POST', CMS, { body: configMap('cat-1') })).status, 201);
  assert.equal((await call(dan, 'POST', CMS, { body: configMap('dan-1') })).status, 201);
  const page = edge.url + '/instructor';
  const context = await chromium.launchPersistentContext(path.join(dir, 'profile'), {
    executablePath: chromiumPath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const p = await context.newPage();
    const res = await p.goto(page);
    assert.equal(res.headers()['x-frame-options'], 'DENY');
    await p.fill('[data-testid="instructor-token"]', INSTRUCTOR);
    await p.click('[data-testid="instructor-login-submit"]');
    const row = (label) => `[data-testid="instructor-row"][data-label="${label}"]`;
    await p.waitForSelector(row('cat'));
    await p.waitForSelector(row('dan'));
    assert.ok(!p.url().includes(INSTRUCTOR), 'the token is in no URL');
    assert.equal(await p.evaluate(() => localStorage.length), 0, 'nor in localStorage');
    const catObjects = Number(await p.getAttribute(row('cat'), 'data-objects'));
    assert.ok(catObjects > 1, String(catObjects));
    assert.equal(await p.textContent(`${row('cat')} [data-testid="instructor-progress"]`), '—');

    // Reset cat's sandbox from the page, confirming.
    p.once('dialog', (d) => d.accept());
    await p.click(`${row('cat')} [data-testid="instructor-reset"]`);
    await eventually(async () => (await call(cat, 'GET', CMS)).json.items.length === 0, "cat's sandbox emptied");
    assert.deepEqual((await call(dan, 'GET', CMS)).json.items.map((o) => o.metadata.name), ['dan-1']);
    // Once the fresh core runs again, the page shows one object fewer: the ConfigMap.
    await p.waitForFunction(({ sel, want }) => Number(document.querySelector(sel)?.dataset.objects) === want, { sel: row('cat'), want: catObjects - 1 });

    // Open dan's sandbox read-only: the playground page on /s/{id} with the
    // instructor token from the tab's storage; it reads, and sends no write.
    const [view] = await Promise.all([p.waitForEvent('popup'), p.click(`${row('dan')} [data-testid="instructor-open"]`)]);
    await view.waitForSelector('[data-testid="readonly-badge"]');
    assert.ok(!view.url().includes(INSTRUCTOR));
    assert.equal(new URL(view.url()).searchParams.get('readonly'), dan.id);
    await view.waitForSelector('[data-testid="requests-panel"]', { state: 'visible' });
    await view.waitForSelector('[data-testid="requests-status"][data-state="live"]');
    await view.click('[data-testid="tab-request"]');
    await view.selectOption('[data-testid="method"]', 'POST');
    assert.equal(await view.isDisabled('[data-testid="send"]'), true, 'no writes from a read-only view');
    await view.selectOption('[data-testid="method"]', 'GET');
    await view.fill('[data-testid="path"]', CMS);
    await view.click('[data-testid="send"]');
    await view.waitForSelector('[data-testid="response-status"][data-status="200"]');
    assert.match(await view.textContent('[data-testid="response-body"]'), /dan-1/);
    assert.equal(await view.evaluate((t) => JSON.stringify(localStorage).includes(t), INSTRUCTOR), false, 'the token is not stored');
  } finally {
    await context.close();
  }
});
