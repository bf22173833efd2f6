// Browser end-to-end tests (PLAY-1, PLAY-2, PLAY-3, PLAY-4, PLAY-7, PLAY-8,
// PLAY-10): the built playground served by the native command, opened in headless
// Debian Chromium through playwright-core; the core runs in the service worker.
// The safety tests play the attacker too: a page on another port, a remote
// server with a hostile answer, a link that offers a target.
// Screenshots go to build/artifacts/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { cpSync, mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { launchBare } from './bare-chromium.mjs';
import * as harness from './harness.mjs';

const { repo, site, artifacts, chromiumPath } = harness;

let server, base, context, scratch;

const startServer = (siteDir = site) => harness.startServer(scratch, { siteDir });

before(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'kubeplay-browser-'));
  mkdirSync(artifacts, { recursive: true });
  ({ proc: server, url: base } = await startServer());
  context = await harness.launchContext(scratch);
});

after(async () => {
  await context?.close();
  server?.kill('SIGTERM');
  rmSync(scratch, { recursive: true, force: true });
});

// openPlayground loads the page and waits until the in-browser core is ready.
async function openPlayground() {
  const page = await context.newPage();
  // The builder's tab: a first visit would open on the start page.
  await page.goto(base + '/#request');
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 30000 });
  await page.waitForSelector('[data-testid="sandbox-status"][data-state="ready"]', { timeout: 30000 });
  return page;
}

// api runs fetch in the page (so the service worker answers): {status, json, text}.
const { api } = harness;

// followLines reads a streamed answer's JSON lines (a watch, an xDS stream)
// in the page into window[name]; window[name + 'Stop']() aborts it.
function followLines(page, path, name, headers = {}) {
  return page.evaluate(({ path, name, headers }) => {
    window[name] = [];
    const ctl = new AbortController();
    window[name + 'Stop'] = () => ctl.abort();
    fetch(path, { signal: ctl.signal, headers }).then(async (r) => {
      const reader = r.body.getReader();
      const dec = new TextDecoder();
      let buf = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buf += dec.decode(value, { stream: true });
        let i;
        while ((i = buf.indexOf('\n')) >= 0) {
          window[name].push(JSON.parse(buf.slice(0, i)));
          buf = buf.slice(i + 1);
        }
      }
    }).catch(() => {});
  }, { path, name, headers });
}

// moduleCached: the worker has cached the module at path, which it does when
// it first fetches it (modules are no install assets).
function moduleCached(page, path) {
  return page.evaluate(async (path) => {
    for (const name of await caches.keys()) if (await (await caches.open(name)).match(path)) return true;
    return false;
  }, path);
}

const cm = (name) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: name } });
const CMS = '/api/v1/namespaces/default/configmaps';

