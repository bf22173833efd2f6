// Folding a response body (issue 31, friction 1): which lines open a block,
// where it ends, and how deep it is, in pretty JSON and in YAML as kube
// writes them.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { foldRegions } from '../src/fold.js';

/** The blocks as [first line, last line, depth] of their opening line. */
function blocks(text, kind) {
  const lines = text.split('\n');
  const { end, depth } = foldRegions(lines, kind);
  return end.flatMap((e, i) => (e > i ? [[i, e, depth[i]]] : []));
}

test('friction 1: pretty JSON folds at each object and array, its closing line included', () => {
  const list = { kind: 'ConfigMapList', items: [{ metadata: { name: 'a', labels: {} }, data: { k: 'v', s: 'a { or [' } }, { metadata: { name: 'b' } }], empty: [] };
  const text = JSON.stringify(list, null, 2);
  assert.deepEqual(blocks(text, 'json'), [
    [0, 20, 0], // the list
    [2, 18, 1], // items
    [3, 12, 2], // items[0]
    [4, 7, 3], // its metadata ("labels": {} opens nothing)
    [8, 11, 3], // its data (brackets inside a string open nothing)
    [13, 17, 2], // items[1]
    [14, 16, 3], // its metadata
  ]);
  assert.deepEqual(blocks(text, 'json'), blocksOf(text));
});

// blocksOf is the expected blocks of JSON text computed independently: by
// matching brackets over the text's characters (outside strings).
function blocksOf(text) {
  const out = [];
  const stack = [];
  let line = 0;
  let inString = false;
  for (let k = 0; k < text.length; k++) {
    const c = text[k];
    if (inString) {
      if (c === '\\') k++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '\n') line++;
    else if (c === '{' || c === '[') stack.push({ line, empty: text[k + 1] === '}' || text[k + 1] === ']' });
    else if (c === '}' || c === ']') {
      const o = stack.pop();
      if (!o.empty && line > o.line) out.push([o.line, line, stack.length]);
    }
  }
  return out.sort((a, b) => a[0] - b[0]);
}

test('friction 1: a JSON watch stream folds each event', () => {
  const ev = (n) => JSON.stringify({ type: 'ADDED', object: { metadata: { name: n } } }, null, 2);
  const text = `${ev('a')}\n${ev('b')}`;
  assert.deepEqual(blocks(text, 'json'), [[0, 7, 0], [2, 6, 1], [3, 5, 2], [8, 15, 0], [10, 14, 1], [11, 13, 2]]);
  assert.deepEqual(blocks(text, 'json'), blocksOf(text));
});

test('friction 1: YAML folds what is indented deeper, and a key\'s items at its own indentation', () => {
  const text = [
    'apiVersion: v1', // 0
    'kind: Pod', // 1
    'metadata:', // 2
    '  name: web', // 3
    '  labels:', // 4
    '    app: web', // 5
    'spec:', // 6
    '  containers:', // 7
    '  - name: nginx', // 8
    '    image: nginx:1.27', // 9
    '    ports:', // 10
    '    - containerPort: 80', // 11
    '  - name: sidecar', // 12
    '  dnsPolicy: ClusterFirst', // 13
    'status: {}', // 14
    '---', // 15
    'kind: ConfigMap', // 16
    'data:', // 17
    '  script: |', // 18
    '    echo hi', // 19
    '', // 20
    '    echo there', // 21
  ].join('\n');
  assert.deepEqual(blocks(text, 'yaml'), [
    [2, 5, 0], // metadata
    [4, 5, 1], // labels
    [6, 13, 0], // spec
    [7, 12, 1], // containers, its items at its indentation
    [8, 11, 2], // the first container
    [10, 11, 3], // its ports
    [17, 21, 0], // data
    [18, 21, 1], // a block scalar, a blank line inside
  ]);
});
