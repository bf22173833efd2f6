// Browser benchmarks (issue: the browser host), ratios measured side by side in
// one run of headless Chromium:
//  - cold start to the first API answer: the kubeplay service worker versus the
//    same worker loading an empty Go wasm (build/site-floor, the floor), and versus
//    the floor carrying the core's code unstarted (build/site-floor-linked, the
//    linked floor), which splits the ratio into what the core's size costs and
//    what its work costs; the three are measured in turn, round after round. Each
//    cold start is split into phases from the worker's own startup marks (sw.js):
//      boot      the request until the worker's script ran (process, script, wasm_exec.js)
//      dispatch  until the fetch event asked for the core
//      fetch     finding kubeplay.wasm in Cache Storage
//      compile   compileStreaming: reading the bytes streams into compiling them
//      init      instantiating and running the Go program until it is ready
//                (runtime and package initialisation)
//      state     waiting for IndexedDB's state, read meanwhile
//      start     kubeplay.start: the core's server, restored from that state
//      answer    serving the request until the page has the answer
//    and read, measured apart: the page reading the .wasm bytes from Cache Storage.
//    V8 compiles a wasm function when it is first called, in every new worker;
//    the rounds run again in a browser told to compile every function up front
//    (not what browsers do), which separates compiling the core's start and
//    first answer from running them;
//  - small-object GET throughput in the service worker versus the native server
//    through loopback, both fetched from the same page;
//  - the page's kubectl (LEARN-1): the first command after the terminal is
//    opened (its module loaded), time to its answer, as a ratio to a plain
//    fetch of the same GET; a later `kubectl get` in the shown terminal as a
//    ratio to the page's own request for the same list (the builder's Send in
//    its shown tab, until the answer is in its view), and to the bare
//    transport under both (apiFetch, nothing shown); the module's Go heap
//    after 200 commands;
//  - scrubbing (LEARN-5): in a history of 10,000 changes, the list of a
//    collection at the oldest revision kept and at the middle one
//    (resourceVersionMatch=Exact), and the timeline's first page, each as a
//    ratio to a plain list of the same collection (target: at most 100 ms);
//  - the start page on a fresh profile (LEARN-3): time from navigation to its
//    tracks shown (usable) and to "sandbox ready" (the worker installed and its
//    core started), from the page's marks, in new contexts.
// Chromium is driven without DevTools on its workers (bare-chromium.mjs): an
// attached worker would start slower and never idle.
// Usage: node test-browser/bench.mjs   (after `make site site-floor`)
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { launchBare } from './bare-chromium.mjs';

const repo = resolve(import.meta.dirname, '..', '..');
const scratch = mkdtempSync(join(tmpdir(), 'kubeplay-bench-'));
const bin = join(scratch, 'playground');
execFileSync('go', ['build', '-o', bin, './playground'], { cwd: repo, stdio: 'inherit' });