test('PLAY-1 PLAY-2: create, list, watch and delete through the service worker; a watch sees another tab', async () => {
  const a = await openPlayground();
  const b = await openPlayground();
  const created = await api(a, 'POST', CMS, cm('from-a'));
  assert.equal(created.status, 201, created.text);
  const list = await api(b, 'GET', CMS);
  assert.equal(list.json.kind, 'ConfigMapList');
  assert.ok(list.json.items.some((i) => i.metadata.name === 'from-a'), 'tab B sees tab A\'s write (one core)');

  // A watch opened in tab A receives a write made in tab B.
  await followLines(a, `${CMS}?watch=1&resourceVersion=${list.json.metadata.resourceVersion}`, '__events');
  assert.equal((await api(b, 'POST', CMS, cm('from-b'))).status, 201);
  assert.equal((await api(b, 'DELETE', CMS + '/from-a')).status, 200);
  await a.waitForFunction(() => window.__events.length >= 2, null, { timeout: 10000 });
  // (The simulated cluster writes kube-root-ca.crt into the namespace too, as
  // a real one does: only the tabs' writes are compared.)
  await a.waitForFunction(() => window.__events.filter((e) => e.object.metadata.name.startsWith('from-')).length >= 2, null, { timeout: 10000 });
  const events = await a.evaluate(() => window.__events.map((e) => `${e.type} ${e.object.metadata.name}`).filter((e) => / from-/.test(e)));
  assert.deepEqual(events.slice(0, 2), ['ADDED from-b', 'DELETED from-a']);
  await a.evaluate(() => window.__eventsStop());

  // Bad input gets a Status from the core, not a worker crash.
  const bad = await api(a, 'POST', CMS, 'not json at all');
  assert.equal(bad.status, 400);
  assert.equal(bad.json.kind, 'Status');

  // The native server (X-Kubeplay-Target: network) is a different store.
  const native = await api(a, 'GET', CMS, undefined, { 'X-Kubeplay-Target': 'network' });
  assert.equal(native.status, 200);
  assert.ok(!native.json.items.some((i) => i.metadata.name === 'from-b'), 'the native server does not see sandbox objects');

  // The in-browser core answers as the native server does where the bridge,
  // not the core, decides: a path that does not parse, and pretty JSON for a
  // browser's User-Agent (which a service worker's request lacks).
  const answer = (headers) => a.evaluate(async (headers) => {
    const r = await fetch('/api/v1/namespaces/%zz', { headers });
    return { status: r.status, type: r.headers.get('content-type'), text: await r.text() };
  }, headers);
  assert.deepEqual(await answer({}), await answer({ 'X-Kubeplay-Target': 'network' }));
  assert.equal((await answer({})).status, 400);
  const ns = await api(a, 'GET', '/api/v1/namespaces/default');
  const nativeNS = await api(a, 'GET', '/api/v1/namespaces/default', undefined, { 'X-Kubeplay-Target': 'network' });
  assert.match(nativeNS.text, /^{\n {2}"kind": "Namespace"/, 'the native server pretty-prints for a browser');
  assert.match(ns.text, /^{\n {2}"kind": "Namespace"/, 'so does the in-browser core');

  await a.screenshot({ path: join(artifacts, 'request-builder.png'), fullPage: true });
  await a.click('[data-testid="tab-watch"]');
  await a.screenshot({ path: join(artifacts, 'watch-panel.png'), fullPage: true });
  await a.close();
  await b.close();
});

// readyStartup waits (in a bare Chromium page) until the sandbox is ready and
// returns when its worker and core came up, as the worker reported it.
async function readyStartup(page) {
  for (let i = 0; i < 300; i++) {
    const s = await page.evaluate(() => window.kubeplayUI?.sandboxStatus());
    if (s?.state === 'ready' && s.startup) return s.startup;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the sandbox did not become ready');
}

// workerStartup asks the page's worker itself for its startup.
function workerStartup(page) {
  return page.evaluate(() => new Promise((resolve) => {
    const sw = navigator.serviceWorker;
    sw.addEventListener('message', (e) => { if (e.data?.type === 'kubeplay-status') resolve(e.data.startup); });
    sw.controller.postMessage({ type: 'kubeplay-status' });
  }));
}

test('PLAY-1: an open tab keeps its worker warm past Chrome\'s 30 s idle timeout; closing every tab lets it stop', async () => {
  // playwright-core attaches to service workers, and Chrome never stops one
  // DevTools is attached to: this test drives Chromium's pages only.
  const browser = await launchBare({ executablePath: chromiumPath, userDataDir: join(scratch, 'profile-bare'), args: ['--no-sandbox', '--disable-gpu'] });
  try {
    // Two contexts, each with its own worker: one tab stays open, the other closes.
    const open = await (await browser.newContext()).newPage(base + '/');
    const closing = await browser.newContext();
    const closed = await closing.newPage(base + '/');
    const openStartup = await readyStartup(open);
    const closedStartup = await readyStartup(closed);
    await closed.close();
    // Chrome stops a worker 30 s after its last event; no request meanwhile.
    await new Promise((r) => setTimeout(r, 35000));

    const answer = await open.evaluate(async () => (await fetch('/version')).status);
    assert.equal(answer, 200);
    const after = await workerStartup(open);
    assert.equal(after.worker, openStartup.worker, 'the worker that answered is the one that started before the wait');
    assert.equal(after.started, openStartup.started, 'and its core was not started (restored) again');

    const reopened = await closing.newPage(base + '/');
    const again = await readyStartup(reopened);
    assert.notEqual(again.worker, closedStartup.worker, 'with its only tab closed, the worker stopped: a new one restored the core');
    assert.ok(again.started > closedStartup.started);
  } finally {
    await browser.close();
  }
});

test('PLAY-3: stopping the service worker between writes loses no acknowledged write', async () => {
  const page = await openPlayground();
  const cdp = await context.newCDPSession(page);
  const acked = [];
  let lastRV = 0;
  for (let i = 0; i < 12; i++) {
    const r = await api(page, 'POST', CMS, cm(`durable-${i}`));
    assert.equal(r.status, 201, r.text);
    const rv = Number(r.json.metadata.resourceVersion);
    assert.ok(rv > lastRV, `resourceVersion went backwards: ${rv} after ${lastRV}`);
    lastRV = rv;
    acked.push(r.json.metadata.name);
    await cdp.send('ServiceWorker.enable');
    await cdp.send('ServiceWorker.stopAllWorkers');
  }
  const list = await api(page, 'GET', CMS);
  assert.equal(list.status, 200, list.text);
  const names = new Set(list.json.items.map((i) => i.metadata.name));
  for (const n of acked) assert.ok(names.has(n), `acknowledged ${n} lost after worker restarts`);
  assert.ok(Number(list.json.metadata.resourceVersion) >= lastRV);
  await page.close();
});

test('PLAY-7: a tutorial plays through the UI end to end', async () => {
  const page = await openPlayground();
  await page.click('[data-testid="tab-tutorials"]');
  await page.click('[data-testid="tutorial-item"][data-id="chunked-lists"]');
  await page.waitForSelector('[data-testid="tutorial-steps"] > *');
  const total = await page.$$eval('[data-testid="tutorial-steps"] > *', (els) => els.length);
  assert.ok(total > 3, 'tutorial has steps');
  // LEARN-3: the vocabulary explained where it first appears: the first
  // step's new terms marked in its narration and listed below it.
  const glossary = await page.waitForSelector('[data-testid="tutorial-glossary"]');
  assert.match(await glossary.innerText(), /New here: namespace[\s\S]*namespace\s+A named scope for objects/);
  const marked = await page.$$eval('[data-testid="tutorial-narration"] abbr.gloss', (els) => els.map((e) => [e.dataset.term, e.title.length > 20]));
  assert.deepEqual(marked, [['namespace', true]], 'metadata.generateName is a path, not the term metadata');
  await page.click('[data-testid="tutorial-next"]');
  assert.equal(await page.$('[data-testid="tutorial-glossary"]'), null, 'a term is explained once');
  await page.click('[data-testid="tutorial-prev"]');
  await playSteps(page, total);
  await page.screenshot({ path: join(artifacts, 'tutorial.png'), fullPage: true });
  await page.close();
});

// playSteps runs the open tutorial's steps from the current one on with Run
// step, each expected to pass, then its completion.
async function playSteps(page, total) {
  for (let i = 0; i < total; i++) {
    await page.click('[data-testid="tutorial-run-step"]');
    const result = await page.waitForSelector('[data-testid="tutorial-step-result"]', { timeout: 15000 });
    const ok = await result.getAttribute('data-ok');
    assert.equal(ok, 'true', `step ${i + 1}: ${await result.innerText()}`);
    if (i < total - 1) await page.click('[data-testid="tutorial-next"]');
  }
  await page.waitForSelector('[data-testid="tutorial-complete"]');
}

test('PLAY-7: the seats tutorial reads the in-browser sandbox\'s APF metrics as a cluster\'s', async () => {
  const page = await openPlayground();
  await page.click('[data-testid="tab-tutorials"]');
  await page.click('[data-testid="tutorial-item"][data-id="apf-seats"]');
  await page.waitForSelector('[data-testid="tutorial-steps"] > *');
  await playSteps(page, await page.$$eval('[data-testid="tutorial-steps"] > *', (els) => els.length));
  await page.close();
});

test('PLAY-10: the playground works offline after the first load', async () => {
  const page = await openPlayground();
  await context.setOffline(true);
  try {
    await page.reload();
    await page.waitForSelector('[data-testid="sandbox-status"][data-state="ready"]', { timeout: 30000 });
    const r = await api(page, 'POST', CMS, cm('offline'));
    assert.equal(r.status, 201, r.text);
    assert.equal((await api(page, 'GET', CMS + '/offline')).status, 200);
    await page.screenshot({ path: join(artifacts, 'offline.png'), fullPage: true });
  } finally {
    await context.setOffline(false);
    await page.close();
  }
});

test('PLAY-3: damaged IndexedDB journal entries are reported and skipped, the entries around them kept, revisions never reused', async () => {
  const page = await openPlayground();
  let lastRV = 0;
  for (const n of ['keep-1', 'damaged', 'keep-2', 'damaged-last']) {
    const r = await api(page, 'POST', CMS, cm(n));
    assert.equal(r.status, 201);
    lastRV = Number(r.json.metadata.resourceVersion);
  }
  // Flip a byte in the journal entries that created "damaged" and "damaged-last"
  // (the newest: its revision can only be known from the damage itself).
  const hit = await page.evaluate(() => new Promise((resolve, reject) => {
    const open = indexedDB.open('kubeplay');
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const tx = open.result.transaction('journal', 'readwrite');
      let found = false;
      tx.objectStore('journal').openCursor().onsuccess = (e) => {
        const c = e.target.result;
        if (!c) return;
        const text = new TextDecoder().decode(c.value);
        if (text.includes('"name":"damaged"')) {
          const v = new Uint8Array(c.value);
          v[v.length - 3] ^= 0xff;
          c.update(v);
          found = true;
        }
        if (text.includes('"name":"damaged-last"')) {
          const v = new Uint8Array(c.value);
          v[14] ^= 0xff; // the length in the frame's header
          c.update(v);
        }
        c.continue();
      };
      tx.oncomplete = () => resolve(found);
    };
  }));
  assert.ok(hit, 'found the journal entry to damage');
  const cdp = await context.newCDPSession(page);
  await cdp.send('ServiceWorker.enable');
  await cdp.send('ServiceWorker.stopAllWorkers');
  const list = await api(page, 'GET', CMS);
  assert.equal(list.status, 200);
  const names = list.json.items.map((i) => i.metadata.name);
  assert.ok(names.includes('keep-1') && names.includes('keep-2'), `entries around the damaged one kept: ${names}`);
  assert.ok(!names.includes('damaged') && !names.includes('damaged-last'));
  const after = await api(page, 'POST', CMS, cm('after-restore'));
  assert.equal(after.status, 201);
  assert.ok(Number(after.json.metadata.resourceVersion) > lastRV, `resourceVersion ${after.json.metadata.resourceVersion} reuses one up to ${lastRV}`);
  const shown = await page.waitForSelector('[data-testid="restore-errors"]', { state: 'visible', timeout: 10000 });
  assert.match(await shown.innerText(), /damaged/);
  await page.screenshot({ path: join(artifacts, 'restore-errors.png'), fullPage: true });
  // Reset wipes the sandbox deliberately.
  page.once('dialog', (d) => d.accept());
  await page.click('[data-testid="reset-sandbox"]');
  await page.waitForFunction(async () => {
    const r = await fetch('/api/v1/namespaces/default/configmaps');
    const list = await r.json();
    return Array.isArray(list.items) && list.items.length === 0;
  }, null, { timeout: 15000, polling: 200 });
  await page.close();
});

test('PLAY-1: a wasm load failure shows a clear error, and the API answers a Status', async () => {
  const broken = join(scratch, 'broken-site');
  cpSync(site, broken, { recursive: true });
  writeFileSync(join(broken, 'kubeplay.wasm'), 'not wasm');
  execFileSync('node', [join(repo, 'serviceworker', 'build.mjs'), broken]);
  const { proc, url } = await startServer(broken);
  const ctx = await chromium.launchPersistentContext(join(scratch, 'profile-broken'), {
    executablePath: chromiumPath, headless: true, args: ['--no-sandbox', '--disable-gpu'],
  });
  try {
    const page = await ctx.newPage();
    await page.goto(url + '/');
    await page.waitForSelector('[data-testid="sandbox-status"][data-state="error"]', { timeout: 30000 });
    const r = await api(page, 'GET', '/version');
    assert.equal(r.status, 503);
    assert.equal(r.json.reason, 'ServiceUnavailable');
    assert.match(r.json.message, /failed to start/);
    await page.screenshot({ path: join(artifacts, 'wasm-load-error.png'), fullPage: true });
  } finally {
    await ctx.close();
    proc.kill();
  }
});

test('PLAY-2: a new build replaces the old worker cleanly and keeps the sandbox', async () => {
  const dir = join(scratch, 'update-site');
  cpSync(site, dir, { recursive: true });
  const { proc, url } = await startServer(dir);
  const ctx = await chromium.launchPersistentContext(join(scratch, 'profile-update'), {
    executablePath: chromiumPath, headless: true, args: ['--no-sandbox', '--disable-gpu'],
  });
  const badge = '[data-testid="sandbox-status"]';
  try {
    const page = await ctx.newPage();
    await page.goto(url + '/');
    await page.waitForSelector(`${badge}[data-state="ready"][data-build]`, { timeout: 30000 });
    const oldBuild = await page.getAttribute(badge, 'data-build');
    const before = await api(page, 'POST', CMS, cm('before-update'));
    assert.equal(before.status, 201, before.text);
    const rvBefore = Number(before.json.metadata.resourceVersion);
    // A watch open on the old worker across the update.
    await page.evaluate((path) => {
      self.oldWatch = (async () => {
        const r = await fetch(path);
        const reader = r.body.getReader();
        try {
          while (!(await reader.read()).done);
          return 'ended';
        } catch (err) {
          return 'failed: ' + err;
        }
      })();
    }, `${CMS}?watch=1&resourceVersion=${rvBefore}`);

    // The next build: a changed page, so a new build id, worker and cache.
    const index = join(dir, 'index.html');
    writeFileSync(index, readFileSync(index, 'utf8').replace('</body>', '<!-- build two --></body>'));
    execFileSync('node', [join(repo, 'serviceworker', 'build.mjs'), dir]);
    await page.evaluate(() => navigator.serviceWorker.getRegistration().then((r) => r.update()));
    await page.waitForFunction((old) => {
      const b = document.querySelector('[data-testid="sandbox-status"]');
      const active = navigator.serviceWorker.controller;
      return b.dataset.state === 'ready' && b.dataset.build && b.dataset.build !== old && active && active.state === 'activated';
    }, oldBuild, { timeout: 30000 });
    const newBuild = await page.getAttribute(badge, 'data-build');

    // Only the new build's cache is left, and the page's assets come from it.
    assert.deepEqual(await page.evaluate(() => caches.keys()), ['kubeplay-' + newBuild]);
    assert.match(await page.evaluate(() => fetch('/').then((r) => r.text())), /build two/);
    // The old worker stopped its core: its watch ended instead of going stale.
    const watchEnd = await page.evaluate(() => Promise.race([self.oldWatch, new Promise((r) => setTimeout(() => r('still open'), 20000))]));
    assert.equal(watchEnd, 'ended');
    // The sandbox survived the update and resourceVersions keep increasing.
    assert.equal((await api(page, 'GET', CMS + '/before-update')).status, 200);
    const after = await api(page, 'POST', CMS, cm('after-update'));
    assert.equal(after.status, 201, after.text);
    assert.ok(Number(after.json.metadata.resourceVersion) > rvBefore);
    await page.screenshot({ path: join(artifacts, 'after-update.png'), fullPage: true });
  } finally {
    await ctx.close();
    proc.kill();
  }
});

test('PLAY-3 K8S-ENC-3: a protobuf answer is shown decoded as JSON and as hex; a Table renders', async () => {
  const page = await openPlayground();
  assert.equal((await api(page, 'POST', CMS, cm('binary-view'))).status, 201);
  await page.evaluate((path) => window.kubeplayUI.builder.setSpec({
    method: 'GET', path, headers: [['Accept', 'application/vnd.kubernetes.protobuf']],
  }), CMS + '/binary-view');
  await page.click('[data-testid="send"]');
  await page.waitForSelector('[data-testid="response-status"][data-status="200"]');
  const decoded = await page.waitForSelector('[data-testid="response-decoded"]:has-text("binary-view")', { timeout: 10000 });
  const text = await decoded.innerText();
  assert.match(text, /decoded from application\/vnd\.kubernetes\.protobuf/);
  assert.match(text, /"kind": "ConfigMap"/);
  assert.match(await page.innerText('[data-testid="response-body"]'), /^application\/vnd\.kubernetes\.protobuf — .* binary\n\n00000000  6b 38 73 00/);
  await page.screenshot({ path: join(artifacts, 'protobuf-response.png'), fullPage: true });

  await page.evaluate((path) => window.kubeplayUI.builder.setSpec({
    method: 'GET', path, headers: [['Accept', 'application/json;as=Table;v=v1;g=meta.k8s.io']],
  }), CMS);
  await page.click('[data-testid="send"]');
  await page.waitForSelector('.k8s-table th:has-text("Data")', { timeout: 10000 });
  await page.screenshot({ path: join(artifacts, 'table-response.png'), fullPage: true });
  await page.close();
});

test('PLAY-3 K8S-WRITE-2: the example server-side apply works; managedFields are shown folded by manager; a conflict shows its causes', async () => {
  const page = await openPlayground();
  await page.selectOption('[data-testid="template-select"]', 'apply-configmap');
  await page.click('[data-testid="send"]');
  await page.waitForSelector('[data-testid="response-status"][data-status="201"]', { timeout: 10000 });
  const managed = await page.waitForSelector('[data-testid="response-managed-fields"]:not([hidden])');
  assert.match(await managed.innerText(), /managedFields: 1 manager \(playground\)/);
  await managed.click();
  await page.click('[data-testid="managed-by"][data-manager="playground"] summary');
  const entry = await page.innerText('[data-testid="managed-by"][data-manager="playground"]');
  assert.match(entry, /playground — Apply · v1 · \d{4}-\d\d-\d\dT/);
  assert.match(entry, /\.data\.greeting/);
  assert.match(entry, /\.metadata\.labels\.app/);
  const body = await page.innerText('[data-testid="response-body"]');
  assert.match(body, /"managedFields": "… 1 entry of 1 manager, shown by manager above/);
  assert.match(body, /"greeting": "applied"/);
  await page.screenshot({ path: join(artifacts, 'apply-managed-fields.png'), fullPage: true });

  // Another manager's different value conflicts.
  await page.evaluate(() => window.kubeplayUI.builder.setSpec({
    method: 'PATCH', path: '/api/v1/namespaces/default/configmaps/demo', params: [['fieldManager', 'someone-else']],
    headers: [['Content-Type', 'application/apply-patch+yaml']],
    body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: demo\ndata:\n  greeting: mine\n', bodyMode: 'yaml',
  }));
  await page.click('[data-testid="send"]');
  await page.waitForSelector('[data-testid="response-status"][data-status="409"]', { timeout: 10000 });
  const conflict = await page.innerText('[data-testid="response-status-error"]');
  assert.match(conflict, /Apply failed with 1 conflict: conflict with "playground": \.data\.greeting/);
  assert.match(conflict, /\.data\.greeting: conflict with "playground"/);
  await page.close();
});

test('PLAY-3 K8S-WRITE-4: the server\'s warnings reach the page through the worker and show as kubectl prints them', async () => {
  const page = await openPlayground();
  // YAML, as a user types it (the page sends it as JSON), with unknown fields.
  await page.evaluate((path) => window.kubeplayUI.builder.setSpec({
    method: 'POST', path, bodyMode: 'yaml',
    body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: warned\n  foo: 1\ndata:\n  a: "1"\nbogus: "a, b"\n',
  }), CMS);
  await page.click('[data-testid="send"]');
  await page.waitForSelector('[data-testid="response-status"][data-status="201"]', { timeout: 10000 });
  // Two Warning headers, which fetch joins into one: two lines.
  assert.equal(await page.innerText('[data-testid="response-warnings"]'),
    'Warning: unknown field "metadata.foo"\nWarning: unknown field "bogus"');
  await page.screenshot({ path: join(artifacts, 'warnings-response.png'), fullPage: true });
  // With Strict: a 400 naming them all, and no warnings.
  await page.evaluate((path) => window.kubeplayUI.builder.setSpec({
    method: 'POST', path: path + '?fieldValidation=Strict', body: '{"metadata":{"name":"strict","foo":1},"data":{"a":"1","a":"2"}}',
  }), CMS);
  await page.click('[data-testid="send"]');
  await page.waitForSelector('[data-testid="response-status"][data-status="400"]', { timeout: 10000 });
  assert.match(await page.innerText('[data-testid="response-status-error"]'),
    /strict decoding error: unknown field "metadata.foo", duplicate field "data.a"/);
  assert.equal(await page.isHidden('[data-testid="response-warnings"]'), true);
  await page.close();
});

test('K8S-URI-2: the OpenAPI documents through the worker: the index, a document by its hash, 304 for its ETag, v2 as protobuf', async () => {
  const page = await openPlayground();
  const got = await page.evaluate(async () => {
    const index = await (await fetch('/openapi/v3')).json();
    const doc = await fetch(index.paths['api/v1'].serverRelativeURL);
    const schemas = (await doc.json()).components.schemas;
    const again = await fetch('/openapi/v3/api/v1', { headers: { 'If-None-Match': doc.headers.get('etag') } });
    const v2 = await fetch('/openapi/v2', { headers: { Accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' } });
    return {
      cache: doc.headers.get('cache-control'),
      podSpec: schemas['io.k8s.api.core.v1.PodSpec'].properties.restartPolicy.enum,
      again: again.status,
      v2: [v2.headers.get('content-type'), (await v2.arrayBuffer()).byteLength > 100000],
    };
  });
  assert.deepEqual(got, {
    cache: 'public, immutable',
    podSpec: ['Always', 'Never', 'OnFailure'],
    again: 304,
    v2: ['application/com.github.proto-openapi.spec.v2.v1.0+protobuf', true],
  });
  await page.close();
});

// serveOn serves handler on another port of 127.0.0.1, i.e. another origin than
// the playground's; resolves {url, close}.
function serveOn(handler) {
  return new Promise((resolveServer) => {
    const srv = createServer(handler);
    srv.listen(0, '127.0.0.1', () => resolveServer({
      url: `http://127.0.0.1:${srv.address().port}`,
      close: () => { srv.closeAllConnections(); srv.close(); },
    }));
  });
}

// listNames lists the native server's ConfigMaps as curl would (no Origin).
async function listNames() {
  const list = await (await fetch(base + CMS)).json();
  return list.items.map((i) => i.metadata.name);
}

test('PLAY-8: a page on another port cannot write to the native server with a no-cors fetch or sendBeacon; the playground and kubectl can', async () => {
  const target = base + CMS;
  const evil = await serveOn((req, res) => {
    res.setHeader('Content-Type', 'text/html');
    // A Blob without a type: no Content-Type, which kube reads as JSON.
    res.end(`<!doctype html><script>
      const body = (name) => new Blob([JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } })]);
      fetch(${JSON.stringify(target)}, { method: 'POST', mode: 'no-cors', body: body('attack-no-cors') });
      navigator.sendBeacon(${JSON.stringify(target)}, body('attack-beacon'));
    </script>`);
  });
  const attacker = await context.newPage();
  const answers = [];
  attacker.on('response', (r) => { if (r.url() === target) answers.push(`${r.request().method()} ${r.status()}`); });
  try {
    await attacker.goto(evil.url + '/');
    for (let i = 0; i < 100 && answers.length < 2; i++) await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(answers, ['POST 403', 'POST 403'], 'the native server refuses both');
    assert.deepEqual((await listNames()).filter((n) => n.startsWith('attack-')), [], 'nothing created');
  } finally {
    await attacker.close();
    evil.close();
  }

  // The playground's own page writes to the native server (same origin).
  const page = await openPlayground();
  const own = await api(page, 'POST', CMS, cm('from-the-playground'), { 'X-Kubeplay-Target': 'network' });
  assert.equal(own.status, 201, own.text);
  await page.close();

  // kubectl sends no Origin: unaffected.
  const kubeconfig = join(scratch, 'kubeconfig');
  writeFileSync(kubeconfig, `apiVersion: v1\nkind: Config\nclusters:\n- name: k\n  cluster:\n    server: ${base}\nusers:\n- name: k\n  user:\n    token: kubeplay\ncontexts:\n- name: k\n  context:\n    cluster: k\n    user: k\n    namespace: default\ncurrent-context: k\n`);
  const kubectl = (...args) => execFileSync('kubectl', ['--kubeconfig', kubeconfig, '--cache-dir', join(scratch, 'kube-cache'), ...args], { encoding: 'utf8' });
  assert.match(kubectl('create', 'configmap', 'from-kubectl', '--from-literal=k=v'), /configmap\/from-kubectl created/);
  const names = await listNames();
  assert.ok(names.includes('from-kubectl') && names.includes('from-the-playground'), `${names}`);
});

// openWithLink opens the playground at the link (from a blank page, so a link
// differing only in its fragment loads it anew) and waits for the sandbox.
async function openWithLink(page, link) {
  await page.goto('about:blank');
  await page.goto(link);
  await page.waitForSelector('[data-testid="sandbox-status"][data-state="ready"]', { timeout: 30000 });
}

const storedTarget = (page) => page.evaluate(() => JSON.parse(localStorage.getItem('kubeplay.target') || 'null'));

test('PLAY-3: a link offering a remote target is used only once the user accepts it', async () => {
  const page = await openPlayground();
  try {
    await page.evaluate(() => window.kubeplayUI.setTarget({ kind: 'sandbox' }));
    const remote = 'http://127.0.0.1:9/s/0123';
    const link = `${base}/#target=remote&url=${encodeURIComponent(remote)}&token=t0ken`;
    await openWithLink(page, link);
    await page.waitForSelector('[data-testid="target-offer"]');
    assert.equal(await page.textContent('[data-testid="target-offer-url"]'), remote);
    assert.equal(await page.evaluate(() => document.body.dataset.target), 'sandbox', 'not used before the user answers');
    assert.equal((await storedTarget(page)).kind, 'sandbox');
    await page.screenshot({ path: join(artifacts, 'target-offer.png'), fullPage: true });
    // Unanswered, the offer survives a reload, and still is not used.
    await page.reload();
    await page.waitForSelector('[data-testid="target-offer"]');
    assert.equal((await storedTarget(page)).kind, 'sandbox');

    await page.click('[data-testid="target-offer-dismiss"]');
    await page.waitForSelector('[data-testid="target-offer"]', { state: 'detached' });
    assert.equal(new URL(page.url()).hash, '', 'the offer leaves the address bar');
    assert.equal((await storedTarget(page)).kind, 'sandbox');

    await openWithLink(page, link);
    const oneLine = await page.$eval('header.topbar', (el) => el.getBoundingClientRect().height);
    await page.click('[data-testid="target-offer-accept"]');
    await page.waitForFunction(() => document.body.dataset.target === 'remote');
    assert.equal(new URL(page.url()).hash, '', 'the token leaves the address bar');
    assert.deepEqual(await storedTarget(page), { kind: 'remote', url: remote, token: 't0ken' });
    // Issue 31, frictions 2 and 3: the fields show the server in use without
    // a reload, the sandbox's own controls step aside, and the header keeps
    // to one line.
    assert.equal(await page.inputValue('[data-testid="remote-url"]'), remote);
    assert.equal(await page.inputValue('[data-testid="remote-token"]'), 't0ken');
    assert.equal(await page.isVisible('[data-testid="sandbox-controls"]'), false);
    assert.equal(await page.$eval('header.topbar', (el) => el.getBoundingClientRect().height), oneLine);
    await page.evaluate(() => window.kubeplayUI.setTarget({ kind: 'sandbox' }));
    await page.waitForSelector('[data-testid="sandbox-controls"]', { state: 'visible' });
    await page.waitForSelector('[data-testid="cluster-mode"]', { state: 'visible' });
    const mode = (await api(page, 'GET', '/debug/kubeplay/cluster')).json.mode;
    assert.equal(await page.inputValue('[data-testid="cluster-mode"]'), mode);
  } finally {
    await page.evaluate(() => window.kubeplayUI.setTarget({ kind: 'sandbox' }));
    await page.close();
  }
});

test('PLAY-3: a remote server\'s answer cannot run script in the playground (Content-Type, decoded body)', async () => {
  const hostile = 'application/cbor<img src=x onerror=window.__pwned=1>';
  const remote = await serveOn((req, res) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Allow-Headers', '*');
    if (req.method === 'OPTIONS') {
      res.writeHead(204);
      res.end();
    } else if (req.url.startsWith('/debug/kubeplay/decode')) {
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ kind: 'ConfigMap', metadata: { name: '<img src=x onerror=window.__pwned=2>' } }));
    } else {
      res.setHeader('Content-Type', hostile);
      res.end(Buffer.from([0xa1, 0x61, 0x6b, 0x61, 0x76]));
    }
  });
  const page = await context.newPage();
  try {
    await openWithLink(page, `${base}/#target=remote&url=${encodeURIComponent(remote.url)}`);
    await page.click('[data-testid="target-offer-accept"]');
    await page.waitForFunction(() => document.body.dataset.target === 'remote');
    await page.evaluate((path) => window.kubeplayUI.builder.setSpec({ method: 'GET', path }), CMS);
    await page.click('[data-testid="send"]');
    const decoded = await page.waitForSelector('[data-testid="response-decoded"]:has-text("decoded from")', { timeout: 10000 });
    assert.match(await decoded.innerText(), /decoded from application\/cbor<img src=x onerror=window.__pwned=1>:/, 'shown as text');
    assert.match(await decoded.innerText(), /<img src=x onerror=window.__pwned=2>/);
    assert.equal(await page.$$eval('[data-testid="response"] img', (imgs) => imgs.length), 0);
    await new Promise((r) => setTimeout(r, 500)); // an image's error event would have fired
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
    await page.screenshot({ path: join(artifacts, 'hostile-response.png'), fullPage: true });
  } finally {
    await page.evaluate(() => window.kubeplayUI.setTarget({ kind: 'sandbox' }));
    await page.close();
    remote.close();
  }
});

test('PLAY-3: the page and its worker carry a Content-Security-Policy and the playground works under it', async () => {
  for (const path of ['/', '/index.html', '/sw.js', '/ui/app.js', '/kubeplay.wasm']) {
    const r = await fetch(base + path);
    await r.arrayBuffer();
    assert.equal(r.status, 200, path);
    const csp = r.headers.get('content-security-policy') || '';
    assert.match(csp, /script-src 'self' 'wasm-unsafe-eval';/, `${path}: ${csp}`);
    assert.match(csp, /frame-ancestors 'none'/, path);
    assert.equal(r.headers.get('x-content-type-options'), 'nosniff', path);
    assert.equal(r.headers.get('x-frame-options'), 'DENY', path);
  }
  const page = await context.newPage();
  await page.addInitScript(() => {
    window.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  await page.goto(base + '/#request');
  await page.waitForSelector('[data-testid="sandbox-status"][data-state="ready"]', { timeout: 30000 });
  // The builder with CodeMirror, a request and its answer, a watch, the tutorials.
  await page.selectOption('[data-testid="method"]', 'POST');
  await page.fill('[data-testid="path"]', CMS);
  await page.click('[data-testid="body-editor"] .cm-content');
  await page.keyboard.press('Control+A');
  await page.keyboard.type(JSON.stringify(cm('under-csp')));
  await page.click('[data-testid="send"]');
  await page.waitForSelector('[data-testid="response-status"][data-status="201"]', { timeout: 10000 });
  await page.click('[data-testid="tab-watch"]');
  await page.click('[data-testid="tab-tutorials"]');
  await page.waitForSelector('[data-testid="tutorial-item"]');
  assert.deepEqual(await page.evaluate(() => window.__violations), []);
  await page.close();
});

test('PLAY-5 APF-6 APF-11: the APF panel\'s load generator fills queues and meets a 429, and the charts show both', async () => {
  const page = await openPlayground();
  await page.goto(base + '/#apf');
  await page.waitForSelector('[data-testid="apf-level-row"][data-level="global-default"]', { timeout: 20000 });
  // Every level shows its seats; the sandbox's 60 seats give global-default 5.
  const gd = await page.$eval('[data-testid="apf-level-row"][data-level="global-default"]', (r) => r.dataset.current);
  assert.ok(Number(gd) >= 2, `global-default current seats ${gd}`);
  await page.fill('[data-testid="apf-load-elephants"]', '2');
  await page.fill('[data-testid="apf-load-concurrency"]', '20');
  await page.fill('[data-testid="apf-load-mice"]', '1');
  await page.fill('[data-testid="apf-load-work"]', '300');
  await page.fill('[data-testid="apf-load-duration"]', '10');
  await page.selectOption('[data-testid="apf-load-level"]', 'demo');
  await page.click('[data-testid="apf-load-start"]');
  // Queues form on the demo level (one seat), elephants are turned away (429),
  // and the charts draw both.
  await page.waitForFunction(() => {
    const max = (id) => Number(document.querySelector(`[data-testid="apf-chart-${id}"]`).dataset.max);
    const rejected = [...document.querySelectorAll('[data-testid="apf-load-row"]')].some((r) => r.dataset.flow.startsWith('elephant') && Number(r.dataset.rejected) > 0);
    return max('queues') > 0 && max('rejections') > 0 && rejected;
  }, null, { timeout: 30000 });
  // The hand of an elephant's flow is drawn among the level's 8 queues.
  const hand = await page.$$eval('[data-testid="apf-hand-queue"][data-in-hand="true"]', (qs) => qs.length);
  assert.equal(hand, 2);
  await page.screenshot({ path: join(artifacts, 'apf-panel.png'), fullPage: true });
  await page.click('[data-testid="apf-load-stop"]');
  await page.waitForSelector('[data-testid="apf-load-start"]:not([disabled])', { timeout: 20000 });
  const rows = await page.$$eval('[data-testid="apf-load-row"]', (rs) => rs.map((r) => ({ flow: r.dataset.flow, ok: Number(r.dataset.ok), rejected: Number(r.dataset.rejected) })));
  const mouse = rows.find((r) => r.flow === 'mouse-1');
  assert.ok(mouse.ok > 0, `the mouse got through: ${JSON.stringify(rows)}`);
  // The same panel against the native server (the page's own host).
  await page.selectOption('[data-testid="target-select"]', 'native');
  // (its own levels: no demo level was created there)
  await page.waitForFunction(() => document.querySelector('[data-testid="apf-level-row"][data-level="workload-low"]') &&
    !document.querySelector('[data-testid="apf-level-row"][data-level="playground-demo"]'), null, { timeout: 20000 });
  await page.selectOption('[data-testid="target-select"]', 'sandbox');
  await page.close();
});

test('XDS-7 PLAY-6: in the browser, the xDS module checks Envoy resources for the core and serves a delta stream; an edit is pushed, a NACK shows in the status', async () => {
  const page = await openPlayground();
  const CLUSTERS = '/apis/xds.kubeplay.dev/v1/clusters';
  const cluster = (timeout) => ({ apiVersion: 'xds.kubeplay.dev/v1', kind: 'Cluster', metadata: { name: 'web' }, spec: { name: 'web', connectTimeout: timeout } });
  const bad = await api(page, 'POST', CLUSTERS, { ...cluster('1s'), spec: { connectTimeout: 5 } });
  assert.equal(bad.status, 422, bad.text);
  assert.match(bad.json.details.causes[0].field, /spec\.connectTimeout/);
  const created = await api(page, 'POST', CLUSTERS, cluster('1s'));
  assert.equal(created.status, 201, created.text);

  const opened = await api(page, 'POST', '/xds/v3/streams?protocol=delta');
  assert.equal(opened.status, 201, opened.text);
  const stream = '/xds/v3/streams/' + opened.json.id;
  // Every request to the stream carries the token its opening answered.
  const auth = { 'X-Kubeplay-Stream-Token': opened.json.token };
  assert.equal((await api(page, 'POST', stream, {}, {})).status, 403, 'a request without the token');
  await followLines(page, stream, '__xds', auth);
  const TYPE = 'type.googleapis.com/envoy.config.cluster.v3.Cluster';
  assert.equal((await api(page, 'POST', stream, { typeUrl: TYPE, resourceNamesSubscribe: ['web'] }, auth)).status, 202);
  await page.waitForFunction(() => window.__xds.length >= 1, null, { timeout: 20000 });
  const first = await page.evaluate(() => window.__xds[0]);
  assert.equal(first.resources[0].name, 'web');
  assert.equal(first.resources[0].resource.connectTimeout, '1s');
  assert.equal((await api(page, 'POST', stream, { typeUrl: TYPE, responseNonce: first.nonce }, auth)).status, 202);

  const edited = await api(page, 'PUT', CLUSTERS + '/web', { ...cluster('2s'), metadata: { name: 'web', resourceVersion: created.json.metadata.resourceVersion } });
  assert.equal(edited.status, 200, edited.text);
  await page.waitForFunction(() => window.__xds.length >= 2, null, { timeout: 10000 });
  const pushed = await page.evaluate(() => window.__xds[1]);
  assert.equal(pushed.resources[0].resource.connectTimeout, '2s');
  assert.equal(pushed.resources[0].version, edited.json.metadata.resourceVersion);
  assert.equal((await api(page, 'POST', stream, { typeUrl: TYPE, responseNonce: pushed.nonce, errorDetail: { message: 'rejected by hand' } }, auth)).status, 202);
  let nack;
  for (let i = 0; i < 50 && !nack; i++) {
    const status = await api(page, 'GET', '/xds/v3/status');
    nack = status.json.flatMap((s) => s.types).find((t) => t.nack)?.nack;
    if (!nack) await page.waitForTimeout(100);
  }
  assert.equal(nack?.message, 'rejected by hand');
  await page.close();
});

test('CEL: in the browser, a CustomResourceDefinition\'s rules are checked and evaluated by the CEL module, loaded on first use: a custom resource breaking a rule is refused with kube\'s message', async () => {
  const page = await openPlayground();
  const celCached = () => moduleCached(page, '/kubeplay-cel.wasm');
  assert.equal(await celCached(), false, 'the CEL module is loaded before a rule needs it');
  const crd = (rules) => ({
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.cel.example.com' },
    spec: {
      group: 'cel.example.com', scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
      versions: [{
        name: 'v1', served: true, storage: true,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object',
          properties: { replicas: { type: 'integer' }, maxReplicas: { type: 'integer' }, name: { type: 'string', maxLength: 63 } },
          'x-kubernetes-validations': rules } } } },
      }],
    },
  });
  const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
  // A rule that does not compile is refused as kube refuses it.
  const bad = await api(page, 'POST', CRDS, crd([{ rule: 'self.replicas <= self.nope' }]));
  assert.equal(bad.status, 422, bad.text);
  assert.equal(await celCached(), true, 'the CEL module was not loaded');
  assert.match(bad.json.message, /spec\.validation\.openAPIV3Schema\.properties\[spec\]\.x-kubernetes-validations\[0\]\.rule: Invalid value: apiextensions\.ValidationRule\{Rule:"self\.replicas <= self\.nope".*compilation failed: ERROR: <input>:1:22: undefined field 'nope'/s);
  const created = await api(page, 'POST', CRDS, crd([
    { rule: 'self.replicas <= self.maxReplicas', messageExpression: "'replicas must not exceed maxReplicas for ' + self.name", fieldPath: '.replicas' },
    { rule: 'self.name.matches(\'^[a-z]+$\')', message: 'name must be lowercase letters', reason: 'FieldValueForbidden' },
  ]));
  assert.equal(created.status, 201, created.text);
  const WIDGETS = '/apis/cel.example.com/v1/namespaces/default/widgets';
  for (let i = 0; i < 100 && (await api(page, 'GET', WIDGETS)).status !== 200; i++) await page.waitForTimeout(50);
  const widget = (spec) => ({ apiVersion: 'cel.example.com/v1', kind: 'Widget', metadata: { name: 'w1' }, spec });
  const refused = await api(page, 'POST', WIDGETS, widget({ replicas: 5, maxReplicas: 3, name: 'Web' }));
  assert.equal(refused.status, 422, refused.text);
  assert.equal(refused.json.message, 'Widget.cel.example.com "w1" is invalid: [spec.replicas: Invalid value: "object": replicas must not exceed maxReplicas for Web, spec: Forbidden: name must be lowercase letters]');
  assert.deepEqual(refused.json.details.causes, [
    { reason: 'FieldValueInvalid', message: 'Invalid value: "object": replicas must not exceed maxReplicas for Web', field: 'spec.replicas' },
    { reason: 'FieldValueForbidden', message: 'Forbidden: name must be lowercase letters', field: 'spec' },
  ]);
  assert.equal((await api(page, 'POST', WIDGETS, widget({ replicas: 2, maxReplicas: 3, name: 'web' }))).status, 201);
  assert.equal(await page.evaluate(() => navigator.serviceWorker.controller !== null), true);
  await page.screenshot({ path: join(artifacts, 'cel-refused.png') });
  await page.close();
});

test('CEL: in the browser, a ValidatingAdmissionPolicy and its binding are enforced by the policies\' CEL module, loaded on first use: its status has its type checking, a Deployment is denied with kube\'s message, the authorizer library asks the core', async () => {
  const page = await openPlayground();
  const vapCached = () => moduleCached(page, '/kubeplay-vap.wasm');
  assert.equal(await vapCached(), false, 'the policies\' module is loaded before a policy needs it');
  const NS = 'vap-browser';
  assert.equal((await api(page, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status, 201);
  const POLICIES = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies';
  const BINDINGS = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings';
  const policy = (validations) => ({
    apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'replicas.example.com' },
    spec: {
      matchConstraints: {
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': NS } },
        resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'] }],
      },
      validations,
    },
  });
  // An expression that does not compile is refused as kube refuses it (the module checks it).
  const bad = await api(page, 'POST', POLICIES, policy([{ expression: 'object.spec.replicas > variables.nope' }]));
  assert.equal(bad.status, 422, bad.text);
  assert.equal(await vapCached(), true, 'the policies\' module was not loaded');
  assert.match(bad.json.message, /spec\.validations\[0\]\.expression: Invalid value: "object\.spec\.replicas > variables\.nope": compilation failed: ERROR: <input>:1:33: undefined field 'nope'/);
  const created = await api(page, 'POST', POLICIES, policy([
    { expression: 'object.spec.replicas > 1', messageExpression: "'wants replicas > 1, got ' + string(object.spec.replicas)" },
    { expression: "authorizer.group('apps').resource('deployments').namespace(request.namespace).check('delete').allowed()", message: 'the user may not delete deployments' },
    { expression: "!authorizer.serviceAccount(request.namespace, 'builder').group('apps').resource('deployments').check('delete').allowed()", message: 'the builder service account may delete deployments' },
  ]));
  assert.equal(created.status, 201, created.text);
  // Its status: the type checking of its validations against Deployments' schema, by the module
  // (core/controllers/policystatus), in kube-controller-manager's words (recorded in
  // core/sandbox/testdata/vap-status-kube-1.32.13.json); a typo is warned of.
  const statusOf = async (name) => {
    for (let i = 0; i < 200; i++) {
      const status = (await api(page, 'GET', POLICIES + '/' + name)).json.status;
      if (status) return status;
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  assert.deepEqual(await statusOf('replicas.example.com'), { observedGeneration: 1, typeChecking: {} });
  const typo = { ...policy([{ expression: 'object.spec.replicass < 5' }]), metadata: { name: 'typo.example.com' } };
  assert.equal((await api(page, 'POST', POLICIES, typo)).status, 201);
  assert.deepEqual(await statusOf('typo.example.com'), { observedGeneration: 1, typeChecking: { expressionWarnings: [{ fieldRef: 'spec.validations[0].expression',
    warning: "apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replicass'\n | object.spec.replicass < 5\n | ...........^\n" }] } });
  assert.equal((await api(page, 'DELETE', POLICIES + '/typo.example.com')).status, 200);
  const binding = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'replicas-binding.example.com' },
    spec: { policyName: 'replicas.example.com', validationActions: ['Deny'] } };
  assert.equal((await api(page, 'POST', BINDINGS, binding)).status, 201);
  const deployment = (name, replicas) => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name },
    spec: { replicas, selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } });
  const DEPLOYMENTS = `/apis/apps/v1/namespaces/${NS}/deployments`;
  // kube's answer, as recorded (core/apiserver/testdata/vap-kube-1.32.13.json, case deny)
  const message = "ValidatingAdmissionPolicy 'replicas.example.com' with binding 'replicas-binding.example.com' denied request: wants replicas > 1, got 1";
  const denied = await api(page, 'POST', DEPLOYMENTS, deployment('single', 1));
  assert.equal(denied.status, 422, denied.text);
  assert.deepEqual(denied.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'deployments.apps "single" is forbidden: ' + message,
    reason: 'Invalid', details: { name: 'single', group: 'apps', kind: 'deployments', causes: [{ message }] }, code: 422 });
  // the page's user may delete Deployments (the core's authorizer says so); the second passes
  const allowed = await api(page, 'POST', DEPLOYMENTS, deployment('replicated', 2));
  assert.equal(allowed.status, 201, allowed.text);
  await page.screenshot({ path: join(artifacts, 'vap-denied.png') });
  // The policy judges nothing once gone.
  assert.equal((await api(page, 'DELETE', BINDINGS + '/replicas-binding.example.com')).status, 200);
  assert.equal((await api(page, 'DELETE', POLICIES + '/replicas.example.com')).status, 200);
  assert.equal((await api(page, 'POST', DEPLOYMENTS, deployment('single', 1))).status, 201);
  assert.equal((await api(page, 'DELETE', '/api/v1/namespaces/' + NS)).status, 200);
  await page.close();
});

