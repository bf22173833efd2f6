// Runs every tutorial in tutorials/ against the native server with the pure
// runner, and checks the runner's helpers. `node --test test/` from ui/.
// Its kubectl steps run the real kubectl 1.32 (/usr/bin/kubectl, or
// $KUBECTL): what a tutorial teaches of kubectl holds for kubectl itself.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { runStep, substitute, getPath } from '../src/tutorial-runner.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');
const tutorialsDir = path.join(repo, 'tutorials');

// Two playgrounds: one serving the API only, as the browser's sandbox does
// (the tutorials are written for it), and one with the simulated cluster (10
// times faster) for the tutorials that say "cluster": "simulated".
const servers = {};
let buildDir = '';

// Starts the built playground with args on a free port; it logs
// "kubeplay API at http://ADDR" on stderr once it listens.
function startPlayground(bin, args) {
  const proc = spawn(bin, ['--listen', '127.0.0.1:0', '--quiet', ...args], { cwd: repo, stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    let err = '';
    const timer = setTimeout(() => reject(new Error(`playground did not start:\n${err}`)), 30000);
    proc.stderr.setEncoding('utf8');
    proc.stderr.on('data', (chunk) => {
      err += chunk;
      const m = /kubeplay API at (http:\/\/\S+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve({ proc, base: m[1] });
      }
    });
    proc.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`playground exited with ${code}:\n${err}`));
    });
  });
}

before(async () => {
  buildDir = await mkdtemp(path.join(tmpdir(), 'kubeplay-tutorials-'));
  const bin = path.join(buildDir, process.platform === 'win32' ? 'playground.exe' : 'playground');
  await promisify(execFile)('go', ['build', '-o', bin, './playground'], { cwd: repo });
  servers.apiOnly = await startPlayground(bin, ['--cluster', 'api-only']);
  servers.simulated = await startPlayground(bin, ['--cluster', 'simulated', '--sim-speed', '10']);
}, { timeout: 180000 });

