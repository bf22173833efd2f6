// Unit tests of the body editor's model (bodymodel.js): YAML syntax errors
// at the line and column of the mistake in any document of a stream, the
// path under the cursor as typed, and the fields and docs an OpenAPI v3
// document gives there (issue 31, friction 8).
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { yamlDiagnostics, jsonDiagnostics, yamlContext, groupVersionPath, fieldsAt, fieldDoc, typeLabel, unknownFields } from '../src/bodymodel.js';

// at is where the problems are: [[line, col, message start]].
const at = (text) => yamlDiagnostics(text).map((d) => [d.line, d.col, d.message]);

const second = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n';
const third = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n';

test('a well-formed stream has no problem', () => {
  assert.deepEqual(at(`${second}---\n${third}`), []);
  assert.deepEqual(at(''), []);
});

test('a key indented too deep is marked on its own line, in the 1st and the 3rd document', () => {
  const bad = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n   namespace: x\n';
  assert.deepEqual(at(bad), [[5, 4, 'Bad indentation: this key is indented deeper than the key above it, which already has a value']]);
  assert.deepEqual(at(`${bad}---\n${second}---\n${third}`).map(([l, c]) => [l, c]), [[5, 4]]);
  assert.deepEqual(at(`${second}---\n${third}---\n${bad}`).map(([l, c]) => [l, c]), [[15, 4]]);
});

test('a tab as indentation is marked where the tab is', () => {
  const bad = 'apiVersion: v1\nkind: ConfigMap\ndata:\n\tk: v\n';
  assert.deepEqual(at(bad), [[4, 1, 'Tabs are not allowed as indentation (use spaces)']]);
  assert.deepEqual(at(`${bad}---\n${second}---\n${third}`).map(([l, c]) => [l, c]), [[4, 1]]);
  assert.deepEqual(at(`${second}---\n${third}---\n${bad}`).map(([l, c]) => [l, c]), [[14, 1]]);
});

test('an unclosed quote is marked at the quote that opens it', () => {
  const bad = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: "a\ndata: {}\n';
  const got = at(bad);
  assert.deepEqual(got[0].slice(0, 2), [4, 9]);
  assert.match(got[0][2], /^Missing closing "quote/);
  assert.deepEqual(at(`${bad}---\n${second}---\n${third}`)[0].slice(0, 2), [4, 9]);
  assert.deepEqual(at(`${second}---\n${third}---\n${bad}`)[0].slice(0, 2), [14, 9]);
});

test('a duplicate key is marked at its second occurrence, named', () => {
  const bad = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  name: b\n';
  assert.deepEqual(at(bad), [[5, 3, 'Duplicate key name: map keys must be unique']]);
  assert.deepEqual(at(`${bad}---\n${second}---\n${third}`), [[5, 3, 'Duplicate key name: map keys must be unique']]);
  assert.deepEqual(at(`${second}---\n${third}---\n${bad}`).map(([l, c]) => [l, c]), [[15, 3]]);
});

test('a JSON body is marked where JSON.parse stops; an empty one is no problem', () => {
  assert.deepEqual(jsonDiagnostics(''), []);
  assert.deepEqual(jsonDiagnostics('{"a": 1}'), []);
  const [d] = jsonDiagnostics('{\n  "a": 1\n  "b": 2\n}');
  assert.deepEqual([d.line, d.col], [3, 3]);
  assert.match(d.message, /^Expected ',' or '}' after property value/);
});

test('yamlContext reads apiVersion, kind and the path above the cursor as typed', () => {
  const t = 'apiVersion: apps/v1\nkind: Deployment\nspec:\n  rep';
  const c = yamlContext(t, t.length);
  assert.deepEqual([c.apiVersion, c.kind, c.path, c.inKey, c.prefix, c.from], ['apps/v1', 'Deployment', ['spec'], true, 'rep', t.length - 3]);
  const pod = 'apiVersion: apps/v1\nkind: Deployment\nspec:\n  replicas: 1\n  template:\n    spec:\n      containers:\n      - name: a\n        ima';
  assert.deepEqual(yamlContext(pod, pod.length).path, ['spec', 'template', 'spec', 'containers', '[]']);
  const item = 'kind: Pod\nspec:\n  containers:\n  - name: a\n    image: x\n  - ';
  assert.deepEqual(yamlContext(item, item.length).path, ['spec', 'containers', '[]']);
  const top = 'items:\n- na';
  assert.deepEqual(yamlContext(top, top.length).path, ['items', '[]']);
  // In a value: the key of the line, not a key being typed.
  const v = 'kind: Deployment\nspec:\n  replicas: 3';
  const cv = yamlContext(v, v.length);
  assert.deepEqual([cv.inKey, cv.key, cv.path], [false, 'replicas', ['spec']]);
  // The document the cursor is in, not the first one's kind.
  const stream = 'apiVersion: v1\nkind: Pod\n---\napiVersion: apps/v1\nkind: Deployment\nspec:\n  ';
  const cs = yamlContext(stream, stream.length);
  assert.deepEqual([cs.apiVersion, cs.kind, cs.path], ['apps/v1', 'Deployment', ['spec']]);
});

test('yamlContext names the other keys of the mapping, not those of the next item or of the parent', () => {
  const t = 'kind: Deployment\nspec:\n  replicas: 1\n  \n  selector: {}\nstatus: {}\n';
  assert.deepEqual(yamlContext(t, t.indexOf('  \n') + 2).siblings, ['replicas', 'selector']);
  const items = 'spec:\n  containers:\n  - name: a\n    image: x\n  - name: b\n    \n    ports: []\n  - name: c\n';
  const at = items.indexOf('    \n') + 4;
  assert.deepEqual([yamlContext(items, at).path, yamlContext(items, at).siblings], [['spec', 'containers', '[]'], ['name', 'ports']]);
  const first = 'spec:\n  containers:\n  - \n    image: x\n  - name: b\n';
  assert.deepEqual(yamlContext(first, first.indexOf('- ') + 2).siblings, ['image']);
});

test('groupVersionPath names the /openapi/v3 entry', () => {
  assert.equal(groupVersionPath('apps/v1'), 'apis/apps/v1');
  assert.equal(groupVersionPath('v1'), 'api/v1');
});

// The shapes kube's OpenAPI v3 documents have: references as a lone allOf,
// x-kubernetes-group-version-kind on the kind's schema.
const ref = (n) => ({ allOf: [{ $ref: `#/components/schemas/${n}` }], default: {} });
const doc = {
  components: {
    schemas: {
      'io.k8s.api.apps.v1.Deployment': {
        'x-kubernetes-group-version-kind': [{ group: 'apps', version: 'v1', kind: 'Deployment' }],
        properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, spec: { ...ref('io.k8s.api.apps.v1.DeploymentSpec'), description: 'Specification of the desired behavior of the Deployment.' } },
      },
      'io.k8s.api.apps.v1.DeploymentSpec': {
        required: ['selector'],
        properties: {
          replicas: { type: 'integer', format: 'int32', description: 'Number of desired pods.' },
          revisionHistoryLimit: { type: 'integer', description: 'The number of old ReplicaSets to retain.' },
          selector: { ...ref('io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector'), description: 'Label selector for pods.' },
          template: { ...ref('io.k8s.api.core.v1.PodTemplateSpec'), description: 'Template describes the pods that will be created.' },
        },
      },
      'io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector': {
        properties: { matchLabels: { type: 'object', additionalProperties: { type: 'string', default: '' } } },
      },
      'io.k8s.api.core.v1.PodTemplateSpec': { properties: { spec: ref('io.k8s.api.core.v1.PodSpec') } },
      'io.k8s.api.core.v1.PodSpec': { properties: { containers: { type: 'array', items: ref('io.k8s.api.core.v1.Container'), description: 'List of containers.' } } },
      'io.k8s.api.core.v1.Container': { properties: { image: { type: 'string', description: 'Container image name.' }, name: { type: 'string' } } },
    },
  },
};

