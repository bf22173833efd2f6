// bytes.js — byte arrays joined (the terminal's pipe, the instructor's zip)
// and written as base64 (a share link's fragment, a workshop's state).

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

/** base64 is bytes (a Uint8Array) in base64, as JSON carries a Go []byte. */
export function base64(bytes) {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}
