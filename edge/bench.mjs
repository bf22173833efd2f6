// make bench-edge: the edge's speed and size in a local workerd, each figure with
// the floor it is compared with, measured in the same run.
//
//   cold start   first request to a new sandbox (Durable Object + wasm instance +
//                restore) vs the first request to the floor Worker (the smallest
//                Go Worker built with syumai/workers), in one fresh workerd
//   restore      a sandbox's first request after a workerd restart with 1k and 10k
//                writes behind it (snapshots keep it flat), and with 1k and 10k
//                stored objects (startup time, memory)
//   warm GET     CPU time per request: the front Worker's thin path alone (a 404
//                it answers itself), a GET through it and the sandbox object,
//                and the Go control plane (POST /sandboxes) next to the floor;
//                throughput vs the native server through loopback
//   size         each Worker's raw and gzip size against Cloudflare's limits
//
// CPU time is workerd's own, summed over its threads (/proc/PID/task/*/schedstat):
// an upper bound for what Cloudflare would bill the Workers involved. Wall times
// depend on the machine; the ratios are the point. BENCH_EDGE_SCALE=0.1 runs a
// smaller version (100 and 1k instead of 1k and 10k).

import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { startEdge, ROOT } from './workerd.mjs';
import { workerSizes, mib } from './size.mjs';

const SCALE = Number(process.env.BENCH_EDGE_SCALE || 1);
const SMALL = Math.round(1000 * SCALE);
const LARGE = Math.round(10000 * SCALE);
const CMS = '/api/v1/namespaces/default/configmaps';
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'kubeplay-edge-bench-'));
let storageSeq = 0;

const ms = (n) => `${n.toFixed(1)} ms`;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function cpuNs(pid) {
  let total = 0;
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      total += Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // the thread ended meanwhile
    }
  }
  return total;
}

function rssBytes(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m[1]) * 1024;
}

/** Runs fn once; returns {wall ms, cpu ms of workerd} and fn's result. */
async function measure(edge, fn) {
  const cpu0 = cpuNs(edge.pid);
  const t0 = performance.now();
  const result = await fn();
  const wall = performance.now() - t0;
  return { wall, cpu: (cpuNs(edge.pid) - cpu0) / 1e6, result };
}

async function get(url, headers) {
  const r = await fetch(url, { headers });
  await r.arrayBuffer();
  if (r.status >= 400) throw new Error(`GET ${url}: ${r.status}`);
  return r.status;
}

async function newEdge() {
  return startEdge({ storageDir: path.join(scratch, `storage-${storageSeq++}`), floor: true, vars: { CREATE_LIMIT_PER_HOUR: '1000' } });
}

async function createSandbox(edge) {
  const r = await fetch(edge.url + '/sandboxes', { method: 'POST' });
  const sb = await r.json();
  return { ...sb, auth: { Authorization: `Bearer ${sb.token}` } };
}

/** Runs n requests made by make(i) with the given concurrency. */
async function many(n, concurrency, make) {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < n) {
      const i = next++;
      const r = await make(i);
      if (!r.ok) throw new Error(`request ${i}: ${r.status} ${await r.text()}`);
      await r.arrayBuffer();
    }
  }));
}

const post = (sb, name) => fetch(sb.server + CMS, {
  method: 'POST', headers: { ...sb.auth, 'Content-Type': 'application/json' },
  body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { v: name } }),
});
const patch = (sb, name, v) => fetch(`${sb.server}${CMS}/${name}`, {
  method: 'PATCH', headers: { ...sb.auth, 'Content-Type': 'application/merge-patch+json' }, body: JSON.stringify({ data: { v: String(v) } }),
});

/** Requests per second of GET url over seconds, with concurrency clients. */
async function throughput(url, headers, concurrency, seconds = 3) {
  const end = performance.now() + seconds * 1000;
  let count = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (performance.now() < end) {
      await get(url, headers);
      count++;
    }
  }));
  return count / seconds;
}

