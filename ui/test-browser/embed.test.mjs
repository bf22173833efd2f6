// Embedding (LEARN-4) in headless Chromium: a page of another site (a
// second local origin, http://localhost:PORT, beside the playground at
// http://127.0.0.1:PORT) embeds a tutorial with one <script> tag, and a
// sandbox with a preset state. The frame runs its own sandbox, which the
// browser keeps apart from the playground's own; neither the frame nor the
// page can reach into the other; an unknown tutorial says so in the frame,
// and so does a browser that keeps framed sites from storage (third-party
// cookies blocked), with a link to the same page in a tab of its own.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as harness from './harness.mjs';

let server, base, context, scratch, other, otherBase;

const PRESET = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: preset\ndata:\n  from: the embedding page\n';

before(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'kubeplay-embed-'));
  mkdirSync(harness.artifacts, { recursive: true });
  ({ proc: server, url: base } = await harness.startServer(scratch));
  // The embedding site: its pages, and a manifest it lets any site read.
  const pages = {
    '/': `<!doctype html><title>Docs</title><body><h1>A docs page</h1><script src="${base}/embed.js" data-tutorial="chunked-lists" data-height="800"></script>`,
    '/terminal.html': `<!doctype html><title>Docs</title><body><p>Try it:</p><script src="${base}/embed.js" data-terminal data-manifest="/preset.yaml"></script>`,
    '/unknown.html': `<!doctype html><title>Docs</title><script src="${base}/embed.js" data-tutorial="no-such-tutorial"></script>`,
  };
  other = createServer((req, res) => {
    if (req.url === '/preset.yaml') {
      res.writeHead(200, { 'Content-Type': 'application/yaml', 'Access-Control-Allow-Origin': '*' });
      return res.end(PRESET);
    }
    const page = pages[req.url];
    res.writeHead(page ? 200 : 404, { 'Content-Type': 'text/html' });
    res.end(page || 'not found');
  });
  await new Promise((resolve) => other.listen(0, '127.0.0.1', resolve));
  otherBase = `http://localhost:${other.address().port}`;
  // A browser that lets sites framed by others keep storage (a user's
  // setting): the sandbox runs in the frame. The other test's does not.
  context = await harness.launchContext(scratch, 'profile', { thirdPartyStorage: true });
});

after(async () => {
  await context?.close();
  server?.kill('SIGTERM');
  other?.close();
  rmSync(scratch, { recursive: true, force: true });
});

// embedFrame is the page's kubeplay frame, once its sandbox is ready.
async function embedFrame(page) {
  await page.waitForSelector('iframe.kubeplay-embed');
  const frame = await (await page.$('iframe.kubeplay-embed')).contentFrame();
  await frame.waitForSelector('[data-testid="sandbox-status"][data-state="ready"]', { timeout: 60000 });
  return frame;
}

test('LEARN-4: a page of another site embeds a tutorial with one script tag; it plays in the frame, which cannot reach the page, nor the page it', async () => {
  const page = await context.newPage();
  await page.goto(otherBase + '/');
  const frame = await embedFrame(page);
  assert.equal(new URL(frame.url()).origin, base, 'the frame is the playground\'s origin');
  assert.equal(new URL(frame.url()).pathname, '/embed/');
  await frame.waitForSelector('[data-testid="tutorial-steps"] > *');
  const total = await frame.$$eval('[data-testid="tutorial-steps"] > *', (els) => els.length);
  for (let i = 0; i < total; i++) {
    await frame.click('[data-testid="tutorial-run-step"]');
    const result = await frame.waitForSelector('[data-testid="tutorial-step-result"]', { timeout: 15000 });
    assert.equal(await result.getAttribute('data-ok'), 'true', `step ${i + 1}: ${await result.innerText()}`);
    if (i < total - 1) await frame.click('[data-testid="tutorial-next"]');
  }
  await frame.waitForSelector('[data-testid="tutorial-complete"]');
  // Neither reaches into the other.
  assert.equal(await page.evaluate(() => document.querySelector('iframe.kubeplay-embed').contentDocument), null);
  assert.equal(await frame.evaluate(() => { try { return window.parent.document.title; } catch (e) { return e.name; } }), 'SecurityError');
  assert.equal(await frame.evaluate(() => { try { window.top.location.href = 'https://example.com/'; return 'navigated'; } catch (e) { return e.name; } }), 'SecurityError');
  await page.screenshot({ path: join(harness.artifacts, 'embed-tutorial.png'), fullPage: true });
  await page.close();
});

