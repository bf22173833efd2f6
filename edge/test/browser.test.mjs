// PLAY-9, PLAY-10: the playground served by the front Worker, opened in headless
// Chromium from the link a sandbox creation returns, talks to that sandbox.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { CMS, call, configMap, createSandbox, edgeIn, scratchDir } from './helpers.mjs';

const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';
let dir, edge, context;

before(async () => {
  dir = scratchDir('browser');
  edge = await edgeIn(dir);
  context = await chromium.launchPersistentContext(path.join(dir, 'profile'), {
    executablePath: chromiumPath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
});

after(async () => {
  await context?.close();
  await edge?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('PLAY-9: the playground link opens the front Worker\'s playground offering its sandbox as the target', { skip: !fs.existsSync(chromiumPath) && 'no Chromium' }, async () => {
  const sb = await createSandbox(edge);
  const other = await createSandbox(edge);
  assert.equal((await call(sb, 'POST', CMS, { body: configMap('made-with-curl') })).status, 201);
  assert.equal((await call(other, 'POST', CMS, { body: configMap('in-another-sandbox') })).status, 201);

  const page = await context.newPage();
  await page.goto(sb.playground);
  // The page offers the link's sandbox as its target and uses it once accepted.
  assert.equal(await page.textContent('[data-testid="target-offer-url"]'), sb.server);
  await page.click('[data-testid="target-offer-accept"]');
  await page.waitForFunction(() => document.body.dataset.target === 'remote');
  assert.equal(new URL(page.url()).hash, '', 'the token leaves the address bar');
  const stored = await page.evaluate(() => JSON.parse(localStorage.getItem('kubeplay.target')));
  assert.deepEqual(stored, { kind: 'remote', url: sb.server, token: sb.token });

  // A request sent from the page's request builder reaches the sandbox.
  await page.selectOption('[data-testid="method"]', 'GET');
  await page.fill('[data-testid="path"]', CMS);
  await page.click('[data-testid="send"]');
  await page.waitForSelector('[data-testid="response-status"][data-status="200"]', { timeout: 30000 });
  const body = await page.textContent('[data-testid="response-body"]');
  assert.match(body, /made-with-curl/);
  assert.doesNotMatch(body, /in-another-sandbox/);

  // And a write from the page is in the sandbox for kubectl and curl to see.
  const created = await page.evaluate(async ({ server, token, cm }) => {
    const r = await fetch(server + '/api/v1/namespaces/default/configmaps', {
      method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: JSON.stringify(cm),
    });
    return r.status;
  }, { server: sb.server, token: sb.token, cm: configMap('made-in-the-browser') });
  assert.equal(created, 201);
  assert.equal((await call(sb, 'GET', `${CMS}/made-in-the-browser`)).status, 200);
  await page.close();
});