test('PLAY-6: the xDS panel subscribes in delta mode in the sandbox, auto-ACKs by default; a Cluster edit arrives, is NACKed by hand, and the NACK shows', async () => {
  const page = await openPlayground();
  const CLUSTERS = '/apis/xds.kubeplay.dev/v1/clusters';
  const cluster = (timeout, rv) => ({ apiVersion: 'xds.kubeplay.dev/v1', kind: 'Cluster', metadata: { name: 'panel', ...(rv ? { resourceVersion: rv } : {}) }, spec: { connectTimeout: timeout } });
  const created = await api(page, 'POST', CLUSTERS, cluster('1s'));
  assert.equal(created.status, 201, created.text);
  await page.goto(base + '/#xds');
  await page.waitForSelector('[data-testid="sandbox-status"][data-state="ready"]', { timeout: 30000 });
  await page.selectOption('[data-testid="xds-protocol"]', 'delta');
  await page.click('[data-testid="xds-connect"]');
  await page.waitForSelector('[data-testid="xds-stream-state"][data-state="open"]', { timeout: 20000 });
  await page.fill('[data-testid="xds-names"]', 'panel');
  // Issue 31, friction 10: auto-ACK is on, so the node holds the Cluster
  // without a press.
  assert.equal(await page.isChecked('[data-testid="xds-auto-ack"]'), true);
  await page.click('[data-testid="xds-subscribe"]');
  await page.waitForSelector(`[data-testid="xds-resource-row"][data-name="panel"][data-version="${created.json.metadata.resourceVersion}"]`, { timeout: 20000 });
  await page.uncheck('[data-testid="xds-auto-ack"]');

  const edited = await api(page, 'PUT', CLUSTERS + '/panel', cluster('2s', created.json.metadata.resourceVersion));
  assert.equal(edited.status, 200, edited.text);
  await page.waitForSelector('[data-testid="xds-entry"][data-dir="in"][data-state="pending"]', { timeout: 20000 });
  await page.click('[data-testid="xds-nack"]');
  await page.waitForSelector('[data-testid="xds-entry"][data-dir="in"][data-state="nacked"]', { timeout: 10000 });
  // The node keeps the version it accepted; the server records the refusal.
  assert.equal(await page.getAttribute('[data-testid="xds-resource-row"]', 'data-version'), created.json.metadata.resourceVersion);
  await page.waitForFunction(() => document.querySelector('[data-testid="xds-server-status"]').textContent.includes('rejected by hand'), null, { timeout: 10000 });
  await page.screenshot({ path: join(artifacts, 'xds-panel.png'), fullPage: true });
  await page.close();
});

