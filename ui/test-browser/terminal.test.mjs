// The page's kubectl terminal in headless Chromium (LEARN-1): the terminal
// and kubeplay-kubectl.wasm load when it is first opened; commands typed
// into xterm run against the in-browser sandbox (a simulated cluster), a
// watch runs until Ctrl-C, a heredoc is stdin, each command's HTTP
// exchanges are listed beside the terminal, and the sandbox and the native
// server see kubectl's User-Agent (which a page may not set: the terminal
// sends it as X-Kubeplay-User-Agent).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as harness from './harness.mjs';

let server, base, context, scratch;

before(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'kubeplay-terminal-'));
  mkdirSync(harness.artifacts, { recursive: true });
  ({ proc: server, url: base } = await harness.startServer(scratch));
  context = await harness.launchContext(scratch);
});

after(async () => {
  await context?.close();
  server?.kill('SIGTERM');
  rmSync(scratch, { recursive: true, force: true });
});

const transcript = (page) => page.evaluate(() => window.kubeplayUI.terminal.transcript());

// typeCommand types line into the terminal and presses Enter; it waits until
// the command has ended (the panel is not running) and returns what it
// printed: the transcript after the line.
async function typeCommand(page, line, { wait = true } = {}) {
  const before = (await transcript(page)).length;
  await page.keyboard.type(line);
  await page.keyboard.press('Enter');
  if (!wait) return '';
  // Done: not running, and xterm has shown the next prompt (it writes asynchronously).
  await page.waitForFunction((n) => !document.querySelector('[data-testid="terminal-panel"]').dataset.running &&
    /\n\$ ?$/.test(window.kubeplayUI.terminal.transcript().slice(n)), before, { timeout: 60000 });
  // The lines after the prompt's, but the prompts' (a heredoc's "> " lines, the next "$ ").
  const lines = (await transcript(page)).slice(before).split('\n').slice(1);
  return lines.filter((l) => !/^[$>] |^\$$/.test(l)).join('\n');
}

// exchanges are the listed exchanges of the newest command, once the list
// has been drawn (on the next animation frame).
function exchanges(page) {
  return page.evaluate(async () => {
    await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    return [...document.querySelector('[data-testid="terminal-command"]').querySelectorAll('[data-testid="terminal-exchange"]')]
      .map((e) => `${e.dataset.method} ${e.dataset.path.replace(/\?.*/, '')} ${e.dataset.status}`);
  });
}

// openTerminal opens the page (in browser, context by default), sets the
// sandbox's simulated cluster going quickly, and opens the terminal; loaded
// lists the paths the page fetched.
async function openTerminal(loaded = [], browser = context) {
  const page = await browser.newPage();
  page.on('request', (r) => loaded.push(new URL(r.url()).pathname));
  await page.goto(base + '/');
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 30000 });
  await page.waitForSelector('[data-testid="sandbox-status"][data-state="ready"]', { timeout: 30000 });
  await page.evaluate(() => fetch('/debug/kubeplay/cluster', { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ mode: 'simulated', nodes: 2, speed: 20 }) }));
  assert.ok(!loaded.some((p) => p === '/kubeplay-kubectl.wasm' || p.startsWith('/ui/xterm')), `the terminal is not loaded before it is opened: ${loaded}`);
  await page.click('[data-testid="tab-terminal"]');
  await page.waitForSelector('[data-testid="terminal-state"][data-state="ready"]', { state: 'attached', timeout: 30000 });
  await page.click('[data-testid="terminal-screen"]');
  return page;
}

