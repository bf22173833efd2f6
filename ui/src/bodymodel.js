// bodymodel.js — what the body editor knows about a YAML body, without the
// DOM: its syntax errors at the line and column where the mistake is (any
// document of a stream; a JSON body's where JSON.parse stops), the object path under the cursor (apiVersion, kind,
// the keys above it, the key being typed) read from the lines as typed, and
// the fields an OpenAPI v3 document (the sandbox's /openapi/v3/<gv>) allows
// there, with their types as kubectl explain writes them and descriptions.

import YAML from 'yaml';

/** lineCol(text, offset) → {line, col}, both from 1. */
export function lineCol(text, offset) {
  const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
  const nl = before.lastIndexOf('\n');
  return { line: before.split('\n').length, col: before.length - nl };
}

/**
 * yamlDiagnostics(text) → [{from, to, line, col, message}]: the stream's
 * syntax errors (every document's), one per place, in text order. A key
 * indented deeper than the one above it (which already has a value) is put
 * on the deeper key's line, and an unclosed quote at the quote that opens
 * it: where the mistake is, not where the parser noticed it.
 */
export function yamlDiagnostics(text) {
  const out = [];
  for (const doc of YAML.parseAllDocuments(text)) {
    const errors = doc.errors || [];
    const multiline = new Set(errors.filter((e) => e.code === 'MULTILINE_IMPLICIT_KEY').map((e) => e.pos[0]));
    for (const e of errors) {
      let [from, to] = e.pos;
      let message = e.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
      if (e.code === 'BLOCK_AS_IMPLICIT_KEY' && multiline.has(from)) continue;
      if (e.code === 'MULTILINE_IMPLICIT_KEY') {
        from = text.lastIndexOf('\n', Math.max(0, to - 1)) + 1;
        while (text[from] === ' ') from++;
        message = 'Bad indentation: this key is indented deeper than the key above it, which already has a value';
      } else if (e.code === 'MISSING_CHAR' && /quote/.test(message)) {
        const open = openingQuote(text, from);
        if (open >= 0) [from, to] = [open, open + 1];
        message = `Missing closing ${text[from] === "'" ? "'" : '"'}quote: the quoted string that starts here is never closed`;
      } else if (e.code === 'DUPLICATE_KEY') {
        const key = text.slice(from).match(/^[^:\n]*/)[0].trim();
        message = `Duplicate key ${key}: map keys must be unique`;
        to = from + Math.max(1, key.length);
      } else if (e.code === 'TAB_AS_INDENT') {
        message = 'Tabs are not allowed as indentation (use spaces)';
      }
      if (to <= from) to = Math.min(text.length, from + 1);
      if (from >= text.length && from > 0) from = to = text.length;
      const { line, col } = lineCol(text, from);
      if (!out.some((d) => d.from === from)) out.push({ from, to: Math.max(to, from), line, col, message });
    }
  }
  return out.sort((a, b) => a.from - b.from);
}

/**
 * jsonDiagnostics(text) → [] or [{from, to, line, col, message}]: where
 * JSON.parse stops on the body (an empty body is no problem).
 */
export function jsonDiagnostics(text) {
  if (!text.trim()) return [];
  try {
    JSON.parse(text);
    return [];
  } catch (e) {
    const m = e.message.match(/at position (\d+)/);
    const from = m ? Math.min(+m[1], text.length) : text.length;
    const message = e.message.replace(/ in JSON at position \d+.*$/, '').replace(/^JSON\.parse: /, '');
    return [{ from, to: Math.min(text.length, from + 1), ...lineCol(text, from), message }];
  }
}