async function startNative() {
  const bin = path.join(scratch, 'playground');
  execFileSync('go', ['build', '-o', bin, './playground'], { cwd: ROOT, stdio: 'inherit' });
  const proc = spawn(bin, ['--listen', '127.0.0.1:0', '--quiet', '--site', path.join(ROOT, 'build', 'site')], { stdio: ['ignore', 'ignore', 'pipe'] });
  const url = await new Promise((resolve, reject) => {
    let buf = '';
    proc.stderr.on('data', (d) => {
      buf += d;
      const m = buf.match(/kubeplay API at (http:\/\/\S+)/);
      if (m) resolve(m[1]);
    });
    proc.on('exit', (code) => reject(new Error('native server exited ' + code + ': ' + buf)));
  });
  return { proc, url };
}

async function coldStart() {
  const rows = [];
  for (let trial = 0; trial < 3; trial++) {
    const edge = await newEdge();
    try {
      const floor = await measure(edge, () => get(edge.floorUrl + '/'));
      const front = await measure(edge, () => fetch(edge.url + '/s/not-an-id/api').then((r) => r.arrayBuffer()));
      const created = await measure(edge, () => createSandbox(edge));
      const sb = created.result;
      const first = await measure(edge, () => get(sb.server + '/api/v1/namespaces', sb.auth));
      rows.push({ floor, front, created, first });
    } finally {
      await edge.stop();
    }
  }
  const pick = (k, f) => median(rows.map((r) => r[k][f]));
  console.log('\n== cold start (fresh workerd; median of 3)');
  console.log(`floor Worker first request          ${ms(pick('floor', 'wall')).padStart(10)}  cpu ${ms(pick('floor', 'cpu'))}`);
  console.log(`front Worker first request (404)    ${ms(pick('front', 'wall')).padStart(10)}  cpu ${ms(pick('front', 'cpu'))}`);
  console.log(`POST /sandboxes                     ${ms(pick('created', 'wall')).padStart(10)}  cpu ${ms(pick('created', 'cpu'))}`);
  console.log(`new sandbox first request           ${ms(pick('first', 'wall')).padStart(10)}  cpu ${ms(pick('first', 'cpu'))}`);
  console.log(`ratio new sandbox / floor: wall ${(pick('first', 'wall') / pick('floor', 'wall')).toFixed(2)}x, cpu ${(pick('first', 'cpu') / pick('floor', 'cpu')).toFixed(2)}x`);
}

/** Restarts workerd and measures the sandbox's first request and the memory after it. */
async function restoreAfterRestart(edge, sb) {
  await edge.restart('SIGTERM');
  await get(edge.floorUrl + '/');
  const baseRSS = rssBytes(edge.pid);
  const first = await measure(edge, () => get(`${sb.server}${CMS}?limit=1`, sb.auth));
  const status = await (await fetch(sb.server + '/kubeplay/status', { headers: sb.auth })).json();
  return { ...first, rssDelta: rssBytes(edge.pid) - baseRSS, wasm: status.wasmMemoryBytes, revision: status.restoredRevision };
}

async function restoreSeries() {
  const edge = await newEdge();
  try {
    console.log(`\n== restore after a workerd restart (journal + snapshot every 500 commits)`);
    // Many writes to the same 10 objects: the history grows, the state does not.
    const churn = await createSandbox(edge);
    await many(10, 10, (i) => post(churn, `churn-${i}`));
    let done = 10;
    for (const target of [SMALL, LARGE]) {
      await many(target - done, 16, (i) => patch(churn, `churn-${i % 10}`, done + i));
      done = target;
      const r = await restoreAfterRestart(edge, churn);
      console.log(`${String(target).padStart(6)} writes to 10 objects: first request ${ms(r.wall).padStart(9)}  cpu ${ms(r.cpu)}`);
    }
    // Many objects: startup and memory grow with what is stored.
    const objects = await createSandbox(edge);
    done = 0;
    for (const target of [SMALL, LARGE]) {
      await many(target - done, 16, (i) => post(objects, `obj-${done + i}`));
      done = target;
      const r = await restoreAfterRestart(edge, objects);
      console.log(`${String(target).padStart(6)} stored objects:       first request ${ms(r.wall).padStart(9)}  cpu ${ms(r.cpu)}  ` +
        `wasm memory ${mib(r.wasm)}  workerd RSS +${mib(r.rssDelta)} (of 128 MB per isolate)`);
    }
  } finally {
    await edge.stop();
  }
}