// Waits (up to 10s) until no namespace is Terminating: the tutorials delete their
// namespaces, and closing the core while its namespace controller is still
// finalizing one can hang its shutdown.
async function settleNamespaces(base) {
  const deadline = Date.now() + 10000;
  while (Date.now() < deadline) {
    try {
      const list = await (await fetch(`${base}/api/v1/namespaces`)).json();
      if (!list.items.some((ns) => ns.status && ns.status.phase === 'Terminating')) return;
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

after(async () => {
  for (const { proc, base } of Object.values(servers)) {
    if (proc.exitCode !== null) continue;
    await settleNamespaces(base);
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill('SIGTERM');
    // The playground allows watches 2s to finish; do not wait on it forever.
    const timer = setTimeout(() => proc.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }
  if (buildDir) await rm(buildDir, { recursive: true, force: true });
}, { timeout: 30000 });

// realKubectl is a kubectl step's kubectl for the playground at base: the
// real one, the step's line run by bash as typed (pipes and heredocs
// included), with -v=6 added to each kubectl (and its alias k) so that
// kubectl logs each request: "GET URL 200 OK in 3 milliseconds". Those log
// lines are the exchanges, and the rest of stdout and stderr, as a terminal
// shows them, is the output. Each playground has its own HOME, and so its
// own kubeconfig and discovery cache, as a terminal has.
const KUBECTL = process.env.KUBECTL || '/usr/bin/kubectl';
const haveKubectl = existsSync(KUBECTL);
const KLOG_RE = /^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+ [\w.]+:\d+\] (.*)$/;
const ROUND_TRIP_RE = /^(GET|POST|PUT|PATCH|DELETE|HEAD) (\S+) (\d{3})\b/;
async function realKubectl(base) {
  const home = await mkdtemp(path.join(buildDir, 'home-'));
  await writeFile(path.join(home, 'kubeconfig'), `apiVersion: v1
kind: Config
clusters:
- name: kubeplay
  cluster:
    server: ${base}
contexts:
- name: kubeplay
  context:
    cluster: kubeplay
    user: kubeplay
    namespace: default
current-context: kubeplay
users:
- name: kubeplay
  user: {}
`);
  const script = `exec 2>&1\nkubectl() { command ${JSON.stringify(KUBECTL)} -v=6 "$@"; }\nk() { kubectl "$@"; }\n`;
  return (line) => new Promise((resolve, reject) => {
    const proc = spawn('bash', ['-c', script + line + '\n'], { env: { PATH: process.env.PATH, HOME: home, KUBECONFIG: path.join(home, 'kubeconfig') }, stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    proc.stdout.setEncoding('utf8');
    proc.stdout.on('data', (c) => { text += c; });
    proc.on('error', reject);
    proc.on('close', (exit) => {
      const output = [];
      const exchanges = [];
      for (const l of text.split('\n')) {
        const m = KLOG_RE.exec(l);
        if (!m) {
          output.push(l);
          continue;
        }
        const rt = ROUND_TRIP_RE.exec(m[1]);
        if (rt && rt[2].startsWith(base)) exchanges.push({ method: rt[1], path: rt[2].slice(base.length), status: Number(rt[3]) });
      }
      resolve({ exit, output: output.join('\n'), exchanges });
    });
  });
}

// fetchFor is the fetch of the playground a tutorial is written for.
const fetchFor = (tut) => {
  const { base } = tut.cluster === 'simulated' ? servers.simulated : servers.apiOnly;
  return (p, init) => fetch(base + p, init);
};

async function loadIndex() {
  return JSON.parse(await readFile(path.join(tutorialsDir, 'index.json'), 'utf8'));
}

test('PLAY-7 every tutorial replays against the native server', async (t) => {
  const index = await loadIndex();
  assert.ok(index.length > 0);
  for (const entry of index) {
    const tut = JSON.parse(await readFile(path.join(tutorialsDir, entry.file), 'utf8'));
    assert.equal(tut.id, entry.id);
    await t.test(tut.id, async (t) => {
      // As the README says of kubectl's tests: without kubectl 1.32 they
      // skip, with a warning (go test ./tutorials/ still plays them with
      // the page's kubectl).
      if (!haveKubectl && tut.steps.some((s) => s.kubectl !== undefined)) {
        console.warn(`warning: ${KUBECTL} is not installed: tutorial ${tut.id}'s kubectl steps are not played with the real kubectl`);
        t.skip(`${KUBECTL} is not installed`);
        return;
      }
      const kubectl = await realKubectl((tut.cluster === 'simulated' ? servers.simulated : servers.apiOnly).base);
      // Twice on the same server: a tutorial must replay where it already ran.
      for (let run = 1; run <= 2; run++) {
        let vars = {};
        for (const [i, step] of tut.steps.entries()) {
          const res = await runStep(step, vars, fetchFor(tut), { kubectl });
          assert.ok(res.ok, `tutorial ${tut.id}, run ${run}, step ${i + 1} (${JSON.stringify(step.title)}):\n  ` +
            `${res.failures.join('\n  ')}\nstatus ${res.status}, body:\n${res.bodyText.slice(0, 2000)}`);
          assert.notEqual(res.vars, vars, 'runStep must return a new vars object');
          vars = res.vars;
        }
      }
    });
  }
});

test('substitute replaces known variables in strings, arrays and object values', () => {
  const vars = { ns: 'demo', rv: '42', n: 7 };
  assert.equal(substitute('/api/v1/namespaces/{{ns}}/pods?resourceVersion={{ rv }}', vars),
    '/api/v1/namespaces/demo/pods?resourceVersion=42');
  assert.equal(substitute('{{missing}}/{{n}}', vars), '{{missing}}/7');
  assert.deepEqual(substitute({ metadata: { namespace: '{{ns}}', '{{ns}}': 1 }, list: ['{{rv}}', 3, null] }, vars),
    { metadata: { namespace: 'demo', '{{ns}}': 1 }, list: ['42', 3, null] });
  assert.equal(substitute(5, vars), 5);
});

test('getPath indexes objects and arrays, with length for arrays', () => {
  const obj = { metadata: { resourceVersion: '9', ts: null }, items: [{ metadata: { name: 'a' } }, { metadata: { name: 'b' } }] };
  assert.equal(getPath(obj, 'metadata.resourceVersion'), '9');
  assert.equal(getPath(obj, 'items.1.metadata.name'), 'b');
  assert.equal(getPath(obj, 'items.length'), 2);
  assert.equal(getPath(obj, 'metadata.ts'), null);
  assert.equal(getPath(obj, 'items.2.metadata'), undefined);
  assert.equal(getPath(obj, 'items.01'), undefined);
  assert.equal(getPath(obj, 'metadata.continue'), undefined);
  assert.equal(getPath(obj, 'metadata.resourceVersion.x'), undefined);
  assert.equal(getPath(obj, ''), obj);
});

test('runStep reports unmet expectations and does not send with unknown variables', async () => {
  let calls = 0;
  const fake = async (p, init) => {
    calls++;
    assert.equal(p, '/api/v1/namespaces/demo/configmaps');
    assert.equal(init.method, 'POST');
    assert.equal(init.headers['Content-Type'], 'application/json');
    assert.deepEqual(JSON.parse(init.body), { metadata: { name: 'x', namespace: 'demo' } });
    return new Response(JSON.stringify({ metadata: { name: 'x', resourceVersion: '5' } }), { status: 201 });
  };
  const step = {
    title: 't', narration: 'n',
    request: { method: 'POST', path: '/api/v1/namespaces/{{ns}}/configmaps', body: { metadata: { name: 'x', namespace: '{{ns}}' } } },
    expect: { status: 200, json: { 'metadata.name': 'y' }, jsonPresent: ['metadata.uid'], jsonAbsent: ['metadata.resourceVersion'], contains: ['{{ns}}'] },
    save: { rv: 'metadata.resourceVersion', none: 'metadata.none' },
  };
  const vars = { ns: 'demo' };
  const res = await runStep(step, vars, fake);
  assert.equal(res.ok, false);
  assert.equal(res.status, 201);
  assert.deepEqual(res.failures, [
    'status: got 201, want 200',
    'metadata.name: got "x", want "y"',
    'metadata.uid: missing, want present',
    'metadata.resourceVersion: got "5", want absent',
    'body does not contain "demo"',
    'save none: metadata.none not found',
  ]);
  assert.equal(res.vars.rv, '5');
  assert.deepEqual(vars, { ns: 'demo' }, 'the caller\'s vars are not modified');

  const skipped = await runStep(step, {}, fake);
  assert.equal(calls, 1);
  assert.equal(skipped.ok, false);
  assert.match(skipped.failures[0], /unknown variable\(s\): \{\{ns\}\}/);
});

test('runStep reads a watch stream line by line and aborts after N events', async () => {
  let aborted = false;
  const enc = new TextEncoder();
  const fake = async (p, init) => {
    init.signal.addEventListener('abort', () => { aborted = true; });
    const body = new ReadableStream({
      start(c) {
        // Events split across chunks; the stream then stays open.
        c.enqueue(enc.encode('{"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"3"}}}\n{"type":"MOD'));
        c.enqueue(enc.encode('IFIED","object":{"metadata":{"name":"a","resourceVersion":"4"}}}\n'));
      },
    });
    return new Response(body, { status: 200, headers: { 'Content-Type': 'application/json' } });
  };
  const step = {
    title: 'w', narration: 'n',
    request: { method: 'GET', path: '/api/v1/configmaps?watch=1&timeoutSeconds=5' },
    watch: { events: 2 },
    expect: { status: 200, events: [{ type: 'ADDED', name: 'a' }, { type: 'MODIFIED', json: { 'object.metadata.resourceVersion': '4' } }], eventCount: 2 },
    save: { last: 'events.1.object.metadata.resourceVersion' },
  };
  const res = await runStep(step, {}, fake);
  assert.deepEqual(res.failures, []);
  assert.equal(res.events.length, 2);
  assert.equal(res.vars.last, '4');
  assert.ok(aborted, 'the watch request was aborted');

  // A stream that ends early stops the read; the count expectation reports it.
  const short = async () => new Response('{"type":"ADDED","object":{}}\n', { status: 200 });
  const r2 = await runStep({ ...step, expect: { eventCount: 2, events: [{ type: 'ADDED' }, { type: 'DELETED' }] }, save: {} }, {}, short);
  assert.deepEqual(r2.failures, ['events.1: missing (got 1 events), want DELETED', 'eventCount: got 1, want 2']);
});

test('runStep with watch.until stops at the first event that matches, and fails when none does', async () => {
  let aborted = false;
  const enc = new TextEncoder();
  const lines = [
    '{"type":"MODIFIED","object":{"metadata":{"name":"fs"},"status":{"conditions":[{"type":"Dangling","status":"True"}]}}}',
    '{"type":"MODIFIED","object":{"metadata":{"name":"fs"},"status":{"conditions":[{"type":"Dangling","status":"False"}]}}}',
    '{"type":"MODIFIED","object":{"metadata":{"name":"fs"},"status":{"conditions":[{"type":"Dangling","status":"True"}]}}}',
  ];
  const stream = (ls, open) => async (p, init) => {
    if (init.signal) init.signal.addEventListener('abort', () => { aborted = true; });
    return new Response(new ReadableStream({
      start(c) {
        for (const l of ls) c.enqueue(enc.encode(l + '\n'));
        if (!open) c.close();
      },
    }), { status: 200 });
  };
  const step = {
    title: 'w', narration: 'n',
    request: { method: 'GET', path: '/apis/x/flowschemas?watch=1&timeoutSeconds=5' },
    watch: { events: 5, until: { 'object.status.conditions.0.status': '{{want}}' } },
    expect: { status: 200, events: [{ type: 'MODIFIED', name: 'fs' }] },
  };
  const res = await runStep(step, { want: 'False' }, stream(lines, true));
  assert.deepEqual(res.failures, []);
  assert.equal(res.events.length, 2, 'the read stops at the matching event, not at watch.events');
  assert.ok(aborted, 'the watch request was aborted');

  const none = await runStep(step, { want: 'False' }, stream([lines[0]], false));
  assert.deepEqual(none.failures, ['watch.until: none of the 1 event(s) read has object.status.conditions.0.status="False"']);
});
