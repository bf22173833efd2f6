// kubeplay front Worker: the entry of every request to the edge. It holds no
// state and never starts a Go instance on the hot path:
//
//   /s/{id}/...        the sandbox's Durable Object (sandbox.mjs), the request
//                      as it came (the object strips /s/{id} and gives the core
//                      the client's host); unknown ids, missing tokens and
//                      declared bodies over 3 MiB are answered here, with
//                      kube-apiserver's Status, without waking an object;
//                      the instructor token (INSTRUCTOR_TOKEN) reads any
//                      sandbox (WORK-2: the object allows it GET and HEAD)
//   /sandboxes[/...]   the control plane (internal/control's protocol), in Go
//   /workshops         (main.go beside this file, on github.com/syumai/workers):
//                      one Go instance per request, which suits requests this
//                      rare (the instructor page's poll is one each 2 s)
//   /instructor        the instructor page (instructor.html)
//   everything else    the built playground from ASSETS, only the files
//                      SITE_FILES lists, with the site's security headers
//                      (sitepolicy.json, ui/sitepolicy's headers.json)
//
// The sandbox object checks the token itself (SHA-256, constant time) and the
// body's real size; this Worker checks only what it can without storage.

import controlPlane from './worker.mjs';
import sitePolicy from './sitepolicy.json';
import { errorText, unavailable } from './bridge.mjs';
import { INSTRUCTOR_HEADER, MAX_BODY_BYTES, bearerToken, methodNotAllowed, notFound, sha256, tooLarge, unauthorized } from './kube.mjs';

// What the control plane's newSandbox (create.go) makes.
const SANDBOX_ID = /^[0-9a-f]{32}$/;
const SANDBOX_PATH = /^\/s\/([^/]*)(?:\/|$)/;
// The workshop control protocol's (internal/control's Handles).
const isControlPath = (p) => p === '/sandboxes' || p === '/workshops' || p.startsWith('/sandboxes/');

// The site's pages served at a path of their own (playground/site.go has the
// same): the playground, the instructor page (WORK-2), and the embed page
// (LEARN-4; playground/site.go serves it as the directory's index.html).
const PAGES = { '/': '/index.html', '/instructor': '/instructor.html', '/embed/': '/embed/index.html' };

// Workers static assets name a file's type; a local disk service does not.
// Go's mime.TypeByExtension for the types a built site holds.
const TYPES = {
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
};

export default {
  async fetch(request, env, ctx) {
    const url = new URL(request.url);
    if (isControlPath(url.pathname)) return controlPlane.fetch(request, env, ctx);
    const sandbox = SANDBOX_PATH.exec(url.pathname);
    if (sandbox) return toSandbox(request, env, sandbox[1]);
    return serveAsset(request, env, url);
  },
};

// toSandbox hands the request, body still streaming, to sandbox id's object.
async function toSandbox(request, env, id) {
  if (!SANDBOX_ID.test(id)) return notFound();
  const token = bearerToken(request.headers.get('Authorization'));
  if (token === null) return unauthorized();
  if (Number(request.headers.get('Content-Length')) > MAX_BODY_BYTES) return tooLarge();
  // Only this Worker says a request is the instructor's.
  const headers = new Headers(request.headers);
  headers.delete(INSTRUCTOR_HEADER);
  if (await isInstructor(token, env)) headers.set(INSTRUCTOR_HEADER, 'read');
  try {
    return await env.SANDBOX.get(env.SANDBOX.idFromName(id)).fetch(new Request(request, { headers }));
  } catch (err) {
    // The object failed to start or was reset mid-request; the next request
    // starts it anew.
    return unavailable('the sandbox did not answer: ' + errorText(err));
  }
}

// isInstructor says whether token is the instructor's (compared in constant
// time over SHA-256, so lengths do not leak either).
async function isInstructor(token, env) {
  if (!env.INSTRUCTOR_TOKEN) return false;
  const [got, want] = await Promise.all([sha256(token), sha256(env.INSTRUCTOR_TOKEN)]);
  return crypto.subtle.timingSafeEqual(got, want);
}

// serveAsset answers with a file of the built playground.
async function serveAsset(request, env, url) {
  if (request.method !== 'GET' && request.method !== 'HEAD') return methodNotAllowed();
  let name;
  try {
    name = PAGES[url.pathname] || decodeURIComponent(url.pathname);
  } catch {
    return notFound();
  }
  // A directory (which local workerd would list) or a symlink (whose target
  // may be outside the site) is never in SITE_FILES.
  if (!(env.SITE_FILES || '').split(' ').includes(name)) return notFound();
  let res;
  try {
    res = await env.ASSETS.fetch('https://assets' + encodeURI(name), { method: request.method });
  } catch (err) {
    return unavailable('static assets did not answer: ' + errorText(err));
  }
  if (res.status === 404) return notFound();
  res = new Response(res.body, res);
  const type = res.headers.get('Content-Type');
  if (!type || type === 'application/octet-stream') {
    const ext = /\.[^./]+$/.exec(name);
    if (ext && TYPES[ext[0]]) res.headers.set('Content-Type', TYPES[ext[0]]);
  }
  // The site's policy (ui/sitepolicy): the embed page's, which any site may frame, or the rest's.
  const policy = sitePolicy.embedPaths.includes(name) ? sitePolicy.embed : sitePolicy.site;
  for (const [header, value] of Object.entries(policy)) res.headers.set(header, value);
  return res;
}
