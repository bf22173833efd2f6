// Writes OUT_DIR/sw.js: serviceworker/sw.js bundled (one classic script, as
// browsers run a service worker) with what it imports, the bridge's JavaScript
// side and the cluster mode's bounds, by esbuild from ui/'s build tools (make
// site installs them). The build id is a hash of every asset, so a new build
// installs a new worker and cache, and the asset list is what the worker
// caches for offline use.
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { lstatSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

const esbuild = createRequire(new URL('../ui/package.json', import.meta.url))('esbuild');

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
// most visitors never open the xDS panel or ask for a simulated cluster; nor
// the page's terminal (its kubectl module and xterm.js), which the page
// fetches (the worker caches them then: __KUBEPLAY_LAZY__).
const lazy = new Set(['/kubeplay-xds.wasm', '/kubeplay-sim.wasm', '/kubeplay-cel.wasm', '/kubeplay-vap.wasm']);
const lazyPage = ['/kubeplay-kubectl.wasm', '/ui/xterm.js', '/ui/xterm.css'];
for (const a of lazyPage) lazy.add(a);
// The pages at a directory's address, as the hosts serve them.
const assets = ['/', '/embed/', ...files.map((f) => '/' + relative(out, f).split('\\').join('/')).filter((a) => !lazy.has(a))];
await esbuild.build({
  entryPoints: [new URL('./sw.js', import.meta.url).pathname],
  bundle: true,
  format: 'iife',
  target: ['chrome111', 'firefox115', 'safari16.4'],
  outfile: join(out, 'sw.js'),
  define: { __KUBEPLAY_BUILD__: JSON.stringify(hash.digest('hex').slice(0, 16)), __KUBEPLAY_ASSETS__: JSON.stringify(assets), __KUBEPLAY_LAZY__: JSON.stringify(lazyPage) },
  logLevel: 'warning',
});
console.log(`sw.js: ${assets.length} assets`);
