// make edge-dev: the whole edge in a local workerd, no account, no network.
// Storage persists in build/edge/storage. EDGE_LISTEN (default 127.0.0.1:8787)
// is the address; KUBEPLAY_INSTRUCTOR_TOKEN enables workshop mode (one is
// generated and printed when unset).

import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { startEdge, BUILD } from './workerd.mjs';

const instructorToken = process.env.KUBEPLAY_INSTRUCTOR_TOKEN || randomBytes(18).toString('base64url');
const edge = await startEdge({
  storageDir: path.join(BUILD, 'storage'),
  listen: { http: process.env.EDGE_LISTEN || '127.0.0.1:8787' },
  vars: { INSTRUCTOR_TOKEN: instructorToken, CREATE_LIMIT_PER_HOUR: '100' },
  log: 'inherit',
});
console.log(`kubeplay edge on ${edge.url}
  playground:  ${edge.url}/
  a sandbox:   curl -X POST ${edge.url}/sandboxes
  a workshop:  curl -X POST -H 'Authorization: Bearer ${instructorToken}' -d '{"attendees":3}' ${edge.url}/workshops
Ctrl-C stops it.`);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, async () => {
    await edge.stop();
    process.exit(0);
  });
}