// Last: it leaves the sandbox with nodes and Pods (set back to API-only).
test('SIM-5: in the browser, a sandbox is "simulated" by default and runs the cluster in its own module: nodes register, a Deployment gets Running Pods on them; bad settings are a 400; API only is a choice', async () => {
  const page = await openPlayground();
  const CLUSTER = '/debug/kubeplay/cluster';
  const initial = await api(page, 'GET', CLUSTER);
  assert.equal(initial.status, 200, initial.text);
  assert.deepEqual(initial.json, { mode: 'simulated', nodes: 3, speed: 1 });
  for (const bad of [{ mode: 'cloud' }, { mode: 'simulated', nodes: 0 }, { mode: 'simulated', speed: -1 }]) {
    const r = await api(page, 'PUT', CLUSTER, bad);
    assert.equal(r.status, 400, r.text);
    assert.equal(r.json.reason, 'BadRequest');
  }
  const set = await api(page, 'PUT', CLUSTER, { mode: 'simulated', nodes: 2, speed: 20 });
  assert.equal(set.status, 200, set.text);
  assert.deepEqual((await api(page, 'GET', CLUSTER)).json, { mode: 'simulated', nodes: 2, speed: 20 });
  const nodes = await api(page, 'GET', '/api/v1/nodes');
  assert.equal(nodes.json.items.length, 2, nodes.text);

  const deployment = {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' },
    spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] } } },
  };
  const created = await api(page, 'POST', '/apis/apps/v1/namespaces/default/deployments', deployment);
  assert.equal(created.status, 201, created.text);
  let running = [];
  for (let i = 0; i < 150 && running.length < 2; i++) {
    const pods = await api(page, 'GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Dweb');
    running = pods.json.items.filter((p) => p.status.phase === 'Running' && p.spec.nodeName && p.status.podIP);
    if (running.length < 2) await page.waitForTimeout(200);
  }
  assert.equal(running.length, 2, 'two Running Pods of the Deployment, bound to nodes, with IPs');
  const rs = await api(page, 'GET', '/apis/apps/v1/namespaces/default/replicasets?labelSelector=app%3Dweb');
  assert.equal(rs.json.items.length, 1, rs.text);
  const events = await api(page, 'GET', '/api/v1/namespaces/default/events');
  assert.ok(events.json.items.some((e) => e.reason === 'Scheduled'), 'a Scheduled event');

  // The header's select shows the mode and sets it.
  await page.reload();
  await page.waitForSelector('[data-testid="sandbox-status"][data-state="ready"]', { timeout: 30000 });
  await page.waitForFunction(() => document.querySelector('[data-testid="cluster-mode"]').value === 'simulated', null, { timeout: 10000 });
  await page.waitForSelector('[data-testid="cluster-mode"]:not([disabled])', { timeout: 10000 });
  await page.selectOption('[data-testid="cluster-mode"]', 'api-only');
  let mode;
  for (let i = 0; i < 50 && mode !== 'api-only'; i++) {
    mode = (await api(page, 'GET', CLUSTER)).json.mode;
    if (mode !== 'api-only') await page.waitForTimeout(100);
  }
  assert.equal(mode, 'api-only');
  assert.equal((await api(page, 'DELETE', '/apis/apps/v1/namespaces/default/deployments/web')).status, 200);
  await page.close();
});

