// Runs the local edge in workerd (npm's binary): writes a config for the built
// edge (build/edge, from `make edge`), starts workerd on 127.0.0.1 ports it
// chooses and reports, and restarts it on the same ports with the same storage.

import { execFileSync, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { workerdConfig } from './workerd-config.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(here, '..');
export const BUILD = path.join(ROOT, 'build', 'edge');
export const SITE = path.join(ROOT, 'build', 'site');

/** The workerd binary of the `workerd` npm package. */
export function workerdBinary() {
  const require = createRequire(import.meta.url);
  return require.resolve('@cloudflare/workerd-linux-64/bin/workerd');
}

/**
 * startEdge starts workerd and resolves once it listens.
 *   storageDir  Durable Object storage (created if missing)
 *   siteDir     the playground to serve (default build/site)
 *   vars        the front Worker's text bindings
 *   sandboxVars the sandbox Worker's text bindings
 *   sandboxEntry a module to run as the sandbox Worker's entry (tests)
 *   floor       also serve the floor Worker
 *   https       also serve HTTPS with a self-signed certificate for 127.0.0.1
 *   listen      {http: 'HOST:PORT'} fixed addresses instead of ephemeral ports
 *   log         'inherit' to show workerd's output (default: kept for errors)
 * Returns {url, httpsUrl, ca (PEM), floorUrl, pid, stop(), restart(), output()}.
 */
export async function startEdge({ storageDir, siteDir = SITE, vars = {}, sandboxVars = {}, sandboxEntry = null, floor = false, https = false, listen = {}, log = 'keep' }) {
  fs.mkdirSync(storageDir, { recursive: true });
  vars = { SITE_FILES: siteFiles(siteDir), ...vars };
  const configPath = path.join(BUILD, `workerd-${process.pid}-${randomBytes(4).toString('hex')}.capnp`);
  const tls = https ? selfSignedCertificate(path.resolve(storageDir)) : null;
  fs.writeFileSync(configPath, workerdConfig({ siteDir: path.resolve(siteDir), storageDir: path.resolve(storageDir), vars, sandboxVars,
    sandboxEntry: sandboxEntry && path.relative(BUILD, sandboxEntry), floor, tls }));
  let addresses = { ...listen };
  let proc = null;
  let output = '';

  async function launch() {
    const args = ['serve', configPath, '--control-fd=3'];
    for (const [name, addr] of Object.entries(addresses)) args.push(`--socket-addr=${name}=${addr}`);
    proc = spawn(workerdBinary(), args, { stdio: ['ignore', log === 'inherit' ? 'inherit' : 'pipe', log === 'inherit' ? 'inherit' : 'pipe', 'pipe'] });
    if (log !== 'inherit') {
      proc.stdout.on('data', (d) => { output += d; });
      proc.stderr.on('data', (d) => { output += d; });
    }
    const wanted = ['http', ...(https ? ['https'] : []), ...(floor ? ['floor'] : [])];
    const ports = await new Promise((resolve, reject) => {
      const seen = {};
      let buf = '';
      proc.stdio[3].on('data', (d) => {
        buf += d;
        let nl;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          const msg = JSON.parse(line);
          if (msg.event === 'listen') seen[msg.socket] = msg.port;
          if (wanted.every((w) => seen[w])) resolve(seen);
        }
      });
      proc.on('exit', (code, signal) => reject(new Error(`workerd exited (${code ?? signal}) before listening:\n${output}`)));
    });
    addresses = Object.fromEntries(wanted.map((w) => [w, `127.0.0.1:${ports[w]}`]));
  }

  async function stop(signal = 'SIGTERM') {
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill(signal);
    const timer = setTimeout(() => proc.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }

  await launch();
  const edge = {
    get url() { return `http://${addresses.http}`; },
    get httpsUrl() { return https ? `https://${addresses.https}` : null; },
    get floorUrl() { return floor ? `http://${addresses.floor}` : null; },
    ca: tls?.cert,
    get pid() { return proc.pid; },
    output: () => output,
    stop: async (signal) => {
      await stop(signal);
      fs.rmSync(configPath, { force: true });
    },
    restart: async (signal = 'SIGKILL') => {
      await stop(signal);
      await launch();
    },
  };
  return edge;
}

/**
 * siteFiles lists the regular files of the built site in dir as URL paths
 * ("/index.html /kubeplay.wasm …"): the front Worker's SITE_FILES, the only
 * paths it serves. Symlinks are left out, and the brotli copies (NAME.br)
 * the native command serves: Cloudflare compresses the assets it serves.
 */
export function siteFiles(dir) {
  const files = [];
  (function walk(rel) {
    for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      if (entry.isDirectory()) walk(`${rel}/${entry.name}`);
      else if (entry.isFile() && !entry.name.endsWith('.br')) files.push(`${rel}/${entry.name}`);
    }
  })('');
  return files.sort().join(' ');
}

// selfSignedCertificate makes (once per storage directory) a key pair for
// 127.0.0.1 with openssl; the certificate is its own CA.
function selfSignedCertificate(dir) {
  const key = path.join(dir, 'tls-key.pem');
  const cert = path.join(dir, 'tls-cert.pem');
  if (!fs.existsSync(cert)) {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes',
      '-keyout', key, '-out', cert, '-days', '7', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  }
  return { key: fs.readFileSync(key, 'utf8'), cert: fs.readFileSync(cert, 'utf8') };
}
