// make edge-dev: the whole edge in a local workerd, no account, no network.
// Storage persists in build/edge/storage. The front Worker listens on
// EDGE_LISTEN (default 127.0.0.1:8787, HTTP: the playground) and EDGE_LISTEN_TLS
// (default 127.0.0.1:8788, HTTPS with a self-signed certificate: kubectl sends a
// kubeconfig's token only over TLS). KUBEPLAY_INSTRUCTOR_TOKEN enables workshop
// mode (one is generated and printed when unset).

import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { startEdge, BUILD } from './workerd.mjs';

const storageDir = path.join(BUILD, 'storage');
const instructorToken = process.env.KUBEPLAY_INSTRUCTOR_TOKEN || randomBytes(18).toString('base64url');
const edge = await startEdge({
  storageDir,
  https: true,
  listen: { http: process.env.EDGE_LISTEN || '127.0.0.1:8787', https: process.env.EDGE_LISTEN_TLS || '127.0.0.1:8788' },
  vars: { INSTRUCTOR_TOKEN: instructorToken, CREATE_LIMIT_PER_HOUR: '100' },
  log: 'inherit',
});
const ca = path.relative(process.cwd(), path.join(storageDir, 'tls-cert.pem'));
console.log(`kubeplay edge:
  playground:  ${edge.url}/
  a sandbox:   curl -s -X POST --cacert ${ca} ${edge.httpsUrl}/sandboxes
  a workshop:  curl -s -X POST --cacert ${ca} -H 'Authorization: Bearer ${instructorToken}' -d '{"attendees":3}' ${edge.httpsUrl}/workshops
  kubectl:     kubectl --kubeconfig KUBECONFIG --certificate-authority ${ca} get ns
Ctrl-C stops it.`);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, async () => {
    await edge.stop();
    process.exit(0);
  });
}
