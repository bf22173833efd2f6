// xdsmodel.js — the xDS panel's simulated Envoy node, without the DOM: it
// opens a discovery stream over the HTTP transport (POST /xds/v3/streams,
// GET its responses as lines, POST each request, each with the token the
// opening answered in X-Kubeplay-Stream-Token), subscribes in state of the
// world or delta, keeps every request and response on a timeline with
// versions and nonces, holds the resources it accepted (with their TTLs
// counting down), and ACKs or NACKs each response: by hand, or at once with
// autoAck. A response is applied when it is ACKed; a NACK keeps what the
// node had, as Envoy does.

export const TYPES = [
  { kind: 'Listener', url: 'type.googleapis.com/envoy.config.listener.v3.Listener', plural: 'listeners' },
  { kind: 'RouteConfiguration', url: 'type.googleapis.com/envoy.config.route.v3.RouteConfiguration', plural: 'routeconfigurations' },
  { kind: 'Cluster', url: 'type.googleapis.com/envoy.config.cluster.v3.Cluster', plural: 'clusters' },
  { kind: 'ClusterLoadAssignment', url: 'type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment', plural: 'clusterloadassignments' },
  { kind: 'Secret', url: 'type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.Secret', plural: 'secrets' },
];

const WRAPPED = 'type.googleapis.com/envoy.service.discovery.v3.Resource';
// The header that proves a request to a stream comes from its client.
export const STREAM_TOKEN_HEADER = 'X-Kubeplay-Stream-Token';

/** Parses "k=v, k2=v2" into {k: 'v', k2: 'v2'} (empty: {}). */
export function parseParams(text) {
  const out = {};
  for (const part of String(text || '').split(',')) {
    const [k, ...v] = part.split('=');
    if (k.trim()) out[k.trim()] = v.join('=').trim();
  }
  return out;
}

/** Parses "a, b" into ['a', 'b'] (empty: []). */
export function parseNames(text) {
  return String(text || '').split(',').map((s) => s.trim()).filter(Boolean);
}

/** Seconds of a proto JSON Duration ("1.5s"), or 0. */
export function seconds(d) {
  const m = /^(-?\d*(?:\.\d*)?)s$/.exec(String(d || ''));
  return m ? Number(m[1]) || 0 : 0;
}

/**
 * Entries of a response: {name, version, ttl (s), resource (null for a
 * heartbeat), constraints}, whatever form it came in (a delta Resource, a
 * state-of-the-world Any, or an Any wrapping a Resource).
 */
export function entries(response, protocol) {
  return (response.resources || []).map((r) => {
    const res = protocol === 'delta' || r['@type'] === WRAPPED ? r : { resource: r };
    const body = res.resource ?? null;
    const name = res.name || res.resourceName?.name || body?.name || body?.clusterName || '';
    return { name, version: res.version || response.versionInfo || '', ttl: seconds(res.ttl), resource: body, constraints: res.resourceName?.dynamicParameterConstraints ?? null };
  });
}

export class XdsNode {
  /**
   * @param {object} o
   * @param {(path: string, init?: object) => Promise<Response>} o.fetch
   * @param {'sotw'|'delta'} o.protocol
   * @param {{id: string, cluster?: string}} o.node
   * @param {() => number} [o.now] ms
   * @param {() => void} [o.onChange]
   */
  constructor({ fetch, protocol, node, now = () => Date.now(), onChange = () => {} }) {
    this.fetch = fetch;
    this.protocol = protocol;
    this.node = node;
    this.now = now;
    this.onChange = onChange;
    this.timeline = []; // {dir: 'out'|'in', at, typeUrl, body, nonce?, version?, state?: pending|acked|nacked, error?}
    this.types = new Map(); // typeUrl → {names: Set, params, wildcard, resources: Map(name → held), ackedVersion, lastNonce}
    this.autoAck = false;
    this.stream = null;
    this.token = '';
    this.state = 'closed'; // closed | open | ended
    this.error = '';
    this.sentNode = false;
    this.reader = null;
  }

