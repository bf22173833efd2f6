// bytes.js — byte arrays joined (the terminal's pipe, the instructor's zip).

/** concatBytes is the Uint8Arrays of parts one after the other. */
export function concatBytes(parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
