// warnings.js — reads the Warning headers of an answer (RFC 7234, as
// kube-apiserver writes them: `299 - "unknown field \"spec.foo\""`). fetch
// joins several headers with ", ", and a warning's text may hold commas, so
// the header is read warning by warning, as client-go's ParseWarningHeaders
// does. The texts are Go-quoted strings.

const ESCAPES = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', '"': '"', "'": "'" };

/** Unquotes the inside of a Go-quoted string (strconv.Quote's escapes). */
function unquoteGo(s) {
  const enc = new TextEncoder();
  const bytes = [];
  for (let i = 0; i < s.length;) {
    if (s[i] !== '\\') {
      const cp = s.codePointAt(i);
      bytes.push(...enc.encode(String.fromCodePoint(cp)));
      i += cp > 0xffff ? 2 : 1;
      continue;
    }
    const e = s[i + 1];
    if (e in ESCAPES) {
      bytes.push(ESCAPES[e].charCodeAt(0));
      i += 2;
    } else if (e === 'x') {
      bytes.push(parseInt(s.slice(i + 2, i + 4), 16));
      i += 4;
    } else if (e === 'u' || e === 'U') {
      const n = e === 'u' ? 4 : 8;
      bytes.push(...enc.encode(String.fromCodePoint(parseInt(s.slice(i + 2, i + 2 + n), 16))));
      i += 2 + n;
    } else { // an octal byte
      bytes.push(parseInt(s.slice(i + 1, i + 4), 8));
      i += 4;
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

/**
 * parseWarnings reads a Warning header value (several joined with ", ") into
 * [{code, agent, text}]; what does not read as a warning is kept as its text.
 */
export function parseWarnings(header) {
  const out = [];
  const re = /\s*(\d{3}) (\S+) "((?:[^"\\]|\\.)*)"(?: "[^"]*")?\s*(?:,|$)/y;
  let i = 0;
  while (header && i < header.length) {
    re.lastIndex = i;
    const m = re.exec(header);
    if (!m) {
      out.push({ code: 0, agent: '', text: header.slice(i).trim() });
      break;
    }
    out.push({ code: Number(m[1]), agent: m[2], text: unquoteGo(m[3]) });
    i = re.lastIndex;
  }
  return out;
}
