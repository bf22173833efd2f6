// Unit tests of the playground's pure modules (no browser): copy as curl /
// kubectl, YAML → JSON, the watch stream splitter and the reflector-like
// WatchSession (reconnect from the last resourceVersion, relist after 410).
// `node --test test/` from ui/.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { toCurl, toKubectl, shq, parsePath } from '../src/copyas.js';
import { yamlToJson, convertText } from '../src/yamljson.js';
import { JSONStreamSplitter, WatchSession, splitWatchPath } from '../src/watchstream.js';
import { parseWarnings } from '../src/warnings.js';
import { resourceKey, commitPath } from '../src/query.js';
import { historyLabel } from '../src/history.js';

test('shq quotes for a POSIX shell', () => {
  assert.equal(shq('/api/v1/pods'), '/api/v1/pods');
  assert.equal(shq("it's"), `'it'\\''s'`);
  assert.equal(shq('a b'), "'a b'");
});

test('toCurl is exact: method, headers, body, URL', () => {
  const req = {
    method: 'POST',
    path: '/api/v1/namespaces/default/configmaps?fieldManager=me',
    headers: [['Accept', 'application/json'], ['Content-Type', 'application/json']],
    body: '{"metadata":{"name":"x"}}',
  };
  assert.equal(
    toCurl(req, 'http://127.0.0.1:8080/'),
    `curl -sS -X POST -H 'Accept: application/json' -H 'Content-Type: application/json' --data-binary '{"metadata":{"name":"x"}}' 'http://127.0.0.1:8080/api/v1/namespaces/default/configmaps?fieldManager=me'`,
  );
  const multi = toCurl({ ...req, body: 'a: 1\nb: 2\n' }, 'http://h', [['Authorization', 'Bearer t']]);
  assert.match(multi, /--data-binary @- .*<<'EOF'\na: 1\nb: 2\nEOF$/s);
  assert.match(multi, /-H 'Authorization: Bearer t'/);
  const watch = toCurl({ method: 'GET', path: '/api/v1/pods?watch=true', headers: [] }, 'http://h');
  assert.equal(watch, `curl -sS -N 'http://h/api/v1/pods?watch=true'`);
});

