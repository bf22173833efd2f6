// Builds the playground into OUT_DIR (default build/site at the repository's
// root, i.e. ../build/site from here):
//   index.html        the page (from ui/index.html), referencing
//   ui/app.js         the bundle of ui/src/main.js (ES module, minified)
//   ui/app.css        its CSS
//   ui/xterm.js       xterm.js for the terminal (ui/src/xtermbundle.js), loaded
//   ui/xterm.css      when the terminal is first opened; the page's
//                     %XTERM_VERSION% is their hash
//   instructor.html   the instructor page (from ui/instructor.html; the hosts
//                     serve it at /instructor), referencing
//   ui/instructor.js  the bundle of ui/src/instructor.js, and ui/instructor.css
//   embed/index.html  the embed page, at /embed/ (from ui/embed.html; LEARN-4;
//                     its sandbox is the /embed/ scope's worker's), referencing
//   ui/embedpage.js   the bundle of ui/src/embedpage.js, and ui/embedpage.css
//   embed.js          ui/embed-loader.js: the script another site includes to
//                     embed kubeplay
//   _headers          the security headers for a static host (Cloudflare Pages,
//                     Netlify), from ui/sitepolicy/headers.json
//   ui/app.js.map     source map, with --sourcemap only (the worker caches every file)
//   tutorials/*.json  copied from ../tutorials/ when that directory exists
//   tutorials/exercises/*.json  copied from ../tutorials/exercises/
//   tutorials/states/*.json  copied from ../tutorials/states/ (exercises' starting states)
// Other files in OUT_DIR (sw.js, the .wasm, wasm_exec.js) are left alone.
//
// Usage: node build.mjs [--out DIR] [--watch] [--no-minify] [--sourcemap]   (or OUT_DIR=DIR)
import * as esbuild from 'esbuild';
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile, readdir, copyFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..');
const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const opt = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const outDir = path.resolve(opt('--out') || process.env.OUT_DIR || path.join(repo, 'build', 'site'));
const minify = !flag('--no-minify');

const buildOptions = {
  entryPoints: { app: path.join(here, 'src', 'main.js'), instructor: path.join(here, 'src', 'instructor.js'), embedpage: path.join(here, 'src', 'embedpage.js'), xterm: path.join(here, 'src', 'xtermbundle.js') },
  bundle: true,
  format: 'esm',
  target: ['chrome111', 'firefox115', 'safari16.4'],
  outdir: path.join(outDir, 'ui'),
  minify,
  sourcemap: flag('--sourcemap') ? 'linked' : false,
  legalComments: 'linked',
  logLevel: 'warning',
  metafile: true,
  plugins: [{ name: 'kubeplay-site', setup: (b) => b.onEnd((r) => (r.errors.length ? null : writeSite())) }],
};

async function hashOf(file) {
  return createHash('sha256').update(await readFile(file)).digest('hex').slice(0, 12);
}

async function exists(p) {
  try {
    await stat(p);
    return true;
  } catch {
    return false;
  }
}

async function writeSite() {
  const xtermVersion = (await hashOf(path.join(outDir, 'ui', 'xterm.js'))) + (await hashOf(path.join(outDir, 'ui', 'xterm.css'))).slice(0, 4);
  for (const [page, bundle, out = page] of [['index.html', 'app'], ['instructor.html', 'instructor'], ['embed.html', 'embedpage', 'embed/index.html']]) {
    const js = path.join(outDir, 'ui', bundle + '.js');
    const css = path.join(outDir, 'ui', bundle + '.css');
    const html = (await readFile(path.join(here, page), 'utf8'))
      .replace('%JS_VERSION%', await hashOf(js))
      .replace('%CSS_VERSION%', await hashOf(css))
      .replace('%XTERM_VERSION%', xtermVersion);
    await mkdir(path.dirname(path.join(outDir, out)), { recursive: true });
    await writeFile(path.join(outDir, out), html);
  }
  // The script another site includes to embed kubeplay (LEARN-4), at the root.
  await esbuild.build({ entryPoints: [path.join(here, 'embed-loader.js')], outfile: path.join(outDir, 'embed.js'), minify, target: buildOptions.target, logLevel: 'warning' });
  await writeFile(path.join(outDir, '_headers'), staticHostHeaders(JSON.parse(await readFile(path.join(here, 'sitepolicy', 'headers.json'), 'utf8'))));
  await copyTutorials();
}

