// highlight.js — small read-only highlighters for response bodies (JSON, YAML)
// that render every line into a <pre>, so the whole text is in the DOM.

const LIMIT = 2 * 1024 * 1024; // past this, plain text

export function escapeHtml(s) {
  return s.replace(/[&<>"]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&quot;'));
}

const JSON_TOKEN = /("(?:\\.|[^"\\])*")(\s*:)?|\b(true|false|null)\b|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|([{}[\],])/g;

/** HTML for JSON text, with spans tok-key, tok-str, tok-num, tok-lit, tok-punct. */
export function highlightJson(text) {
  if (text.length > LIMIT) return escapeHtml(text);
  let out = '';
  let last = 0;
  JSON_TOKEN.lastIndex = 0;
  for (let m; (m = JSON_TOKEN.exec(text)); ) {
    out += escapeHtml(text.slice(last, m.index));
    if (m[1] !== undefined) {
      if (m[2] !== undefined) out += `<span class="tok-key">${escapeHtml(m[1])}</span>${escapeHtml(m[2])}`;
      else out += `<span class="tok-str">${escapeHtml(m[1])}</span>`;
    } else if (m[3] !== undefined) out += `<span class="tok-lit">${m[3]}</span>`;
    else if (m[4] !== undefined) out += `<span class="tok-num">${m[4]}</span>`;
    else out += `<span class="tok-punct">${escapeHtml(m[5])}</span>`;
    last = JSON_TOKEN.lastIndex;
  }
  return out + escapeHtml(text.slice(last));
}

const YAML_LINE = /^(\s*(?:-\s+)*)([^\s#'"][^:#]*?|"[^"]*"|'[^']*')(:)(?=\s|$)(.*)$/;

/** HTML for YAML text: keys, comments, scalars. */
export function highlightYaml(text) {
  if (text.length > LIMIT) return escapeHtml(text);
  return text
    .split('\n')
    .map((line) => {
      if (/^\s*#/.test(line)) return `<span class="tok-comment">${escapeHtml(line)}</span>`;
      if (/^(---|\.\.\.)\s*$/.test(line)) return `<span class="tok-punct">${escapeHtml(line)}</span>`;
      const m = line.match(YAML_LINE);
      if (m) return `${escapeHtml(m[1])}<span class="tok-key">${escapeHtml(m[2])}</span>${m[3]}${scalar(m[4])}`;
      const d = line.match(/^(\s*-\s+)(.*)$/);
      if (d) return `${escapeHtml(d[1])}${scalar(d[2])}`;
      return escapeHtml(line);
    })
    .join('\n');
}

function scalar(s) {
  const m = s.match(/^(\s*)(.*?)(\s+#.*)?$/);
  const [, lead, v, comment = ''] = m;
  let cls = 'tok-str';
  if (/^(true|false|null|~)$/.test(v)) cls = 'tok-lit';
  else if (/^-?\d+(\.\d+)?$/.test(v)) cls = 'tok-num';
  else if (v === '' || v === '|' || v === '>' || v === '|-' || v === '>-') cls = 'tok-punct';
  return `${lead}<span class="${cls}">${escapeHtml(v)}</span>${comment ? `<span class="tok-comment">${escapeHtml(comment)}</span>` : ''}`;
}

/** A hex dump of bytes (for protobuf, CBOR and other binary bodies). */
export function hexDump(bytes, max = 64 * 1024) {
  const n = Math.min(bytes.length, max);
  const lines = [];
  for (let i = 0; i < n; i += 16) {
    const row = bytes.subarray(i, Math.min(i + 16, n));
    const hex = Array.from(row, (b) => b.toString(16).padStart(2, '0')).join(' ');
    const asc = Array.from(row, (b) => (b >= 32 && b < 127 ? String.fromCharCode(b) : '.')).join('');
    lines.push(`${i.toString(16).padStart(8, '0')}  ${hex.padEnd(47)}  ${asc}`);
  }
  if (bytes.length > max) lines.push(`… ${bytes.length - max} more bytes`);
  return lines.join('\n');
}
