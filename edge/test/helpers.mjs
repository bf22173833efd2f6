// Shared by the edge tests: a local edge in workerd on ephemeral ports with its
// own storage, sandbox creation, kubeconfigs and kubectl.

import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { startEdge } from '../workerd.mjs';

export const CMS = '/api/v1/namespaces/default/configmaps';

// API_ONLY makes createSandbox's sandbox serve the API only, for the tests
// that count a namespace's objects (the simulated cluster's root CA publisher
// puts kube-root-ca.crt in every namespace, as kube-controller-manager does).
export const API_ONLY = { mode: 'api-only' };

/** A temporary directory removed by the returned cleanup. */
export function scratchDir(prefix) {
  return fs.mkdtempSync(path.join(os.tmpdir(), `kubeplay-edge-${prefix}-`));
}

/** Starts an edge with fresh storage under dir. */
export function edgeIn(dir, options = {}) {
  return startEdge({ storageDir: path.join(dir, 'storage'), ...options });
}

/**
 * Creates a sandbox over plain HTTP, or over HTTPS (trusting the edge's
 * self-signed certificate) when the edge serves it, as kubectl needs; returns
 * the creation answer plus auth headers.
 */
export async function createSandbox(edge, { overHTTPS = false, cluster } = {}) {
  const request = cluster ? JSON.stringify({ cluster }) : undefined;
  const { status, text } = overHTTPS ? await postHTTPS(edge.httpsUrl + '/sandboxes', edge.ca) : await (async () => {
    const res = await fetch(edge.url + '/sandboxes', { method: 'POST', body: request });
    return { status: res.status, text: await res.text() };
  })();
  if (status !== 201) throw new Error(`creating a sandbox: ${status} ${text}`);
  const body = JSON.parse(text);
  return { ...body, auth: { Authorization: `Bearer ${body.token}` } };
}

function postHTTPS(url, ca) {
  return requestHTTPS(url, { method: 'POST', ca });
}

/** GET over HTTPS with a bearer token, trusting ca; returns {status, text, json}. */
export async function getHTTPS(url, token, ca) {
  const r = await requestHTTPS(url, { ca, headers: { Authorization: `Bearer ${token}` } });
  return { ...r, json: JSON.parse(r.text) };
}

function requestHTTPS(url, options) {
  return new Promise((resolve, reject) => {
    const req = https.request(url, options, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { text += d; });
      res.on('end', () => resolve({ status: res.statusCode, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** fetch against a sandbox (path below /s/{id}) with its token; returns {status, json, text, headers}. */
export async function call(sandbox, method, apiPath, { body, headers = {}, token = sandbox.token, server = sandbox.server } = {}) {
  const init = { method, headers: { ...headers } };
  if (token !== null) init.headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) {
    init.body = typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body);
    init.headers['Content-Type'] ??= 'application/json';
  }
  const res = await fetch(server + apiPath, init);
  const text = await res.text();
  let json = null;
  try { json = JSON.parse(text); } catch { /* not JSON */ }
  return { status: res.status, json, text, headers: res.headers };
}

export function configMap(name, data = { v: name }) {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data };
}

/**
 * Writes the sandbox's kubeconfig (as the edge returned it) and the edge's CA
 * certificate into dir; returns {file, ca} for kubectl.
 */
export function writeKubeconfig(dir, sandbox, edge) {
  const file = path.join(dir, `kubeconfig-${sandbox.id}`);
  fs.writeFileSync(file, sandbox.kubeconfig);
  const ca = path.join(dir, 'edge-ca.pem');
  fs.writeFileSync(ca, edge.ca);
  return { file, ca };
}

function kubectlArgs(kubeconfig, args) {
  return ['--kubeconfig', kubeconfig.file, '--certificate-authority', kubeconfig.ca, ...args];
}

/** Runs kubectl to completion; resolves {stdout, stderr}, rejects with its output on failure. */
export function kubectlRun(kubeconfig, args, input) {
  return new Promise((resolve, reject) => {
    const child = execFile('kubectl', kubectlArgs(kubeconfig, ['--request-timeout=20s', ...args]), { timeout: 30000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`kubectl ${args.join(' ')}: ${err.message}\n${stdout}\n${stderr}`));
      else resolve({ stdout, stderr });
    });
    if (input !== undefined) child.stdin.end(input);
  });
}

/** Runs kubectl to completion; resolves its stdout, rejects with its output on failure. */
export async function kubectl(kubeconfig, args, input) {
  return (await kubectlRun(kubeconfig, args, input)).stdout;
}

/** Starts a long-running kubectl; lines() is its output so far. */
export function kubectlStream(kubeconfig, args) {
  const child = spawn('kubectl', kubectlArgs(kubeconfig, args), { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { err += d; });
  return { child, lines: () => out.split('\n').filter(Boolean), stderr: () => err };
}

/** Polls fn until it returns a truthy value (or throws after timeoutMs). */
export async function eventually(fn, what, timeoutMs = 15000) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    last = await fn();
    if (last) return last;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Whether kubectl is installed (the kubectl tests skip without it). */
export const haveKubectl = process.env.PATH.split(':').some((d) => fs.existsSync(path.join(d, 'kubectl')));