  type(typeUrl) {
    let t = this.types.get(typeUrl);
    if (!t) {
      t = { names: new Set(), params: {}, wildcard: false, resources: new Map(), ackedVersion: '', lastNonce: '' };
      this.types.set(typeUrl, t);
    }
    return t;
  }

  /** The headers of a request to the stream: its token. */
  auth() {
    return { [STREAM_TOKEN_HEADER]: this.token };
  }

  /** Opens the stream and starts reading its responses. */
  async open() {
    const res = await this.fetch(`/xds/v3/streams?protocol=${this.protocol}`, { method: 'POST' });
    const body = await res.json().catch(() => null);
    if (res.status !== 201 || !body?.id || !body?.token) throw new Error(`opening the stream: ${res.status} ${body?.message || ''}`);
    this.stream = `/xds/v3/streams/${body.id}`;
    this.token = body.token;
    this.state = 'open';
    this.read();
    this.onChange();
  }

  async read() {
    const ctl = new AbortController();
    this.reader = ctl;
    try {
      const res = await this.fetch(this.stream, { signal: ctl.signal, headers: this.auth() });
      if (res.status !== 200) {
        const st = await res.json().catch(() => ({}));
        throw new Error(st.message || `HTTP ${res.status}`);
      }
      const reader = res.body.getReader();
      const dec = new TextDecoder();
      let buf = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += dec.decode(value, { stream: true });
        let i;
        while ((i = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, i);
          buf = buf.slice(i + 1);
          if (line.trim()) this.received(JSON.parse(line));
        }
      }
    } catch (err) {
      if (!ctl.signal.aborted) this.error = String(err?.message || err);
    }
    if (this.state === 'open') this.state = 'ended';
    this.onChange();
  }

  /** Handles one line of the stream: a response, or the error that ended it. */
  received(msg) {
    if (msg.error) {
      this.error = msg.error.message;
      this.state = 'ended';
      this.timeline.push({ dir: 'in', at: this.now(), typeUrl: '', body: msg, error: msg.error.message });
      this.onChange();
      return;
    }
    const entry = { dir: 'in', at: this.now(), typeUrl: msg.typeUrl, body: msg, nonce: msg.nonce, version: msg.versionInfo || msg.systemVersionInfo, state: 'pending' };
    entry.heartbeat = entries(msg, this.protocol).every((e) => e.resource === null) && (msg.resources || []).length > 0;
    this.timeline.push(entry);
    this.type(msg.typeUrl).lastNonce = msg.nonce;
    this.onChange();
    if (this.autoAck || entry.heartbeat) this.ack(entry);
  }

  /** Sends one request on the stream. */
  async send(body) {
    if (!this.sentNode) {
      body = { node: this.node, ...body };
      this.sentNode = true;
    }
    const out = { dir: 'out', at: this.now(), typeUrl: body.typeUrl, body };
    this.timeline.push(out);
    this.onChange();
    const res = await this.fetch(this.stream, { method: 'POST', headers: { ...this.auth(), 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    if (res.status !== 202) {
      const st = await res.json().catch(() => ({}));
      out.error = st.message || `HTTP ${res.status}`;
      this.onChange();
    }
  }

  /** Subscribes to names of typeUrl (none: wildcard), with dynamic parameters. */
  subscribe(typeUrl, names, params = {}) {
    const t = this.type(typeUrl);
    const withParams = Object.keys(params).length > 0;
    t.params = params;
    if (names.length === 0) t.wildcard = true;
    names.forEach((n) => t.names.add(n));
    if (this.protocol === 'delta') {
      const body = { typeUrl };
      if (names.length === 0) body.resourceNamesSubscribe = ['*'];
      else if (withParams) body.resourceLocatorsSubscribe = names.map((name) => ({ name, dynamicParameters: params }));
      else body.resourceNamesSubscribe = names;
      return this.send(body);
    }
    return this.send(this.sotwRequest(typeUrl, { responseNonce: t.lastNonce }));
  }

  /** Drops names of typeUrl from the subscription. */
  unsubscribe(typeUrl, names) {
    const t = this.type(typeUrl);
    names.forEach((n) => { t.names.delete(n); t.resources.delete(n); });
    if (this.protocol === 'delta') return this.send({ typeUrl, resourceNamesUnsubscribe: names });
    return this.send(this.sotwRequest(typeUrl, { responseNonce: t.lastNonce }));
  }

  /** A state-of-the-world request: the whole subscription, every time. */
  sotwRequest(typeUrl, extra) {
    const t = this.type(typeUrl);
    const names = [...t.names];
    const body = { typeUrl, versionInfo: t.ackedVersion, ...extra };
    if (t.wildcard && names.length > 0) names.push('*');
    if (Object.keys(t.params).length > 0) body.resourceLocators = names.map((name) => ({ name, dynamicParameters: t.params }));
    else body.resourceNames = names;
    return body;
  }

  /** Accepts a response: its resources become the node's, and the server hears an ACK. */
  ack(entry) {
    if (entry.state !== 'pending') return Promise.resolve();
    entry.state = 'acked';
    const t = this.type(entry.typeUrl);
    this.apply(t, entry.body);
    if (this.protocol === 'delta') return this.send({ typeUrl: entry.typeUrl, responseNonce: entry.nonce });
    t.ackedVersion = entry.body.versionInfo;
    return this.send(this.sotwRequest(entry.typeUrl, { responseNonce: entry.nonce }));
  }

  /** Refuses a response: the node keeps what it had, the server hears why. */
  nack(entry, message) {
    if (entry.state !== 'pending') return Promise.resolve();
    entry.state = 'nacked';
    entry.error = message;
    const errorDetail = { code: 3, message };
    if (this.protocol === 'delta') return this.send({ typeUrl: entry.typeUrl, responseNonce: entry.nonce, errorDetail });
    return this.send(this.sotwRequest(entry.typeUrl, { responseNonce: entry.nonce, errorDetail }));
  }

  /** Applies a response to what the node holds. */
  apply(t, body) {
    const now = this.now();
    const list = entries(body, this.protocol);
    const heartbeat = list.length > 0 && list.every((e) => e.resource === null);
    if (this.protocol === 'sotw' && !heartbeat) {
      // The state of the world replaces what the node held of the type.
      const kept = new Map();
      for (const e of list) kept.set(e.name, null);
      for (const name of [...t.resources.keys()]) if (!kept.has(name)) t.resources.delete(name);
    }
    for (const e of list) {
      const held = t.resources.get(e.name);
      if (e.resource === null) { // a heartbeat refreshes the TTL
        if (held) held.expiresAt = e.ttl ? now + e.ttl * 1000 : null;
        continue;
      }
      t.resources.set(e.name, { ...e, expiresAt: e.ttl ? now + e.ttl * 1000 : null });
    }
    for (const name of body.removedResources || []) t.resources.delete(name);
  }

  /** Drops the resources whose TTL ran out (as Envoy does without heartbeats); says whether any went. */
  expire() {
    const now = this.now();
    let gone = false;
    for (const t of this.types.values()) {
      for (const [name, r] of t.resources) {
        if (r.expiresAt !== null && r.expiresAt <= now) {
          t.resources.delete(name);
          gone = true;
        }
      }
    }
    if (gone) this.onChange();
    return gone;
  }

  /** Ends the stream. */
  async close() {
    this.reader?.abort();
    if (this.stream && this.state === 'open') {
      this.state = 'closed';
      await this.fetch(this.stream, { method: 'DELETE', headers: this.auth() }).catch(() => {});
    }
    this.onChange();
  }
}