// openingQuote is the quote that opens the quoted scalar still open at pos:
// the last quote before pos that starts a value (after "key: ", "- ", a flow
// bracket or comma, or at a line's start).
function openingQuote(text, pos) {
  const re = /(^|[:\-[{,]\s+|^\s*|[[{,])(["'])/gm;
  let last = -1;
  for (let m; (m = re.exec(text)) && m.index < pos; ) {
    const at = m.index + m[1].length;
    if (at < pos) last = at;
  }
  return last;
}

// A line of a block YAML document: its dashes (sequence items, by column),
// the column and name of its key, and whether the key has a value on it.
const LINE = /^(\s*)((?:-(?:\s+|$))*)(?:([^\s#:'"-][^:#]*?|"[^"]*"|'[^']*')\s*:(?=\s|$)(.*))?/;

function parseLine(line) {
  const m = line.match(LINE);
  const indent = m[1].length;
  const dashes = [];
  for (let i = 0, col = indent; i < m[2].length; i++, col++) if (m[2][i] === '-') dashes.push(col);
  const keyCol = indent + m[2].length;
  const key = m[3] !== undefined ? m[3].replace(/^["']|["']$/g, '') : null;
  const rest = m[4] !== undefined ? m[4].replace(/\s+#.*$/, '').trim() : '';
  return { indent, dashes, keyCol, key, hasValue: key !== null && rest !== '' && !/^[|>]/.test(rest) };
}

/**
 * yamlContext(text, pos) → {apiVersion, kind, path, key, inKey, prefix, from, siblings}:
 * the document around pos (between "---" lines), its top-level apiVersion and
 * kind, the keys (and "[]" for a sequence item) from the document's root to
 * the mapping pos is in, the key on pos's line, and, when pos is where a key
 * is being typed, inKey with the typed prefix starting at from; siblings
 * are the other keys of its mapping.
 */
export function yamlContext(text, pos) {
  const lines = text.split('\n');
  const { line: ln, col } = lineCol(text, pos);
  const L = ln - 1;
  const isSep = (s) => /^(---|\.\.\.)(\s|$)/.test(s);
  let start = L;
  while (start > 0 && !isSep(lines[start - 1])) start--;
  let end = L;
  while (end < lines.length - 1 && !isSep(lines[end + 1])) end++;
  let apiVersion = '';
  let kind = '';
  for (let i = start; i <= end; i++) {
    const m = lines[i].match(/^(apiVersion|kind):\s*["']?([^\s"'#]+)/);
    if (m && m[1] === 'apiVersion') apiVersion = m[2];
    else if (m) kind = m[2];
  }
  const current = lines[L] || '';
  const before = current.slice(0, col - 1);
  const typing = before.match(/^(\s*)((?:-\s+)*)([\w.\/-]*)$/);
  const here = parseLine(isSep(current) ? '' : current);
  const inKey = !!typing && !isSep(current);
  const keyCol = inKey ? typing[1].length + typing[2].length : here.keyCol;
  const path = [];
  let target = keyCol;
  let seq = false;
  const enter = (dashes) => {
    for (let d = dashes.length - 1; d >= 0; d--) path.unshift('[]');
    if (dashes.length) {
      target = dashes[0];
      seq = true;
    }
  };
  enter((inKey ? parseLine(typing[1] + typing[2]) : here).dashes);
  for (let i = L - 1; i >= start && (target > 0 || seq); i--) {
    if (/^\s*(#.*)?$/.test(lines[i])) continue;
    const p = parseLine(lines[i]);
    const col0 = p.dashes.length ? p.dashes[0] : p.keyCol;
    if (p.key !== null && !p.hasValue && (p.keyCol < target || (seq && p.keyCol <= target))) {
      path.unshift(p.key);
      target = p.keyCol;
      seq = false;
      enter(p.dashes);
    } else if (p.dashes.length && p.keyCol === target && !seq) {
      enter(p.dashes);
    } else if (col0 < target) {
      target = col0;
      seq = false;
    }
  }
  const prefix = inKey ? typing[3] : '';
  const startsItem = (inKey ? typing[2] : '') !== '' || here.dashes.length > 0;
  return { apiVersion, kind, path, key: here.key !== null ? here.key : prefix, inKey, prefix, from: pos - prefix.length,
    siblings: siblings(lines, L, start, end, keyCol, startsItem) };
}

// siblings are the other keys of the mapping line L is in (at keyCol), up to
// the line that starts its sequence item or its parent, down to the next.
function siblings(lines, L, start, end, keyCol, startsItem) {
  const keys = [];
  const scan = (from, step) => {
    for (let i = from; i >= start && i <= end; i += step) {
      if (/^\s*(#.*)?$/.test(lines[i])) continue;
      const p = parseLine(lines[i]);
      const col0 = p.dashes.length ? p.dashes[0] : p.keyCol;
      const item = p.dashes.length > 0 && p.keyCol === keyCol;
      if (col0 < keyCol && !item) return;
      if (item && step > 0) return;
      if (p.keyCol === keyCol && p.key !== null) keys.push(p.key);
      if (item) return;
    }
  };
  if (!startsItem) scan(L - 1, -1);
  scan(L + 1, 1);
  return keys;
}

/** groupVersionPath('apps/v1') → 'apis/apps/v1'; 'v1' → 'api/v1' (the /openapi/v3 index's keys). */
export function groupVersionPath(apiVersion) {
  if (!apiVersion) return '';
  return apiVersion.includes('/') ? `apis/${apiVersion}` : `api/${apiVersion}`;
}

function refSchema(doc, ref) {
  const name = ref.replace(/^#\/components\/schemas\//, '');
  return { name, schema: doc?.components?.schemas?.[name] || null };
}

// resolve follows a property's $ref (directly or as kube writes it, a lone
// allOf) to the schema it names, keeping the property's own description.
function resolve(doc, s) {
  if (!s) return { schema: null, name: '' };
  const ref = s.$ref || (s.allOf && s.allOf.length === 1 && s.allOf[0].$ref);
  if (!ref) return { schema: s, name: '' };
  const r = refSchema(doc, ref);
  return { schema: r.schema, name: r.name.split('.').pop() };
}

/** rootSchema(doc, apiVersion, kind) → the schema of kind in doc (x-kubernetes-group-version-kind), or null. */
export function rootSchema(doc, apiVersion, kind) {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  for (const s of Object.values(doc?.components?.schemas || {})) {
    const gvks = s['x-kubernetes-group-version-kind'] || [];
    if (gvks.some((g) => g.group === group && g.version === version && g.kind === kind)) return s;
  }
  return null;
}

/** schemaAt(doc, root, path) → the schema at path ("[]" steps into a sequence's items), or null. */
export function schemaAt(doc, root, path) {
  let s = root;
  for (const step of path) {
    if (!s) return null;
    if (step === '[]') s = resolve(doc, s.items).schema;
    else s = resolve(doc, (s.properties && s.properties[step]) || (typeof s.additionalProperties === 'object' ? s.additionalProperties : null)).schema;
  }
  return s || null;
}

/** typeLabel(doc, property) is the property's type as kubectl explain writes it: integer, Object, []Container, map[string]string. */
export function typeLabel(doc, prop) {
  const { schema, name } = resolve(doc, prop);
  if (name) return name;
  if (!schema) return '';
  if (schema.type === 'array') return `[]${typeLabel(doc, schema.items)}`;
  if (schema.type === 'object' && typeof schema.additionalProperties === 'object') return `map[string]${typeLabel(doc, schema.additionalProperties)}`;
  if (schema.type === 'object') return 'Object';
  return schema.type || (schema['x-kubernetes-int-or-string'] ? 'IntOrString' : 'Object');
}

function describe(doc, parent, name) {
  const prop = parent.properties[name];
  const required = (parent.required || []).includes(name);
  return { name, type: typeLabel(doc, prop), required, description: prop.description || resolve(doc, prop).schema?.description || '' };
}

/** fieldsAt(doc, apiVersion, kind, path) → [{name, type, required, description}] the mapping at path may hold. */
export function fieldsAt(doc, apiVersion, kind, path) {
  const s = schemaAt(doc, rootSchema(doc, apiVersion, kind), path);
  if (!s || !s.properties) return [];
  return Object.keys(s.properties).sort().map((name) => describe(doc, s, name));
}

/**
 * unknownFields(text, docFor) → [{from, to, line, col, message}]: keys of
 * the stream's objects that their schema does not have (docFor(apiVersion)
 * is the group-version's OpenAPI document or null); a mapping of free keys
 * (labels, a preserve-unknown-fields object) or a kind not in its document
 * has none.
 */
export function unknownFields(text, docFor) {
  const out = [];
  let offset = 0;
  for (const line of text.split('\n')) {
    const p = parseLine(line);
    if (p.key !== null && !/^(---|\.\.\.)(\s|$)/.test(line)) {
      const from = offset + p.keyCol;
      const c = yamlContext(text, from);
      const doc = c.apiVersion && c.kind ? docFor(c.apiVersion) : null;
      const root = doc && rootSchema(doc, c.apiVersion, c.kind);
      const s = root && schemaAt(doc, root, c.path);
      if (s && s.properties && !s.additionalProperties && !s['x-kubernetes-preserve-unknown-fields'] && !Object.hasOwn(s.properties, p.key)) {
        const field = [...c.path, p.key].join('.').replace(/\.\[\]/g, '[]');
        out.push({ from, to: from + p.key.length, ...lineCol(text, from), message: `unknown field "${field}": ${c.kind} ${c.apiVersion} has no such field` });
      }
    }
    offset += line.length + 1;
  }
  return out;
}

/** fieldDoc(doc, apiVersion, kind, path, key) → {name, type, required, description} of key in the mapping at path, or null. */
export function fieldDoc(doc, apiVersion, kind, path, key) {
  const s = schemaAt(doc, rootSchema(doc, apiVersion, kind), path);
  if (!s || !s.properties || !key || !Object.hasOwn(s.properties, key)) return null;
  return describe(doc, s, key);
}
