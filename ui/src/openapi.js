// openapi.js — the target's OpenAPI v3 documents for the body editor's
// completion and field docs: the /openapi/v3 index fetched once, each
// group-version's document once (through apiFetch, so from the chosen
// target), all forgotten when the target changes; a failed fetch is not kept.

import { apiFetch, onTargetChange } from './api.js';

let index = null;
const docs = new Map();
onTargetChange(() => {
  index = null;
  docs.clear();
});

async function getJSON(path) {
  const r = await apiFetch(path, { headers: { Accept: 'application/json' } });
  return r.ok ? r.json() : null;
}

/** openAPIDocument('apis/apps/v1') → Promise of the document, or null when the target serves none. */
export function openAPIDocument(gvPath) {
  if (!gvPath) return Promise.resolve(null);
  if (!docs.has(gvPath)) {
    const got = (async () => {
      if (!index) index = getJSON('/openapi/v3');
      const idx = await index;
      if (!idx) index = null;
      const url = idx?.paths?.[gvPath]?.serverRelativeURL;
      return url ? getJSON(url) : null;
    })().catch(() => null);
    docs.set(gvPath, got);
    got.then((d) => { if (!d && docs.get(gvPath) === got) docs.delete(gvPath); });
  }
  return docs.get(gvPath);
}
