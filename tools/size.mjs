// Prints raw, gzip and brotli sizes of the built playground's .wasm and UI bundle,
// and checks the .wasm against the 3 MiB gzip budget.
import { readFileSync, statSync } from 'node:fs';
import { gzipSync, brotliCompressSync, constants } from 'node:zlib';

const site = process.argv[2] || 'build/site';
const budget = 3 * 1024 * 1024;
let over = false;
for (const file of ['kubeplay.wasm', 'ui/app.js', 'ui/app.css', 'sw.js']) {
  const path = `${site}/${file}`;
  try { statSync(path); } catch { console.log(`${file}: not built`); continue; }
  const data = readFileSync(path);
  const gz = gzipSync(data, { level: 9 }).length;
  const br = brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
  const mib = (n) => (n / 1048576).toFixed(2) + ' MiB';
  console.log(`${file.padEnd(14)} raw ${mib(data.length).padStart(10)}  gzip ${mib(gz).padStart(10)}  brotli ${mib(br).padStart(10)}`);
  if (file.endsWith('.wasm') && gz > budget) over = true;
}
if (over) {
  console.error('kubeplay.wasm is over the 3 MiB gzip budget');
  process.exit(1);
}
