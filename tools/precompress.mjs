// Writes NAME.br beside each of the built site's .wasm, .js, .css and .html
// files: brotli at quality 11 with a 16 MiB window, what browsers download
// from hosts that serve it (the native command does, by Accept-Encoding).
// Quality 11 takes minutes for the modules, so each result is kept in the
// repository's build/brotli-cache (ignored by git; wherever the command runs
// from) under the hash of its input and reused while that input is
// unchanged.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync, copyFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants } from 'node:zlib';

const repo = path.resolve(import.meta.dirname, '..');
const site = process.argv[2] || path.join(repo, 'build', 'site');
const cache = process.argv[3] || path.join(repo, 'build', 'brotli-cache');
mkdirSync(cache, { recursive: true });

/** brotli is data compressed as the budgets count it. */
export function brotli(data) {
  return brotliCompressSync(data, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_LGWIN]: 24, [constants.BROTLI_PARAM_SIZE_HINT]: data.length },
  });
}

function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? walk(p) : e.isFile() && /\.(wasm|js|css|html)$/.test(e.name) ? [p] : [];
  });
}

for (const file of walk(site)) {
  const data = readFileSync(file);
  const cached = path.join(cache, createHash('sha256').update(data).digest('hex') + '.br');
  if (!existsSync(cached)) writeFileSync(cached, brotli(data));
  copyFileSync(cached, file + '.br');
}