test('PLAY-3 SIM-1 SIM-4: the cluster view draws Nodes, a Deployment, its ReplicaSet and its Pods on their nodes, and the last events, live from watches', async () => {
  const page = await openPlayground();
  const CLUSTER = '/debug/kubeplay/cluster';
  const DEPLOYMENTS = '/apis/apps/v1/namespaces/default/deployments';
  const sel = (testid, attrs = {}) => `[data-testid="${testid}"]` + Object.entries(attrs).map(([k, v]) => `[data-${k}="${v}"]`).join('');
  try {
    // API only, without nodes: the view says how to see the controllers at work.
    assert.equal((await api(page, 'PUT', CLUSTER, { mode: 'api-only', nodes: 2, speed: 20 })).status, 200);
    const gone = await api(page, 'DELETE', '/api/v1/nodes');
    assert.equal(gone.status, 200, gone.text);
    await page.goto(base + '/#cluster');
    await page.waitForSelector('[data-testid="sandbox-status"][data-state="ready"]', { timeout: 30000 });
    // Issue 31, friction 7: the tab watches as soon as it is shown, no Start
    // pressed.
    await page.waitForSelector(sel('cluster-state', { state: 'watching' }), { timeout: 15000 });
    const note = await page.waitForSelector(sel('cluster-api-only'), { state: 'visible', timeout: 10000 });
    assert.match(await note.innerText(), /runs API only.*Simulated cluster/s);

    // The simulated cluster: its nodes register and show up live.
    assert.equal((await api(page, 'PUT', CLUSTER, { mode: 'simulated', nodes: 2, speed: 20 })).status, 200);
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="cluster-node"][data-status="Ready"]').length === 2, null, { timeout: 30000 });
    await page.waitForSelector(sel('cluster-api-only'), { state: 'hidden', timeout: 10000 });

    const deployment = {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'cluster-view' },
      spec: { replicas: 2, selector: { matchLabels: { app: 'cluster-view' } }, template: { metadata: { labels: { app: 'cluster-view' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] } } },
    };
    const created = await api(page, 'POST', DEPLOYMENTS, deployment);
    assert.equal(created.status, 201, created.text);
    await page.waitForSelector(sel('cluster-deployment', { name: 'cluster-view', ready: 2, replicas: 2 }), { timeout: 30000 });
    const rs = await page.waitForSelector(sel('cluster-replicaset', { owner: 'cluster-view' }), { timeout: 10000 });
    const rsName = await rs.getAttribute('data-name');
    assert.equal(await rs.getAttribute('data-revision'), '1');
    // The tree links them: the ReplicaSet under the Deployment, its Pods under it.
    const linked = await page.$$eval(`${sel('cluster-deployment', { name: 'cluster-view' })} + ul ${sel('cluster-replicaset', { name: rsName })} + ul ${sel('cluster-workload-pod', { owner: rsName })}`, (rows) => rows.length);
    assert.equal(linked, 2, 'two Pods under the ReplicaSet under the Deployment');
    // Two Running Pods, each in the box of the node it is bound to.
    await page.waitForFunction((rs) => document.querySelectorAll(`[data-testid="cluster-pod"][data-owner="${rs}"][data-state="Running"]`).length === 2, rsName, { timeout: 30000 });
    const placed = await page.$$eval(sel('cluster-pod', { owner: rsName }), (pods) => pods.map((p) => ({ node: p.dataset.node, box: p.closest('[data-testid="cluster-node"]')?.dataset.name, ready: p.dataset.ready })));
    assert.equal(placed.length, 2);
    for (const p of placed) {
      assert.ok(p.node, 'bound to a node');
      assert.equal(p.box, p.node, 'drawn in its node\'s box');
      assert.equal(p.ready, '1/1');
    }
    await page.waitForSelector(`${sel('cluster-event-row', { reason: 'Scheduled' })}, ${sel('cluster-event-row', { reason: 'ScalingReplicaSet' })}`, { timeout: 10000 });
    // A click shows the Pod's JSON.
    const podName = await page.getAttribute(sel('cluster-pod', { owner: rsName }), 'data-name');
    await page.click(sel('cluster-pod', { name: podName }));
    const detail = await page.waitForSelector(sel('cluster-detail'), { state: 'visible' });
    assert.match(await detail.innerText(), new RegExp(`Pod ${podName}[\\s\\S]*"nodeName"`));
    await page.screenshot({ path: join(artifacts, 'cluster-view.png'), fullPage: true });

    // Scaled to 0, the Pods go; deleted, so does the Deployment.
    const scaled = await page.evaluate((path) => fetch(path, { method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json' }, body: '{"spec":{"replicas":0}}' }).then((r) => r.status), DEPLOYMENTS + '/cluster-view');
    assert.equal(scaled, 200);
    await page.waitForSelector(sel('cluster-deployment', { name: 'cluster-view', replicas: 0 }), { timeout: 10000 });
    await page.waitForFunction((rs) => !document.querySelector(`[data-testid="cluster-pod"][data-owner="${rs}"]`), rsName, { timeout: 30000 });
    await page.waitForSelector(sel('cluster-event-row', { reason: 'Killing' }), { timeout: 10000 });
    assert.equal((await api(page, 'DELETE', DEPLOYMENTS + '/cluster-view')).status, 200);
    await page.waitForSelector(sel('cluster-deployment', { name: 'cluster-view' }), { state: 'detached', timeout: 10000 });
    await page.waitForSelector(sel('cluster-replicaset', { name: rsName }), { state: 'detached', timeout: 30000 });

    // The watches run only while the tab is shown and the view started.
    await page.click(sel('tab-request'));
    await page.waitForSelector(sel('cluster-state', { state: 'stopped' }), { state: 'attached' });
    await page.click(sel('tab-cluster'));
    await page.waitForSelector(sel('cluster-state', { state: 'watching' }), { timeout: 15000 });
    await page.click(sel('cluster-stop'));
    await page.waitForSelector(sel('cluster-state', { state: 'stopped' }));
  } finally {
    await api(page, 'PUT', CLUSTER, { mode: 'simulated', nodes: 3, speed: 1 });
    await page.close();
  }
});

test('issue 31 frictions 4 and 6: a query typed with one path is not sent with the next; history entries name their path in full', async () => {
  const page = await openPlayground();
  await page.evaluate(() => localStorage.removeItem('kubeplay.history'));
  await page.fill('[data-testid="path"]', CMS + '?limit=1');
  await page.press('[data-testid="path"]', 'Enter');
  await page.waitForSelector('[data-testid="response-status"][data-status="200"]');
  assert.deepEqual(await page.$$eval('[data-testid="param-row"] input', (els) => els.map((e) => e.value)), ['limit', '1']);
  await page.fill('[data-testid="path"]', '/api/v1/namespaces/default/secrets');
  await page.press('[data-testid="path"]', 'Enter');
  await page.waitForFunction(() => JSON.parse(localStorage.getItem('kubeplay.history') || '[]').length === 2);
  const sent = await page.evaluate(() => JSON.parse(localStorage.getItem('kubeplay.history')).map((e) => e.path));
  assert.deepEqual(sent, ['/api/v1/namespaces/default/secrets', CMS + '?limit=1']);
  assert.equal(await page.$$eval('[data-testid="param-row"]', (els) => els.length), 0);
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="history-item"]').length === 2);
  const items = await page.$$eval('[data-testid="history-item"]', (els) => els.map((e) => [e.querySelector('.h-path').textContent, e.title.split('\n')[0]]));
  assert.deepEqual(items, [
    ['default/secrets', 'GET /api/v1/namespaces/default/secrets'],
    ['default/configmaps?limit=1', 'GET ' + CMS + '?limit=1'],
  ]);
  await page.close();
});