function serve(site) {
  const proc = spawn(bin, ['--listen', '127.0.0.1:0', '--site', site, '--quiet'], { stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((ok, fail) => {
    let buf = '';
    proc.stderr.on('data', (d) => { buf += d; const m = buf.match(/kubeplay API at (http:\/\/\S+)/); if (m) ok({ proc, url: m[1] }); });
    proc.on('exit', (c) => fail(new Error('playground exited ' + c + buf)));
  });
}

const launch = (name, args = []) => launchBare({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  userDataDir: join(scratch, name),
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking', '--disable-component-update', '--disable-sync', ...args],
});

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const PHASES = ['boot', 'dispatch', 'fetch', 'compile', 'init', 'state', 'start', 'answer'];

// installed opens the site in its own context and waits until its worker controls
// the page and has answered once.
async function installed(browser, base) {
  const page = await (await browser.newContext()).newPage(base + '/');
  for (let i = 0; ; i++) {
    if (await page.evaluate(() => !!navigator.serviceWorker?.controller)) break;
    if (i > 300) throw new Error(`${base}: the worker never took control`);
    await new Promise((r) => setTimeout(r, 100));
  }
  await page.evaluate(() => fetch('/version').then((r) => r.text()));
  await page.send('ServiceWorker.enable');
  return page;
}

// coldStart stops the page's worker, times the first API answer, and splits
// it by the new worker's startup marks; read is timed apart, with the worker idle.
async function coldStart(page) {
  await page.send('ServiceWorker.stopAllWorkers');
  return page.evaluate(async () => {
    const t0 = performance.timeOrigin + performance.now();
    const r = await fetch('/version');
    await r.text();
    const t1 = performance.timeOrigin + performance.now();
    if (!r.ok) throw new Error('status ' + r.status);
    const s = await new Promise((resolve) => {
      const sw = navigator.serviceWorker;
      sw.addEventListener('message', (e) => { if (e.data?.type === 'kubeplay-status') resolve(e.data.startup); });
      sw.controller.postMessage({ type: 'kubeplay-status' });
    });
    const r0 = performance.now();
    await (await caches.match('/kubeplay.wasm')).arrayBuffer();
    const read = performance.now() - r0;
    const ran = Math.max(s.initialized, s.loaded);
    return {
      total: t1 - t0, read,
      boot: s.script - t0, dispatch: s.begin - s.script, fetch: s.fetched - s.begin, compile: s.compiled - s.fetched,
      init: s.initialized - s.compiled, state: ran - s.initialized, start: s.started - ran, answer: t1 - s.started,
    };
  });
}

// report prints the rounds' median totals, ratios and phases.
function report(title, runs) {
  const m = Object.fromEntries(Object.entries(runs).map(([n, rs]) => [n, Object.fromEntries(
    ['total', 'read', ...PHASES].map((k) => [k, median(rs.map((r) => r[k]))]))]));
  const ratio = (a, b) => median(runs[a].map((r, i) => r.total / runs[b][i].total));
  const ms = (x) => `${x.toFixed(1)} ms`;
  console.log(`cold start to first answer, ${title} (median of ${runs.kubeplay.length} rounds, the three in turn):`);
  console.log(`  kubeplay ${ms(m.kubeplay.total)}, linked floor ${ms(m['linked floor'].total)}, empty Go wasm worker (floor) ${ms(m.floor.total)}`);
  console.log(`  kubeplay / linked floor ${ratio('kubeplay', 'linked floor').toFixed(2)}x (target <= 1.15x); ` +
    `linked floor / floor ${ratio('linked floor', 'floor').toFixed(2)}x (the core's size); kubeplay / floor ${ratio('kubeplay', 'floor').toFixed(2)}x`);
  console.log(`  phases (median ms; the phases' medians need not add up to the total's):`);
  console.log(`  ${'phase'.padEnd(10)}${Object.keys(runs).map((n) => n.padStart(14)).join('')}   linked floor share`);
  for (const k of ['total', ...PHASES, 'read']) {
    const share = k === 'total' ? '' : `${(100 * m['linked floor'][k] / m['linked floor'].total).toFixed(0).padStart(4)}%`;
    console.log(`  ${k.padEnd(10)}${Object.keys(runs).map((n) => m[n][k].toFixed(1).padStart(14)).join('')}   ${share}` +
      (k === 'read' ? '  (apart: the page reading the .wasm from Cache Storage; inside compile above)' : ''));
  }
}

const sites = {
  kubeplay: await serve(join(repo, 'build', 'site')),
  'linked floor': await serve(join(repo, 'build', 'site-floor-linked')),
  floor: await serve(join(repo, 'build', 'site-floor')),
};
const rounds = Number(process.env.BENCH_ROUNDS || 15);

// coldStarts installs every site in browser, then measures rounds of cold starts.
async function coldStarts(browser) {
  const pages = {};
  for (const [name, { url }] of Object.entries(sites)) pages[name] = await installed(browser, url);
  const runs = Object.fromEntries(Object.keys(sites).map((n) => [n, []]));
  for (let i = 0; i < rounds; i++) {
    for (const name of Object.keys(sites)) runs[name].push(await coldStart(pages[name]));
  }
  return { pages, runs };
}

const browser = await launch('profile');
// BENCH_ONLY=fresh measures only the first visits on fresh profiles.
const only = process.env.BENCH_ONLY || '';
try {
  if (only !== 'fresh') await others();
  await freshVisits();
} finally {
  await browser.close();
  for (const { proc } of Object.values(sites)) proc.kill();
  rmSync(scratch, { recursive: true, force: true });
}

async function others() {
  const { pages, runs } = await coldStarts(browser);
  report('as browsers compile wasm', runs);
  const eager = await launch('profile-eager', ['--js-flags=--no-wasm-lazy-compilation']);
  try {
    report('every function compiled up front', (await coldStarts(eager)).runs);
  } finally {
    await eager.close();
  }

  const result = await pages.kubeplay.evaluate(async () => {
    const path = '/api/v1/namespaces/default/configmaps';
    const body = JSON.stringify({ metadata: { name: 'bench' }, data: { k: 'v' } });
    for (const headers of [{}, { 'X-Kubeplay-Target': 'network' }]) {
      await fetch(path, { method: 'POST', body, headers: { ...headers, 'Content-Type': 'application/json' } });
    }
    async function rate(headers) {
      const n = 400;
      for (let i = 0; i < 20; i++) await (await fetch(path + '/bench', { headers })).text();
      const t = performance.now();
      for (let i = 0; i < n; i++) {
        const r = await fetch(path + '/bench', { headers });
        await r.text();
        if (r.status !== 200) throw new Error('status ' + r.status);
      }
      return n / ((performance.now() - t) / 1000);
    }
    const sw = await rate({});
    const native = await rate({ 'X-Kubeplay-Target': 'network' });
    return { sw, native };
  });
  console.log(`GET small object: service worker ${result.sw.toFixed(0)}/s, native via loopback ${result.native.toFixed(0)}/s, ratio ${(result.sw / result.native * 100).toFixed(0)}% (target >= 50%)`);

  const k = await pages.kubeplay.evaluate(async () => {
    const ui = window.kubeplayUI;
    const time = async (fn) => { const t = performance.now(); const v = await fn(); return { ms: performance.now() - t, v }; };
    const text = (path) => () => ui.apiFetch(path).then((r) => r.text());
    const frame = () => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
    const show = async (hash) => { location.hash = hash; await frame(); };
    const list = '/api/v1/namespaces/default/configmaps';
    // The terminal as a learner has it: its own tab, shown.
    await show('#terminal');
    await ui.terminal.open();
    const first = await time(() => ui.terminal.runLine('kubectl version'));
    const plain = await time(text('/version'));
    const rounds = { gets: [], fetches: [], sends: [] };
    let code = 0;
    for (let i = 0; i < 12; i++) {
      const g = await time(() => ui.terminal.runLine('kubectl get configmaps'));
      code = g.v;
      rounds.gets.push(g.ms);
      rounds.fetches.push((await time(text(list))).ms);
    }
    // The page's own request for the list: the builder's Send, shown in its
    // own tab, until the answer is in the response view.
    await show('#request');
    ui.builder.setSpec({ method: 'GET', path: list });
    for (let i = 0; i < 12; i++) rounds.sends.push((await time(() => ui.builder.send())).ms);
    await show('#terminal');
    for (let i = 0; i < 200; i++) await ui.terminal.runLine(i % 2 ? 'kubectl get configmaps' : 'kubectl version');
    const mem = ui.terminal.memStats();
    return { first: first.ms, firstCode: first.v, plain: plain.ms, ...rounds, code, mem };
  });
  const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const mib = (n) => `${(n / 1048576).toFixed(1)} MiB`;
  console.log(`kubectl in the page: first command (kubectl version, exit ${k.firstCode}) ${k.first.toFixed(1)} ms, a plain fetch of GET /version ${k.plain.toFixed(1)} ms, ratio ${(k.first / k.plain).toFixed(1)}x`);
  console.log(`  a later kubectl get configmaps, until its output is written (exit ${k.code}; median of ${k.gets.length}): ${med(k.gets).toFixed(1)} ms`);
  console.log(`    the page's own request for the list (the builder's Send until its response view has it): ${med(k.sends).toFixed(1)} ms, ratio ${(med(k.gets) / med(k.sends)).toFixed(2)}x (target <= 1.5x)`);
  console.log(`    the bare transport under both (apiFetch and read, nothing shown): ${med(k.fetches).toFixed(1)} ms, ratio ${(med(k.gets) / med(k.fetches)).toFixed(1)}x`);
  console.log(`  the module's Go heap after 200 more commands: HeapAlloc ${mib(k.mem.heapAlloc)}, HeapSys ${mib(k.mem.heapSys)}, Sys ${mib(k.mem.sys)}, ${k.mem.numGC} GCs`);

  // Scrubbing (LEARN-5): a history of 10,000 changes (100 ConfigMaps written
  // 100 times each, in batches), then the collection read at the oldest
  // revision kept and at the middle one (resourceVersionMatch=Exact, every
  // later change undone), and the timeline's first page, each against a
  // plain list of the same collection.
  const sc = await pages.kubeplay.evaluate(async () => {
    const ns = '/api/v1/namespaces/scrub';
    const post = (path, body, type = 'application/json', method = 'POST') =>
      fetch(path, { method, body: JSON.stringify(body), headers: { 'Content-Type': type } }).then(async (r) => {
        if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
        return r.json();
      });
    await post('/api/v1/namespaces', { metadata: { name: 'scrub' } });
    let middle = 0;
    for (let round = 0; round < 100; round++) {
      const writes = [];
      for (let i = 0; i < 100; i++) {
        const name = `cm-${String(i).padStart(3, '0')}`;
        writes.push(round === 0
          ? post(`${ns}/configmaps`, { metadata: { name }, data: { round: '0' } })
          : post(`${ns}/configmaps/${name}`, { data: { round: String(round) } }, 'application/merge-patch+json', 'PATCH'));
      }
      const objs = await Promise.all(writes);
      if (round === 50) middle = Number(objs[0].metadata.resourceVersion);
    }
    const tl = await (await fetch('/debug/kubeplay/timeline?limit=1')).json();
    const time = async (path) => {
      const ms = [];
      for (let i = 0; i < 9; i++) {
        const t = performance.now();
        const r = await fetch(path);
        await r.text();
        if (r.status !== 200) throw new Error(`${path}: ${r.status}`);
        ms.push(performance.now() - t);
      }
      return ms.sort((a, b) => a - b)[4];
    };
    const at = (rev) => `${ns}/configmaps?resourceVersionMatch=Exact&resourceVersion=${rev}`;
    // The simulated cluster writes on (leases, events), and history keeps a
    // bounded count: "oldest" stays a margin clear of the moving compaction.
    const oldest = tl.compactedRevision + 200;
    return {
      changes: tl.revision - oldest,
      list: await time(`${ns}/configmaps`),
      oldest: await time(at(oldest)),
      middle: await time(at(middle)),
      timeline: await time('/debug/kubeplay/timeline'),
    };
  });
  console.log(`scrubbing a history of ${sc.changes} changes (median of 9): a plain list of the 100 ConfigMaps ${sc.list.toFixed(1)} ms; ` +
    `the list at the oldest revision kept (200 past the compaction) ${sc.oldest.toFixed(1)} ms (${(sc.oldest / sc.list).toFixed(1)}x, target <= 100 ms), ` +
    `at the middle one ${sc.middle.toFixed(1)} ms (${(sc.middle / sc.list).toFixed(1)}x); the timeline's first page ${sc.timeline.toFixed(1)} ms (${(sc.timeline / sc.list).toFixed(1)}x)`);

}

async function freshVisits() {
  const med = median;
  // The start page on a fresh profile: each round a new context (no worker,
  // no cache), its marks read once the sandbox is ready.
  const starts = [];
  for (let i = 0; i < 5; i++) {
    const ctx = await browser.newContext();
    const page = await ctx.newPage(sites.kubeplay.url + '/#start');
    for (let j = 0; ; j++) {
      const m = await page.evaluate(() => Object.fromEntries(['kubeplay:start-interactive', 'kubeplay:sandbox-ready'].map((n) => [n, performance.getEntriesByName(n)[0]?.startTime])));
      if (m['kubeplay:start-interactive'] !== undefined && m['kubeplay:sandbox-ready'] !== undefined) {
        // Where the time went: the worker's own marks (epoch ms), after navigation.
        const w = await page.evaluate(() => new Promise((resolve) => {
          const sw = navigator.serviceWorker;
          sw.addEventListener('message', (e) => { if (e.data?.type === 'kubeplay-status') resolve({ s: e.data.startup, origin: performance.timeOrigin }); });
          sw.controller.postMessage({ type: 'kubeplay-status' });
        }));
        const at = (t) => (t ? t - w.origin : NaN);
        starts.push({
          interactive: m['kubeplay:start-interactive'], ready: m['kubeplay:sandbox-ready'],
          worker: at(w.s.script), begin: at(w.s.begin), fetched: at(w.s.fetched), compiled: at(w.s.compiled), initialized: at(w.s.initialized),
          loaded: at(w.s.loaded), started: at(w.s.started), installed: at(w.s.installed), activated: at(w.s.activated), cached: at(w.s.cached),
        });
        break;
      }
      if (j > 600) throw new Error('the start page or the sandbox never became ready');
      await new Promise((r) => setTimeout(r, 50));
    }
    await ctx.close();
  }
  console.log(`start page on a fresh profile (median of ${starts.length}): interactive ${med(starts.map((s) => s.interactive)).toFixed(0)} ms, sandbox ready ${med(starts.map((s) => s.ready)).toFixed(0)} ms after navigation (target: interactive before the sandbox is ready)`);
  console.log('  the worker on a fresh profile, ms after navigation (median): ' +
    ['worker', 'begin', 'fetched', 'compiled', 'initialized', 'loaded', 'started', 'installed', 'activated', 'cached']
      .map((k) => [k, med(starts.map((s) => s[k]))]).map(([k, v]) => `${k} ${Number.isNaN(v) ? 'later' : v.toFixed(0)}`).join(', ') +
    ' (worker: its script ran; begin: the core was first needed, once its module was cached, during the install; started: the core started; installed: the install done; activated: it claimed the page; cached: the assets, which a first install caches behind)');
}