test('fieldsAt offers the fields the schema allows at the path, typed as kubectl explain types them', () => {
  assert.deepEqual(fieldsAt(doc, 'apps/v1', 'Deployment', ['spec']).map((f) => `${f.name} <${f.type}>${f.required ? ' -required-' : ''}`),
    ['replicas <integer>', 'revisionHistoryLimit <integer>', 'selector <LabelSelector> -required-', 'template <PodTemplateSpec>']);
  assert.deepEqual(fieldsAt(doc, 'apps/v1', 'Deployment', ['spec', 'template', 'spec', 'containers', '[]']).map((f) => f.name), ['image', 'name']);
  assert.deepEqual(fieldsAt(doc, 'apps/v1', 'Deployment', []).map((f) => f.name), ['apiVersion', 'kind', 'spec']);
  assert.deepEqual(fieldsAt(doc, 'apps/v1', 'Deployment', ['spec', 'nope']), []);
  assert.deepEqual(fieldsAt(doc, 'apps/v1', 'StatefulSet', ['spec']), []);
  assert.equal(typeLabel(doc, doc.components.schemas['io.k8s.api.core.v1.PodSpec'].properties.containers), '[]Container');
  assert.equal(typeLabel(doc, doc.components.schemas['io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector'].properties.matchLabels), 'map[string]string');
});

test('fieldDoc gives the type and description of the key under the cursor', () => {
  const t = 'apiVersion: apps/v1\nkind: Deployment\nspec:\n  replicas: 3\n';
  const c = yamlContext(t, t.indexOf('licas'));
  assert.deepEqual(fieldDoc(doc, c.apiVersion, c.kind, c.path, c.key), { name: 'replicas', type: 'integer', required: false, description: 'Number of desired pods.' });
  assert.equal(fieldDoc(doc, 'apps/v1', 'Deployment', ['spec'], 'replic'), null);
  assert.equal(fieldDoc(doc, 'apps/v1', 'Deployment', [], 'spec').description, 'Specification of the desired behavior of the Deployment.');
});

test('unknownFields names the keys the schema does not have, in any document; free maps and other kinds have none', () => {
  const t = 'apiVersion: v1\nkind: ConfigMap\nfoo: 1\n---\napiVersion: apps/v1\nkind: Deployment\nspec:\n  replicaz: 3\n  selector:\n    matchLabels:\n      anything: x\n  template:\n    spec:\n      containers:\n      - name: a\n        imagez: b\n';
  const got = unknownFields(t, (gv) => (gv === 'apps/v1' ? doc : null));
  assert.deepEqual(got.map((d) => [d.line, d.col, d.message]), [
    [8, 3, 'unknown field "spec.replicaz": Deployment apps/v1 has no such field'],
    [16, 9, 'unknown field "spec.template.spec.containers[].imagez": Deployment apps/v1 has no such field'],
  ]);
});