test('LEARN-1: the terminal loads on first open and runs kubectl against the in-browser sandbox, its exchanges beside it', async () => {
  const loaded = [];
  const page = await openTerminal(loaded);
  assert.ok(loaded.includes('/kubeplay-kubectl.wasm') && loaded.includes('/ui/xterm.js'), 'opened, it loads xterm and the module');

  // What main has of kubectl: version, a hint for anything else.
  const version = await typeCommand(page, 'kubectl version');
  assert.match(version, /^Client Version: v1\.32\.\d+\nKustomize Version: v5\.5\.0\nServer Version: v1\.32\.\d+/);
  assert.deepEqual(await exchanges(page), ['GET /version 200']);
  assert.match(await typeCommand(page, 'ls'), /^ls: only kubectl runs here/);
  assert.match(await typeCommand(page, 'k version --client'), /^Client Version: v1\.32\.\d+\nKustomize Version: v5\.5\.0$/);

  // An exchange opens to its headers and bodies.
  await page.click('[data-testid="tab-terminal"]');
  const first = page.locator('[data-testid="terminal-command"]').last().locator('[data-testid="terminal-exchange"] > summary').first();
  await first.click();
  const detail = await page.locator('[data-testid="terminal-command"]').last().locator('[data-testid="terminal-exchange"]').first().innerText();
  assert.match(detail, /User-Agent\s+kubectl\/v1\.32\.\d+/);
  assert.match(detail, /"gitVersion"/);

  // History: Up goes back through the commands, and it is kept for the target.
  await page.click('[data-testid="terminal-screen"]');
  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowUp');
  const recalled = await typeCommand(page, '');
  assert.match(recalled, /^Client Version: v1\.32\.\d+\nKustomize Version: v5\.5\.0\nServer Version/, 'Up Up Up Enter runs "kubectl version" again');
  assert.deepEqual(await page.evaluate(() => JSON.parse(localStorage.getItem('kubeplay.terminal.history.sandbox'))),
    ['kubectl version', 'ls', 'k version --client', 'kubectl version']);

  // Ctrl-C drops the line being written; a line with an open quote asks for more.
  await page.keyboard.type('kubectl frobnicate');
  await page.keyboard.press('Control+C');
  assert.equal(await typeCommand(page, `kubectl 'frob\nnicate'`), 'Error: unknown command "frob\\nnicate" for "kubectl"', 'as kubectl 1.32 prints it');
  assert.match(await transcript(page), /\$ kubectl frobnicate\^C\n\$ kubectl 'frob\n> nicate'\n/);

  // A watch and a follow run until Ctrl-C, which aborts their requests.
  await typeCommand(page, 'kubectl get configmaps -w', { wait: false });
  await page.waitForFunction(() => /^kube-root-ca\.crt\s+1\s+\d+s$/m.test(window.kubeplayUI.terminal.transcript()), null, { timeout: 20000 });
  assert.equal(await page.getAttribute('[data-testid="terminal-panel"]', 'data-running'), 'true', 'the watch goes on');
  await page.keyboard.press('Control+C');
  await page.waitForFunction(() => !document.querySelector('[data-testid="terminal-panel"]').dataset.running, null, { timeout: 10000 });
  // The watch's exchange is listed once its stream has ended.
  await page.waitForFunction(() => [...document.querySelector('[data-testid="terminal-command"]').querySelectorAll('[data-testid="terminal-exchange"]')]
    .some((e) => /^\/api\/v1\/namespaces\/default\/configmaps\?.*watch=true/.test(e.dataset.path)), null, { timeout: 10000 });
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'logger' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } };
  await page.evaluate((pod) => fetch('/api/v1/namespaces/default/pods', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(pod) }), pod);
  await page.waitForFunction(() => fetch('/api/v1/namespaces/default/pods/logger').then((r) => r.json()).then((p) => p.status?.phase === 'Running'), null, { timeout: 30000, polling: 500 });
  const beforeLogs = (await transcript(page)).length;
  await typeCommand(page, 'kubectl logs -f logger', { wait: false });
  await page.waitForFunction((n) => window.kubeplayUI.terminal.transcript().slice(n).split('\n').filter((l) => l.trim()).length >= 2, beforeLogs, { timeout: 30000 });
  await page.keyboard.press('Control+C');
  await page.waitForFunction(() => !document.querySelector('[data-testid="terminal-panel"]').dataset.running, null, { timeout: 10000 });

  // Copy, with nothing selected, copies the last command's output.
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  await typeCommand(page, 'kubectl version --client');
  await page.click('[data-testid="terminal-copy"]');
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), 'Client Version: v1.32.13\nKustomize Version: v5.5.0\n');
  // A selection made with the mouse is drawn and copied; typing clears it
  // (drawn again though the terminal skips redraws while nothing is selected).
  const box = await page.locator('[data-testid="terminal-screen"] .xterm-screen').boundingBox();
  await page.mouse.move(box.x + 2, box.y + 6);
  await page.mouse.down();
  await page.mouse.move(box.x + 200, box.y + 6, { steps: 5 });
  await page.mouse.up();
  await page.waitForFunction(() => document.querySelector('[data-testid="terminal-screen"] .xterm-selection')?.children.length > 0, null, { timeout: 5000 });
  await page.click('[data-testid="terminal-copy"]');
  assert.match(await page.evaluate(() => navigator.clipboard.readText()), /^kubectl in the page/);
  await page.click('[data-testid="terminal-screen"]');
  await typeCommand(page, 'kubectl version --client');
  await page.waitForFunction(() => document.querySelector('[data-testid="terminal-screen"] .xterm-selection')?.children.length === 0, null, { timeout: 5000 });

  // Docked, the terminal stays open beside the Cluster view.
  await page.click('[data-testid="terminal-dock"]');
  await page.click('[data-testid="tab-cluster"]');
  // The Cluster view renders as it switches in: wait for it, not a glance.
  await page.waitForSelector('[data-testid="cluster-state"]', { state: 'visible', timeout: 15000 });
  assert.ok(await page.isVisible('[data-testid="terminal-screen"]'));
  assert.ok(await page.evaluate(() => document.body.classList.contains('terminal-docked')));
  await page.close();
});

