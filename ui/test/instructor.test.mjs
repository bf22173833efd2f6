// Unit tests of the instructor page's model (instructormodel.js, WORK-2): the
// table's rows, the read-only link and target, the attendee sheet and the zip
// of kubeconfigs (read back by the system's unzip when it is installed).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
  addRequest, budgetUse, bytes, crc32, errorLine, failure, kubeconfigCA, kubeconfigFiles, progressText, readOnlyLink,
  readOnlyTarget, relativeTime, sheetBlocks, tableRows, zip,
} from '../src/instructormodel.js';

const now = Date.parse('2026-12-03T10:00:00Z');
const info = (id, more = {}) => ({
  id,
  label: '',
  workshop: 'w1',
  createdAt: '2026-12-03T08:00:00Z',
  lastActiveAt: '2026-12-03T09:59:30Z',
  expiresAt: '2026-12-04T08:00:00Z',
  mode: 'simulated',
  nodes: 3,
  objects: 120,
  budget: { bytes: 3 << 20, maxBytes: 32 << 20, objects: 120, maxObjects: 20000 },
  progress: { tutorial: '', step: 0, steps: 0, exercises: {} },
  recentErrors: [],
  ...more,
});

test('WORK-2: times are relative to now, "—" when there is none', () => {
  assert.equal(relativeTime('2026-12-03T09:59:58Z', now), 'just now');
  assert.equal(relativeTime('2026-12-03T09:59:30Z', now), '30 s ago');
  assert.equal(relativeTime('2026-12-03T09:55:00Z', now), '5 min ago');
  assert.equal(relativeTime('2026-12-03T07:00:00Z', now), '3 h ago');
  assert.equal(relativeTime('2026-12-01T10:00:00Z', now), '2 d ago');
  assert.equal(relativeTime('', now), '—');
  assert.equal(relativeTime('0001-01-01T00:00:00Z', now), '—', "Go's zero time is no time");
});

test('WORK-2: budget use is the fuller of objects and bytes, with a level', () => {
  assert.equal(bytes(512), '512 B');
  assert.equal(bytes(1536), '1.5 KiB');
  assert.equal(bytes(32 << 20), '32 MiB');
  const b = budgetUse({ bytes: 30 << 20, maxBytes: 32 << 20, objects: 10, maxObjects: 20000 });
  assert.equal(b.text, '10 / 20000 objects · 30 MiB / 32 MiB');
  assert.equal(b.level, 'err');
  assert.ok(b.fraction > 0.9);
  assert.equal(budgetUse({ objects: 15000, maxObjects: 20000 }).level, 'warn');
  assert.deepEqual(budgetUse(null), { text: '—', fraction: 0, level: 'ok' });
  assert.equal(budgetUse({ objects: 5, maxObjects: 0 }).text, '—', 'unbounded');
});

test('WORK-2: progress is "—" until the learning issue fills the record', () => {
  assert.equal(progressText({ tutorial: '', step: 0, steps: 0, exercises: {} }), '—');
  assert.equal(progressText(undefined), '—');
  assert.equal(progressText({ tutorial: 'pods', step: 3, steps: 7, exercises: { a: true, b: false, c: true } }), 'pods · step 3/7 · 2/3 exercises');
});

test('WORK-2: rows in label order with mode, budget, progress and the last five errors', () => {
  const errors = Array.from({ length: 7 }, (_, i) => ({ time: '2026-12-03T09:00:00Z', user: 'alice', verb: 'create', uri: `/api/v1/namespaces/default/pods/p${i}`, code: 403, message: 'forbidden' }));
  const rows = tableRows({
    sandboxes: [
      info('c'.repeat(32), { label: 'attendee-10' }),
      info('a'.repeat(32), { label: 'attendee-2', mode: 'api-only', recentErrors: errors }),
      info('b'.repeat(32), { label: '', nodes: 0, lastActiveAt: '' }),
      { label: 'no id' },
    ],
  }, now);
  assert.deepEqual(rows.map((r) => r.label), ['attendee-2', 'attendee-10', 'bbbbbbbb']);
  assert.equal(rows[0].mode, 'API only');
  assert.equal(rows[1].mode, 'simulated, 3 nodes');
  assert.equal(rows[2].mode, 'simulated');
  assert.equal(rows[0].created, '2 h ago');
  assert.equal(rows[0].lastActive, '30 s ago');
  assert.equal(rows[2].lastActive, '—');
  assert.equal(rows[0].objects, 120);
  assert.equal(rows[0].progress, '—');
  assert.equal(rows[0].errors.length, 5);
  assert.equal(rows[0].errors[4], '403 create /api/v1/namespaces/default/pods/p6 (alice): forbidden');
  assert.deepEqual(tableRows({}, now), []);
  assert.equal(errorLine({ code: 404, verb: 'get', uri: '/api/v1/x' }), '404 get /api/v1/x');
});

test('WORK-2: the read-only link names the sandbox, never a token; the target takes the token from storage', () => {
  const link = readOnlyLink('https://lab.example', 'a'.repeat(32));
  assert.equal(link, `https://lab.example/?readonly=${'a'.repeat(32)}#cluster`);
  assert.doesNotMatch(link, /token/);
  assert.deepEqual(readOnlyTarget(link, 'T'), { id: 'a'.repeat(32), url: `https://lab.example/s/${'a'.repeat(32)}`, token: 'T' });
  assert.equal(readOnlyTarget(link, ''), null, 'no instructor token: no read-only target');
  assert.equal(readOnlyTarget('https://lab.example/#cluster', 'T'), null);
  assert.equal(readOnlyTarget('https://lab.example/?readonly=..%2Fsandboxes', 'T'), null, 'an id is never a path');
});