test('issue 31 frictions 1 and 9: a long answer opens at its start; the identity picker is never cut off', async () => {
  const page = await openPlayground();
  await page.setViewportSize({ width: 1024, height: 760 });
  // A namespace of its own: other tests write to default.
  assert.equal((await api(page, 'POST', '/api/v1/namespaces', { metadata: { name: 'folding' } })).status, 201);
  const CMS = '/api/v1/namespaces/folding/configmaps';
  for (let i = 0; i < 30; i++) assert.equal((await api(page, 'POST', CMS, cm(`long-${i}`))).status, 201);
  await page.evaluate((path) => window.kubeplayUI.builder.setSpec({ method: 'GET', path }), CMS);
  await page.click('[data-testid="send"]');
  await page.waitForSelector('[data-testid="response-status"][data-status="200"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="response-body"]').textContent.includes('long-29'));
  const scroll = await page.$eval('[data-testid="response-body"]', (el) => ({ top: el.scrollTop, overflows: el.scrollHeight > el.clientHeight }));
  assert.deepEqual(scroll, { top: 0, overflows: true });

  // Folded by level, and block by block; the body's text stays the answer's.
  const body = '[data-testid="response-body"]';
  const shown = () => page.$eval(body, (el) => ({ text: el.innerText, all: el.textContent }));
  assert.equal(await page.inputValue('[data-testid="response-fold"]'), '0', 'a list of 30 (under 1000 lines) opens unfolded');
  const full = await shown();
  const names = JSON.parse(full.all).items.map((o) => o.metadata.name);
  assert.deepEqual(names.filter((n) => n.startsWith('long-')).length, 30, 'the text is the list, no toggle or mark in it');
  await page.selectOption('[data-testid="response-fold"]', '2');
  let folded = await shown();
  assert.ok(!folded.text.includes('long-0') && !folded.text.includes('kube-root-ca.crt'), folded.text.slice(0, 400));
  assert.match(await page.getAttribute(`${body} .ln.folded .fold-mark >> nth=0`, 'data-fold'), /^ … \d+ lines },$/);
  assert.equal(folded.all, full.all);
  const shownFolded = `${body} .ln:not([hidden]) > [data-testid="fold-toggle"][aria-expanded="false"]`;
  assert.equal(await page.$$eval(shownFolded, (els) => els.length), names.length, 'each item folded');
  // Opening an item shows its fields, theirs still folded; opening its
  // metadata shows its name.
  await page.click(`${shownFolded} >> nth=0`);
  assert.equal(await page.$$eval(shownFolded, (els) => els.length), names.length - 1 + 2, 'its metadata and data folded, the others too');
  await page.click(`${shownFolded} >> nth=0`);
  folded = await shown();
  assert.ok(folded.text.includes(`"name": "${names[0]}"`) && !folded.text.includes(`"name": "${names[1]}"`), 'the first item\'s name shown, the others still folded');
  await page.screenshot({ path: join(artifacts, 'friction1-fold.png') });
  await page.focus(`${body} [data-testid="fold-toggle"][aria-expanded="true"] >> nth=0`);
  await page.keyboard.press('Enter');
  assert.equal(await page.$$eval(`${body} .ln:not([hidden])`, (els) => els.length), 1, 'the whole list folded into its first line');
  await page.selectOption('[data-testid="response-fold"]', '0');
  assert.equal((await shown()).text.trim(), full.text.trim());

  // A long answer (over 1000 lines) opens folded at level 4: each item's
  // name shows, its labels are folded; YAML folds too.
  for (let i = 30; i < 70; i++) assert.equal((await api(page, 'POST', CMS, cm(`long-${i}`))).status, 201);
  await page.selectOption('[data-testid="response-fold"]', '4');
  await page.click('[data-testid="send"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="response-body"]').textContent.includes('long-69'));
  const long = await shown();
  assert.ok(long.all.split('\n').length > 1000, String(long.all.split('\n').length));
  assert.equal(await page.inputValue('[data-testid="response-fold"]'), '4');
  assert.ok(long.text.includes('"name": "long-69"') && long.text.split('\n').length < long.all.split('\n').length / 2, long.text.slice(0, 300));
  await page.evaluate((path) => window.kubeplayUI.builder.setSpec({ method: 'GET', path, headers: [['Accept', 'application/yaml']] }), `${CMS}/long-0`);
  await page.click('[data-testid="send"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="response-body"]').textContent.startsWith('apiVersion: v1'));
  assert.ok(await page.$$eval(`${body} [data-testid="fold-toggle"]`, (els) => els.length) >= 2, 'metadata and data fold');
  // The picker is as wide as its longest label needs (measured on a copy
  // that nothing constrains).
  const fits = await page.$eval('[data-testid="identity-select"]', (s) => {
    const free = s.cloneNode(true);
    free.style.cssText = 'position: absolute; visibility: hidden; width: auto; flex: none';
    document.body.appendChild(free);
    const need = free.getBoundingClientRect().width;
    free.remove();
    return { have: Math.round(s.getBoundingClientRect().width), need: Math.round(need) };
  });
  assert.ok(fits.have >= fits.need, `identity picker ${fits.have}px wide, its labels need ${fits.need}px`);
  await page.close();
});