// staticHostHeaders is the site's policy (sitepolicy/headers.json) as the
// _headers file of a static host (Cloudflare Pages, Netlify): the site's
// headers on the pages and the worker script (whose policy its own
// requests follow), the embed policy on the embed pages, nosniff on
// everything. A path's block must not repeat a header of /*: those hosts
// join repeated values, and two policies would both apply.
export function staticHostHeaders(policy) {
  const { 'X-Content-Type-Options': nosniff, ...site } = policy.site;
  const { 'X-Content-Type-Options': _, ...embed } = policy.embed;
  const block = (p, headers) => [p, ...Object.entries(headers).map(([k, v]) => `  ${k}: ${v}`)].join('\n');
  const blocks = [block('/*', { 'X-Content-Type-Options': nosniff })];
  for (const p of ['/', '/index.html', '/instructor', '/instructor.html', '/sw.js']) blocks.push(block(p, site));
  for (const p of policy.embedPaths) blocks.push(block(p, embed));
  return '# Written by ui/build.mjs from ui/sitepolicy/headers.json: the playground\'s\n# security headers for a static host that reads _headers (docs/static-hosting.md).\n' + blocks.join('\n') + '\n';
}

async function copyTutorials() {
  const src = path.join(repo, 'tutorials');
  if (!(await exists(src))) return;
  const dst = path.join(outDir, 'tutorials');
  await mkdir(dst, { recursive: true });
  const files = (await readdir(src)).filter((f) => f.endsWith('.json')).sort();
  for (const f of files) await copyFile(path.join(src, f), path.join(dst, f));
  const exSrc = path.join(src, 'exercises');
  if (await exists(exSrc)) {
    await mkdir(path.join(dst, 'exercises'), { recursive: true });
    for (const f of (await readdir(exSrc)).filter((f) => f.endsWith('.json'))) await copyFile(path.join(exSrc, f), path.join(dst, 'exercises', f));
  }
  const stSrc = path.join(src, 'states');
  if (await exists(stSrc)) {
    await mkdir(path.join(dst, 'states'), { recursive: true });
    for (const f of (await readdir(stSrc)).filter((f) => f.endsWith('.json'))) await copyFile(path.join(stSrc, f), path.join(dst, 'states', f));
  }
  // The player reads index.json; derive one if the tutorials do not have it yet.
  if (files.length && !files.includes('index.json')) {
    const index = [];
    for (const f of files) {
      try {
        const t = JSON.parse(await readFile(path.join(src, f), 'utf8'));
        if (t && t.id && Array.isArray(t.steps)) index.push({ id: t.id, title: t.title || t.id, file: f });
      } catch {
        // not a tutorial
      }
    }
    await writeFile(path.join(dst, 'index.json'), JSON.stringify(index, null, 2) + '\n');
  }
}

const t0 = Date.now();
await mkdir(path.join(outDir, 'ui'), { recursive: true });
if (flag('--watch')) {
  const ctx = await esbuild.context(buildOptions);
  await ctx.watch();
  console.log(`watching ui/src → ${outDir}`);
} else {
  const result = await esbuild.build(buildOptions);
  const sizes = Object.entries(result.metafile.outputs)
    .filter(([f]) => !f.endsWith('.map') && !f.endsWith('.txt'))
    .map(([f, o]) => `${path.basename(f)} ${(o.bytes / 1024).toFixed(0)} KiB`);
  console.log(`built ${outDir} (${sizes.join(', ')}) in ${Date.now() - t0} ms`);
}
