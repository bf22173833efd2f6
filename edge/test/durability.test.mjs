// PLAY-9: a sandbox's Durable Object storage keeps every acknowledged write
// through workerd being killed, snapshots and restores, and a damaged journal
// entry costs only that entry.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { API_ONLY, CMS, call, configMap, createSandbox, edgeIn, eventually, scratchDir } from './helpers.mjs';

const names = (list) => list.json.items.map((i) => i.metadata.name).sort();

test('PLAY-9: workerd killed between writes, many times: every 2xx write survives and resourceVersions only grow', async () => {
  const dir = scratchDir('restarts');
  const edge = await edgeIn(dir);
  try {
    const sb = await createSandbox(edge, { cluster: API_ONLY });
    const other = await createSandbox(edge, { cluster: API_ONLY });
    const acknowledged = new Map();
    let lastRV = 0;
    // Concurrent writes may be answered in any order; a write that starts after
    // others were answered must get a higher resourceVersion than all of them.
    const write = async (name) => {
      const floor = lastRV;
      const r = await call(sb, 'POST', CMS, { body: configMap(name) });
      assert.equal(r.status, 201, r.text);
      const rv = Number(r.json.metadata.resourceVersion);
      assert.ok(rv > floor, `resourceVersion ${rv} after ${floor}`);
      lastRV = Math.max(lastRV, rv);
      acknowledged.set(name, rv);
    };
    // Past the snapshot interval (500 commits), so restores read a snapshot and a journal.
    for (let i = 0; i < 512; i += 16) {
      await Promise.all(Array.from({ length: 16 }, (_, j) => write(`bulk-${i + j}`)));
    }
    for (let round = 0; round < 6; round++) {
      await write(`round-${round}`);
      await edge.restart('SIGKILL');
      const list = await call(sb, 'GET', CMS);
      assert.equal(list.status, 200, list.text);
      assert.deepEqual(names(list), [...acknowledged.keys()].sort(), `after restart ${round + 1}`);
      for (const item of list.json.items) {
        assert.equal(Number(item.metadata.resourceVersion), acknowledged.get(item.metadata.name));
      }
      assert.ok(Number(list.json.metadata.resourceVersion) >= lastRV, 'the list is read at or after the last write');
      const status = await call(sb, 'GET', '/kubeplay/status');
      assert.deepEqual(status.json.restoreErrors, []);
    }
    // The neighbour sandbox was restored too, and is still empty.
    assert.deepEqual(names(await call(other, 'GET', CMS)), []);
  } finally {
    await edge.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('PLAY-9: a damaged journal entry in storage is reported and skipped; the entries around it and other sandboxes are kept', async () => {
  const dir = scratchDir('corrupt');
  const edge = await edgeIn(dir);
  try {
    const sb = await createSandbox(edge, { cluster: API_ONLY });
    const neighbour = await createSandbox(edge, { cluster: API_ONLY });
    const marker = 'damage-me-' + 'q'.repeat(40);
    let lastRV = 0;
    // The last victim is the newest entry: its revision is known only from the damage.
    for (const [name, data] of [['before', { v: 'before' }], ['victim', { v: marker }], ['after', { v: 'after' }], ['victim-last', { v: marker }]]) {
      const r = await call(sb, 'POST', CMS, { body: configMap(name, data) });
      assert.equal(r.status, 201);
      lastRV = Number(r.json.metadata.resourceVersion);
    }
    assert.equal((await call(neighbour, 'POST', CMS, { body: configMap('neighbour') })).status, 201);
    await edge.stop('SIGTERM');

    // Flip bytes of the victim's journal record wherever SQLite keeps it.
    let damaged = 0;
    const files = fs.readdirSync(path.join(dir, 'storage'), { recursive: true }).map((f) => path.join(dir, 'storage', f));
    for (const file of files.filter((f) => fs.statSync(f).isFile())) {
      const bytes = fs.readFileSync(file);
      let at = bytes.indexOf(marker);
      if (at < 0) continue;
      for (; at >= 0; at = bytes.indexOf(marker, at + 1)) {
        bytes.write('DAMAGED', at + 10);
        damaged++;
      }
      fs.writeFileSync(file, bytes);
    }
    assert.ok(damaged > 0, 'found the journal record on disk');

    const again = await edgeIn(dir);
    try {
      const status = await call(sb, 'GET', '/kubeplay/status', { server: `${again.url}/s/${sb.id}` });
      assert.equal(status.status, 200);
      assert.equal(status.json.restoreErrors.length, 2, JSON.stringify(status.json.restoreErrors));
      assert.match(status.json.restoreErrors[0], /journal entry \d+ of \d+ is damaged/);
      assert.match(again.output(), /kubeplay sandbox restore: storage: journal entry/, 'the damage is logged');
      const list = await call(sb, 'GET', CMS, { server: `${again.url}/s/${sb.id}` });
      assert.deepEqual(names(list), ['after', 'before']);
      // The sandbox keeps working, never reusing a revision, and its neighbour never noticed.
      const later = await call(sb, 'POST', CMS, { body: configMap('later'), server: `${again.url}/s/${sb.id}` });
      assert.equal(later.status, 201);
      assert.ok(Number(later.json.metadata.resourceVersion) > lastRV, `resourceVersion ${later.json.metadata.resourceVersion} reuses one up to ${lastRV}`);
      const n = await call(neighbour, 'GET', CMS, { server: `${again.url}/s/${neighbour.id}` });
      assert.deepEqual(names(n), ['neighbour']);
      assert.deepEqual((await call(neighbour, 'GET', '/kubeplay/status', { server: `${again.url}/s/${neighbour.id}` })).json.restoreErrors, []);
    } finally {
      await again.stop();
    }
  } finally {
    await edge.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('PLAY-9: an idle sandbox object is evicted (core unloaded, object reset) and rebuilds from storage; an open watch keeps it', async () => {
  const dir = scratchDir('evict');
  const edge = await edgeIn(dir, { sandboxVars: { UNLOAD_IDLE_SECONDS: '1' } });
  const idle = () => new Promise((r) => setTimeout(r, 3500));
  try {
    const sb = await createSandbox(edge, { cluster: API_ONLY });
    const first = await call(sb, 'POST', CMS, { body: configMap('before-eviction') });
    assert.equal(first.status, 201);
    // The xDS module runs too (its informers watch the core in-process: they
    // do not hold the object).
    const xdsCluster = { apiVersion: 'xds.kubeplay.dev/v1', kind: 'Cluster', metadata: { name: 'kept' }, spec: { connectTimeout: '3s' } };
    assert.equal((await call(sb, 'POST', '/apis/xds.kubeplay.dev/v1/clusters', { body: xdsCluster })).status, 201);
    const started = (await call(sb, 'GET', '/kubeplay/status')).json.instanceStartedAt;

    // A watch is open: the object stays.
    const ctl = new AbortController();
    const watch = await fetch(`${sb.server}${CMS}?watch=1&resourceVersion=${first.json.metadata.resourceVersion}`, { headers: sb.auth, signal: ctl.signal });
    assert.equal(watch.status, 200);
    await idle();
    assert.equal((await call(sb, 'GET', '/kubeplay/status')).json.instanceStartedAt, started, 'not evicted while watched');
    ctl.abort();
    await watch.body?.cancel().catch(() => {});
    // workerd notices a client gone when it writes the next event to it.
    assert.equal((await call(sb, 'POST', CMS, { body: configMap('ends-the-watch') })).status, 201);
    await eventually(async () => (await call(sb, 'GET', '/kubeplay/status')).json.openWatches === 0, 'the watch to end');

    // Idle: evicted; the next request finds everything, and versions keep growing.
    await idle();
    const status = (await call(sb, 'GET', '/kubeplay/status')).json;
    assert.notEqual(status.instanceStartedAt, started, 'a new object instance');
    assert.deepEqual(status.restoreErrors, []);
    assert.match(edge.output(), /core unloaded/);
    const second = await call(sb, 'POST', CMS, { body: configMap('after-eviction') });
    assert.equal(second.status, 201);
    assert.ok(Number(second.json.metadata.resourceVersion) > Number(first.json.metadata.resourceVersion));
    assert.deepEqual(names(await call(sb, 'GET', CMS)), ['after-eviction', 'before-eviction', 'ends-the-watch']);
    const polled = await call(sb, 'POST', '/v3/discovery:clusters', { body: {} });
    assert.equal(polled.status, 200, polled.text);
    assert.deepEqual(polled.json.resources.map((r) => [r.name, r.connectTimeout]), [['kept', '3s']]);
  } finally {
    await edge.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
