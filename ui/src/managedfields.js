// managedfields.js — metadata.managedFields made readable: each entry's
// fieldsV1 as the field paths kube's conflict messages use
// (.spec.containers[name="web"].image), entries grouped by manager, and an
// object's JSON with its managedFields folded away (the response view shows
// them by manager instead).

/** The object's managedFields entries, or [] (lists and others have none). */
export function managedFieldsOf(value) {
  const mf = value && typeof value === 'object' && value.metadata && value.metadata.managedFields;
  return Array.isArray(mf) ? mf.filter((e) => e && typeof e === 'object') : [];
}

// pathElement renders one fieldsV1 key: f:name, k:{"name":"web"}, v:"x", i:0.
function pathElement(key) {
  const kind = key.slice(0, 2);
  const rest = key.slice(2);
  switch (kind) {
    case 'f:':
      return '.' + rest;
    case 'k:': {
      try {
        const fields = JSON.parse(rest);
        return '[' + Object.keys(fields).sort().map((k) => `${k}=${JSON.stringify(fields[k])}`).join(',') + ']';
      } catch {
        return `[${rest}]`;
      }
    }
    case 'v:':
      return `[=${rest}]`;
    case 'i:':
      return `[${rest}]`;
  }
  return `[${key}]`;
}

/** The field paths a fieldsV1 value sets: its members, in order. */
export function fieldsV1Paths(fields, prefix = '') {
  const out = [];
  if (!fields || typeof fields !== 'object') return out;
  for (const key of Object.keys(fields)) {
    if (key === '.') continue;
    const child = fields[key];
    const path = prefix + pathElement(key);
    const childKeys = child && typeof child === 'object' ? Object.keys(child) : [];
    if (childKeys.length === 0 || childKeys.includes('.')) out.push(path);
    out.push(...fieldsV1Paths(child, path));
  }
  return out;
}

/**
 * The entries grouped by manager, in their order of first appearance:
 * [{manager, entries: [{operation, apiVersion, subresource, time, paths}]}].
 */
export function groupByManager(entries) {
  const groups = new Map();
  for (const e of entries) {
    const manager = e.manager || '(no manager)';
    if (!groups.has(manager)) groups.set(manager, { manager, entries: [] });
    groups.get(manager).entries.push({
      operation: e.operation || '',
      apiVersion: e.apiVersion || '',
      subresource: e.subresource || '',
      time: e.time || '',
      paths: fieldsV1Paths(e.fieldsV1),
    });
  }
  return [...groups.values()];
}

/** A short description of one entry: "Apply · v1 · status · 2026-01-02T03:04:05Z". */
export function describeEntry(e) {
  return [e.operation, e.apiVersion, e.subresource && `subresource ${e.subresource}`, e.time].filter(Boolean).join(' · ');
}

/** value with its metadata.managedFields folded to one line saying where they are. */
export function foldManagedFields(value) {
  const entries = managedFieldsOf(value);
  if (!entries.length) return value;
  const managers = new Set(entries.map((e) => e.manager)).size;
  return {
    ...value,
    metadata: {
      ...value.metadata,
      managedFields: `… ${entries.length} ${entries.length === 1 ? 'entry' : 'entries'} of ${managers} ${managers === 1 ? 'manager' : 'managers'}, shown by manager above (Raw shows them)`,
    },
  };
}
