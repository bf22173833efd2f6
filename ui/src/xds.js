// xds.js — the xDS panel (PLAY-6): a simulated Envoy node (id, cluster,
// dynamic parameters) subscribing to kubeplay's discovery service in state
// of the world or delta; every request and response on a timeline with
// versions and nonces; ACK or NACK each response by hand (or auto-ACK); the
// resources the node holds, with TTL countdowns; and what the server
// records of the node (/xds/v3/status). Edit an xDS object in the request
// builder or another tab and the push arrives here. The logic is
// xdsmodel.js; this file is the DOM.

import { h, mount, clock } from './dom.js';
import { apiFetch } from './api.js';
import { TYPES, XdsNode, parseNames, parseParams } from './xdsmodel.js';

const TICK_MS = 500;

function short(url) {
  return TYPES.find((t) => t.url === url)?.kind || url.replace(/^.*\//, '');
}

function summary(e) {
  if (e.error && e.dir === 'in' && !e.state) return `error: ${e.error}`;
  const b = e.body;
  if (e.dir === 'out') {
    const parts = [];
    if (b.node) parts.push(`node ${b.node.id}`);
    const names = b.resourceNames || b.resourceNamesSubscribe;
    if (names) parts.push(`${b.resourceNamesSubscribe ? 'subscribe' : 'names'} [${names.join(', ')}]`);
    if (b.resourceLocators || b.resourceLocatorsSubscribe) parts.push(`locators [${(b.resourceLocators || b.resourceLocatorsSubscribe).map((l) => `${l.name} ${JSON.stringify(l.dynamicParameters)}`).join(', ')}]`);
    if (b.resourceNamesUnsubscribe) parts.push(`unsubscribe [${b.resourceNamesUnsubscribe.join(', ')}]`);
    if (b.errorDetail) parts.push(`NACK of ${b.responseNonce}: ${b.errorDetail.message}`);
    else if (b.responseNonce) parts.push(`ACK of ${b.responseNonce}${b.versionInfo ? ` (version ${b.versionInfo})` : ''}`);
    return parts.join(' · ') || 'request';
  }
  const n = (b.resources || []).length;
  const parts = [e.heartbeat ? `heartbeat for ${n}` : `${n} resource${n === 1 ? '' : 's'}`];
  if (b.removedResources?.length) parts.push(`removed [${b.removedResources.join(', ')}]`);
  return parts.join(' · ');
}

export function createXdsPanel() {
  let node = null;
  let timer = null;
  let serverState = null;

  const nodeId = h('input', { value: 'envoy-1', size: 12, testid: 'xds-node-id' });
  const nodeCluster = h('input', { value: 'playground', size: 12, testid: 'xds-node-cluster' });
  const protocol = h('select', { testid: 'xds-protocol' }, h('option', { value: 'delta' }, 'delta'), h('option', { value: 'sotw' }, 'state of the world'));
  const connectBtn = h('button', { type: 'button', class: 'primary', testid: 'xds-connect', dataset: { write: '' }, on: { click: connect } }, 'Connect');
  const disconnectBtn = h('button', { type: 'button', testid: 'xds-disconnect', disabled: true, on: { click: disconnect } }, 'Disconnect');
  const streamState = h('span', { class: 'muted', testid: 'xds-stream-state' }, 'not connected');

  const type = h('select', { testid: 'xds-type' }, TYPES.map((t) => h('option', { value: t.url, selected: t.kind === 'Cluster' }, t.kind)));
  const names = h('input', { placeholder: 'names, comma-separated (empty: all)', size: 30, testid: 'xds-names' });
  const params = h('input', { placeholder: 'dynamic parameters: env=prod', size: 20, testid: 'xds-params' });
  const subscribeBtn = h('button', { type: 'submit', testid: 'xds-subscribe', disabled: true }, 'Subscribe');
  const unsubscribeBtn = h('button', { type: 'button', testid: 'xds-unsubscribe', disabled: true, on: { click: () => node?.unsubscribe(type.value, parseNames(names.value)) } }, 'Unsubscribe');
  // Auto-ACK is on, as a real node accepts what it can apply: what the node
  // holds fills at once; turn it off to ACK or NACK by hand.
  const autoAck = h('input', { type: 'checkbox', checked: true, testid: 'xds-auto-ack', on: { change: () => { if (node) node.autoAck = autoAck.checked; } } });
  const nackMessage = h('input', { value: 'rejected by hand in the playground', size: 28, testid: 'xds-nack-message' });

  const timelineBody = h('tbody');
  const timeline = h('table', { class: 'xds-timeline', testid: 'xds-timeline' },
    h('thead', {}, h('tr', {}, ['Time', '', 'Type', 'Version', 'Nonce', 'What', ''].map((c) => h('th', {}, c)))), timelineBody);
  const resourcesBody = h('tbody');
  const resources = h('table', { class: 'xds-resources', testid: 'xds-resources' },
    h('thead', {}, h('tr', {}, ['Type', 'Name', 'Version', 'TTL', 'Variant'].map((c) => h('th', {}, c)))), resourcesBody);
  const detail = h('pre', { class: 'xds-detail', testid: 'xds-detail' }, 'Select a row of the timeline to see its message.');
  const server = h('pre', { class: 'xds-server', testid: 'xds-server-status' }, '');

  const el = h('div', { class: 'xds-panel' },
    h('section', { class: 'panel' },
      h('h3', {}, 'A simulated Envoy node'),
      h('p', { class: 'muted' }, 'It speaks the discovery protocol to kubeplay over the playground\'s HTTP stream (natively, Envoy and gRPC clients use gRPC). Resources come from the API objects of xds.kubeplay.dev: edit one in the Request tab and watch the push arrive.'),
      h('div', { class: 'row wrap' }, h('label', {}, 'Node id ', nodeId), h('label', {}, 'cluster ', nodeCluster), h('label', {}, 'protocol ', protocol), connectBtn, disconnectBtn, streamState)),
    h('form', { class: 'panel', on: { submit: (e) => { e.preventDefault(); node?.subscribe(type.value, parseNames(names.value), parseParams(params.value)); } } },
      h('div', { class: 'row wrap' }, h('label', {}, 'Type ', type), names, params, subscribeBtn, unsubscribeBtn,
        h('label', {}, autoAck, ' auto-ACK'), h('label', {}, 'NACK message ', nackMessage))),
    h('div', { class: 'xds-grid' },
      h('section', { class: 'panel' }, h('h3', {}, 'Timeline'), timeline),
      h('section', { class: 'panel' }, h('h3', {}, 'What the node holds'), resources, h('h3', {}, 'Message'), detail, h('h3', {}, 'What the server records of this node'), server)),
  );

  async function connect() {
    await disconnect();
    node = new XdsNode({ fetch: apiFetch, protocol: protocol.value, node: { id: nodeId.value, cluster: nodeCluster.value }, onChange: render });
    node.autoAck = autoAck.checked;
    try {
      await node.open();
    } catch (err) {
      streamState.textContent = String(err.message || err);
      node = null;
      return;
    }
    timer = setInterval(tick, TICK_MS);
    render();
  }

  async function disconnect() {
    clearInterval(timer);
    timer = null;
    if (node) await node.close();
  }

  async function tick() {
    if (!node) return;
    node.expire();
    try {
      const res = await apiFetch(`/xds/v3/status?node=${encodeURIComponent(node.node.id)}`);
      serverState = await res.json();
    } catch {
      serverState = null;
    }
    render();
  }

  function render() {
    const open = node?.state === 'open';
    connectBtn.disabled = false;
    disconnectBtn.disabled = !open;
    subscribeBtn.disabled = !open;
    unsubscribeBtn.disabled = !open;
    streamState.textContent = node ? `${node.protocol} stream ${node.state}${node.error ? `: ${node.error}` : ''}` : 'not connected';
    streamState.dataset.state = node?.state || 'closed';
    if (!node) return;
    mount(timelineBody, node.timeline.slice().reverse().map((e) => {
      const actions = e.dir === 'in' && e.state === 'pending'
        ? [h('button', { type: 'button', class: 'small', testid: 'xds-ack', on: { click: () => node.ack(e) } }, 'ACK'),
          h('button', { type: 'button', class: 'small danger', testid: 'xds-nack', on: { click: () => node.nack(e, nackMessage.value) } }, 'NACK')]
        : e.state ? h('span', { class: `xds-${e.state}` }, e.state) : e.error ? h('span', { class: 'xds-nacked' }, e.error) : '';
      return h('tr', { testid: 'xds-entry', dataset: { dir: e.dir, nonce: e.nonce || '', state: e.state || '' }, class: `xds-${e.dir}`, on: { click: () => { detail.textContent = JSON.stringify(e.body, null, 2); } } },
        h('td', {}, clock(new Date(e.at))), h('td', {}, e.dir === 'out' ? '→' : '←'), h('td', {}, short(e.typeUrl || '')),
        h('td', {}, e.version || ''), h('td', {}, e.nonce || e.body?.responseNonce || ''), h('td', {}, summary(e)), h('td', {}, actions));
    }));
    const rows = [];
    const now = Date.now();
    for (const [url, t] of node.types) {
      for (const [name, r] of t.resources) {
        const left = r.expiresAt === null ? '' : `${Math.max(0, Math.ceil((r.expiresAt - now) / 1000))} s`;
        rows.push(h('tr', { testid: 'xds-resource-row', dataset: { name, version: r.version } },
          h('td', {}, short(url)), h('td', {}, name), h('td', {}, r.version), h('td', { testid: 'xds-ttl' }, left),
          h('td', {}, r.constraints ? JSON.stringify(r.constraints) : 'default')));
      }
    }
    mount(resourcesBody, rows);
    server.textContent = serverState ? JSON.stringify(serverState.flatMap((s) => s.types), null, 2) : '';
  }

  return {
    el,
    get node() { return node; },
  };
}
