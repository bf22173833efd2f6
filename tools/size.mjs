// Prints raw, gzip and brotli sizes of the built playground's .wasm modules and
// UI bundles (the page's, and xterm.js, which the terminal loads), and checks
// what browsers download of the modules, brotli (the .br files make site
// writes, tools/precompress.mjs: quality 11), against the budgets: 3 MiB for
// the core's .wasm, 2 MiB for the xDS, simulation, CEL (rules, policies) and
// kubectl (the page's terminal) modules (each loaded on first use).
import { readFileSync, statSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

const site = process.argv[2] || 'build/site';
const budgets = { 'kubeplay.wasm': 3 * 1024 * 1024, 'kubeplay-xds.wasm': 2 * 1024 * 1024, 'kubeplay-sim.wasm': 2 * 1024 * 1024, 'kubeplay-cel.wasm': 2 * 1024 * 1024, 'kubeplay-vap.wasm': 2 * 1024 * 1024, 'kubeplay-kubectl.wasm': 2 * 1024 * 1024 };
const over = [];
for (const file of ['kubeplay.wasm', 'kubeplay-xds.wasm', 'kubeplay-sim.wasm', 'kubeplay-cel.wasm', 'kubeplay-vap.wasm', 'kubeplay-kubectl.wasm', 'ui/app.js', 'ui/app.css', 'ui/xterm.js', 'ui/xterm.css', 'sw.js']) {
  const path = `${site}/${file}`;
  try { statSync(path); } catch { console.log(`${file}: not built`); continue; }
  const data = readFileSync(path);
  const gz = gzipSync(data, { level: 9 }).length;
  let br;
  try { br = statSync(path + '.br').size; } catch { console.log(`${file}: no .br (tools/precompress.mjs)`); over.push(`${file} has no .br`); continue; }
  const mib = (n) => (n / 1048576).toFixed(2) + ' MiB';
  console.log(`${file.padEnd(21)} raw ${mib(data.length).padStart(10)}  gzip ${mib(gz).padStart(10)}  brotli ${mib(br).padStart(10)}`);
  if (br > (budgets[file] ?? Infinity)) over.push(`${file} is over its ${budgets[file] / 1048576} MiB brotli budget`);
}
if (over.length > 0) {
  console.error(over.join('\n'));
  process.exit(1);
}
