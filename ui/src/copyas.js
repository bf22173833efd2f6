// copyas.js — a prepared request as a shell command: curl (exact) and kubectl
// (best effort). Pure functions, no DOM.
//
// A prepared request: {method, path, headers: [[name, value]], body?: string}
// where path includes the query string.

/** A POSIX shell single-quoted word. */
export function shq(s) {
  s = String(s);
  if (/^[A-Za-z0-9_\-.,/:=@%+]+$/.test(s)) return s;
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

function heredoc(body) {
  let tag = 'EOF';
  while (body.split('\n').includes(tag)) tag += '_';
  return { open: `<<'${tag}'`, close: `${body.replace(/\n$/, '')}\n${tag}` };
}

function isWatch(path) {
  const q = path.split('?')[1] || '';
  return new URLSearchParams(q).get('watch') === 'true' || new URLSearchParams(q).get('watch') === '1' || /\/watch\//.test(path.split('?')[0]);
}

/**
 * curl for req against baseUrl (e.g. "http://127.0.0.1:8080"); extraHeaders are
 * the ones the target adds (Authorization for a remote token).
 */
export function toCurl(req, baseUrl, extraHeaders = []) {
  const parts = ['curl', '-sS'];
  if (isWatch(req.path)) parts.push('-N');
  if (req.method !== 'GET' || req.body) parts.push('-X', req.method);
  const names = new Set(req.headers.map(([k]) => k.toLowerCase()));
  for (const [k, v] of [...req.headers, ...extraHeaders.filter(([k]) => !names.has(k.toLowerCase()))]) {
    parts.push('-H', shq(`${k}: ${v}`));
  }
  let tail = '';
  if (req.body !== undefined && req.body !== '') {
    if (req.body.includes('\n')) {
      const hd = heredoc(req.body);
      parts.push('--data-binary', '@-');
      tail = ` ${hd.open}\n${hd.close}`;
    } else {
      parts.push('--data-binary', shq(req.body));
    }
  }
  parts.push(shq(baseUrl.replace(/\/+$/, '') + req.path));
  return parts.join(' ') + tail;
}

/** The resource a path names: group, version, namespace, resource, name, subresource. */
export function parsePath(path) {
  const p = path.split('?')[0].replace(/\/+$/, '');
  const m = p.match(/^(\/api\/v1|\/apis\/([^/]+)\/([^/]+))(\/watch)?\/(.*)$/);
  if (!m) return null;
  let rest = m[5].split('/').filter(Boolean);
  let namespace = '';
  const namespaceSub = rest.length === 3 && (rest[2] === 'status' || rest[2] === 'finalize');
  if (rest[0] === 'namespaces' && rest.length >= 3 && !namespaceSub) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const [resource, name = '', subresource = ''] = rest;
  if (!resource) return null;
  return { group: m[2] || '', version: m[3] || 'v1', namespace, resource, name, subresource, legacyWatch: !!m[4] };
}

function header(req, name) {
  const h = req.headers.find(([k]) => k.toLowerCase() === name.toLowerCase());
  return h ? h[1] : '';
}

const PATCH_TYPES = {
  'application/merge-patch+json': 'merge',
  'application/json-patch+json': 'json',
  'application/strategic-merge-patch+json': 'strategic',
};

/**
 * kubectl for req. opts: {server, token} for a remote target (added as
 * --server/--token), sandbox: true to note that kubectl cannot reach the
 * in-browser sandbox.
 */
export function toKubectl(req, opts = {}) {
  const lines = [];
  const global = [];
  if (opts.server) global.push(`--server=${shq(opts.server)}`);
  if (opts.token) global.push(`--token=${shq(opts.token)}`);
  const asUser = header(req, 'Impersonate-User');
  if (asUser) global.push(`--as=${shq(asUser)}`);
  for (const [k, v] of req.headers) if (k.toLowerCase() === 'impersonate-group') global.push(`--as-group=${shq(v)}`);
  const g = global.length ? ' ' + global.join(' ') : '';

  if (opts.sandbox) lines.push('# kubectl cannot reach the in-browser sandbox; this runs against your kubeconfig (e.g. `go run ./playground --kubeconfig-out kubeconfig`).');
  const ignored = req.headers
    .map(([k]) => k)
    .filter((k) => !/^(accept|content-type|impersonate-user|impersonate-group|authorization)$/i.test(k));
  const accept = header(req, 'Accept');
  if (ignored.length) lines.push(`# kubectl does not send the headers ${ignored.join(', ')}.`);
  if (accept && !/^application\/json$/i.test(accept.trim())) lines.push(`# kubectl chooses its own Accept (this request asked for ${accept}).`);

  const uri = shq(req.path);
  const body = req.body !== undefined && req.body !== '' ? req.body : null;
  const withBody = (cmd) => {
    if (body === null) return cmd;
    const hd = heredoc(body);
    return `${cmd} -f - ${hd.open}\n${hd.close}`;
  };
  const r = parsePath(req.path);
  const query = new URLSearchParams(req.path.split('?')[1] || '');
  switch (req.method) {
    case 'GET': {
      lines.push(`kubectl${g} get --raw ${uri}`);
      const friendly = r && !r.subresource && !isWatch(req.path) ? friendlyGet(r, query) : '';
      if (friendly) lines.push(`# or: kubectl${g} ${friendly}`);
      break;
    }
    case 'POST':
      lines.push(withBody(`kubectl${g} create --raw ${uri}`));
      break;
    case 'PUT':
      lines.push(withBody(`kubectl${g} replace --raw ${uri}`));
      break;
    case 'DELETE':
      lines.push(withBody(`kubectl${g} delete --raw ${uri}`));
      break;
    case 'PATCH': {
      const ct = header(req, 'Content-Type').split(';')[0].trim().toLowerCase();
      if (ct.startsWith('application/apply-patch')) {
        const args = ['apply', '--server-side'];
        // The path's namespace: kubectl sends an object without one to its
        // -n (or the kubeconfig's, default), not to the path's.
        if (r && r.namespace) args.push('-n', shq(r.namespace));
        if (query.get('fieldManager')) args.push(`--field-manager=${shq(query.get('fieldManager'))}`);
        if (query.get('force') === 'true') args.push('--force-conflicts');
        if (query.get('dryRun')) args.push('--dry-run=server');
        if (r && r.subresource) args.push(`--subresource=${shq(r.subresource)}`);
        lines.push(withBody(`kubectl${g} ${args.join(' ')}`));
      } else if (r && r.name) {
        const args = ['patch', resourceArg(r), shq(r.name)];
        if (r.namespace) args.push('-n', shq(r.namespace));
        if (r.subresource) args.push(`--subresource=${shq(r.subresource)}`);
        args.push(`--type=${PATCH_TYPES[ct] || 'strategic'}`);
        if (query.get('dryRun')) args.push('--dry-run=server');
        if (query.get('fieldManager')) args.push(`--field-manager=${shq(query.get('fieldManager'))}`);
        args.push('-p', shq(compactJson(body || '{}')));
        lines.push(`kubectl${g} ${args.join(' ')}`);
      } else {
        lines.push(`# kubectl has no raw PATCH and this path names no object; use curl.`);
      }
      break;
    }
    default:
      lines.push(`# kubectl has no ${req.method}; use curl.`);
  }
  return lines.join('\n');
}

function resourceArg(r) {
  return r.group ? `${r.resource}.${r.version}.${r.group}` : r.resource;
}

function friendlyGet(r, query) {
  const args = ['get', resourceArg(r)];
  if (r.name) args.push(shq(r.name));
  if (r.namespace) args.push('-n', shq(r.namespace));
  else if (!r.name && r.resource !== 'namespaces') args.push('-A');
  if (query.get('labelSelector')) args.push('-l', shq(query.get('labelSelector')));
  if (query.get('fieldSelector')) args.push(`--field-selector=${shq(query.get('fieldSelector'))}`);
  if (query.get('limit')) args.push(`--chunk-size=${shq(query.get('limit'))}`);
  args.push('-o', 'json');
  return args.join(' ');
}

function compactJson(text) {
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return text;
  }
}
