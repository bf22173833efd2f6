// What the browser tests share: the native command built once per scratch
// directory and started on a free port, and headless Chromium over
// playwright-core.
import { spawn, execFileSync } from 'node:child_process';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';

export const repo = resolve(import.meta.dirname, '..', '..');
export const site = join(repo, 'build', 'site');
export const artifacts = join(repo, 'build', 'artifacts');
export const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';

/**
 * startServer builds ./playground into scratch (once) and starts it on
 * 127.0.0.1 serving siteDir, with env added to the environment; resolves
 * with {proc, url} once it says where its API is (url without a trailing
 * slash).
 */
export async function startServer(scratch, { siteDir = site, env = {} } = {}) {
  const bin = join(scratch, 'playground');
  try { statSync(bin); } catch { execFileSync('go', ['build', '-o', bin, './playground'], { cwd: repo, stdio: 'inherit' }); }
  const proc = spawn(bin, ['--listen', '127.0.0.1:0', '--site', siteDir, '--quiet'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, ...env },
  });
  const url = await new Promise((resolveURL, reject) => {
    let buf = '';
    proc.stderr.on('data', (d) => {
      buf += d;
      const m = buf.match(/kubeplay API at (https?:\/\/\S+)/);
      if (m) resolveURL(m[1].replace(/\/$/, ''));
    });
    proc.on('exit', (code) => reject(new Error('playground exited ' + code + ': ' + buf)));
  });
  return { proc, url };
}

/**
 * launchContext is headless Chromium with a profile of its own under
 * scratch. thirdPartyStorage: the profile allows third-party cookies, and so
 * storage and service workers in a frame of another site (Chromium's
 * default here blocks them, as a user's setting may).
 */
export function launchContext(scratch, profile = 'profile', { thirdPartyStorage = false } = {}) {
  if (thirdPartyStorage) {
    mkdirSync(join(scratch, profile, 'Default'), { recursive: true });
    writeFileSync(join(scratch, profile, 'Default', 'Preferences'), JSON.stringify({ profile: { cookie_controls_mode: 0, block_third_party_cookies: false } }));
  }
  return chromium.launchPersistentContext(join(scratch, profile), {
    executablePath: chromiumPath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
    viewport: { width: 1400, height: 900 },
  });
}

/**
 * api runs fetch in page (so its service worker answers): body is sent as
 * JSON, or raw (an array of bytes) as it is; resolves {status, json, text}.
 */
export function api(page, method, path, body, headers = {}, raw = undefined) {
  return page.evaluate(async ({ method, path, body, headers, raw }) => {
    const init = { method, headers: { ...headers } };
    if (raw !== undefined) init.body = new Uint8Array(raw);
    else if (body !== undefined) {
      init.body = JSON.stringify(body);
      init.headers['Content-Type'] = 'application/json';
    }
    const r = await fetch(path, init);
    const text = await r.text();
    let json = null;
    try { json = JSON.parse(text); } catch {}
    return { status: r.status, json, text };
  }, { method, path, body, headers, raw });
}