test('LEARN-1: the workshop\'s commands in the terminal: create, a watch stopped with Ctrl-C, scale, rollout status, apply of a heredoc', async () => {
  const page = await openTerminal();
  assert.equal(await typeCommand(page, 'kubectl version --client'), 'Client Version: v1.32.13\nKustomize Version: v5.5.0');

  // Tab completes a command, a resource type from discovery, an object's name.
  await page.keyboard.type('k api-v');
  await page.keyboard.press('Tab');
  await page.waitForFunction(() => /\$ k api-versions $/m.test(window.kubeplayUI.terminal.transcript()), null, { timeout: 10000 });
  await page.keyboard.press('Control+C');
  await page.keyboard.type('kubectl get configm');
  await page.keyboard.press('Tab');
  await page.keyboard.type('kube-root');
  await page.keyboard.press('Tab');
  await page.waitForFunction(() => /\$ kubectl get configmaps kube-root-ca\.crt $/m.test(window.kubeplayUI.terminal.transcript()), null, { timeout: 10000 });
  assert.match(await typeCommand(page, ''), /^NAME\s+DATA\s+AGE\nkube-root-ca\.crt\s+1\s+\d+s$/);

  const created = await typeCommand(page, 'kubectl create deployment web --image=nginx --replicas=2');
  assert.equal(created, 'deployment.apps/web created');
  assert.deepEqual((await exchanges(page)).at(-1), 'POST /apis/apps/v1/namespaces/default/deployments 201');

  await typeCommand(page, 'kubectl get pods -w', { wait: false });
  await page.waitForFunction(() => (window.kubeplayUI.terminal.transcript().match(/^web-\S+\s+\d\/1\s+Running/gm) || []).length >= 2, null, { timeout: 60000 });
  await page.keyboard.press('Control+C');
  await page.waitForFunction(() => !document.querySelector('[data-testid="terminal-panel"]').dataset.running, null, { timeout: 10000 });
  const watched = await transcript(page);
  assert.match(watched, /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE$/m);
  const watchEx = await exchanges(page);
  assert.ok(watchEx.includes('GET /api/v1/namespaces/default/pods 200'), watchEx.join('\n'));

  const scaled = await typeCommand(page, 'kubectl scale deploy/web --replicas=3');
  assert.equal(scaled, 'deployment.apps/web scaled');
  const status = await typeCommand(page, 'kubectl rollout status deploy/web');
  assert.match(status, /deployment "web" successfully rolled out$/);

  // A heredoc is stdin.
  const applied = await typeCommand(page, 'kubectl apply -f - <<EOF\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-heredoc\nEOF');
  assert.equal(applied, 'configmap/from-heredoc created');
  await page.screenshot({ path: join(harness.artifacts, 'terminal.png') });
  await page.close();
});

