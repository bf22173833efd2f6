// What both edge Workers (front.mjs and sandbox.mjs) say as kube-apiserver says
// it: the bearer token as its authenticator reads it, its request body limit,
// and its Status bodies (built by the bridge's statusResponse, which the
// service worker's are too).

import { statusResponse } from './bridge.mjs';

// kube-apiserver's request body limit (3 MiB).
export const MAX_BODY_BYTES = 3 << 20;

/**
 * bearerToken is the token of an Authorization header of the bearer scheme,
 * read as kube-apiserver's bearer token authenticator reads it: the scheme in
 * any case, then one space, then the token up to the next space; null when
 * there is none.
 */
export function bearerToken(authorization) {
  const [scheme, token = ''] = (authorization || '').split(' ', 2);
  return scheme.toLowerCase() === 'bearer' && token !== '' ? token : null;
}

// The header the front Worker sets, after checking the instructor token
// (INSTRUCTOR_TOKEN), on a request it hands a sandbox: the instructor reads
// (WORK-2). The front removes it from every other request, and only the front
// reaches the sandboxes.
export const INSTRUCTOR_HEADER = 'x-kubeplay-instructor';

/** The SHA-256 of text's UTF-8 (a token), as bytes. */
export async function sha256(text) {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
}

export const notFound = () => statusResponse(404, 'NotFound', 'the server could not find the requested resource');
export const unauthorized = () => statusResponse(401, 'Unauthorized', 'Unauthorized');
export const tooLarge = () => statusResponse(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${MAX_BODY_BYTES}`);
export const instructorWrites = () => statusResponse(403, 'Forbidden', 'forbidden: the instructor token reads a sandbox (GET, HEAD); it writes nothing');
export const methodNotAllowed = () => statusResponse(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
