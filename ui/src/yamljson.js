// yamljson.js — YAML ↔ JSON text for the request body. Pure (no DOM).

import YAML from 'yaml';
import { yamlDiagnostics } from './bodymodel.js';

/** Rewrites text from one language to the other: {ok, text} or {ok: false, error}. */
export function convertText(text, from, to) {
  try {
    if (from === to) return { ok: true, text };
    if (from === 'yaml' && to === 'json') return { ok: true, text: yamlToJson(text, 2) };
    const value = JSON.parse(text);
    return { ok: true, text: YAML.stringify(value, { lineWidth: 0 }) };
  } catch (e) {
    return { ok: false, error: e.message };
  }
}

/**
 * YAML text → JSON text. A stream of several documents becomes a JSON array
 * only when asked (Kubernetes takes one object per request).
 */
export function yamlToJson(text, indent = 0) {
  const [problem] = yamlDiagnostics(text);
  if (problem) throw new Error(`YAML: line ${problem.line}, column ${problem.col}: ${problem.message}`);
  const real = YAML.parseAllDocuments(text).filter((d) => d.contents !== null);
  if (real.length > 1) throw new Error(`YAML: ${real.length} documents; send one object per request`);
  const value = real.length ? real[0].toJSON() : null;
  return JSON.stringify(value, null, indent || undefined);
}
