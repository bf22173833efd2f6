// The request builder's templates: every PATCH type kube-apiserver takes has
// one, with a body of that type.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { TEMPLATES, instantiate } from '../src/templates.js';
import { MEDIA_TYPES } from '../src/builder.js';

const PATCH_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
];

test('each PATCH type has a template with a body of its type', () => {
  for (const type of PATCH_TYPES) {
    const t = TEMPLATES.find((x) => x.spec.method === 'PATCH' && (x.spec.headers || []).some(([k, v]) => k === 'Content-Type' && v === type));
    assert.ok(t, `no template for ${type}`);
    const spec = instantiate(t, 'demo-ns');
    assert.match(spec.path, /\/namespaces\/demo-ns\//);
    if (type === 'application/json-patch+json') {
      const ops = JSON.parse(spec.body);
      assert.ok(Array.isArray(ops) && ops.some((op) => op.op === 'test'), 'a JSON patch is a list of operations, with a test');
    } else if (type !== 'application/apply-patch+yaml') {
      assert.equal(typeof JSON.parse(spec.body), 'object');
    }
  }
});

test('the scale subresource has a template', () => {
  const t = TEMPLATES.find((x) => x.id === 'scale-deployment');
  assert.match(t.spec.path, /\/deployments\/web\/scale$/);
  assert.equal(JSON.parse(t.spec.body).spec.replicas, 3);
});

test('the media types offered are the ones kube-apiserver takes', () => {
  for (const type of [...PATCH_TYPES, 'application/apply-patch+cbor']) assert.ok(MEDIA_TYPES.includes(type), type);
  assert.ok(!MEDIA_TYPES.includes('application/apply-patch+json'));
});
