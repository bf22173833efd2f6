// Share links (LEARN-6): a share document (or, in older links, an export)
// packed into a URL fragment (gzip, then base64url) and read back byte for
// byte; too large a state gets no link; a document's objects in words.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { fromBase64Url, isShareLink, readHeader, readShareLink, shareLink, shareSummary, toBase64Url, EXPORT_LINK_PREFIX, LINK_PREFIX, MAX_LINK_CHARS } from '../src/share.js';

const exportOf = (objects) => {
  const header = JSON.stringify({ kind: 'KubeplayExport', version: 1, revision: 42, objects, cluster: { mode: 'api-only' } });
  const body = new Uint8Array(objects * 64).map((_, i) => (i * 7 + (i >> 5)) & 0xff);
  return new Uint8Array([...new TextEncoder().encode(header + '\n'), ...body]);
};

test('LEARN-6: base64url round-trips every byte, with no +, / or = in it', () => {
  const bytes = Uint8Array.from({ length: 70000 }, (_, i) => (i * 131) & 0xff);
  const text = toBase64Url(bytes);
  assert.doesNotMatch(text, /[+/=]/);
  assert.deepEqual(fromBase64Url(text), bytes);
});

test('LEARN-6: a share link carries a share document, or (older links) an export, and reads back the same bytes', async () => {
  const doc = new TextEncoder().encode(JSON.stringify({ kind: 'KubeplayShare', version: 1, objects: [] }));
  const link = await shareLink(doc, 'https://kubeplay.example/');
  assert.ok(link.startsWith('https://kubeplay.example/#' + LINK_PREFIX), link.slice(0, 60));
  assert.ok(isShareLink(new URL(link).hash));
  assert.deepEqual(await readShareLink(new URL(link).hash), { kind: 'share', bytes: doc });

  const file = exportOf(50);
  const old = await shareLink(file, 'https://kubeplay.example/', EXPORT_LINK_PREFIX);
  assert.ok(old.startsWith('https://kubeplay.example/#' + EXPORT_LINK_PREFIX), old.slice(0, 60));
  const back = await readShareLink(new URL(old).hash);
  assert.equal(back.kind, 'export');
  assert.deepEqual(back.bytes, file);
  assert.deepEqual(readHeader(back.bytes), { kind: 'KubeplayExport', version: 1, revision: 42, objects: 50, cluster: { mode: 'api-only' } });
  assert.equal(await readShareLink('#request'), null, 'not a share link');
  assert.equal(isShareLink('#request'), false);
});

test('LEARN-6: a share document\'s objects in words', () => {
  const o = (key) => ({ key, object: {} });
  assert.equal(shareSummary({ objects: [o('core/namespaces/a'), o('core/configmaps/a/x'), o('core/configmaps/a/y')] }),
    '3 objects: 2 configmaps, 1 namespaces');
  assert.equal(shareSummary({ objects: [] }), '0 objects');
});

test('LEARN-6: a state whose link would be too long gets none', async () => {
  // Random bytes do not compress: their link would be longer than MAX_LINK_CHARS.
  const noise = new Uint8Array(MAX_LINK_CHARS);
  for (let at = 0; at < noise.length; at += 65536) crypto.getRandomValues(noise.subarray(at, at + 65536));
  assert.equal(await shareLink(noise, 'https://kubeplay.example/'), null);
});