test('WORK-2: adding sandboxes asks POST /workshops for a count or for labels', () => {
  assert.deepEqual(addRequest('3', 'simulated', ''), { attendees: 3, cluster: { mode: 'simulated' } });
  assert.deepEqual(addRequest('1', 'api-only', 'ann, bob\ncarl'), { attendees: 3, cluster: { mode: 'api-only' }, labels: ['ann', 'bob', 'carl'] });
  // A starting state (LEARN-6): base64 as JSON carries Go's []byte; its own cluster unless one is chosen.
  const state = new Uint8Array(70000).map((_, i) => (i * 7) & 0xff);
  const withState = addRequest('2', 'state', '', state);
  assert.deepEqual(Object.keys(withState), ['attendees', 'state']);
  assert.deepEqual(new Uint8Array(Buffer.from(withState.state, 'base64')), state);
  assert.deepEqual(addRequest('2', 'api-only', '', state).cluster, { mode: 'api-only' });
  assert.throws(() => addRequest('0', 'simulated', ''), /between 1 and 100/);
  assert.throws(() => addRequest('101', 'simulated', ''), /between 1 and 100/);
});

const kubeconfig = (name, server, token, ca) => `apiVersion: v1\nkind: Config\nclusters:\n- name: ${name}\n  cluster:\n` +
  (ca ? `    certificate-authority-data: ${ca}\n` : '') + `    server: ${server}\nusers:\n- name: ${name}\n  user:\n    token: ${token}\n`;

const creds = {
  sandboxes: [
    { id: 'b'.repeat(32), label: 'bob', token: 'tok-b', server: 'https://lab:8443/s/bbb', playground: 'https://lab:8443/#target=remote&url=x&token=tok-b', kubeconfig: kubeconfig('kb', 'https://lab:8443/s/bbb', 'tok-b', 'Q0E=') },
    { id: 'a'.repeat(32), label: 'ann lee', token: 'tok-a', server: 'https://lab:8443/s/aaa', playground: 'https://lab:8443/#a', kubeconfig: kubeconfig('ka', 'https://lab:8443/s/aaa', 'tok-a', '') },
    { id: 'c'.repeat(32), label: 'ann-lee', token: 'tok-c', server: 'https://lab:8443/s/ccc', playground: '', kubeconfig: kubeconfig('kc', 'https://lab:8443/s/ccc', 'tok-c', '') },
  ],
};

test('WORK-2: the attendee sheet: one block per attendee with the link and kubectl lines', () => {
  assert.equal(kubeconfigCA(creds.sandboxes[0].kubeconfig), 'Q0E=');
  assert.equal(kubeconfigCA(creds.sandboxes[1].kubeconfig), '');
  const blocks = sheetBlocks(creds);
  assert.deepEqual(blocks.map((b) => b.label), ['ann lee', 'ann-lee', 'bob']);
  assert.deepEqual(blocks[2].lines, [
    'kubectl config set-cluster kubeplay-bob --server=https://lab:8443/s/bbb',
    'kubectl config set clusters.kubeplay-bob.certificate-authority-data Q0E=',
    'kubectl config set-credentials kubeplay-bob --token=tok-b',
    'kubectl config set-context kubeplay-bob --cluster=kubeplay-bob --user=kubeplay-bob --namespace=default',
    'kubectl config use-context kubeplay-bob',
  ]);
  assert.equal(blocks[0].lines[0], 'kubectl config set-cluster kubeplay-ann-lee --server=https://lab:8443/s/aaa');
  assert.equal(blocks[0].lines.length, 4, 'no CA line without a CA');
  for (const b of blocks) assert.ok(b.lines.join('\n').includes(creds.sandboxes.find((c) => c.id === b.id).token), 'each block has its own token');
});

test('WORK-2: every kubeconfig in a zip, one file per attendee, that unzip reads back', (t) => {
  assert.equal(crc32(new TextEncoder().encode('123456789')), 0xcbf43926, 'the CRC-32 check value');
  const files = kubeconfigFiles(creds);
  assert.deepEqual(files.map((f) => f.name), ['kubeconfig-ann-lee.yaml', 'kubeconfig-ann-lee-2.yaml', 'kubeconfig-bob.yaml']);
  const archive = zip(files, new Date(2026, 11, 3, 10, 0, 0));
  assert.deepEqual([...archive.subarray(0, 4)], [0x50, 0x4b, 0x03, 0x04]);
  let unzip = true;
  try { execFileSync('unzip', ['-v'], { stdio: 'ignore' }); } catch { unzip = false; }
  if (!unzip) return t.skip('no unzip');
  const dir = mkdtempSync(join(tmpdir(), 'kubeplay-zip-'));
  try {
    writeFileSync(join(dir, 'all.zip'), archive);
    execFileSync('unzip', ['-t', '-q', join(dir, 'all.zip')]); // CRCs and structure
    execFileSync('unzip', ['-q', join(dir, 'all.zip'), '-d', join(dir, 'out')]);
    for (const f of files) assert.equal(readFileSync(join(dir, 'out', f.name), 'utf8'), f.data);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('WORK-2: a failed answer says the Status message; 401 asks for the token again', () => {
  assert.deepEqual(failure(401, { kind: 'Status', message: 'Unauthorized' }), { message: 'Unauthorized', unauthorized: true });
  assert.deepEqual(failure(502, null), { message: 'HTTP 502', unauthorized: false });
});
