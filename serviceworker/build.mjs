// Writes OUT_DIR/sw.js from serviceworker/sw.js: the build id is a hash of every
// asset, so a new build installs a new worker and cache, and the asset list is
// what the worker caches for offline use.
import { createHash } from 'node:crypto';
import { lstatSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const out = process.argv[2] || 'build/site';
const files = [];
(function walk(dir) {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    const st = lstatSync(path); // a symlink is not a built file: the hosts do not serve it
    if (st.isDirectory()) walk(path);
    else if (st.isFile() && name !== 'sw.js') files.push(path);
  }
})(out);
const hash = createHash('sha256');
for (const f of files) hash.update(f).update(readFileSync(f));
// The xDS and simulation modules are cached on first use, not at install:
// most visitors never open the xDS panel or ask for a simulated cluster.
const lazy = new Set(['/kubeplay-xds.wasm', '/kubeplay-sim.wasm']);
const assets = ['/', ...files.map((f) => '/' + relative(out, f).split('\\').join('/')).filter((a) => !lazy.has(a))];
const src = readFileSync(new URL('./sw.js', import.meta.url), 'utf8')
  .replace('__KUBEPLAY_BUILD__', hash.digest('hex').slice(0, 16))
  .replace('__KUBEPLAY_ASSETS__', JSON.stringify(assets));
writeFileSync(join(out, 'sw.js'), src);
console.log(`sw.js: ${assets.length} assets`);