test('toKubectl maps verbs', () => {
  const get = toKubectl({ method: 'GET', path: '/apis/apps/v1/namespaces/ns1/deployments?labelSelector=app%3Dweb', headers: [] });
  assert.match(get, /^kubectl get --raw '\/apis\/apps\/v1\/namespaces\/ns1\/deployments\?labelSelector=app%3Dweb'$/m);
  assert.match(get, /# or: kubectl get deployments\.v1\.apps -n ns1 -l app=web -o json/);
  const create = toKubectl({ method: 'POST', path: '/api/v1/namespaces/default/configmaps', headers: [['Content-Type', 'application/json']], body: '{}' });
  assert.equal(create, `kubectl create --raw /api/v1/namespaces/default/configmaps -f - <<'EOF'\n{}\nEOF`);
  const del = toKubectl({ method: 'DELETE', path: '/api/v1/namespaces/default/configmaps/demo', headers: [] });
  assert.equal(del, 'kubectl delete --raw /api/v1/namespaces/default/configmaps/demo');
  const patch = toKubectl({
    method: 'PATCH',
    path: '/api/v1/namespaces/default/configmaps/demo',
    headers: [['Content-Type', 'application/merge-patch+json']],
    body: '{\n "data": {"a": "b"}\n}',
  });
  assert.equal(patch, `kubectl patch configmaps demo -n default --type=merge -p '{"data":{"a":"b"}}'`);
  const apply = toKubectl({
    method: 'PATCH',
    path: '/api/v1/namespaces/default/configmaps/demo?fieldManager=me&force=true',
    headers: [['Content-Type', 'application/apply-patch+yaml']],
    body: 'kind: ConfigMap\n',
  });
  assert.equal(apply, `kubectl apply --server-side -n default --field-manager=me --force-conflicts -f - <<'EOF'\nkind: ConfigMap\nEOF`);
  // Issue 31, friction 5: an applied object without a namespace lands in the
  // path's, not in kubectl's default.
  const applyTeam = toKubectl({
    method: 'PATCH',
    path: '/apis/apps/v1/namespaces/team-a/deployments/web?fieldManager=me',
    headers: [['Content-Type', 'application/apply-patch+yaml']],
    body: 'kind: Deployment\n',
  });
  assert.match(applyTeam, /^kubectl apply --server-side -n team-a --field-manager=me -f - /);
  const remote = toKubectl({ method: 'GET', path: '/version', headers: [] }, { server: 'https://k:6443', token: 't' });
  assert.equal(remote, 'kubectl --server=https://k:6443 --token=t get --raw /version');
});

test('parsePath', () => {
  assert.deepEqual(parsePath('/api/v1/namespaces/default/pods/p1/status?x=1'), {
    group: '', version: 'v1', namespace: 'default', resource: 'pods', name: 'p1', subresource: 'status', legacyWatch: false,
  });
  assert.equal(parsePath('/api/v1/namespaces/default').name, 'default');
  assert.equal(parsePath('/api/v1/namespaces/default/status').subresource, 'status');
  assert.equal(parsePath('/version'), null);
});

test('yamlToJson', () => {
  assert.equal(yamlToJson('a: 1\nb: [x, y]\n'), '{"a":1,"b":["x","y"]}');
  assert.throws(() => yamlToJson('a: [1\n'), /YAML/);
  // Where the mistake is, in whichever document (issue 31, friction 8).
  assert.throws(() => yamlToJson('a: 1\n---\nb: "x\nc: 2\n'), { message: 'YAML: line 3, column 4: Missing closing "quote: the quoted string that starts here is never closed' });
  assert.throws(() => yamlToJson('a: 1\n---\nb: 2\n'), /2 documents/);
  assert.deepEqual(convertText('{"a":{"b":1}}', 'json', 'yaml'), { ok: true, text: 'a:\n  b: 1\n' });
});

test('JSONStreamSplitter splits lines and chunks anywhere', () => {
  const s = new JSONStreamSplitter();
  const text = '{"type":"ADDED","object":{"s":"}{\\"\\n"}}\n{"type":"BOOKMARK","object":{}}\n';
  const out = [];
  for (const ch of text) out.push(...s.push(ch));
  assert.deepEqual(out.map((x) => JSON.parse(x).type), ['ADDED', 'BOOKMARK']);
  assert.equal(s.rest(), '');
});

test('splitWatchPath drops what the session sets', () => {
  const { collection, params } = splitWatchPath('/api/v1/watch/namespaces/a/pods?watch=1&resourceVersion=5&labelSelector=x%3Dy');
  assert.equal(collection, '/api/v1/namespaces/a/pods');
  assert.equal(params.toString(), 'labelSelector=x%3Dy');
});

function stream(lines) {
  return new Response(lines.map((l) => JSON.stringify(l) + '\n').join(''), { status: 200, headers: { 'Content-Type': 'application/json' } });
}

const cm = (name, rv) => ({ kind: 'ConfigMap', metadata: { name, namespace: 'd', resourceVersion: rv } });

test('WatchSession: re-watch from the last RV after a clean end, relist after 410', async () => {
  const calls = [];
  let session;
  const fetchFn = async (path) => {
    calls.push(path);
    const q = new URLSearchParams(path.split('?')[1]);
    switch (calls.length) {
      case 1:
        assert.equal(q.get('resourceVersion'), null);
        assert.equal(q.get('labelSelector'), 'app=x');
        return stream([{ type: 'ADDED', object: cm('a', '5') }, { type: 'BOOKMARK', object: { kind: 'ConfigMap', metadata: { resourceVersion: '7' } } }]);
      case 2:
        assert.equal(q.get('resourceVersion'), '7');
        return stream([{ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old' } }]);
      case 3: // the relist
        assert.equal(q.get('watch'), null);
        assert.equal(q.get('limit'), '500');
        return new Response(JSON.stringify({ kind: 'ConfigMapList', metadata: { resourceVersion: '20' }, items: [cm('b', '15'), cm('c', '18')] }));
      case 4:
        assert.equal(q.get('resourceVersion'), '20');
        return new Response('', { status: 410 });
      case 5:
        return new Response(JSON.stringify({ kind: 'ConfigMapList', metadata: { resourceVersion: '30' }, items: [] }));
      default:
        assert.equal(q.get('resourceVersion'), '30');
        session.stop();
        throw new DOMException('aborted', 'AbortError');
    }
  };
  const records = [];
  session = new WatchSession({ path: '/api/v1/namespaces/d/configmaps?watch=true', labelSelector: 'app=x', allowWatchBookmarks: true }, fetchFn, {
    onRecord: (r) => records.push(r),
    sleep: async () => {},
  });
  await session.start();
  assert.equal(calls.length, 6);
  const kinds = records.map((r) => (r.kind === 'event' ? r.type : r.kind));
  assert.deepEqual(kinds, ['info', 'ADDED', 'BOOKMARK', 'reconnect', 'info', 'error', 'reconnect', 'relist', 'error', 'reconnect', 'relist']);
  assert.equal(session.state, 'stopped');
  assert.equal(session.lastRV, '30');
});

test('WatchSession: watch-list first, then resume without initial events', async () => {
  const queries = [];
  let session;
  const fetchFn = async (path) => {
    const q = new URLSearchParams(path.split('?')[1]);
    queries.push(q);
    if (queries.length === 1) {
      return stream([
        { type: 'ADDED', object: cm('a', '5') },
        { type: 'BOOKMARK', object: { kind: 'ConfigMap', metadata: { resourceVersion: '9', annotations: { 'k8s.io/initial-events-end': 'true' } } } },
      ]);
    }
    session.stop();
    throw new DOMException('aborted', 'AbortError');
  };
  session = new WatchSession({ path: '/api/v1/configmaps', sendInitialEvents: true }, fetchFn, { sleep: async () => {} });
  await session.start();
  assert.equal(queries[0].get('sendInitialEvents'), 'true');
  assert.equal(queries[0].get('resourceVersionMatch'), 'NotOlderThan');
  assert.equal(queries[0].get('allowWatchBookmarks'), 'true');
  assert.equal(queries[1].get('sendInitialEvents'), null);
  assert.equal(queries[1].get('resourceVersion'), '9');
});

test('WatchSession: list first, then watch from the list\'s resourceVersion; the relist record carries the items', async () => {
  const queries = [];
  let session;
  const fetchFn = async (path) => {
    const q = new URLSearchParams(path.split('?')[1]);
    queries.push(q);
    if (queries.length === 1) return new Response(JSON.stringify({ kind: 'ConfigMapList', metadata: { resourceVersion: '12' }, items: [cm('a', '5')] }));
    session.stop();
    throw new DOMException('aborted', 'AbortError');
  };
  const records = [];
  session = new WatchSession({ path: '/api/v1/configmaps', list: true, allowWatchBookmarks: true }, fetchFn, { onRecord: (r) => records.push(r), sleep: async () => {} });
  await session.start();
  assert.equal(queries[0].get('watch'), null);
  assert.equal(queries[1].get('watch'), '1');
  assert.equal(queries[1].get('resourceVersion'), '12');
  assert.equal(queries[1].get('allowWatchBookmarks'), 'true');
  assert.deepEqual(records[0].items.map((o) => o.metadata.name), ['a']);
});

test('WatchSession: a refused watch (400) stops', async () => {
  const s = new WatchSession({ path: '/api/v1/pods', labelSelector: '!!' }, async () => new Response(JSON.stringify({ kind: 'Status', code: 400, reason: 'BadRequest', message: 'bad selector' }), { status: 400 }), { sleep: async () => {} });
  await s.start();
  assert.equal(s.state, 'failed');
});

test('managedFields: fieldsV1 as field paths, entries by manager, folded out of the body', async () => {
  const { fieldsV1Paths, groupByManager, foldManagedFields, describeEntry, managedFieldsOf } = await import('../src/managedfields.js');
  assert.deepEqual(fieldsV1Paths({ 'f:data': { '.': {}, 'f:a': {}, 'f:b': {} }, 'f:metadata': { 'f:labels': { 'f:app': {} } } }),
    ['.data', '.data.a', '.data.b', '.metadata.labels.app']);
  assert.deepEqual(fieldsV1Paths({ 'f:spec': { 'f:containers': { 'k:{"name":"web"}': { '.': {}, 'f:image': {} } }, 'f:ports': { 'k:{"protocol":"TCP","port":80}': {} } } }),
    ['.spec.containers[name="web"]', '.spec.containers[name="web"].image', '.spec.ports[port=80,protocol="TCP"]']);
  assert.deepEqual(fieldsV1Paths({ 'f:finalizers': { 'v:"a"': {} } }), ['.finalizers[="a"]']);
  const entries = [
    { manager: 'alice', operation: 'Apply', apiVersion: 'v1', time: '2026-01-02T03:04:05Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} } } },
    { manager: 'kubectl', operation: 'Update', apiVersion: 'v1', subresource: 'status', fieldsV1: { 'f:status': { 'f:phase': {} } } },
    { manager: 'alice', operation: 'Update', apiVersion: 'v1', fieldsV1: { 'f:data': { 'f:b': {} } } },
  ];
  const obj = { kind: 'ConfigMap', metadata: { name: 'c', managedFields: entries }, data: { a: '1' } };
  assert.equal(managedFieldsOf(obj).length, 3);
  assert.deepEqual(managedFieldsOf({ kind: 'ConfigMapList', items: [] }), []);
  const groups = groupByManager(entries);
  assert.deepEqual(groups.map((g) => [g.manager, g.entries.map((e) => e.operation)]), [['alice', ['Apply', 'Update']], ['kubectl', ['Update']]]);
  assert.deepEqual(groups[0].entries.map((e) => e.paths), [['.data.a'], ['.data.b']]);
  assert.equal(describeEntry(groups[0].entries[0]), 'Apply · v1 · 2026-01-02T03:04:05Z');
  assert.equal(describeEntry(groups[1].entries[0]), 'Update · v1 · subresource status');
  const folded = foldManagedFields(obj);
  assert.match(folded.metadata.managedFields, /^… 3 entries of 2 managers/);
  assert.equal(folded.metadata.name, 'c');
  assert.equal(obj.metadata.managedFields, entries, 'the object itself is left as it was');
});

test('parseWarnings reads the Warning headers fetch joins, as client-go does', () => {
  // As kube-apiserver writes them (Go-quoted), joined with ", " by fetch.
  const joined = String.raw`299 - "unknown field \"spec.foo\"", 299 - "duplicate field \"a, b\"", 299 - "line 8: key \"a\" already set in map"`;
  assert.deepEqual(parseWarnings(joined).map((w) => w.text), [
    'unknown field "spec.foo"', 'duplicate field "a, b"', 'line 8: key "a" already set in map',
  ]);
  assert.deepEqual(parseWarnings(String.raw`299 - "\u00fc\t\x41\U0001F600 ü"`), [{ code: 299, agent: '-', text: 'ü\tA😀 ü' }]);
  assert.deepEqual(parseWarnings('199 agent "text" "Mon, 02 Jan 2006 15:04:05 GMT"'), [{ code: 199, agent: 'agent', text: 'text' }]);
  assert.deepEqual(parseWarnings('not a warning'), [{ code: 0, agent: '', text: 'not a warning' }]);
  assert.deepEqual(parseWarnings(null), []);
});

test('a query typed into the path moves into the rows; rows made for one resource never ride along to another (issue 31, friction 4)', () => {
  // ?limit=1 typed with the path: the rows get it, the path loses it.
  let r = commitPath('/api/v1/namespaces/default/configmaps?limit=1', [], resourceKey('/api/v1/namespaces'));
  assert.equal(r.path, '/api/v1/namespaces/default/configmaps');
  assert.deepEqual(r.rows, [['limit', '1']]);
  // A new path: the rows of the old one are dropped, not sent with it.
  r = commitPath('/api/v1/namespaces/default/secrets', r.rows, r.key);
  assert.equal(r.path, '/api/v1/namespaces/default/secrets');
  assert.deepEqual(r.rows, []);
  // ?watch=1 does not turn the next request into a watch either.
  r = commitPath('/api/v1/pods?watch=1', [], r.key);
  assert.deepEqual(r.rows, [['watch', '1']]);
  r = commitPath('/api/v1/nodes', r.rows, r.key);
  assert.deepEqual(r.rows, []);
  // The same resource in another namespace keeps its rows; a typed value
  // replaces a row of the same name.
  r = commitPath('/api/v1/namespaces/a/pods?labelSelector=app%3Dweb&limit=5', [], r.key);
  r = commitPath('/api/v1/namespaces/b/pods?limit=2', r.rows, r.key);
  assert.deepEqual(r.rows, [['labelSelector', 'app=web'], ['limit', '2']]);
  // Committing the path again changes nothing.
  const again = commitPath(r.path, r.rows, r.key);
  assert.equal(again.rows, r.rows);
  assert.equal(resourceKey('/apis/apps/v1/namespaces/x/deployments/web?x=1'), '/apis/apps/v1/namespaces/*/deployments/web');
});

test('history entries show what tells them apart: namespace, resource, name and query first, the API prefix gone (issue 31, friction 6)', () => {
  assert.equal(historyLabel('/api/v1/namespaces/default/configmaps/cm-1'), 'default/configmaps/cm-1');
  assert.equal(historyLabel('/api/v1/namespaces/team-a/configmaps/cm-1'), 'team-a/configmaps/cm-1');
  assert.equal(historyLabel('/apis/apps/v1/namespaces/shop/deployments?labelSelector=app%3Dweb'), 'apps: shop/deployments?labelSelector=app%3Dweb');
  assert.equal(historyLabel('/api/v1/namespaces'), 'namespaces');
  assert.equal(historyLabel('/api/v1/namespaces/default'), 'namespaces/default');
  assert.equal(historyLabel('/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas'), 'flowcontrol.apiserver.k8s.io: flowschemas');
  assert.equal(historyLabel('/api/v1'), '/');
  assert.equal(historyLabel('/version'), '/version');
  assert.equal(historyLabel('/apis'), '/apis');
});
