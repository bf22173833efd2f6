// Raw and gzip size of each edge Worker as it would be uploaded (its modules),
// against Cloudflare's per-Worker limits: 64 MiB uncompressed, and compressed
// 10 MB on the paid Workers plan (the sandbox Worker, carrying the core with
// the simulated cluster linked in and the xDS module, needs it) or 3 MB on the free one (reported).
// Exported for the benchmark; run directly by `make size`.
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { BUILD } from './workerd.mjs';

export const WORKER_LIMIT_BYTES = 64 * 1024 * 1024;
export const PAID_COMPRESSED_BYTES = 10 * 1000 * 1000;
// The Go modules are the browser's builds, whose budgets (in what browsers
// download) tools/size.mjs checks; here only the Workers' limits apply.
export const FREE_COMPRESSED_BYTES = 3 * 1000 * 1000;
export const WORKERS = {
  'front (JS entry + Go control plane)': ['front', ['front.mjs', 'kube.mjs', 'bridge.mjs', 'sitepolicy.json', 'worker.mjs', 'runtime.mjs', 'wasm_exec.js', 'app.wasm']],
  'sandbox (Durable Object + core)': ['sandbox', ['sandbox.mjs', 'kube.mjs', 'bridge.mjs', 'wasm_exec.js', 'kubeplay.wasm', 'kubeplay-xds.wasm', 'openapi-documents.bin']],
  'floor (minimal Go worker)': ['floor', ['worker.mjs', 'runtime.mjs', 'wasm_exec.js', 'app.wasm']],
};

/** {name: {raw, gzip}} for each built Worker. */
export function workerSizes() {
  const out = {};
  for (const [name, [dir, files]] of Object.entries(WORKERS)) {
    let raw = 0;
    let gzip = 0;
    for (const f of files) {
      const data = fs.readFileSync(path.join(BUILD, dir, f));
      raw += data.length;
      gzip += gzipSync(data, { level: 9 }).length;
    }
    out[name] = { raw, gzip };
  }
  return out;
}

export const mib = (n) => (n / 1048576).toFixed(2) + ' MiB';

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  let over = false;
  for (const [name, { raw, gzip }] of Object.entries(workerSizes())) {
    const plan = gzip > FREE_COMPRESSED_BYTES ? 'needs the paid plan (over the free plan\'s 3 MB compressed)' : 'fits the free plan';
    console.log(`edge ${name.padEnd(32)} raw ${mib(raw).padStart(10)}  gzip ${mib(gzip).padStart(10)}  (${(100 * raw / WORKER_LIMIT_BYTES).toFixed(0)}% of 64 MiB; ${plan})`);
    if (raw > WORKER_LIMIT_BYTES || gzip > PAID_COMPRESSED_BYTES) over = true;
  }
  if (over) {
    console.error('an edge Worker is over the 64 MiB uncompressed or 10 MB compressed limit');
    process.exit(1);
  }
}