test('issue 31 friction 8: a YAML mistake is marked on its own line (gutter, underline, hover, below), in any document; completion, docs and unknown fields from the OpenAPI v3 document', async () => {
  const page = await openPlayground();
  // A JSON body: marked where JSON.parse stops.
  await page.evaluate(() => window.kubeplayUI.builder.editor.setText('{\n  "a": 1\n  "b": 2\n}'));
  await page.waitForFunction(() => document.querySelector('[data-testid="body-problem"]').dataset.line === '3');
  assert.match(await page.textContent('[data-testid="body-problem"]'), /^JSON line 3, column 3: Expected ',' or '}' after property value/);
  await page.evaluate(() => window.kubeplayUI.builder.editor.setText(''));
  await page.click('[data-testid="body-mode-yaml"]');
  const content = '[data-testid="body-editor"] .cm-content';
  await page.click(content);
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  const ok = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n';
  await page.keyboard.insertText(`${ok}---\n${ok}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  name: d\n`);
  // markedLine is the line (from 1) of the gutter's error marker and of the
  // underline, as drawn.
  const markedLine = () => page.evaluate(() => {
    const lines = [...document.querySelectorAll('[data-testid="body-editor"] .cm-line')];
    const lineOf = (el) => lines.findIndex((l) => l.contains(el) || Math.abs(l.getBoundingClientRect().top - el.getBoundingClientRect().top) < 3) + 1;
    const marker = document.querySelector('[data-testid="body-editor"] .cm-lint-marker-error');
    const under = document.querySelector('[data-testid="body-editor"] .cm-lintRange-error');
    return marker && under ? [lineOf(marker.closest('.cm-gutterElement')), lineOf(under)] : null;
  });
  await page.waitForFunction(() => document.querySelector('[data-testid="body-editor"] .cm-lint-marker-error'));
  assert.deepEqual(await markedLine(), [15, 15]);
  assert.equal(await page.textContent('[data-testid="body-problem"]'), 'YAML line 15, column 3: Duplicate key name: map keys must be unique');
  await page.hover('[data-testid="body-editor"] .cm-lintRange-error');
  await page.waitForSelector('.cm-tooltip-lint');
  assert.match(await page.textContent('.cm-tooltip-lint'), /line 15, column 3: Duplicate key name/);
  // A tab in the first document: the mark moves there.
  await page.evaluate(() => window.kubeplayUI.builder.editor.setText('apiVersion: v1\nkind: ConfigMap\ndata:\n\tk: v\n---\napiVersion: v1\nkind: ConfigMap\n'));
  await page.waitForFunction(() => document.querySelector('[data-testid="body-problem"]').dataset.line === '4');
  await page.waitForFunction(() => document.querySelector('[data-testid="body-editor"] .cm-lintRange-error'));
  assert.deepEqual(await markedLine(), [4, 4]);
  assert.equal(await page.textContent('[data-testid="body-problem"]'), 'YAML line 4, column 1: Tabs are not allowed as indentation (use spaces)');
  await page.screenshot({ path: join(artifacts, 'friction8-yaml-error.png') });

  // Completion: spec's fields for a Deployment, from /openapi/v3/apis/apps/v1.
  await page.evaluate(() => window.kubeplayUI.builder.editor.setText('apiVersion: apps/v1\nkind: Deployment\n'));
  await page.click(content);
  await page.keyboard.press('Control+End');
  await page.keyboard.type('spec:');
  await page.keyboard.press('Enter');
  await page.keyboard.press('Shift+Home');
  await page.keyboard.type('  rep');
  await page.waitForSelector('.cm-tooltip-autocomplete li');
  const offered = await page.$$eval('.cm-tooltip-autocomplete li', (els) => els.map((e) => e.querySelector('.cm-completionLabel').textContent));
  assert.deepEqual(offered, ['replicas']);
  await page.waitForSelector('.cm-completionInfo');
  assert.match(await page.textContent('.cm-completionInfo'), /^Number of desired pods\./);
  assert.match(await page.textContent('.cm-tooltip-autocomplete li'), /<integer>/);
  await page.screenshot({ path: join(artifacts, 'friction8-completion.png') });
  await page.keyboard.press('Enter');
  await page.keyboard.type('3');
  assert.equal(await page.evaluate(() => window.kubeplayUI.builder.editor.getText()), 'apiVersion: apps/v1\nkind: Deployment\nspec:\n  replicas: 3');
  // The docs line: the field under the cursor, its type and description.
  await page.waitForFunction(() => /^replicas <integer> Number of desired pods\./.test(document.querySelector('[data-testid="body-docs"]').textContent));
  // A key the schema does not have is a warning on its line.
  await page.evaluate(() => window.kubeplayUI.builder.editor.setText('apiVersion: apps/v1\nkind: Deployment\nspec:\n  replicaz: 3\n'));
  await page.waitForSelector('[data-testid="body-editor"] .cm-lintRange-warning');
  await page.hover('[data-testid="body-editor"] .cm-lintRange-warning');
  await page.waitForSelector('.cm-tooltip-lint');
  assert.equal(await page.textContent('.cm-tooltip-lint'), 'line 4, column 3: unknown field "spec.replicaz": Deployment apps/v1 has no such field');
  await page.close();
});

