// Browser benchmarks (issue: the browser host), ratios measured side by side in
// one run of headless Chromium:
//  - cold start to the first API answer: the kubeplay service worker versus the
//    same worker loading an empty Go wasm (build/site-floor, the floor), and versus
//    the floor carrying the core's code unstarted (build/site-floor-linked), which
//    splits the ratio into what the core's size costs and what its work costs;
//  - small-object GET throughput in the service worker versus the native server
//    through loopback, both fetched from the same page.
// Usage: node test-browser/bench.mjs   (after `make site site-floor`)
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';

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

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});

// coldStarts installs the site's worker once, then stops it and times the first
// API answer, rounds times; returns the median in ms.
async function coldStarts(base, rounds) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(base + '/');
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 30000 });
  await page.evaluate(() => fetch('/version').then((r) => r.text()));
  const cdp = await context.newCDPSession(page);
  await cdp.send('ServiceWorker.enable');
  const times = [];
  for (let i = 0; i < rounds; i++) {
    await cdp.send('ServiceWorker.stopAllWorkers');
    times.push(await page.evaluate(async () => {
      const t = performance.now();
      const r = await fetch('/version');
      await r.text();
      if (!r.ok) throw new Error('status ' + r.status);
      return performance.now() - t;
    }));
  }
  await context.close();
  return median(times);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const real = await serve(join(repo, 'build', 'site'));
const floor = await serve(join(repo, 'build', 'site-floor'));
const linked = await serve(join(repo, 'build', 'site-floor-linked'));
try {
  const rounds = 9;
  const coldReal = await coldStarts(real.url, rounds);
  const coldFloor = await coldStarts(floor.url, rounds);
  const coldLinked = await coldStarts(linked.url, rounds);
  console.log(`cold start to first answer: kubeplay ${coldReal.toFixed(1)} ms, empty Go wasm worker ${coldFloor.toFixed(1)} ms, ratio ${(coldReal / coldFloor).toFixed(2)}x (target <= 2x)`);
  console.log(`  of which the core's size: floor carrying the core unstarted ${coldLinked.toFixed(1)} ms = ${(coldLinked / coldFloor).toFixed(2)}x the floor; kubeplay = ${(coldReal / coldLinked).toFixed(2)}x that`);

  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(real.url + '/');
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 30000 });
  const result = await page.evaluate(async () => {
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
  await context.close();
} finally {
  await browser.close();
  real.proc.kill();
  floor.proc.kill();
  linked.proc.kill();
  rmSync(scratch, { recursive: true, force: true });
}