test('LEARN-1: the sandbox and the native server see the terminal\'s requests with kubectl\'s User-Agent', async (t) => {
  const agent = 'kubectl/v1.32.13 (js/wasm) kubernetes/kubeplay';
  const podsList = (entries) => entries.items.find((e) => e.method === 'GET' && e.uri.startsWith('/api/v1/namespaces/default/pods'));
  // A browser of its own: the others leave the terminal open in theirs.
  const browser = await harness.launchContext(scratch, 'profile-user-agent');
  t.after(() => browser.close());
  const page = await openTerminal([], browser);
  assert.match(await typeCommand(page, 'kubectl get pods'), /^No resources found in default namespace\.$|^NAME\s+READY/);

  // The in-browser sandbox's log, as the page reads it.
  const logged = await page.evaluate(() => fetch('/debug/kubeplay/requests?client=kubectl').then((r) => r.json()));
  const list = podsList(logged);
  assert.equal(list?.userAgent, agent, JSON.stringify(logged.items.map((e) => [e.method, e.uri, e.userAgent])));
  assert.equal(list.client, 'kubectl');
  // The Requests panel lists it as kubectl's, with its agent.
  await page.click('[data-testid="tab-requests"]');
  const row = page.locator('[data-testid="requests-row"][data-client="kubectl"][data-method="GET"]', { hasText: '/api/v1/namespaces/default/pods' }).first();
  await row.click({ timeout: 15000 });
  // The row's details load on demand ("loading…" first).
  await page.waitForFunction((a) => document.querySelector('[data-testid="requests-panel"]').innerText.includes(a), agent, { timeout: 15000 })
    .catch(() => assert.fail('the panel shows kubectl\'s User-Agent'));

  // The native server, which the service worker passes the request on to.
  await page.selectOption('[data-testid="target-select"]', 'native');
  await page.click('[data-testid="tab-terminal"]');
  await page.click('[data-testid="terminal-screen"]');
  await typeCommand(page, 'kubectl get pods');
  const native = await (await fetch(base + '/debug/kubeplay/requests?client=kubectl')).json();
  assert.equal(podsList(native)?.userAgent, agent, JSON.stringify(native.items.map((e) => [e.method, e.uri, e.userAgent])));
  await page.close();
});

test('LEARN-1: a tutorial\'s kubectl steps run in the terminal beside the player: typed by the learner or entered by Run step, judged with their HTTP', async (t) => {
  const browser = await harness.launchContext(scratch, 'profile-tutorial-kubectl');
  t.after(() => browser.close());
  const page = await browser.newPage();
  await page.goto(base + '/#tutorials');
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 30000 });
  await page.waitForSelector('[data-testid="sandbox-status"][data-state="ready"]', { timeout: 30000 });
  await page.click('[data-testid="tutorial-item"][data-id="what-kubectl-sends"]');
  await page.waitForSelector('[data-testid="tutorial-steps"] > *');
  const total = await page.$$eval('[data-testid="tutorial-steps"] > *', (els) => els.length);
  const result = async (i) => {
    const el = await page.waitForSelector('[data-testid="tutorial-step-result"]', { timeout: 60000 });
    assert.equal(await el.getAttribute('data-ok'), 'true', `step ${i + 1}: ${await el.innerText()}`);
    return el;
  };

  // Step 1 is a request: its namespace.
  await page.click('[data-testid="tutorial-run-step"]');
  await result(0);
  await page.click('[data-testid="tutorial-next"]');

  // Step 2, typed by the learner: "Type it" docks the terminal beside the
  // player with the line at its prompt; Enter runs it, and the player
  // judges what it did.
  const line = (await page.textContent('[data-testid="tutorial-kubectl-line"]')).replace(/^\$ /, '');
  assert.match(line, /^kubectl create configmap color -n tutorial-kubectl-\w+ --from-literal=color=blue$/);
  await page.click('[data-testid="tutorial-type"]');
  await page.waitForSelector('[data-testid="terminal-state"][data-state="ready"]', { state: 'attached', timeout: 30000 });
  assert.equal(await page.isVisible('[data-testid="terminal-panel"]'), true, 'the terminal is beside the player');
  assert.equal(await page.isVisible('[data-testid="tutorial-player"]'), true);
  await page.waitForFunction((l) => window.kubeplayUI.terminal.transcript().endsWith('$ ' + l), line, { timeout: 10000 });
  await page.keyboard.press('Enter');
  const typed = await result(1);
  const ns = line.split(' ')[5];
  assert.ok((await typed.innerText()).includes(`POST /api/v1/namespaces/${ns}/configmaps?fieldManager=kubectl-create&fieldValidation=Strict → 201`), await typed.innerText());
  assert.match(await page.textContent('[data-testid="tutorial-kubectl-output"]'), /^configmap\/color created\n?$/);

  // The rest by Run step, which enters each line in the terminal: heredocs,
  // a pipe, and a command that fails as the step expects.
  for (let i = 2; i < total; i++) {
    await page.click('[data-testid="tutorial-next"]');
    await page.click('[data-testid="tutorial-run-step"]');
    await result(i);
  }
  await page.waitForSelector('[data-testid="tutorial-complete"]');
  const shown = await page.evaluate(() => window.kubeplayUI.terminal.transcript());
  assert.ok(shown.includes('configmap/settings configured') && shown.includes('configmap/flags serverside-applied') &&
    shown.includes('Error from server (NotFound): configmaps "color" not found'), shown);
  await page.screenshot({ path: join(harness.artifacts, 'tutorial-kubectl.png'), fullPage: true });
  await page.close();
});