test('LEARN-4: an embedded sandbox starts from the embedding site\'s manifest, in a sandbox apart from the playground\'s own', async () => {
  const page = await context.newPage();
  await page.goto(otherBase + '/terminal.html');
  const frame = await embedFrame(page);
  await frame.waitForFunction(() => window.kubeplayEmbed.terminal.transcript().includes('configmap/preset created'), null, { timeout: 60000 })
    .catch(async () => assert.fail(await frame.evaluate(() => window.kubeplayEmbed.terminal.transcript())));
  const inFrame = await frame.evaluate(() => fetch('/api/v1/namespaces/default/configmaps/preset').then((r) => r.json()));
  assert.equal(inFrame.data?.from, 'the embedding page', JSON.stringify(inFrame));
  assert.equal(await frame.evaluate(() => window.kubeplayEmbed.terminal.runLine('kubectl get configmap preset -o jsonpath={.data.from}')), 0);

  // The playground's own page (a first-party visit to its origin) has a
  // sandbox of its own, without the embed's object.
  const own = await context.newPage();
  await own.goto(base + '/#request');
  await own.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 30000 });
  await own.waitForSelector('[data-testid="sandbox-status"][data-state="ready"]', { timeout: 30000 });
  const status = await own.evaluate(() => fetch('/api/v1/namespaces/default/configmaps/preset').then((r) => r.status));
  assert.equal(status, 404, 'the playground\'s own sandbox does not have the embed\'s object');
  await own.close();
  await page.screenshot({ path: join(harness.artifacts, 'embed-terminal.png'), fullPage: true });
  await page.close();
});

test('LEARN-4: an embed of an unknown tutorial says so in the frame', async () => {
  const page = await context.newPage();
  await page.goto(otherBase + '/unknown.html');
  await page.waitForSelector('iframe.kubeplay-embed');
  const frame = await (await page.$('iframe.kubeplay-embed')).contentFrame();
  const error = await frame.waitForSelector('[data-testid="embed-error"]:not([hidden])', { timeout: 30000 });
  assert.match(await error.innerText(), /There is no tutorial "no-such-tutorial" here\. The tutorials are: .*chunked-lists/);
  await page.close();
});

test('LEARN-4: in a browser that blocks third-party storage, the frame says why its sandbox cannot start and opens it in a tab of its own', async (t) => {
  const blocking = await harness.launchContext(scratch, 'profile-blocking');
  t.after(() => blocking.close());
  const page = await blocking.newPage();
  await page.goto(otherBase + '/');
  await page.waitForSelector('iframe.kubeplay-embed');
  const frame = await (await page.$('iframe.kubeplay-embed')).contentFrame();
  const error = await frame.waitForSelector('[data-testid="embed-error"]:not([hidden])', { timeout: 30000 });
  assert.match(await error.innerText(), /cannot start in this frame: this browser does not let a site embedded in another page keep storage/);
  const [tab] = await Promise.all([blocking.waitForEvent('page'), frame.click('[data-testid="embed-open-tab"]')]);
  await tab.waitForSelector('[data-testid="sandbox-status"][data-state="ready"]', { timeout: 60000 });
  assert.equal(new URL(tab.url()).pathname + new URL(tab.url()).search, '/embed/?tutorial=chunked-lists');
  await tab.waitForSelector('[data-testid="tutorial-run-step"]');
  await tab.close();
  await page.close();
});