test('WORK-3: the Requests panel shows kubectl\'s PATCH for kubectl scale and the ReplicaSet controller\'s writes after it, live, a row as curl; docked beside the Cluster view; the in-browser sandbox logs the page\'s own requests', async () => {
  const page = await openPlayground();
  const sel = (testid, attrs = {}) => `[data-testid="${testid}"]` + Object.entries(attrs).map(([k, v]) => `[data-${k}="${v}"]`).join('');
  try {
    // The in-browser sandbox: the page's own request is in its log.
    await page.goto(base + '/#requests');
    await page.waitForSelector('[data-testid="sandbox-status"][data-state="ready"]', { timeout: 30000 });
    await page.waitForSelector(sel('requests-status', { state: 'live' }), { timeout: 15000 });
    assert.equal((await api(page, 'POST', CMS, cm('logged-in-the-page'))).status, 201);
    await page.waitForSelector(sel('requests-row', { client: 'browser', verb: 'create', code: 201 }), { timeout: 10000 });

    // The native server, where kubectl runs.
    await page.selectOption('[data-testid="target-select"]', 'native');
    await page.waitForSelector(sel('requests-status', { state: 'live' }), { timeout: 15000 });
    const kubeconfig = join(scratch, 'kubeconfig-requests');
    writeFileSync(kubeconfig, `apiVersion: v1\nkind: Config\nclusters:\n- name: k\n  cluster:\n    server: ${base}\nusers:\n- name: k\n  user: {}\ncontexts:\n- name: k\n  context:\n    cluster: k\n    user: k\n    namespace: default\ncurrent-context: k\n`);
    const kubectl = (...args) => execFileSync('kubectl', ['--kubeconfig', kubeconfig, '--cache-dir', join(scratch, 'kube-cache'), ...args], { encoding: 'utf8' });
    kubectl('create', 'deployment', 'logged', '--image=nginx');
    // Docked beside the Cluster view.
    await page.check(sel('requests-dock'));
    await page.goto(base + '/#cluster');
    assert.ok(await page.isVisible(sel('requests-panel')) && await page.isVisible('.view-cluster'), 'both views are shown');
    await page.waitForSelector(sel('requests-status', { state: 'live' }), { timeout: 15000 });
    kubectl('scale', 'deployment', 'logged', '--replicas=3');
    await page.waitForSelector(sel('requests-row', { client: 'kubectl', method: 'PATCH', code: 200 }), { timeout: 10000 });
    await page.waitForSelector(sel('requests-row', { client: 'replicaset-controller', verb: 'create', code: 201 }), { timeout: 10000 });

    // Only kubectl's, then one as curl with its body and answer.
    await page.selectOption(sel('requests-filter-client'), 'kubectl');
    await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="requests-row"]')].every((r) => r.dataset.client === 'kubectl'), null, { timeout: 5000 });
    // A locator, not an element handle: the panel re-renders its rows as it
    // polls, and a locator finds the row again if it was replaced.
    await page.locator(sel('requests-row', { client: 'kubectl', method: 'PATCH', code: 200 })).first().click();
    const curl = await (await page.waitForSelector(sel('requests-curl'))).innerText();
    assert.match(curl, /^curl -sS -X PATCH .*Content-Type: application\/merge-patch\+json.*--data-binary '\{"spec":\{"replicas":3\}\}' .*\/apis\/apps\/v1\/namespaces\/default\/deployments\/logged\/scale/s);
    assert.match(await page.innerText(sel('requests-response-body')), /"kind": "Scale"/);
  } finally {
    await page.close();
  }
});
