// The glossary's model (LEARN-3): terms found as whole words in any of their
// forms, each explained at its first use in a tutorial.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';

import { Glossary } from '../src/glossary.js';

const entries = [
  { term: 'Pod', forms: ['Pod', 'Pods'], text: 'the smallest thing' },
  { term: 'resourceVersion', forms: ['resourceVersion', 'resourceVersions'], text: 'where it stands' },
  { term: 'server-side apply', forms: ['server-side apply'], text: 'a PATCH' },
];

test('LEARN-3: the glossary finds whole words in their forms, the longest form first', () => {
  const g = new Glossary(entries);
  assert.deepEqual(g.find('Pods and a PodTemplate, metadata.resourceVersion, with server-side apply.').map((m) => [m.index, m.text, m.entry.term]),
    [[0, 'Pods', 'Pod'], [55, 'server-side apply', 'server-side apply']], 'PodTemplate is not Pod; a dotted path is not the term');
  assert.deepEqual(g.find('the resourceVersions').map((m) => m.text), ['resourceVersions']);
});

test('LEARN-3: a term is explained at its first use in a tutorial, and marked once there', () => {
  const g = new Glossary(entries);
  const uses = g.firstUses(['Make a Pod.', 'Watch the Pod from its resourceVersion.', 'Pods again, resourceVersion again.']);
  assert.deepEqual(uses.map((u) => u.map((e) => e.term)), [['Pod'], ['resourceVersion'], []]);
  assert.deepEqual(g.segments('A Pod, another Pod.', uses[0]), [{ text: 'A ' }, { text: 'Pod', entry: entries[0] }, { text: ', another Pod.' }]);
  assert.deepEqual(g.segments('nothing here', []), [{ text: 'nothing here' }]);
});

test('LEARN-3: tutorials/glossary.json is well formed and every term is used by a tutorial', async () => {
  const root = new URL('../../tutorials/', import.meta.url);
  const glossary = JSON.parse(await readFile(new URL('glossary.json', root), 'utf8'));
  const g = new Glossary(glossary);
  assert.equal(g.entries.length, glossary.length, 'every entry has a term, forms and a text');
  const index = JSON.parse(await readFile(new URL('index.json', root), 'utf8'));
  const used = new Set();
  for (const { file } of index) {
    const tut = JSON.parse(await readFile(new URL(file, root), 'utf8'));
    for (const step of tut.steps) for (const m of g.find(step.narration)) used.add(m.entry.term);
  }
  assert.deepEqual(glossary.map((e) => e.term).filter((t) => !used.has(t)), [], 'terms no tutorial uses');
  const forms = glossary.flatMap((e) => e.forms);
  assert.equal(new Set(forms).size, forms.length, 'no form belongs to two terms');
});