async function warm() {
  const edge = await newEdge();
  const native = await startNative();
  try {
    const sb = await createSandbox(edge);
    await post(sb, 'warm').then((r) => r.arrayBuffer());
    const url = `${sb.server}${CMS}/warm`;
    const N = 200;
    const ROUNDS = 5;
    for (let i = 0; i < 20; i++) await get(url, sb.auth);
    // Each figure is the median of ROUNDS runs of N sequential requests, the runs interleaved.
    const perRequest = { edgeGET: [], thinPath: [], floor: [], control: [] };
    for (let round = 0; round < ROUNDS; round++) {
      perRequest.edgeGET.push(await measure(edge, async () => { for (let i = 0; i < N; i++) await get(url, sb.auth); }));
      perRequest.thinPath.push(await measure(edge, async () => {
        for (let i = 0; i < N; i++) await fetch(edge.url + '/s/not-an-id/api').then((r) => r.arrayBuffer());
      }));
      perRequest.floor.push(await measure(edge, async () => { for (let i = 0; i < N; i++) await get(edge.floorUrl + '/'); }));
      perRequest.control.push(await measure(edge, async () => { for (let i = 0; i < N / 10; i++) await createSandbox(edge); }));
    }
    const cpu = (k, n = N) => median(perRequest[k].map((m) => m.cpu / n));
    const wall = (k, n = N) => median(perRequest[k].map((m) => m.wall / n));
    console.log(`\n== warm requests (${N} sequential, median of ${ROUNDS}; workerd CPU per request)`);
    console.log(`floor Worker (a Go instance)        ${ms(wall('floor')).padStart(9)}  cpu ${ms(cpu('floor'))}`);
    console.log(`POST /sandboxes (Go control plane)  ${ms(wall('control', N / 10)).padStart(9)}  cpu ${ms(cpu('control', N / 10))}`);
    console.log(`front Worker's thin path (404)      ${ms(wall('thinPath')).padStart(9)}  cpu ${ms(cpu('thinPath'))}`);
    console.log(`GET through front + sandbox         ${ms(wall('edgeGET')).padStart(9)}  cpu ${ms(cpu('edgeGET'))}  (target <= 5 ms; free plan: 10 ms per invocation)`);
    console.log(`  of which the sandbox object (difference)      cpu ${ms(cpu('edgeGET') - cpu('thinPath'))}`);

    const nativeURL = `${native.url}${CMS}/warm`;
    await fetch(native.url + CMS, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'warm' } }) });
    console.log(`\n== GET throughput (2 s each, edge and native interleaved; median of ${ROUNDS})`);
    for (const c of [1, 8]) {
      const rounds = [];
      for (let round = 0; round < ROUNDS; round++) {
        const e = await throughput(url, sb.auth, c, 2);
        const n = await throughput(nativeURL, {}, c, 2);
        rounds.push({ e, n, ratio: e / n });
      }
      const m = (k) => median(rounds.map((r) => r[k]));
      console.log(`concurrency ${c}: edge ${m('e').toFixed(0).padStart(6)} req/s   native loopback ${m('n').toFixed(0).padStart(6)} req/s   ratio ${m('ratio').toFixed(3)}` +
        (c === 8 ? '  (target >= 0.25)' : ''));
    }
  } finally {
    native.proc.kill('SIGTERM');
    await edge.stop();
  }
}

function sizes() {
  console.log('== Worker sizes (Cloudflare: 64 MiB uncompressed per Worker on every plan)');
  for (const [name, { raw, gzip }] of Object.entries(workerSizes())) {
    console.log(`${name.padEnd(34)} raw ${mib(raw).padStart(10)}  gzip ${mib(gzip).padStart(10)}`);
  }
}

try {
  sizes();
  await coldStart();
  await warm();
  await restoreSeries();
} finally {
  fs.rmSync(scratch, { recursive: true, force: true });
}
